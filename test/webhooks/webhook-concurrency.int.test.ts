/**
 * Simultaneous saves of one webhook session key (register_webhook and init_signup share the save
 * path): the save is serialized per (account, session key), so every caller that is shown a
 * signing secret is shown the one actually stored, and deliveries signed with it verify. Before
 * the fix each create generated its own secret and the last write replaced the others'.
 * On the app's in-memory PGlite and on the throwaway PostgreSQL (4 pooled connections, so the
 * requests really run at once).
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundGuard, type OutboundGuard } from '../../engine/adapters/outbound-guard.ts';
import type { Db } from '../../engine/ports/db.ts';
import { makeTestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { waitFor } from '../platform/platform-harness.ts';
import { backends, useBackends } from '../storage/backends.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies read loosely in tests

useBackends();

let receiver: Receiver;
let guard: OutboundGuard;
beforeAll(async () => {
  receiver = await startReceiver('127.0.0.1');
  guard = createOutboundGuard({ allowlist: ['127.0.0.1'] });
});
afterAll(async () => {
  await guard?.close();
  await receiver?.close();
});

const pg = backends.find((b) => b.name === 'postgres');
const cases: { name: string; open: () => Promise<Db | undefined> }[] = [
  { name: 'pglite', open: () => Promise.resolve(undefined) },
  ...(pg ? [{ name: 'postgres', open: () => pg.open() }] : []),
];

describe.each(cases)('eight simultaneous creates of one sessionKey ($name)', ({ open }) => {
  it('store one signing secret and tell every caller that one', async () => {
    const db = await open();
    const identity = fakeIdentity();
    const t = await makeTestApp({ identity, outbound: guard, webhookDeliverer: false, ...(db ? { db } : {}) });
    try {
      const { token, userId } = await identity.signUp(t.db);
      const sessionKey = 'sk_concurrent';
      const headers = { authorization: `Bearer ${token}` };
      const before = receiver.received.length;
      // Half through register_webhook, half through init_signup: one save path. The receiver
      // holds the connectivity tests until all eight have arrived, so every caller has looked for
      // the configuration (and found none) before any of them writes.
      receiver.hold = true;
      const pending = Promise.all(Array.from({ length: 8 }, (_, i) => t.app.inject({
        method: 'POST', url: i % 2 ? '/api/account/init-signup' : '/api/webhook', headers,
        payload: { webhookUrl: receiver.url(`/hook${i}`), sessionKey },
      })));
      await waitFor(() => receiver.received.length - before >= 8, 4_000);
      receiver.hold = false;
      receiver.release();
      const results = await pending;
      const bodies = results.map((r) => {
        expect(r.statusCode, r.body).toBe(200);
        const b = r.json<Json>();
        return (b.webhook ?? b) as Json;
      });
      const { rows } = await t.db.query<{ signing_secret: string }>('SELECT signing_secret FROM webhook_configs WHERE account_id = $1 AND session_key = $2', [userId, sessionKey]);
      expect(rows).toHaveLength(1);
      const stored = rows[0]!.signing_secret;
      expect(stored).toMatch(/^whsec_/);
      // Every caller found no configuration, so each is told a secret: the one stored.
      expect(bodies.map((b) => b.signingSecret)).toEqual(Array(8).fill(stored));
      expect(bodies.filter((b) => b.created === true)).toHaveLength(1);
      // The connectivity test that won was signed with the stored secret, and verifies with it.
      const tests = receiver.received.slice(before);
      expect(tests).toHaveLength(8);
      const verified = tests.filter((r) => {
        try {
          new Webhook(stored).verify(r.raw, r.headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      expect(verified.length).toBeGreaterThan(0);
      // A later save without rotation is not told the secret again; a rotation replaces it.
      const again = await t.app.inject({ method: 'POST', url: '/api/webhook', headers, payload: { webhookUrl: receiver.url('/again'), sessionKey } });
      expect(again.json<Json>().signingSecret).toBeUndefined();
      const rotated = await t.app.inject({ method: 'POST', url: '/api/webhook', headers, payload: { webhookUrl: receiver.url('/again'), sessionKey, rotateSigningSecret: true } });
      const now = await t.db.query<{ signing_secret: string }>('SELECT signing_secret FROM webhook_configs WHERE account_id = $1 AND session_key = $2', [userId, sessionKey]);
      expect(rotated.json<Json>().signingSecret).toBe(now.rows[0]!.signing_secret);
      expect(now.rows[0]!.signing_secret).not.toBe(stored);
    } finally {
      await t.close();
      await db?.close();
    }
  }, 180_000);
});
