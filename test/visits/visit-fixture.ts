/**
 * Shared steps of the visit tests: a patient client, a conversation taken to PAYMENT_REQUIRED with
 * the scripted triage, paying the hosted page as a browser posts it, provider accounts, and polling
 * for what a job writes (never a wall-clock assertion: the poll gives up after a bound).
 */
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { FakeIdentity } from '../helpers/fake-identity.ts';
import { CARD, formBody, formTokenOf } from '../payments/payments-fixture.ts';
import type { ProviderRole } from '../../engine/visits/provider-store.ts';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies read loosely in tests

export function client(env: TestApp, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  return async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Json) => {
    const r = await env.app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
    return { status: r.statusCode, body: r.json<Json>() };
  };
}
export type Client = ReturnType<typeof client>;

/** A new patient with a conversation in PAYMENT_REQUIRED. */
export async function gatedConversation(env: TestApp, identity: FakeIdentity): Promise<{ api: Client; id: string; userId: string; token: string }> {
  const u = await identity.signUp(env.db);
  const api = client(env, u.token);
  const s = await api('POST', '/api/consultations', { contextMessage: 'Sore throat for two days #complete', region: 'US-CA' });
  expect(s.status, JSON.stringify(s.body)).toBe(200);
  const id = s.body.conversationId as string;
  const w = await api('POST', `/api/consultations/${id}/wait`, {});
  expect(w.body.status, JSON.stringify(w.body)).toBe('PAYMENT_REQUIRED');
  return { api, id, userId: u.userId, token: u.token };
}

/** Pays a hosted-page link with a test card, as a browser without JavaScript does. */
export async function payLink(env: TestApp, paymentUrl: string, ccNumber = '4242 4242 4242 4242') {
  const path = new URL(paymentUrl).pathname;
  const page = await env.app.inject({ method: 'GET', url: path });
  const res = await env.app.inject({
    method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: formBody({ ...CARD, formToken: formTokenOf(page.body), ccNumber }),
  });
  return res;
}

let npi = 1_000_000_000;
/**
 * A provider account and a bearer token for it. The account row comes from the fake identity (no
 * argon2 per provider: test/visits/providers.int.test.ts covers the real addProvider path).
 */
export async function provider(env: TestApp, identity: FakeIdentity, role: ProviderRole = 'clinician', regions = ['US-CA']) {
  const n = ++npi;
  const u = await identity.signUp(env.db, `${role}-${n}-${Math.random().toString(36).slice(2)}@clinic.test`);
  const displayName = `Dr. ${n}`;
  await env.db.query('INSERT INTO providers (account_id, role, npi, regions, display_name) VALUES ($1, $2, $3, $4, $5)',
    [u.userId, role, String(n + Math.floor(Math.random() * 1e6)), regions, displayName]);
  return { accountId: u.userId, role, regions, displayName, token: u.token, api: client(env, u.token) };
}

/** Polls `read` until `ok` holds (bounded; fails with the last value). */
export async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, tries = 100): Promise<T> {
  let v = await read();
  for (let i = 0; i < tries && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 100));
    v = await read();
  }
  expect(ok(v), JSON.stringify(v)).toBe(true);
  return v;
}

export async function events(env: TestApp, conversationId: string): Promise<string[]> {
  const { rows } = await env.db.query<{ event: string }>('SELECT event FROM outbox_events WHERE consultation_id = $1 ORDER BY seq', [conversationId]);
  return rows.map((r) => r.event);
}

export async function ledger(env: TestApp, ref: string): Promise<string[]> {
  const { rows } = await env.db.query<{ kind: string }>(
    `SELECT l.kind FROM payment_ledger l JOIN payment_holds h ON h.id = l.hold_id WHERE h.purpose_ref = $1 ORDER BY l.seq`, [ref]);
  return rows.map((r) => r.kind);
}
