/**
 * A care job past its 15 minutes reads as expired before its timer runs (the care-fixes brief,
 * item 1): GET /api/care-jobs/{id} and MCP get_care_job apply the same expiry as the timer, with
 * its one `care_job_expired` event, and a hold paid on a page left open is still released. Reads
 * and the timer's expiry racing on one job write that event once, on PGlite and on PostgreSQL
 * (a pool of 4 connections, so the transactions really overlap). The services' clock is moved by
 * hand; the queue's timers are 15 real minutes away, so only the reads (and the race's direct
 * timer calls) expire anything here.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_COOKIE } from '../../api/carejobs/approval-session.ts';
import { CookieSealer } from '../../api/console/console-session.ts';
import { loadCookieKeys } from '../../api/identity/keys.ts';
import { carePorts, expireIfDue } from '../../engine/carejobs/care-job-actions.ts';
import { makeTestApp, ManualClock, type TestApp } from '../helpers/app.ts';
import { backends, useBackends } from '../storage/backends.ts';
import { waitFor } from '../platform/platform-harness.ts';
import { client, payLink, type Client } from '../visits/visit-fixture.ts';
import { approvalSession, BOOK, careIdentity, COSTLY, decide, pathOf, type CareIdentity } from './carejobs-fixture.ts';

useBackends();

const WINDOW = 15 * 60_000;
const expiredEvents = async (t: TestApp, jobId: string) =>
  (await t.db.query<{ event: string }>(`SELECT event FROM outbox_events WHERE data->>'jobId' = $1 AND event = 'care_job_expired'`, [jobId])).rows.length;

// One PGlite app for the file's PGlite tests (start-up costs seconds on a loaded machine).
const clock = new ManualClock(Date.now());
let t: TestApp;
let identity: CareIdentity;
let user: { userId: string; token: string };
let api: Client;
beforeAll(async () => {
  identity = careIdentity();
  t = await makeTestApp({ identity, clock, listen: true, jobs: { pollSeconds: 0.5, superviseSeconds: 1 } });
  user = await identity.signUp(t.db);
  api = client(t, user.token);
});
afterAll(async () => { await t?.close(); });

describe('reading a job past its window (PGlite)', () => {

  it('GET and MCP show expired from the window\'s end, as the timer would, with one event', async () => {
    const job = (await api('POST', '/api/care-jobs', BOOK)).body;
    clock.advance(WINDOW - 1);
    expect((await api('GET', `/api/care-jobs/${job.jobId}`)).body.status).toBe('pending_approval');
    expect(await expiredEvents(t, job.jobId)).toBe(0);
    clock.advance(1);
    const got = await api('GET', `/api/care-jobs/${job.jobId}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ status: 'expired', jobId: job.jobId, expiresAt: job.expiresAt });
    // What the timer writes: the status, its decision time, and the event.
    const { rows } = await t.db.query<{ status: string; decided_at: Date | string }>('SELECT status, decided_at FROM care_jobs WHERE id = $1', [job.jobId]);
    expect(rows[0]!.status).toBe('expired');
    expect(new Date(rows[0]!.decided_at).getTime()).toBe(job.expiresAt);
    expect(await expiredEvents(t, job.jobId)).toBe(1);
    // The timer coming later finds it settled; MCP reads the same; nothing is written twice.
    expect(await expireIfDue(carePorts(t.services.ports), job.jobId)).toBe('settled');
    const mcp = new McpClient({ name: 'care-fixes-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/`), { requestInit: { headers: { Authorization: `Bearer ${user.token}` } } }));
    try {
      const viaMcp = await mcp.callTool({ name: 'get_care_job', arguments: { jobId: job.jobId } });
      expect(viaMcp.isError).toBeFalsy();
      expect(viaMcp.structuredContent).toMatchObject({ status: 'expired', jobId: job.jobId });
    } finally {
      await mcp.close();
    }
    expect(await expiredEvents(t, job.jobId)).toBe(1);
  });

  it('MCP get_care_job is the first read past the window: it expires the job too', async () => {
    const job = (await api('POST', '/api/care-jobs', BOOK)).body;
    clock.advance(WINDOW);
    const mcp = new McpClient({ name: 'care-fixes-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/`), { requestInit: { headers: { Authorization: `Bearer ${user.token}` } } }));
    try {
      expect((await mcp.callTool({ name: 'get_care_job', arguments: { jobId: job.jobId } })).structuredContent).toMatchObject({ status: 'expired' });
    } finally {
      await mcp.close();
    }
    expect(await expiredEvents(t, job.jobId)).toBe(1);
  });

  it('a cost-bearing job read as expired charges nothing: a hold paid on the open page is released', async () => {
    // The fixture's session lasts 10 real minutes; this file's clock runs ahead, so seal a longer one.
    const { csrf } = approvalSession(t, identity, user.token);
    const session = { csrf, cookie: `${APPROVAL_COOKIE}=${new CookieSealer(loadCookieKeys(t.config)[0]!).seal({ token: user.token, csrf, exp: clock.now().getTime() + 24 * 3600_000 })}` };
    const job = (await api('POST', '/api/care-jobs', COSTLY)).body;
    const link = String((await decide(t, job.approvalUrl, session, 'approve')).headers.location);
    expect(link).toMatch(/\/pay\/ps_/);
    clock.advance(WINDOW);
    expect((await api('GET', `/api/care-jobs/${job.jobId}`)).body.status).toBe('expired');
    await payLink(t, link);
    const holdOf = () => t.services.ports.payments!.processor.holdFor({ kind: 'care_job', ref: job.jobId });
    await waitFor(async () => (await holdOf())?.status === 'released', 20_000, 'the late hold released');
    expect((await api('GET', `/api/care-jobs/${job.jobId}`)).body).toMatchObject({ status: 'expired', payment: { required: true, holdStatus: null } });
    // The page agrees and offers no decision.
    const page = await t.app.inject({ method: 'GET', url: pathOf(job.approvalUrl), headers: { cookie: session.cookie } });
    expect(page.body).toContain('Expired');
    expect(page.body).not.toContain('name="decision"');
  });

  it('another account\'s job is still a 404, expired or not', async () => {
    const job = (await api('POST', '/api/care-jobs', BOOK)).body;
    clock.advance(WINDOW);
    const other = await identity.signUp(t.db);
    const r = await client(t, other.token)('GET', `/api/care-jobs/${job.jobId}`);
    expect(r.status).toBe(404);
    expect(await expiredEvents(t, job.jobId)).toBe(0);
  });
});

/** Reads and the timer's expiry at once on several due jobs: every read says expired, one event each. */
async function race(app: TestApp, agent: Client, appClock: ManualClock): Promise<void> {
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await agent('POST', '/api/care-jobs', BOOK)).body.jobId as string);
  appClock.advance(WINDOW);
  const care = carePorts(app.services.ports);
  const runs = ids.map(async (id) => {
    const [reads, timers] = await Promise.all([
      Promise.all([agent('GET', `/api/care-jobs/${id}`), agent('GET', `/api/care-jobs/${id}`), agent('GET', `/api/care-jobs/${id}`)]),
      Promise.all([expireIfDue(care, id), expireIfDue(care, id)]),
    ]);
    return { id, reads, timers };
  });
  for (const { id, reads, timers } of await Promise.all(runs)) {
    for (const r of reads) expect(r, JSON.stringify(r.body)).toMatchObject({ status: 200, body: { status: 'expired' } });
    for (const o of timers) expect(['expired', 'settled']).toContain(o);
    expect(timers.filter((o) => o === 'expired').length).toBeLessThanOrEqual(1);
    expect(await expiredEvents(app, id)).toBe(1);
  }
}

describe('reads racing the timer', () => {
  it('PGlite: one expiry and one event per job', async () => {
    // The first block's app (its clock only moves forward, so its other jobs stay settled).
    await race(t, api, clock);
  });

  const pg = backends.find((b) => b.name === 'postgres');
  it.runIf(pg !== undefined)('PostgreSQL: one expiry and one event per job', async () => {
    const db = await pg!.open();
    const clock = new ManualClock(Date.now());
    const identity = careIdentity();
    const t = await makeTestApp({ identity, db, clock });
    try {
      const u = await identity.signUp(t.db);
      await race(t, client(t, u.token), clock);
    } finally {
      await t.close();
      await db.close();
    }
  });
});
