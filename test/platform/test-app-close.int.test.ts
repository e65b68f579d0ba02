/**
 * makeTestApp().close() ends the sockets a test's clients left open (the care-fixes brief, item 4):
 * one opened and never used, and a pooled keep-alive one that was busy when close began. Both
 * outlive a draining server.close() until the server's own timeouts, set long here so that only
 * the close itself can end them (before the fix each close waited for them). An app built with
 * production's setting still drains: the request in flight at close gets its whole answer.
 */
import { connect, type Socket } from 'node:net';
import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

const LONG = 600_000;
const httpTimeouts = { requestMs: LONG, headersMs: LONG, idleMs: LONG, keepAliveMs: LONG, checkIntervalMs: LONG };

/** Until the server holds `n` connections (the client's socket has reached it). */
async function connections(t: TestApp, n: number): Promise<void> {
  for (;;) {
    const count = await new Promise<number>((r, j) => t.app.server.getConnections((e, c) => (e ? j(e) : r(c))));
    if (count >= n) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const closed = (s: Socket) => new Promise<void>((r) => { if (s.destroyed) r(); else s.once('close', () => r()); });

/** A POST over a keep-alive agent whose body is finished only when `finish` is called. */
function slowPost(t: TestApp): { finish: () => void; answer: Promise<{ status: number; body: string; socket: Socket }> } {
  let finish = () => {};
  const answer = new Promise<{ status: number; body: string; socket: Socket }>((resolve, reject) => {
    const req = request(`${t.baseUrl}/api/care-jobs`, { agent: new Agent({ keepAlive: true }), method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socket: req.socket! }));
    });
    req.on('error', reject);
    req.write('{');
    finish = () => { req.end('}'); };
  });
  return { finish, answer };
}

describe('makeTestApp().close()', () => {
  it('ends a socket that was opened and never used', async () => {
    const t = await makeTestApp({ listen: true, httpTimeouts });
    const s = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    await t.close();
    await closed(s);
    expect(s.destroyed).toBe(true);
  }, 30_000);

  it('ends a keep-alive socket that was busy when close began', async () => {
    const t = await makeTestApp({ listen: true, httpTimeouts });
    const post = slowPost(t);
    await connections(t, 1);
    const closing = t.close();
    post.finish();
    await closing;
    // The client sees its socket end (reset, or answered and then ended): nothing is left open.
    const socket = await post.answer.then((a) => a.socket, () => null);
    if (socket) await closed(socket);
    expect(socket?.destroyed ?? true).toBe(true);
  }, 30_000);
});

describe('production\'s setting (forceCloseConnections off)', () => {
  it('still drains: the request in flight at close gets its whole answer', async () => {
    const t = await makeTestApp({ listen: true, forceCloseConnections: false });
    const post = slowPost(t);
    await connections(t, 1);
    const closing = t.close();
    post.finish();
    const a = await post.answer;
    expect(a.status).toBe(401);
    expect(JSON.parse(a.body)).toMatchObject({ error: 'not_authenticated' });
    // The client lets go of its pooled socket; the draining close then ends.
    a.socket.destroy();
    await closing;
  }, 30_000);
});
