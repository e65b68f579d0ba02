/**
 * The approval page and the job's hold on the real job queue (issue 39, item 1): the agent's token
 * alone approves nothing; a cost-bearing job's hold is collected through the payment port,
 * captured exactly once on completion, and released on failure and when it is paid after the job
 * was declined or expired; a pending job expires 15 minutes after creation by its timer, with a
 * hand-moved clock (set back, so the queue's real time has reached the timer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerFor } from '../../engine/payments/payment-store.ts';
import { settleHold } from '../../engine/visits/visit-holds.ts';
import { makeTestApp, ManualClock, type TestApp } from '../helpers/app.ts';
import { waitFor } from '../platform/platform-harness.ts';
import { client, payLink, provider } from '../visits/visit-fixture.ts';
import { approvalSession, BOOK, careIdentity, COSTLY, decide, pathOf, type CareIdentity } from './carejobs-fixture.ts';

// One app for the file (start-up costs seconds on a loaded machine). Its clock is set 16 minutes
// back, so every expiry timer is already due by the queue's real time; only the last test moves it.
const clock = new ManualClock(Date.now() - 16 * 60_000);
let app: TestApp;
let careId: CareIdentity;
beforeAll(async () => {
  careId = careIdentity();
  app = await makeTestApp({ identity: careId, clock, jobs: { pollSeconds: 0.5, superviseSeconds: 1 } });
});
afterAll(async () => { await app?.close(); });

async function start(): Promise<{ t: TestApp; identity: CareIdentity }> {
  return { t: app, identity: careId };
}

async function patient(env: TestApp, identity: CareIdentity) {
  const u = await identity.signUp(env.db);
  return { ...u, api: client(env, u.token), session: approvalSession(env, identity, u.token) };
}

const status = async (api: ReturnType<typeof client>, id: string) => (await api('GET', `/api/care-jobs/${id}`)).body;
const holdOf = async (env: TestApp, jobId: string) => env.services.ports.payments!.processor.holdFor({ kind: 'care_job', ref: jobId });

describe('approval on the user\'s own device', () => {
  it('the agent\'s bearer token alone neither opens nor decides; another account\'s session is refused', async () => {
    const { t, identity } = await start();
    const u = await patient(t, identity);
    const job = (await u.api('POST', '/api/care-jobs', BOOK)).body;
    const bearer = { authorization: `Bearer ${u.token}` };
    const get = await t.app.inject({ method: 'GET', url: pathOf(job.approvalUrl), headers: bearer });
    expect(get.statusCode).toBe(303);
    expect(get.headers.location).toBe(`/care-jobs/login?next=${encodeURIComponent(pathOf(job.approvalUrl))}`);
    // Sign-in is the page's own OAuth client, and asks for a password entered in the last 5 minutes.
    const login = await t.app.inject({ method: 'GET', url: String(get.headers.location) });
    const authorize = new URL(String(login.headers.location));
    expect(authorize.pathname).toBe('/oauth/authorize');
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({ client_id: 'carebridge-care-approval', max_age: '300', code_challenge_method: 'S256' });
    const post = await t.app.inject({
      method: 'POST', url: pathOf(job.approvalUrl), headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'decision=approve',
    });
    expect(post.statusCode).toBe(303);
    expect(post.headers.location).toMatch(/^\/care-jobs\/login/);
    // The agent's token sealed into a cookie is still not the page's own sign-in (another OAuth client).
    const { CookieSealer } = await import('../../api/console/console-session.ts');
    const { loadCookieKeys } = await import('../../api/identity/keys.ts');
    const agent = await identity.signUp(t.db);
    const forged = new CookieSealer(loadCookieKeys(t.config)[0]!).seal({ token: agent.token, csrf: 'c', exp: Date.now() + 60_000 });
    expect((await t.app.inject({ method: 'GET', url: pathOf(job.approvalUrl), headers: { cookie: `cb_approval=${forged}` } })).statusCode).toBe(303);
    // Someone else signed in on the page: 403, nothing decided.
    const other = await patient(t, identity);
    expect((await decide(t, job.approvalUrl, other.session, 'approve')).statusCode).toBe(403);
    expect((await status(u.api, job.jobId)).status).toBe('pending_approval');
    // The owner, signed in on the page, sees the sheet and approves.
    const page = await t.app.inject({ method: 'GET', url: pathOf(job.approvalUrl), headers: { cookie: u.session.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.body).toContain('You asked me to book your yearly check-up.');
    expect((await decide(t, job.approvalUrl, { ...u.session, csrf: 'wrong' }, 'approve')).statusCode).toBe(403);
    expect((await decide(t, job.approvalUrl, u.session, 'approve')).statusCode).toBe(303);
    expect((await status(u.api, job.jobId)).status).toBe('approved');
    expect((await decide(t, job.approvalUrl, u.session, 'decline')).statusCode).toBe(303);
    expect((await status(u.api, job.jobId)).status).toBe('approved');
  });
});

describe('the hold of a cost-bearing job', () => {
  it('approve -> start -> complete captures the hold exactly once', async () => {
    const { t, identity } = await start();
    const u = await patient(t, identity);
    const job = (await u.api('POST', '/api/care-jobs', COSTLY)).body;
    const approve = await decide(t, job.approvalUrl, u.session, 'approve');
    expect(approve.statusCode).toBe(303);
    expect(approve.headers.location).toMatch(/\/pay\/ps_/);
    expect((await status(u.api, job.jobId)).status).toBe('pending_approval');
    expect((await payLink(t, String(approve.headers.location))).statusCode).toBe(303);
    expect(await status(u.api, job.jobId)).toMatchObject({ status: 'approved', payment: { required: true, holdStatus: 'authorized' } });
    const hold = (await holdOf(t, job.jobId))!;
    expect(hold.amountCents).toBe(2500);

    const team = await provider(t, identity, 'care_team');
    await team.api('POST', `/api/care-team/jobs/${job.jobId}/start`, {});
    const done = await team.api('POST', `/api/care-team/jobs/${job.jobId}/complete`, { outcome: { summary: 'Booked' } });
    expect(done.body).toMatchObject({ status: 'completed', payment: { holdStatus: 'captured' } });
    // The queued capture job and any repeat find it captured: still one capture.
    await settleHold(t.services.ports.payments!.processor, { holdId: hold.holdId, action: 'capture' });
    expect((await team.api('POST', `/api/care-team/jobs/${job.jobId}/complete`, { outcome: { summary: 'again' } })).status).toBe(409);
    await waitFor(async () => (await t.db.query(`SELECT 1 FROM pgboss.job WHERE name = 'carejobs.hold' AND state = 'completed' AND data->>'holdId' = $1`, [hold.holdId])).rows.length >= 1, 20_000, 'the capture job');
    expect((await ledgerFor(t.db, { holdId: hold.holdId })).map((e) => e.kind)).toEqual(['authorize', 'capture']);
  });

  it('failure releases the hold; a hold paid after a decline is released', async () => {
    const { t, identity } = await start();
    const u = await patient(t, identity);
    const team = await provider(t, identity, 'care_team');
    const a = (await u.api('POST', '/api/care-jobs', COSTLY)).body;
    await payLink(t, String((await decide(t, a.approvalUrl, u.session, 'approve')).headers.location));
    const failed = await team.api('POST', `/api/care-team/jobs/${a.jobId}/fail`, { outcome: { summary: 'The office is closed for a month' } });
    expect(failed.body).toMatchObject({ status: 'failed', payment: { holdStatus: 'released' }, outcome: { failed: true } });

    const b = (await u.api('POST', '/api/care-jobs', COSTLY)).body;
    const link = String((await decide(t, b.approvalUrl, u.session, 'approve')).headers.location);
    expect((await decide(t, b.approvalUrl, u.session, 'decline')).statusCode).toBe(303);
    expect((await status(u.api, b.jobId)).status).toBe('declined');
    await payLink(t, link);
    await waitFor(async () => (await holdOf(t, b.jobId))?.status === 'released', 20_000, 'the late hold released');
    expect((await status(u.api, b.jobId)).status).toBe('declined');
  });

  it('15 minutes after creation a pending job expires by its timer; a hold paid after is released', async () => {
    const { t, identity } = await start();
    const u = await patient(t, identity);
    const job = (await u.api('POST', '/api/care-jobs', COSTLY)).body;
    const link = String((await decide(t, job.approvalUrl, u.session, 'approve')).headers.location);
    // The timer is due by the queue's real time but not by the service's clock: it runs, refuses, retries.
    await waitFor(async () => (await t.db.query(`SELECT 1 FROM pgboss.job WHERE name = 'carejobs.expire' AND retry_count >= 1 AND data->>'jobId' = $1`, [job.jobId])).rows.length >= 1, 20_000, 'an early expiry run');
    clock.advance(15 * 60_000 - 1000);
    expect((await status(u.api, job.jobId)).status).toBe('pending_approval');
    clock.advance(1000);
    // Read from the table, not through GET: a GET past the window expires the job itself
    // (care-job-expiry-read.int.test.ts), and this test is about the timer.
    const stored = async () => (await t.db.query<{ status: string }>('SELECT status FROM care_jobs WHERE id = $1', [job.jobId])).rows[0]!.status;
    await waitFor(async () => await stored() === 'expired', 30_000, 'the expiry');
    const { rows } = await t.db.query<{ event: string }>(`SELECT event FROM outbox_events WHERE data->>'jobId' = $1`, [job.jobId]);
    expect(rows.map((r) => r.event)).toEqual(['care_job_expired']);
    // The page says so and offers no decision.
    const page = await t.app.inject({ method: 'GET', url: pathOf(job.approvalUrl), headers: { cookie: u.session.cookie } });
    expect(page.body).toContain('Expired');
    expect(page.body).not.toContain('name="decision"');
    await payLink(t, link);
    await waitFor(async () => (await holdOf(t, job.jobId))?.status === 'released', 20_000, 'the late hold released');
  });
});
