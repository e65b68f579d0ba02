/**
 * Issue 38, item 9: init_signup's links lead to real forms; its webhook parameters are validated
 * and kept (issue 39: with register_webhook's checks and connectivity test, against a local
 * receiver that names resolve to through the test's resolver and OUTBOUND_ALLOWLIST=127.0.0.1).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import { createOutboundGuard, type OutboundGuard } from '../../engine/adapters/outbound-guard.ts';
import { checkWebhookUrl } from '../../engine/webhooks/webhook-url.ts';
import { startReceiver, type Receiver } from '../webhooks/webhook-receiver.ts';
import type { Db } from '../../engine/ports/db.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';

let db: Db;
let identity: FakeIdentity;
let t: TestApp;
let real: TestApp;
let token: string;
let receiver: Receiver;
let guard: OutboundGuard;
const LOCAL = new Set(['agent.example.com', 'other.example.org']);

beforeAll(async () => {
  db = await openPgliteDb(undefined);
  identity = fakeIdentity();
  receiver = await startReceiver();
  guard = createOutboundGuard({
    allowlist: ['127.0.0.1'],
    resolve: (host) => (LOCAL.has(host) ? Promise.resolve([{ address: '127.0.0.1', family: 4 }]) : Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }))),
  });
  t = await makeTestApp({ db, identity, outbound: guard });
  ({ token } = await identity.signUp(db));
  real = await makeTestApp();
});
afterAll(async () => {
  await t?.close();
  await real?.close();
  await db?.close();
  await guard?.close();
  await receiver?.close();
});
const at = (host: string, path: string) => `http://${host}:${receiver.port}${path}`;

const call = (body: unknown) => t.app.inject({ method: 'POST', url: '/api/account/init-signup', headers: { authorization: `Bearer ${token}` }, payload: body as object });

describe('init_signup', () => {
  test('signupUrl and signinUrl are different pages, each with a form', async () => {
    const r = await call({});
    expect(r.statusCode, r.body).toBe(200);
    const { signupUrl, signinUrl, webhooks } = r.json<{ signupUrl: string; signinUrl: string; webhooks: unknown[] }>();
    expect(signinUrl).not.toBe(signupUrl);
    expect(webhooks).toEqual([]);
    for (const url of [signupUrl, signinUrl]) {
      const page = await real.app.inject({ method: 'GET', url: new URL(url).pathname });
      expect(page.statusCode, url).toBe(200);
      expect(page.body).toMatch(/<form method="post" action="\/oauth\/sign(up|in)">/);
      expect(page.body).toContain('name="password"');
    }
  });

  test('webhook parameters are kept, PATCH-style; without webhookUrl the configuration stays', async () => {
    const first = await call({
      webhookUrl: at('agent.example.com', '/hooks/carebridge'),
      webhookToken: 'a-long-webhook-secret-123',
      deliveryContext: { to: '+15550100', channel: 'sms', deliver: true },
      conversationSessionKey: 'thread-1',
      sessionKey: 'main',
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json<{ webhooks: unknown[] }>().webhooks).toEqual([{
      configured: true, sessionKey: 'main', webhookUrl: at('agent.example.com', '/hooks/carebridge'), hasSecret: true,
      hasDeliveryContext: true, conversationSessionKey: 'thread-1', linkedAt: expect.any(String), hint: expect.any(String),
    }]);
    expect(first.json<{ webhook: { signingSecret: string; created: boolean } }>().webhook).toMatchObject({ created: true, signingSecret: expect.stringMatching(/^whsec_/) });
    expect(receiver.received.at(-1)!.body).toMatchObject({ event: 'webhook_test', deliveryContext: { to: '+15550100' } });
    const moved = await call({ webhookUrl: at('agent.example.com', '/hooks/v2'), sessionKey: 'main' });
    expect(moved.json<{ webhooks: unknown[] }>().webhooks).toEqual([expect.objectContaining({ webhookUrl: at('agent.example.com', '/hooks/v2'), hasSecret: true, conversationSessionKey: 'thread-1' })]);
    const kept = await call({});
    expect(kept.json<{ webhooks: unknown[] }>().webhooks).toEqual(moved.json<{ webhooks: unknown[] }>().webhooks);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_configs');
    expect(rows[0]!.n).toBe(1);
    // A new configuration without a sessionKey gets a generated one.
    const second = await call({ webhookUrl: at('other.example.org', '/hook') });
    const list = second.json<{ webhooks: { sessionKey: string }[] }>().webhooks;
    expect(list).toHaveLength(2);
    expect(list[0]!.sessionKey).toMatch(/^sk_/);
  });

  test.each([
    [{ webhookUrl: 'http://public.example.net/hook' }, 'webhookUrl', 'webhook_url_rejected'],
    [{ webhookUrl: 'http://agent.example.com:1/hook' }, 'webhookUrl', 'webhook_unreachable'],
    [{ webhookUrl: 'https://127.0.0.2/hook' }, 'webhookUrl', 'webhook_url_rejected'],
    [{ webhookUrl: 'https://localhost:8443/hook' }, 'webhookUrl', 'webhook_url_rejected'],
    [{ webhookUrl: 'https://10.1.2.3/hook' }, 'webhookUrl', 'webhook_url_rejected'],
    [{ webhookUrl: 'not a url' }, 'webhookUrl', 'webhook_url_rejected'],
    [{ webhookToken: 'a-long-webhook-secret-123' }, 'webhookUrl', 'webhook_url_required'],
  ])('%j is a 400 naming %s', async (body, field, code) => {
    const r = await call(body);
    expect(r.statusCode, r.body).toBe(400);
    expect(r.json()).toMatchObject({ field, code });
  });

  test('bad shapes are named too', async () => {
    const r = await call({ webhookUrl: at('agent.example.com', '/h'), deliveryContext: { to: 1 } });
    expect(r.statusCode).toBe(400);
    expect(r.json<{ field: string }>().field).toMatch(/^deliveryContext/);
  });
});

describe('webhook URL check (pattern, then every resolved address)', () => {
  const closed = createOutboundGuard({ resolve: () => Promise.resolve([{ address: '93.184.215.14', family: 4 }]) });
  afterAll(() => closed.close());
  test.each([
    'https://192.168.1.10/', 'https://172.16.0.1/', 'https://169.254.169.254/latest', 'https://100.64.0.1/', 'https://0.0.0.0/',
    'https://2130706433/', 'https://0x7f.1/', 'https://[::1]/', 'https://[fd00::1]/', 'https://[fe80::1]/', 'https://[::ffff:127.0.0.1]/',
    'https://printer.local/', 'https://db.internal/', 'https://intranet/', 'https://user:pw@agent.example.com/', 'http://agent.example.com/',
    'ftp://agent.example.com/',
  ])('%s is refused', async (url) => {
    await expect(checkWebhookUrl(url, closed)).rejects.toMatchObject({ details: { field: 'webhookUrl', code: 'webhook_url_rejected' } });
  });
  test.each(['https://agent.example.com/hook', 'https://93.184.215.14/hook', 'https://[2606:4700::1111]/x'])('%s passes', async (url) => {
    await expect(checkWebhookUrl(url, closed)).resolves.toBeInstanceOf(URL);
  });
});
