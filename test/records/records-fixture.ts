/**
 * Health-records test fixture: a listening app (the import calls the embedded sandbox payer over
 * real HTTP with undici), users with bearer tokens, and the link flow driven through the real
 * routes: POST /api/health-records/link, the sandbox's sign-in page and form, our callback.
 */
import { expect } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { makeTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { SANDBOX_PASSWORD } from '../../engine/records/sandbox/sandbox-members.ts';

export interface RecordsEnv extends TestApp {
  identity: FakeIdentity;
}

export async function startRecordsApp(opts: TestAppOptions = {}): Promise<RecordsEnv> {
  const db: Db = opts.db ?? await openPgliteDb(undefined);
  const identity = fakeIdentity();
  const t = await makeTestApp({ ...opts, db, identity, listen: true });
  return { ...t, identity, close: async () => { await t.close(); if (!opts.db) await db.close(); } };
}

export interface User {
  userId: string;
  token: string;
  get(url: string): Promise<{ status: number; body: Record<string, unknown> }>;
  post(url: string, payload?: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }>;
}

export async function newUser(env: RecordsEnv): Promise<User> {
  const u = await env.identity.signUp(env.db);
  const headers = { authorization: `Bearer ${u.token}` };
  return {
    userId: u.userId, token: u.token,
    async get(url) {
      const r = await env.app.inject({ method: 'GET', url, headers });
      return { status: r.statusCode, body: r.json() };
    },
    async post(url, payload = {}) {
      const r = await env.app.inject({ method: 'POST', url, headers, payload });
      return { status: r.statusCode, body: r.json() };
    },
  };
}

/** Adds a dependent to the user's profile; returns its patientId. */
export async function addDependent(env: RecordsEnv, u: User): Promise<string> {
  const r = await env.app.inject({
    method: 'PATCH', url: '/api/profile/patient', headers: { authorization: `Bearer ${u.token}` },
    payload: { relationship: 'dependent', givenName: 'Leo', familyName: 'Alvarez', birthDate: '2017-09-03' },
  });
  expect(r.statusCode, r.body).toBe(200);
  return r.json<{ patient: { patientId: string } }>().patient.patientId;
}

/** The whole link flow as a browser would go through it; resolves when the first import ended. */
export async function linkMember(env: RecordsEnv, u: User, memberId: string, patientId?: string): Promise<void> {
  const link = await u.post('/api/health-records/link', patientId ? { patientId } : {});
  expect(link.status, JSON.stringify(link.body)).toBe(200);
  const url = new URL(link.body.authorizationUrl as string);
  const page = await env.app.inject({ method: 'GET', url: url.pathname + url.search });
  expect(page.statusCode, page.body).toBe(200);
  const request = /name="request" value="([^"]+)"/.exec(page.body)?.[1];
  expect(request).toBeTruthy();
  const signIn = await env.app.inject({
    method: 'POST', url: '/sandbox-payer/authorize', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ request: request!, member_id: memberId, password: SANDBOX_PASSWORD, action: 'allow' }).toString(),
  });
  expect(signIn.statusCode, signIn.body).toBe(303);
  const back = new URL(signIn.headers.location as string);
  const cb = await env.app.inject({ method: 'GET', url: back.pathname + back.search });
  expect(cb.statusCode, cb.body).toBe(200);
  await env.records!.runner.idle();
}
