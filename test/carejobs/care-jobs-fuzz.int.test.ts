/**
 * Every care-jobs route fuzzed (issue 39, Tests: "every new route fuzzed, never a 5xx"): seeded
 * random JSON and mutations of valid bodies on the REST routes (as the owner, a stranger, the care
 * team and anonymous), and garbage forms, paths, cookies and query strings on the approval page and
 * the care-team console pages. Every answer is below 500; JSON routes answer with an error body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../engine/core/prng.ts';
import { CookieSealer, randomToken } from '../../api/console/console-session.ts';
import { loadCookieKeys } from '../../api/identity/keys.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { client, provider } from '../visits/visit-fixture.ts';
import { approvalSession, BOOK, careIdentity, COSTLY, pathOf, type CareIdentity, type Json } from './carejobs-fixture.ts';

let t: TestApp;
let identity: CareIdentity;
let owner: { token: string };
let team: string;
let job: Json;
let approvalCookie: { cookie: string; csrf: string };
let consoleCookie: string;
beforeAll(async () => {
  identity = careIdentity();
  t = await makeTestApp({ identity });
  owner = await identity.signUp(t.db);
  job = (await client(t, owner.token)('POST', '/api/care-jobs', COSTLY)).body;
  approvalCookie = approvalSession(t, identity, owner.token);
  const p = await provider(t, identity, 'care_team');
  team = identity.adopt(p.accountId);
  consoleCookie = `cb_console=${new CookieSealer(loadCookieKeys(t.config)[0]!).seal({ token: team, csrf: randomToken(), exp: Date.now() + 600_000 })}`;
});
afterAll(async () => { await t?.close(); });

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
