/**
 * Care jobs over REST (issue 39, item 1): validation per job type, JOB_TYPE_NOT_AVAILABLE, the
 * response fields, idempotency (replay, 422, the header), the care team's role checks and the
 * walk approve -> start -> complete with its events, without a pricing snapshot (the sheet says so);
 * concurrent creates with one key on PGlite; and every route fuzzed (issue 39, Tests: "every new
 * route fuzzed, never a 5xx"): seeded random JSON and mutations of valid bodies on the REST routes
 * (as the owner, the care team, a bad token and anonymous), and garbage forms, paths, cookies and
 * queries on the approval page and the care-team console. JSON routes answer with an error body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../engine/core/prng.ts';
import { CookieSealer, randomToken } from '../../api/console/console-session.ts';
import { loadCookieKeys } from '../../api/identity/keys.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { client, provider, type Client } from '../visits/visit-fixture.ts';
import { approvalSession, BOOK, careIdentity, concurrentCreates, COSTLY, decide, OFFICE, pathOf, type CareIdentity, type Json } from './carejobs-fixture.ts';

let t: TestApp;
let identity: CareIdentity;
let api: Client;
let user: { userId: string; token: string };
beforeAll(async () => {
  identity = careIdentity();
  t = await makeTestApp({ identity });
  user = await identity.signUp(t.db);
  api = client(t, user.token);
});
afterAll(async () => { await t?.close(); });

const count = async (sql: string, params: unknown[] = []) => Number((await t.db.query<{ n: string }>(sql, params)).rows[0]!.n);

describe('POST /api/care-jobs', () => {
  it.each(['record_release', 'refill', 'claim_dispute', 'standing_payment_grant', 'order_pizza'])('refuses %s with JOB_TYPE_NOT_AVAILABLE', async (jobType) => {
    const r = await api('POST', '/api/care-jobs', { jobType, params: {} });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'JOB_TYPE_NOT_AVAILABLE', code: 'JOB_TYPE_NOT_AVAILABLE', field: 'jobType', needsAuth: false });
  });

  it('needs an office\'s identity and location, naming the field', async () => {
    const noCity = await api('POST', '/api/care-jobs', { jobType: 'book_appointment', params: { provider: { providerName: 'X', state: 'CA' } } });
    expect(noCity.status).toBe(400);
    expect(noCity.body).toMatchObject({ error: 'invalid_request', field: 'params.provider.city' });
    const noName = await api('POST', '/api/care-jobs', { jobType: 'cancel_or_reschedule', params: { appointmentLabel: 'Fri 3pm', provider: { city: 'Oakland', state: 'CA' } } });
    expect(noName.body).toMatchObject({ field: 'params.provider.providerName' });
    const noRef = await api('POST', '/api/care-jobs', { jobType: 'move_referral', params: { specialty: 'cardiology', source: {}, target: { npi: '1234567893', city: 'Oakland', state: 'CA' } } });
    expect(noRef.body).toMatchObject({ field: 'params.referral' });
  });

  it('answers pending_approval with every field of the spec; GET returns the same job', async () => {
    const r = await api('POST', '/api/care-jobs', BOOK);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const b = r.body;
    expect(b).toMatchObject({ status: 'pending_approval', jobType: 'book_appointment', tier: 'routine' });
    expect(b.jobId).toMatch(/^cj_/);
    expect(b.approvalUrl).toMatch(/^http:\/\/127\.0\.0\.1:8787\/care-jobs\/approve\/[A-Za-z0-9_-]{32}$/);
    expect(b.expiresAt - Date.parse(b.createdAt)).toBe(15 * 60_000);
    expect(b.agentInstructions.length).toBeGreaterThan(1);
    expect(b.sheet.agentNote).toBe(BOOK.context);
    expect(b.sheet.lines).toEqual(expect.arrayContaining([{ label: 'Appointment', value: 'next Tuesday morning' }]));
    // No snapshot in this app: the sheet says pricing could not answer, the job is still created.
    expect(b.sheet.pricing.checks[0]).toMatchObject({ role: 'target', found: false });
    const g = await api('GET', `/api/care-jobs/${b.jobId}`);
    expect(g.body).toMatchObject({ jobId: b.jobId, status: 'pending_approval', approvalUrl: b.approvalUrl });
    const other = client(t, (await identity.signUp(t.db)).token);
    expect((await other('GET', `/api/care-jobs/${b.jobId}`)).status).toBe(404);
  });

  it('tiers: move_referral is coordination, a job with cost is cost_bearing', async () => {
    const move = await api('POST', '/api/care-jobs', {
      jobType: 'move_referral', params: {
        specialty: 'dermatology', referral: { description: 'Mole check referral' }, source: { providerName: 'Old Clinic' },
        target: { ...OFFICE }, savingsCents: 4000,
      },
    });
    expect(move.body).toMatchObject({ tier: 'coordination', sheet: { agentClaims: { savingsCents: 4000 } } });
    const paid = await api('POST', '/api/care-jobs', { ...BOOK, cost: { amountCents: 1500, description: 'Fee' } });
    expect(paid.body).toMatchObject({ tier: 'cost_bearing', payment: { required: true }, sheet: { cost: { amountCents: 1500, holdRequired: true } } });
  });
});

describe('idempotency', () => {
  it('the same key and body replay the first job; another body is 422; header and body field agree', async () => {
    const key = `key-${Math.random()}`;
    const first = await api('POST', '/api/care-jobs', { ...BOOK, idempotencyKey: key });
    const again = await t.app.inject({ method: 'POST', url: '/api/care-jobs', headers: { authorization: `Bearer ${user.token}`, 'idempotency-key': key }, payload: BOOK });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.body);
    expect(await count('SELECT count(*)::text AS n FROM care_jobs WHERE id = $1', [first.body.jobId])).toBe(1);
    expect(await count(`SELECT count(*)::text AS n FROM care_job_idempotency WHERE key = $1 AND state = 'done'`, [key])).toBe(1);
    const changed = await api('POST', '/api/care-jobs', { ...BOOK, context: 'something else', idempotencyKey: key });
    expect(changed.status).toBe(422);
    expect(changed.body).toMatchObject({ error: 'idempotency_key_reused', field: 'idempotencyKey' });
    const both = await t.app.inject({ method: 'POST', url: '/api/care-jobs', headers: { authorization: `Bearer ${user.token}`, 'idempotency-key': 'a' }, payload: { ...BOOK, idempotencyKey: 'b' } });
    expect(both.statusCode).toBe(400);
    // A key is per account: another user's identical key makes their own job.
    const other = client(t, (await identity.signUp(t.db)).token);
    const theirs = await other('POST', '/api/care-jobs', { ...BOOK, idempotencyKey: key });
    expect(theirs.body.jobId).not.toBe(first.body.jobId);
  });

  it('eight concurrent creates with one key make one job (PGlite; PostgreSQL in idempotency-concurrency.int.test.ts)', async () => {
    const u = await identity.signUp(t.db);
    await concurrentCreates(t, u.token, u.userId);
  });

  it('OpenAPI names the Idempotency-Key header', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json<Json>();
    expect(doc.paths['/api/care-jobs'].post.parameters).toEqual([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false })]);
  });

  it('a failed create frees its key for the retry', async () => {
    const key = `bad-${Math.random()}`;
    const r = await api('POST', '/api/care-jobs', { ...BOOK, patientId: 'pt_nope', idempotencyKey: key });
    expect(r.status).toBe(404);
    expect(await count('SELECT count(*)::text AS n FROM care_job_idempotency WHERE key = $1', [key])).toBe(0);
  });
});

describe('care team', () => {
  it('a patient\'s token and a clinician get 403; the care team starts and completes an approved job, with an event for each outcome', async () => {
    const created = (await api('POST', '/api/care-jobs', BOOK)).body;
    const s = approvalSession(t, identity, user.token);
    expect((await decide(t, created.approvalUrl, s, 'approve')).statusCode).toBe(303);
    expect((await api('GET', `/api/care-jobs/${created.jobId}`)).body.status).toBe('approved');

    expect((await api('GET', '/api/care-team/jobs')).status).toBe(403);
    expect((await api('POST', `/api/care-team/jobs/${created.jobId}/start`, {})).status).toBe(403);
    const clinician = await provider(t, identity, 'clinician');
    expect((await clinician.api('GET', '/api/care-team/jobs')).status).toBe(403);

    const team = await provider(t, identity, 'care_team');
    const list = await team.api('GET', '/api/care-team/jobs');
    expect(list.body.jobs.map((j: Json) => j.jobId)).toContain(created.jobId);
    expect((await team.api('GET', `/api/care-team/jobs/${created.jobId}`)).body).toMatchObject({ jobId: created.jobId, status: 'approved', params: BOOK.params });
    const pending = (await api('POST', '/api/care-jobs', BOOK)).body;
    expect((await team.api('GET', `/api/care-team/jobs/${pending.jobId}`)).status).toBe(404);
    expect((await team.api('POST', `/api/care-team/jobs/${pending.jobId}/start`, {})).body).toMatchObject({ error: 'conflict', code: 'invalid_job_transition' });
    expect((await team.api('POST', `/api/care-team/jobs/${created.jobId}/complete`, { outcome: { summary: 'x' } })).body)
      .toMatchObject({ error: 'conflict', code: 'invalid_job_transition' });
    expect((await team.api('POST', `/api/care-team/jobs/${created.jobId}/start`, {})).body).toMatchObject({ status: 'in_progress', assigneeId: team.accountId });
    expect((await team.api('POST', `/api/care-team/jobs/${created.jobId}/complete`, {})).body).toMatchObject({ error: 'invalid_request', field: 'outcome' });
    const done = await team.api('POST', `/api/care-team/jobs/${created.jobId}/complete`, { outcome: { summary: 'Booked for Tuesday 9:00', reference: 'ABC123', appointmentLabel: 'Tue 9:00' } });
    expect(done.body).toMatchObject({ status: 'completed' });
    const seen = await api('GET', `/api/care-jobs/${created.jobId}`);
    expect(seen.body).toMatchObject({ status: 'completed', outcome: { summary: 'Booked for Tuesday 9:00', reference: 'ABC123', failed: false } });
    const { rows } = await t.db.query<{ event: string; status: string; data: Json; message: string }>(
      `SELECT event, status, data, message FROM outbox_events WHERE user_id = $1 AND data->>'jobId' = $2 ORDER BY seq`, [user.userId, created.jobId]);
    expect(rows.map((r) => r.event)).toEqual(['care_job_approved', 'care_job_started', 'care_job_completed']);
    expect(rows.map((r) => r.status)).toEqual(['approved', 'in_progress', 'completed']);
    // Events never carry what the care team wrote.
    expect(JSON.stringify(rows)).not.toContain('Booked for Tuesday');
  });
});

describe('fuzz: every care-jobs route, never a 5xx', () => {
  let owner: { token: string };
  let team: string;
  let job: Json;
  let approvalCookie: { cookie: string; csrf: string };
  let consoleCookie: string;
  beforeAll(async () => {
    owner = await identity.signUp(t.db);
    job = (await client(t, owner.token)('POST', '/api/care-jobs', COSTLY)).body;
    approvalCookie = approvalSession(t, identity, owner.token);
    const p = await provider(t, identity, 'care_team');
    team = identity.adopt(p.accountId);
    consoleCookie = `cb_console=${new CookieSealer(loadCookieKeys(t.config)[0]!).seal({ token: team, csrf: randomToken(), exp: Date.now() + 600_000 })}`;
  });

  const rnd = mulberry32(39_001);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const WEIRD = ['', ' ', 'x'.repeat(3000), '\u0000', '💥', '<script>alert(1)</script>', '../../etc/passwd', '%00', 'NaN', '1e309', 'book_appointment', 'move_referral', 'cancel_or_reschedule', 'refill', '1234567893', 'CA', 'ca1'];
  function value(depth = 0): unknown {
    switch (Math.floor(rnd() * (depth > 2 ? 6 : 8))) {
      case 0: return pick(WEIRD);
      case 1: return Math.floor(rnd() * 2 ** 40) * (rnd() < 0.3 ? -1 : 1) / (rnd() < 0.2 ? 7 : 1);
      case 2: return rnd() < 0.5;
      case 3: return null;
      case 4: return pick([Number.MAX_SAFE_INTEGER, -1, 0, 0.5, 1e21]);
      case 5: return pick(WEIRD).repeat(2);
      case 6: return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth + 1));
      default: return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 4) }, () => [pick(['params', 'provider', 'npi', 'city', 'state', 'cost', 'amountCents', 'outcome', 'summary', 'jobType', 'x', '__proto__', 'constructor']), value(depth + 1)]));
    }
  }
  /** A valid body with one field replaced somewhere inside. */
  function mutate(body: Json): Json {
    const copy = JSON.parse(JSON.stringify(body)) as Json;
    let node: Json = copy;
    for (let i = 0; i < 3; i++) {
      const keys = Object.keys(node);
      if (!keys.length) break;
      const k = pick(keys);
      if (i === 2 || typeof node[k] !== 'object' || node[k] === null || rnd() < 0.3) { node[k] = value(); break; }
      node = node[k] as Json;
    }
    return copy;
  }

  const ROUTES = (id: string) => [
    { method: 'POST' as const, url: '/api/care-jobs' },
    { method: 'GET' as const, url: `/api/care-jobs/${id}` },
    { method: 'GET' as const, url: '/api/care-team/jobs' },
    ...['start', 'complete', 'fail'].map((a) => ({ method: 'POST' as const, url: `/api/care-team/jobs/${id}/${a}` })),
  ];

  describe('REST routes', () => {
    it('random and mutated bodies, paths and callers: never a 5xx, always an error body', async () => {
      const ids = () => pick([job.jobId as string, 'cj_nope', '%00', 'x'.repeat(150), '..', '💥']);
      for (let i = 0; i < 240; i++) {
        const r = pick(ROUTES(encodeURIComponent(ids())));
        const who = pick([owner.token, team, 'not-a-token', '']);
        const headers: Record<string, string> = who ? { authorization: `Bearer ${who}` } : {};
        if (rnd() < 0.2) headers['idempotency-key'] = pick(WEIRD.filter((w) => !w.includes('\u0000') && !/[^\x20-\x7e]/.test(w)));
        const body = r.method === 'GET' ? undefined : rnd() < 0.6 ? mutate(rnd() < 0.5 ? BOOK : { outcome: { summary: 'done' } }) : value();
        const query = r.method === 'GET' && rnd() < 0.5 ? `?status=${encodeURIComponent(String(value()))}` : '';
        const res = await t.app.inject({ method: r.method, url: r.url + query, headers, ...(body !== undefined ? { payload: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } } : {}) });
        expect(res.statusCode, `${r.method} ${r.url} ${JSON.stringify(body)?.slice(0, 200)}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
        if (res.statusCode >= 400) expect(typeof res.json<Json>().error).toBe('string');
      }
    });
  });

  describe('pages', () => {
    it('the approval page and the care-team console: garbage forms, paths, cookies and queries never give a 5xx', async () => {
      const approve = pathOf(job.approvalUrl as string);
      const paths = [approve, '/care-jobs/approve/', '/care-jobs/approve/%00', `/care-jobs/approve/${'A'.repeat(32)}`, `/care-jobs/approve/${'x'.repeat(400)}`,
        '/care-jobs/login', '/care-jobs/login?next=https://evil.example/', '/care-jobs/login?next=/care-jobs/approve/../../x', '/care-jobs/callback',
        '/care-jobs/callback?code=x&state=y', '/console/care-team', `/console/care-team/jobs/${job.jobId as string}`, '/console/care-team/jobs/%E0%A4%A',
        `/console/care-team/jobs/${job.jobId as string}/start`, `/console/care-team/jobs/${job.jobId as string}/explode`, '/console/login?next=//evil.example'];
      const cookies = ['', approvalCookie.cookie, consoleCookie, 'cb_approval=garbage', 'cb_console=%%%', `cb_approval=${'a'.repeat(5000)}`, 'cb_approval_auth=x'];
      const forms = ['', '%%%&&&==', `csrf=${approvalCookie.csrf}&decision=explode`, `csrf=${approvalCookie.csrf}&decision[]=approve`, 'decision=approve',
        `csrf=${approvalCookie.csrf}&decision=${'a'.repeat(3000)}`, 'summary=&failSummary=', `x=${'a'.repeat(20_000)}`];
      for (let i = 0; i < 160; i++) {
        const url = pick(paths);
        const method = pick(['GET', 'POST', 'PUT', 'DELETE'] as const);
        const ct = pick(['application/x-www-form-urlencoded', 'application/json', 'text/plain', 'multipart/form-data; boundary=x']);
        const res = await t.app.inject({
          method, url, headers: { cookie: pick(cookies), ...(method === 'POST' ? { 'content-type': ct } : {}) },
          ...(method === 'POST' ? { payload: ct === 'application/json' ? JSON.stringify(value()) : pick(forms) } : {}),
        });
        expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
        // No open redirect: sign-in only ever lands on this host's own pages.
        const loc = res.headers.location;
        if (typeof loc === 'string' && !loc.startsWith(t.config.baseUrl)) expect(loc.startsWith('/'), loc).toBe(true);
        if (typeof loc === 'string') expect(loc).not.toContain('evil.example/');
      }
      // The job the fuzzing aimed at is still waiting for its owner's decision (a cost-bearing job needs its hold).
      expect((await client(t, owner.token)('GET', `/api/care-jobs/${job.jobId as string}`)).body.status).toBe('pending_approval');
    });
  });
});
