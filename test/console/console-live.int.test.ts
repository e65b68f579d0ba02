/**
 * The console's live streams over real HTTP (issue 35, item 4): the queue stream announces a newly
 * matched request, the conversation stream a patient's message and a status change; heartbeats;
 * 401/403/404 before any stream; every bus listener released when the client goes away. On
 * PostgreSQL, a stream on one server process is woken by a message written through another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { realPostgresAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { loadCookieKeys } from '../../api/identity/keys.ts';
import { CookieSealer, SESSION_COOKIE } from '../../api/console/console-session.ts';
import { MAX_STREAMS_PER_USER } from '../../api/console/console-live.ts';
import { client, gatedConversation, payLink, provider, until, type Json } from '../visits/visit-fixture.ts';

const PG = realPostgresAvailable();
let cluster: PgCluster | undefined;
beforeAll(async () => { if (PG) cluster = await startPgCluster(); });
afterAll(async () => { await cluster?.stop(); });

const jobs = { pollSeconds: 0.5, superviseSeconds: 1 };

function cookieFor(env: TestApp, token: string): string {
  const sealed = new CookieSealer(loadCookieKeys(env.config)[0]!).seal({ token, csrf: 'c'.repeat(43), exp: Date.now() + 3_600_000 });
  return `${SESSION_COOKIE}=${sealed}`;
}

interface SseEvent { event?: string; data?: string; comment?: string }

/** An open event stream: `next(match)` reads until an event that matches arrives. */
async function openStream(url: string, cookie: string) {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { cookie, accept: 'text/event-stream' }, signal: abort.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  const seen: SseEvent[] = [];
  return {
    seen,
    async next(match: (e: SseEvent) => boolean): Promise<SseEvent> {
      for (;;) {
        const cut = buf.indexOf('\n\n');
        if (cut >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const e: SseEvent = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) e.comment = line.slice(1).trim();
            else if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('data: ')) e.data = line.slice(6);
          }
          seen.push(e);
          if (match(e)) return e;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended; saw ${JSON.stringify(seen)}`);
        buf += value;
      }
    },
    close: () => abort.abort(),
  };
}

async function pageVersion(env: TestApp, path: string, cookie: string): Promise<{ version: string; body: string }> {
  const r = await env.app.inject({ method: 'GET', url: path, headers: { cookie } });
  expect(r.statusCode).toBe(200);
  return { version: /data-version="([\w-]+)"/.exec(r.body)![1]!, body: r.body };
}

describe('console live streams', () => {
  let env: TestApp;
  let identity: FakeIdentity;
  beforeAll(async () => {
    identity = fakeIdentity();
    env = await makeTestApp({ listen: true, identity, triage: scriptedTriage(), consoleHeartbeatMs: 100, env: { CARE_REPLY_WAIT_SECONDS: '5' }, jobs });
  });
  let closed = false;
  afterAll(async () => { if (!closed) await env?.close(); });

  it('refuses a stream to no session (401), a patient (403) and a conversation not offered (404)', async () => {
    const patient = await identity.signUp(env.db);
    const doctor = await provider(env, identity);
    const none = await fetch(`${env.baseUrl}/console/events`);
    expect(none.status).toBe(401);
    const asPatient = await fetch(`${env.baseUrl}/console/events`, { headers: { cookie: cookieFor(env, patient.token) } });
    expect(asPatient.status).toBe(403);
    const c = await gatedConversation(env, identity);
    const notOffered = await fetch(`${env.baseUrl}/console/visits/${c.id}/events`, { headers: { cookie: cookieFor(env, identity.adopt(doctor.accountId)) } });
    expect(notOffered.status).toBe(404);
    expect(env.app.consoleLive!.openCount).toBe(0);
    expect(env.app.consoleLive!.subscriptionCount).toBe(0);
  });

  it('caps the streams one account holds (429), and frees a place when one closes', async () => {
    const doctor = await provider(env, identity);
    const cookie = cookieFor(env, identity.adopt(doctor.accountId));
    const open = [];
    for (let i = 0; i < MAX_STREAMS_PER_USER; i++) open.push(await openStream(`${env.baseUrl}/console/events`, cookie));
    expect((await fetch(`${env.baseUrl}/console/events`, { headers: { cookie } })).status).toBe(429);
    open.pop()!.close();
    await until(async () => env.app.consoleLive!.openCount, (n) => n === MAX_STREAMS_PER_USER - 1);
    open.push(await openStream(`${env.baseUrl}/console/events`, cookie));
    for (const s of open) s.close();
    await until(async () => [env.app.consoleLive!.openCount, env.app.consoleLive!.subscriptionCount], ([o, n]) => o === 0 && n === 0);
  });

  it('announces a new offer on the queue and a patient message and a status change on the conversation; releases its listeners', async () => {
    const live = env.app.consoleLive!;
    const doctor = await provider(env, identity);
    const cookie = cookieFor(env, identity.adopt(doctor.accountId));
    const before = await pageVersion(env, '/console', cookie);
    const queue = await openStream(`${env.baseUrl}/console/events`, cookie);
    expect((await queue.next((e) => e.event === 'version')).data).toBe(before.version);
    await queue.next((e) => e.comment === 'heartbeat');

    // The patient approves the hold; matching offers the request: the queue stream says so.
    const c = await gatedConversation(env, identity);
    const link = await c.api('POST', `/api/consultations/${c.id}/payment`);
    expect((await payLink(env, link.body.paymentUrl)).statusCode).toBe(303);
    const offered = await queue.next((e) => e.event === 'version' && e.data !== before.version);
    const after = await pageVersion(env, '/console', cookie);
    expect(after.body).toContain(`/console/visits/${c.id}`);
    expect(offered.data).toBe(after.version);

    const path = `/console/visits/${c.id}`;
    const visit = await openStream(`${env.baseUrl}${path}/events`, cookie);
    let shown = (await visit.next((e) => e.event === 'version')).data;
    expect(shown).toBe((await pageVersion(env, path, cookie)).version);

    // Accepted (through the API): MATCHING -> WITH_PROVIDER, on both streams.
    expect((await doctor.api('POST', `${'/api/provider/visits/'}${c.id}/accept`)).status).toBe(200);
    shown = (await visit.next((e) => e.event === 'version' && e.data !== shown)).data;
    expect((await pageVersion(env, path, cookie)).body).toContain('<strong id="status">WITH_PROVIDER</strong>');
    await queue.next((e) => e.event === 'version' && e.data !== offered.data);

    // The patient's message (no event of its own: the thread topic wakes the stream).
    const seen = (await c.api('GET', `/api/consultations/${c.id}`)).body.messages.at(-1).id as string;
    const sent = await c.api('POST', `/api/consultations/${c.id}/messages`, { text: 'My fever is 38.5 now.', waitForReply: false, lastSeenMessageId: seen });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const woke = await visit.next((e) => e.event === 'version' && e.data !== shown);
    const page = await pageVersion(env, path, cookie);
    expect(page.body).toContain('My fever is 38.5 now.');
    expect(woke.data).toBe(page.version);

    expect(live.openCount).toBe(2);
    expect(live.subscriptionCount).toBeGreaterThanOrEqual(4);
    queue.close();
    visit.close();
    await until(async () => [live.openCount, live.subscriptionCount], ([open, subs]) => open === 0 && subs === 0);
  });

  it('closing the app ends its open streams instead of waiting for them', async () => {
    const doctor = await provider(env, identity);
    const queue = await openStream(`${env.baseUrl}/console/events`, cookieFor(env, identity.adopt(doctor.accountId)));
    await queue.next((e) => e.event === 'version');
    expect(env.app.consoleLive!.openCount).toBe(1);
    closed = true;
    // Not awaited: a stream left open would hold the server's close, so its end must come first.
    const closing = env.app.close();
    await expect(queue.next(() => false)).rejects.toThrow(/stream ended/);
    // A socket a client opened and never used is not "idle" to Node and outlives server.close()
    // (api/server.ts closes all connections after its drain timeout); this test's fetch leaves one.
    env.app.server.closeAllConnections();
    await closing;
    await env.close();
    expect(env.app.consoleLive!.openCount).toBe(0);
  });
});

describe.runIf(PG)('console live streams across processes on one PostgreSQL', () => {
  it('a stream on server A shows a patient message written through server B', async () => {
    const url = await cluster!.createDatabase();
    const identity = fakeIdentity();
    const a = await makeTestApp({ listen: true, identity, triage: scriptedTriage(), env: { DATABASE_URL: url, CARE_REPLY_WAIT_SECONDS: '5' }, jobs });
    const b = await makeTestApp({ identity, triage: scriptedTriage(), env: { DATABASE_URL: url, CARE_REPLY_WAIT_SECONDS: '5' }, jobs });
    try {
      const doctor = await provider(a, identity);
      const cookie = cookieFor(a, identity.adopt(doctor.accountId));
      const c = await gatedConversation(a, identity);
      const link = await c.api('POST', `/api/consultations/${c.id}/payment`);
      expect((await payLink(a, link.body.paymentUrl)).statusCode).toBe(303);
      await until(() => doctor.api('GET', '/api/provider/queue'), (q) => q.body.waiting?.some((w: Json) => w.conversationId === c.id));
      expect((await doctor.api('POST', `/api/provider/visits/${c.id}/accept`)).status).toBe(200);

      const path = `/console/visits/${c.id}`;
      const visit = await openStream(`${a.baseUrl}${path}/events`, cookie);
      const shown = (await visit.next((e) => e.event === 'version')).data;
      const viaB = client(b, identity.adopt(c.userId));
      const seen = (await viaB('GET', `/api/consultations/${c.id}`)).body.messages.at(-1).id as string;
      expect((await viaB('POST', `/api/consultations/${c.id}/messages`, { text: 'Written through server B.', waitForReply: false, lastSeenMessageId: seen })).status).toBe(200);
      const woke = await visit.next((e) => e.event === 'version' && e.data !== shown);
      const page = await pageVersion(a, path, cookie);
      expect(page.body).toContain('Written through server B.');
      expect(woke.data).toBe(page.version);
      visit.close();
      await until(async () => a.app.consoleLive!.subscriptionCount, (n) => n === 0);
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);
});
