/**
 * makeTestApp().close() ends the sockets a test's clients left open (the care-fixes brief, item 4):
 * one opened and never used, and a pooled keep-alive one that was busy when close began. Both
 * outlive a draining server.close() until the server's own timeouts, set long here so that only
 * the close itself can end them (before the fix each close waited for them). An app built with
 * production's setting still drains: the request in flight at close gets its whole answer.
 */
import { connect, type Socket } from 'node:net';
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { makeTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';

const LONG = 600_000;
const httpTimeouts = { requestMs: LONG, headersMs: LONG, idleMs: LONG, keepAliveMs: LONG, checkIntervalMs: LONG };

// One database for the file (PGlite's start-up is most of an app's on a loaded machine); each
// test builds and closes its own app on it. No workers: only the HTTP side is under test.
let db: Db;
beforeAll(async () => { db = await openPgliteDb(undefined); });
afterAll(async () => { await db?.close(); });
const app = (opts: TestAppOptions) => makeTestApp({ db, workers: [], webhookDeliverer: false, listen: true, ...opts });

const closed = (s: Socket) => new Promise<void>((r) => { if (s.destroyed) r(); else s.once('close', () => r()); });

/**
 * A POST over a keep-alive agent, sent with `Expect: 100-continue`: `inFlight` resolves when the
 * server has parsed its headers (its 100 Continue arrived), so the request is running; its body
 * is finished only when `finish` is called.
 */
function slowPost(t: TestApp): { inFlight: Promise<void>; finish: () => void; answer: Promise<{ status: number; body: string; socket: Socket }> } {
  let finish = () => {};
  let inFlight!: Promise<void>;
  const answer = new Promise<{ status: number; body: string; socket: Socket }>((resolve, reject) => {
    const req = request(`${t.baseUrl}/api/care-jobs`, {
      agent: new Agent({ keepAlive: true }), method: 'POST', headers: { 'content-type': 'application/json', expect: '100-continue' },
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socket: req.socket! }));
    });
    inFlight = new Promise<void>((ok) => req.once('continue', () => { req.write('{'); ok(); }));
    req.on('error', reject);
    req.flushHeaders();
    finish = () => { req.end('}'); };
  });
  return { inFlight, finish, answer };
}

describe('makeTestApp().close()', () => {
  it('ends a socket that was opened and never used', async () => {
    const t = await app({ httpTimeouts });
    const s = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    await t.close();
    await closed(s);
    expect(s.destroyed).toBe(true);
  });

  it('ends a keep-alive socket that was busy when close began', async () => {
    const t = await app({ httpTimeouts });
    const post = slowPost(t);
    await post.inFlight;
    const closing = t.close();
    post.finish();
    await closing;
    // The client sees its socket end (reset, or answered and then ended): nothing is left open.
    const socket = await post.answer.then((a) => a.socket, () => null);
    if (socket) await closed(socket);
    expect(socket?.destroyed ?? true).toBe(true);
  });
});

describe('production\'s setting (forceCloseConnections off)', () => {
  it('still drains: the request in flight at close gets its whole answer', async () => {
    const t = await app({ forceCloseConnections: false });
    const post = slowPost(t);
    await post.inFlight;
    const closing = t.close();
    post.finish();
    const a = await post.answer;
    expect(a.status).toBe(401);
    expect(JSON.parse(a.body)).toMatchObject({ error: 'not_authenticated' });
    // The client lets go of its pooled socket; the draining close then ends.
    a.socket.destroy();
    await closing;
  });
});
