/**
 * Webhooks end to end (issue 39, item 2): register with PATCH semantics and a generated
 * sessionKey, the save-time checks (private addresses refused before any connection, the
 * connectivity test), deliveries of real conversation events with the bearer, a valid Standard
 * Webhooks signature and deliveryContext, DNS rebinding refused at delivery and recorded in the
 * log, and the new routes fuzzed. The receiver is a local server reached through
 * OUTBOUND_ALLOWLIST=127.0.0.1 (the guard's allowlist); a second receiver on 127.0.0.2, same port,
 * stands for a private address and counts the connections that reach it.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundGuard, type OutboundGuard } from '../../engine/adapters/outbound-guard.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { waitFor } from '../platform/platform-harness.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies read loosely in tests

const names = new Map<string, string>();
let t: TestApp;
let identity: FakeIdentity;
let guard: OutboundGuard;
let receiver: Receiver;
let privateReceiver: Receiver;
let token: string;

beforeAll(async () => {
  receiver = await startReceiver('127.0.0.1');
  // The same port on 127.0.0.2: a connection the guard let through would land here.
  privateReceiver = await startReceiver('127.0.0.2', receiver.port);
  names.set('hooks.example.com', '127.0.0.1');
  names.set('private.example.com', '127.0.0.2');
  names.set('localhost', '127.0.0.2');
  guard = createOutboundGuard({
    allowlist: ['127.0.0.1'],
    resolve: (host) => {
      const a = names.get(host);
      return a ? Promise.resolve([{ address: a, family: 4 }]) : Promise.reject(Object.assign(new Error(`${host} not found`), { code: 'ENOTFOUND' }));
    },
  });
  identity = fakeIdentity();
  t = await makeTestApp({ identity, outbound: guard, webhookDeliverer: { pollMs: 200 } });
  ({ token } = await identity.signUp(t.db));
});
afterAll(async () => {
  await t?.close();
  await guard?.close();
  await receiver?.close();
  await privateReceiver?.close();
});

const call = async (method: 'GET' | 'POST', url: string, payload?: unknown, tok = token) => {
  const r = await t.app.inject({ method, url, headers: { authorization: `Bearer ${tok}` }, ...(payload !== undefined ? { payload: payload as Json } : {}) });
  return { status: r.statusCode, body: r.json<Json>() };
};

const WEBHOOK_TOKEN = 'receiver-shared-token-0123456789';

describe('registering', () => {
  it('tests connectivity, returns the signing secret once, keeps fields PATCH-style', async () => {
    const before = receiver.received.length;
    const r = await call('POST', '/api/webhook', {
      webhookUrl: receiver.url('/hook'), webhookToken: WEBHOOK_TOKEN, deliveryContext: { to: '+15550100', channel: 'sms', deliver: true },
      conversationSessionKey: 'thread-7',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, hasSecret: true, hasDeliveryContext: true, created: true, conversationSessionKey: 'thread-7', connectivity: { statusCode: 200 } });
    expect(r.body.sessionKey).toMatch(/^sk_/);
    expect(r.body.signingSecret).toMatch(/^whsec_/);
    // The connectivity test: one signed POST with the bearer.
    const test = receiver.received.slice(before);
    expect(test).toHaveLength(1);
    expect(test[0]!.body).toMatchObject({ event: 'webhook_test', mode: 'now', deliveryContext: { to: '+15550100', channel: 'sms', deliver: true } });
    expect(test[0]!.headers.authorization).toBe(`Bearer ${WEBHOOK_TOKEN}`);
    expect(() => new Webhook(r.body.signingSecret as string).verify(test[0]!.raw, test[0]!.headers as Record<string, string>)).not.toThrow();

    const sessionKey = r.body.sessionKey as string;
    const moved = await call('POST', '/api/webhook', { webhookUrl: receiver.url('/hook2'), sessionKey });
    expect(moved.body).toMatchObject({ created: false, hasSecret: true, hasDeliveryContext: true, conversationSessionKey: 'thread-7' });
    expect(moved.body.signingSecret).toBeUndefined();
    // The stored secret is the one shown at creation: the move's test POST verifies with it.
    expect(() => new Webhook(r.body.signingSecret as string).verify(receiver.received.at(-1)!.raw, receiver.received.at(-1)!.headers as Record<string, string>)).not.toThrow();
    const rotated = await call('POST', '/api/webhook', { webhookUrl: receiver.url('/hook'), sessionKey, rotateSigningSecret: true });
    expect(rotated.body.signingSecret).toMatch(/^whsec_/);
    expect(rotated.body.signingSecret).not.toBe(r.body.signingSecret);

    const status = await call('GET', `/api/webhook?sessionKey=${sessionKey}`);
    expect(status.body).toMatchObject({ configured: true, sessionKey, webhookUrl: receiver.url('/hook'), hasSecret: true, conversationSessionKey: 'thread-7' });
    expect(JSON.stringify(status.body)).not.toContain(WEBHOOK_TOKEN);
    expect(JSON.stringify(status.body)).not.toContain('whsec_');
    const none = await call('GET', '/api/webhook?sessionKey=nope');
    expect(none.body).toMatchObject({ configured: false, sessions: [] });
    // Deleting it again keeps the rest of the suite on one configuration per user.
    await t.db.query('DELETE FROM webhook_configs WHERE session_key = $1', [sessionKey]);
  });

  it.each([
    ['a private literal', () => privateReceiver.url('/hook')],
    ['a name resolving to a private address', () => `http://private.example.com:${privateReceiver.port}/hook`],
    ['an https name resolving to a private address', () => `https://private.example.com:${privateReceiver.port}/hook`],
    ['link-local metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    // The allowlist (127.0.0.1) decides for localhost too: here it resolves to 127.0.0.2, not on it.
    ['localhost resolving to a loopback address not on the allowlist', () => `http://localhost:${privateReceiver.port}/hook`],
  ])('%s is refused before any connection is made', async (_label, url) => {
    const before = privateReceiver.connections;
    for (const path of ['/api/webhook', '/api/account/init-signup']) {
      const r = await call('POST', path, { webhookUrl: url() });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body).toMatchObject({ field: 'webhookUrl', code: 'webhook_url_rejected' });
    }
    expect(privateReceiver.connections).toBe(before);
  });

  it('http is refused for a public destination, and an unreachable or failing URL is not saved', async () => {
    names.set('public.example.com', '93.184.215.14');
    const http = await call('POST', '/api/webhook', { webhookUrl: 'http://public.example.com/hook' });
    expect(http.body).toMatchObject({ field: 'webhookUrl', code: 'webhook_url_rejected' });
    expect(http.body.reason).toMatch(/https/);
    const failing = await call('POST', '/api/webhook', { webhookUrl: receiver.url('/fail'), sessionKey: 'failing' });
    expect(failing.status).toBe(400);
    expect(failing.body).toMatchObject({ field: 'webhookUrl', code: 'webhook_unreachable', statusCode: 500 });
    const unknown = await call('POST', '/api/webhook', { webhookUrl: 'https://nowhere.example.com/hook' });
    expect(unknown.body).toMatchObject({ field: 'webhookUrl', code: 'webhook_url_rejected' });
    expect((await call('GET', '/api/webhook?sessionKey=failing')).body.configured).toBe(false);
  });
});

describe('deliveries', () => {
  it('a conversation\'s events arrive with the bearer, a valid signature and deliveryContext, and are logged', async () => {
    const user = await identity.signUp(t.db);
    const reg = await call('POST', '/api/webhook', {
      webhookUrl: `http://hooks.example.com:${receiver.port}/events`, webhookToken: WEBHOOK_TOKEN, deliveryContext: { to: 'agent-42', channel: 'chat' },
      conversationSessionKey: 'conv-thread', sessionKey: 'main',
    }, user.token);
    expect(reg.status, JSON.stringify(reg.body)).toBe(200);
    const secret = reg.body.signingSecret as string;
    const start = await call('POST', '/api/consultations', { contextMessage: 'I have had a sore throat for two days and it hurts to swallow.', region: 'US-CA' }, user.token);
    expect(start.status).toBe(200);
    const id = start.body.conversationId as string;
    const mine = () => receiver.received.filter((r) => r.body.consultationId === id);
    await waitFor(() => mine().some((r) => r.body.event === 'triage_reply'), 30_000, 'triage_reply delivered');
    const events = mine().map((r) => r.body.event);
    expect(events).toEqual(expect.arrayContaining(['triage_started', 'triage_reply']));
    const wh = new Webhook(secret);
    for (const r of mine()) {
      expect(r.path).toBe('/events');
      expect(r.headers.authorization).toBe(`Bearer ${WEBHOOK_TOKEN}`);
      expect(r.headers['content-type']).toBe('application/json');
      expect(wh.verify(r.raw, r.headers as Record<string, string>)).toEqual(r.body);
      expect(r.headers['webhook-id']).toBe(r.body.eventId);
      expect(r.body).toMatchObject({ mode: 'now', sessionKey: 'main', conversationSessionKey: 'conv-thread', deliveryContext: { to: 'agent-42', channel: 'chat' } });
      expect(typeof r.body.message).toBe('string');
      expect(Date.parse(r.body.timestamp as string)).not.toBeNaN();
      // Never message content (service-spec.md, Events rules).
      expect(r.raw).not.toContain('sore throat');
      expect(Object.keys(r.body).every((k) => ['event', 'message', 'status', 'eventId', 'timestamp', 'consultationId', 'mode', 'sessionKey',
        'conversationSessionKey', 'deliveryContext', 'data'].includes(k))).toBe(true);
    }
    expect(mine().find((r) => r.body.event === 'triage_started')!.body.status).toBe('TRIAGING');
    // A signature made with another secret does not verify.
    const r0 = mine()[0]!;
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(r0.raw, r0.headers as Record<string, string>)).toThrow();

    // Outcomes are written in batches just after the attempt: wait for them, not for the arrival.
    await waitFor(async () => (await t.db.query(`SELECT 1 FROM webhook_deliveries d JOIN outbox_events e ON e.seq = d.event_seq
      WHERE e.consultation_id = $1 AND d.state <> 'delivered'`, [id])).rows.length === 0, 30_000, 'outcomes recorded');
    const log = await call('GET', '/api/webhook/deliveries?limit=10', undefined, user.token);
    expect(log.status).toBe(200);
    const delivered = (log.body.deliveries as Json[]).filter((d) => d.consultationId === id);
    expect(delivered.length).toBeGreaterThanOrEqual(2);
    for (const d of delivered) {
      expect(d).toMatchObject({ state: 'delivered', statusCode: 200, error: null, attempts: 1, sessionKey: 'main' });
      expect(d.latencyMs).toEqual(expect.any(Number));
    }
    expect(JSON.stringify(log.body)).not.toContain(WEBHOOK_TOKEN);
    // Another user's log does not show them.
    const other = await call('GET', '/api/webhook/deliveries');
    expect((other.body.deliveries as Json[]).some((d) => d.consultationId === id)).toBe(false);
  });

  it('DNS rebinding: a name allowed when saved and private at delivery is refused at connect and logged', async () => {
    const user = await identity.signUp(t.db);
    names.set('rebind.example.com', '127.0.0.1');
    // Saved while the name points at the allowlisted receiver; then it resolves to 127.0.0.2 (private, not allowlisted).
    const ok = await call('POST', '/api/webhook', { webhookUrl: `http://rebind.example.com:${receiver.port}/rebind`, sessionKey: 'rb' }, user.token);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    names.set('rebind.example.com', '127.0.0.2');
    // The guard pools connections; a pooled socket goes to the address checked when it opened.
    // Closing them makes the delivery open a new one, which is where rebinding would strike.
    receiver.dropIdle();
    const before = privateReceiver.connections;
    const got = receiver.received.length;
    const start = await call('POST', '/api/consultations', { contextMessage: 'My left ear hurts and feels blocked since Tuesday.', region: 'US-CA' }, user.token);
    const id = start.body.conversationId as string;
    const entries = async () => ((await call('GET', '/api/webhook/deliveries', undefined, user.token)).body.deliveries as Json[]).filter((d) => d.consultationId === id);
    await waitFor(async () => (await t.db.query(`SELECT 1 FROM webhook_deliveries d JOIN outbox_events e ON e.seq = d.event_seq
      WHERE e.consultation_id = $1 AND e.event = 'triage_started' AND d.state = 'failed'`, [id])).rows.length > 0, 30_000, 'the refused delivery logged');
    const log = await entries();
    const refused = log.find((d) => d.event === 'triage_started')!;
    expect(refused).toMatchObject({ state: 'failed', statusCode: null, attempts: 1 });
    expect(refused.error).toMatch(/127\.0\.0\.2/);
    expect(privateReceiver.connections).toBe(before);
    expect(receiver.received.slice(got).filter((r) => r.path === '/rebind')).toEqual([]);
  });
});

describe('the guard the app builds from OUTBOUND_ALLOWLIST', () => {
  it('lets 127.0.0.1 (and localhost, resolved to it) through when the setting names it, and refuses 127.0.0.2 before any connection', async () => {
    const own = await startReceiver();
    const id = fakeIdentity();
    const app = await makeTestApp({ identity: id, env: { OUTBOUND_ALLOWLIST: '127.0.0.1' }, webhookDeliverer: false });
    try {
      const { token: tok } = await id.signUp(app.db);
      const register = (webhookUrl: string) => app.app.inject({ method: 'POST', url: '/api/webhook', headers: { authorization: `Bearer ${tok}` }, payload: { webhookUrl } });
      const ok = await register(own.url('/allowlist'));
      expect(ok.statusCode, ok.body).toBe(200);
      const before = privateReceiver.connections;
      const refused = await register(`http://127.0.0.2:${receiver.port}/hook`);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ field: 'webhookUrl', code: 'webhook_url_rejected' });
      expect(privateReceiver.connections).toBe(before);
      // localhost is resolved by the system resolver through the guard, not refused by its name.
      const local = await register(`http://localhost:${own.port}/localhost`);
      expect(local.statusCode, local.body).toBe(200);
      expect(own.received.map((r) => [r.path, r.body.event])).toEqual([['/allowlist', 'webhook_test'], ['/localhost', 'webhook_test']]);
    } finally {
      await app.close();
      await own.close();
    }
  }, 180_000);
});

describe('bad input on the new routes', () => {
  it('never gives a 5xx', async () => {
    const urls = ['/api/webhook?sessionKey=%00', `/api/webhook?sessionKey=${'x'.repeat(300)}`, '/api/webhook?sessionKey=a&sessionKey=b',
      '/api/webhook/deliveries?limit=0', '/api/webhook/deliveries?limit=abc', '/api/webhook/deliveries?limit=1e9', '/api/webhook/deliveries?sessionKey=%E0%A4%A',
      '/api/webhook/deliveries?limit=-1&sessionKey=', '/api/webhook/deliveries/x'];
    for (const url of urls) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
        const r = await t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` } });
        expect(r.statusCode, `${method} ${url}: ${r.body}`).toBeLessThan(500);
      }
    }
    const bodies: unknown[] = [
      {}, { webhookUrl: null }, { webhookUrl: 12 }, { webhookUrl: '' }, { webhookUrl: 'https://' }, { webhookUrl: 'ftp://hooks.example.com/x' },
      { webhookUrl: `https://${'a'.repeat(2100)}.com` }, { webhookUrl: 'https://[::1', }, { webhookUrl: 'https://hooks.example.com/x', sessionKey: '../../etc' },
      { webhookUrl: 'https://hooks.example.com/x', webhookToken: 'short' }, { webhookUrl: 'https://hooks.example.com/x', deliveryContext: [] },
      { webhookUrl: 'https://hooks.example.com/x', deliveryContext: { to: 'x', extra: 1 } }, { webhookUrl: 'https://hooks.example.com/x', rotateSigningSecret: 'yes' },
      { webhookUrl: 'http://0x7f.1/', }, { webhookUrl: 'http://[::ffff:127.0.0.2]/' }, { webhookUrl: 'https://hooks.example.com\u0000/x' },
      { webhookUrl: 'javascript:alert(1)' }, [1, 2], 'text', { webhookUrl: 'https://user:pw@hooks.example.com/x' },
    ];
    for (const b of bodies) {
      const r = await t.app.inject({ method: 'POST', url: '/api/webhook', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify(b) });
      expect(r.statusCode, `${JSON.stringify(b).slice(0, 80)}: ${r.body}`).toBeGreaterThanOrEqual(400);
      expect(r.statusCode, `${JSON.stringify(b).slice(0, 80)}: ${r.body}`).toBeLessThan(500);
    }
    for (const url of ['/api/webhook', '/api/webhook/deliveries']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    }
  });
});
