/**
 * The listener (issue 2, item 11): beforeListen runs first (ensurePricingData in the CLI), and a
 * stop drains in-flight requests before closing, then refuses new connections.
 */
import pino from 'pino';
import { expect, it } from 'vitest';
import { loadConfig } from '../../engine/core/config.ts';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import { startServer } from '../../api/server.ts';
import { freePort } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { slowOperation } from './test-operations.ts';

it('graceful stop: the in-flight request completes, then the port is closed', async () => {
  const db = await openPgliteDb(undefined);
  const port = await freePort();
  const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: '/nonexistent-not-used', LOG_LEVEL: 'silent' });
  const slow = slowOperation();
  let ran = false;
  const server = await startServer(config, {
    db, identity: fakeIdentity(), operations: [slow.op], logger: pino({ level: 'silent' }),
    beforeListen: async () => { ran = true; },
  });
  try {
    expect(ran).toBe(true);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const inflight = fetch(`${base}/api/test/slow`);
    await slow.started;
    const stopping = server.stop('test');
    // Still draining: the slow request holds the close open.
    slow.release();
    const res = await inflight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    await stopping;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  } finally {
    await server.stop();
    await db.close();
  }
});
