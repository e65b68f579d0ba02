/**
 * Shared steps of the care-job tests: an identity whose chosen tokens count as the approval
 * page's own sign-in (the browser test signs in through the real OAuth server instead), the
 * sealed approval cookie, deciding on the page as a browser without JavaScript posts it, and
 * request bodies for each job type.
 */
import type { Identity } from '../../api/identity/identity.ts';
import { APPROVAL_CLIENT_ID, APPROVAL_COOKIE } from '../../api/carejobs/approval-session.ts';
import { CookieSealer, randomToken } from '../../api/console/console-session.ts';
import { loadCookieKeys } from '../../api/identity/keys.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies read loosely in tests

export interface CareIdentity extends FakeIdentity {
  /** Marks `token` as issued to the approval page's OAuth client. */
  asApproval(token: string): void;
}

/** A fake identity whose marked tokens carry the approval client's id. */
export function careIdentity(): CareIdentity {
  const fake = fakeIdentity();
  const verify = fake.verifyAccessToken.bind(fake);
  const approval = new Set<string>();
  const verifyAccessToken: Identity['verifyAccessToken'] = async (t, accept) => {
    const v = await verify(t, accept);
    return v && approval.has(t) ? { ...v, clientId: APPROVAL_CLIENT_ID } : v;
  };
  return Object.assign(fake, { verifyAccessToken, asApproval: (t: string) => { approval.add(t); } });
}

/** The approval page's session cookie for `token` (as its callback seals it) and the session's CSRF token. */
export function approvalSession(t: TestApp, identity: CareIdentity, token: string): { cookie: string; csrf: string } {
  identity.asApproval(token);
  const csrf = randomToken();
  const sealed = new CookieSealer(loadCookieKeys(t.config)[0]!).seal({ token, csrf, exp: Date.now() + 600_000 });
  return { cookie: `${APPROVAL_COOKIE}=${sealed}`, csrf };
}

export const pathOf = (url: string): string => new URL(url).pathname;

/** Posts the decision form of the approval page. */
export async function decide(t: TestApp, approvalUrl: string, s: { cookie: string; csrf: string }, decision: 'approve' | 'decline') {
  return t.app.inject({
    method: 'POST', url: pathOf(approvalUrl), headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf: s.csrf, decision }).toString(),
  });
}

export const OFFICE = { providerName: 'Poppyfield Family Medicine', city: 'San Francisco', state: 'CA', zip: '94103', phone: '415-555-0100' };

export const BOOK: Json = {
  jobType: 'book_appointment',
  params: { provider: OFFICE, specialty: 'family medicine', appointmentLabel: 'next Tuesday morning', reason: 'annual check-up' },
  context: 'You asked me to book your yearly check-up.',
};

export const COSTLY: Json = { ...BOOK, cost: { amountCents: 2500, description: 'Booking fee' } };

/** Eight creates at once with one key: one job; the others replay it or get 409 while it runs; a later retry replays it. */
export async function concurrentCreates(t: TestApp, token: string, userId: string): Promise<void> {
  const key = `conc-${Math.random()}`;
  const headers = { authorization: `Bearer ${token}`, 'idempotency-key': key };
  const results = await Promise.all(Array.from({ length: 8 }, () => t.app.inject({ method: 'POST', url: '/api/care-jobs', headers, payload: BOOK })));
  const ok = results.filter((r) => r.statusCode === 200).map((r) => r.json<Json>());
  const busy = results.filter((r) => r.statusCode === 409).map((r) => r.json<Json>());
  expect(ok.length + busy.length, results.map((r) => r.body).join('\n')).toBe(8);
  expect(ok.length).toBeGreaterThan(0);
  expect(new Set(ok.map((b) => b.jobId)).size).toBe(1);
  for (const b of busy) expect(b).toMatchObject({ error: 'conflict', code: 'idempotency_key_in_use' });
  const { rows } = await t.db.query<{ n: string }>('SELECT count(*)::text AS n FROM care_jobs WHERE account_id = $1', [userId]);
  expect(rows[0]!.n).toBe('1');
  // Once the first finished, a retry replays it.
  const again = await t.app.inject({ method: 'POST', url: '/api/care-jobs', headers, payload: BOOK });
  expect(again.json<Json>().jobId).toBe(ok[0]!.jobId);
}
