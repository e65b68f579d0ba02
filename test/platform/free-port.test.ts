/**
 * Test servers' ports (test/helpers/free-port.ts): chosen below the kernel's ephemeral range, where
 * other workers' outgoing connections do not take them, and a start that lost its port anyway
 * (EADDRINUSE) is made again on another.
 */
import { expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort, onFreePort } from '../helpers/free-port.ts';

test('a free port comes from below the ephemeral range, and can be listened on', async () => {
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  const port = await freePort();
  expect(port).toBeLessThan(low);
  const s = createServer();
  await new Promise<void>((resolve, reject) => { s.once('error', reject); s.listen(port, '127.0.0.1', resolve); });
  await new Promise<void>((resolve) => s.close(() => resolve()));
});

test('onFreePort starts again on another port after EADDRINUSE, and only then', async () => {
  const ports: number[] = [];
  const got = await onFreePort(async (port) => {
    ports.push(port);
    if (ports.length === 1) throw Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    return port;
  });
  expect(ports).toHaveLength(2);
  expect(got).toBe(ports[1]);
  let calls = 0;
  await expect(onFreePort(async () => { calls++; throw new Error('other'); })).rejects.toThrow('other');
  expect(calls).toBe(1);
  calls = 0;
  await expect(onFreePort(async () => { calls++; throw Object.assign(new Error('taken'), { code: 'EADDRINUSE' }); }, 3)).rejects.toThrow('taken');
  expect(calls).toBe(3);
});
