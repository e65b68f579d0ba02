/**
 * The outbound guard (engine/adapters/outbound-guard.ts) against a real HTTP server on loopback:
 * refused before any connection, the allowlist, DNS rebinding between check and connect, redirects
 * re-checked, the body size cap.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockedAddressError, createOutboundGuard, isPrivateAddress, ResponseTooLargeError } from '../../engine/adapters/outbound-guard.ts';
import { loadConfig } from '../../engine/core/config.ts';

let server: Server;
let port = 0;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    if (req.url === '/redirect-private') { res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(); return; }
    if (req.url === '/redirect-ok') { res.writeHead(302, { location: '/ok' }).end(); return; }
    if (req.url === '/big') { res.end(Buffer.alloc(2048, 1)); return; }
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('outbound guard', () => {
  it.each([
    ['127.0.0.1', true], ['10.2.3.4', true], ['172.31.0.1', true], ['192.168.1.1', true], ['169.254.169.254', true],
    ['100.64.0.1', true], ['0.0.0.0', true], ['224.0.0.1', true], ['::1', true], ['[::1]', true], ['fd00::1', true],
    ['fe80::1', true], ['::ffff:127.0.0.1', true], ['::ffff:7f00:1', true], ['8.8.8.8', false], ['2606:4700::1111', false],
    ['172.32.0.1', false], ['::ffff:8.8.8.8', false],
  ])('%s private: %s', (addr, want) => {
    expect(isPrivateAddress(addr)).toBe(want);
  });

  it('refuses a private literal before connecting, and lets an allowlisted one through', async () => {
    const before = hits;
    const closed = createOutboundGuard();
    await expect(closed.request(`http://127.0.0.1:${port}/ok`)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(closed.request(`http://localhost:${port}/ok`)).rejects.toThrow(/localhost/);
    expect(hits).toBe(before);
    const open = createOutboundGuard({ allowlist: ['127.0.0.0/8'] });
    const res = await open.request(`http://127.0.0.1:${port}/ok`);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('ok');
    await Promise.all([closed.close(), open.close()]);
  });

  it('localhost is decided by its addresses: refused unless OUTBOUND_ALLOWLIST opens them, and only loopback ones', async () => {
    const before = hits;
    const open = createOutboundGuard({ allowlist: ['127.0.0.1'] });
    // The system resolver, as in production (/etc/hosts).
    const res = await open.request(`http://localhost:${port}/ok`);
    expect(res.status).toBe(200);
    expect(hits).toBe(before + 1);
    // Where localhost also answers ::1, allowlisting 127.0.0.1 keeps that one address.
    const both = createOutboundGuard({ allowlist: ['127.0.0.1'], resolve: () => Promise.resolve([{ address: '::1', family: 6 }, { address: '127.0.0.1', family: 4 }]) });
    await expect(both.check(new URL('http://localhost/'))).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
    await expect(both.check(new URL('http://app.localhost/'))).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
    const closed = createOutboundGuard({ resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]) });
    await expect(closed.check(new URL('http://localhost/'))).rejects.toThrow(/localhost is not a public host/);
    // A localhost name must be loopback: one answering an (allowlisted) private address is refused.
    const odd = createOutboundGuard({ allowlist: ['10.0.0.0/8'], resolve: () => Promise.resolve([{ address: '10.0.0.5', family: 4 }]) });
    await expect(odd.check(new URL('http://localhost/'))).rejects.toThrow(/not a loopback address/);
    await Promise.all([open.close(), both.close(), closed.close(), odd.close()]);
  });

  it('DNS rebinding: a name public when checked and private at connect is refused at connect', async () => {
    let calls = 0;
    const guard = createOutboundGuard({
      resolve: () => Promise.resolve(calls++ === 0 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]),
    });
    const url = new URL(`http://rebind.example:${port}/ok`);
    await expect(guard.check(url)).resolves.toEqual([{ address: '93.184.215.14', family: 4 }]);
    const before = hits;
    await expect(guard.request(url)).rejects.toThrow(/resolves to 127\.0\.0\.1/);
    expect(hits).toBe(before);
    await guard.close();
  });

  it('re-checks every redirect hop and caps the body', async () => {
    const guard = createOutboundGuard({ allowlist: ['127.0.0.1'] });
    await expect(guard.request(`http://127.0.0.1:${port}/redirect-private`, { maxRedirects: 3 })).rejects.toThrow(/169\.254\.169\.254/);
    const ok = await guard.request(`http://127.0.0.1:${port}/redirect-ok`, { maxRedirects: 3 });
    expect(ok.url).toBe(`http://127.0.0.1:${port}/ok`);
    const unfollowed = await guard.request(`http://127.0.0.1:${port}/redirect-ok`);
    expect(unfollowed.status).toBe(302);
    await expect(guard.request(`http://127.0.0.1:${port}/big`, { maxBytes: 2047 })).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect((await guard.request(`http://127.0.0.1:${port}/big`, { maxBytes: 2048 })).body.length).toBe(2048);
    await guard.close();
  });

  it('OUTBOUND_ALLOWLIST is parsed by config and a bad entry is named', () => {
    expect(loadConfig({ OUTBOUND_ALLOWLIST: '127.0.0.1, 10.1.0.0/16' }).outboundAllowlist).toEqual(['127.0.0.1', '10.1.0.0/16']);
    expect(loadConfig({}).outboundAllowlist).toEqual([]);
    expect(() => loadConfig({ OUTBOUND_ALLOWLIST: '127.0.0.1,example.com' })).toThrow(/OUTBOUND_ALLOWLIST/);
    expect(() => loadConfig({ OUTBOUND_ALLOWLIST: '10.0.0.0/33' })).toThrow(/OUTBOUND_ALLOWLIST/);
  });
});
