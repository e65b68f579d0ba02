/**
 * The pricing routes' edges (issue 37, items 10-11): every error on a pricing route has its host's
 * body, including errors raised before the handler (malformed JSON, 415, 413, 405, 404, and 431
 * from Node's parser on a real socket); the public pricing host answers browsers (CORS without
 * credentials, preflight 204) while /api/* on the main host stays closed.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';

let db: Db;
let t: TestApp;
beforeAll(async () => {
  db = await openPgliteDb(undefined);
  t = await makeTestApp({ db, identity: fakeIdentity(), listen: true });
}, 60_000);
afterAll(async () => {
  await t.close();
  await db.close();
});

type Body = Record<string, unknown>;
const ORIGIN = 'https://agent.example.org';

/** {error, message, field, retryAfterSeconds?} and nothing of the main host's body. */
function expectPublicShape(b: Body): void {
  expect(typeof b.error).toBe('string');
  expect(typeof b.message).toBe('string');
  expect(b).toHaveProperty('field');
  expect(b).not.toHaveProperty('reason');
  expect(b).not.toHaveProperty('needsAuth');
  expect(b).not.toHaveProperty('agentInstructions');
}

/** {error, agentInstructions[]} and nothing of the main host's body. */
function expectMainShape(b: Body): void {
  expect(typeof b.error).toBe('string');
  expect(Array.isArray(b.agentInstructions)).toBe(true);
  expect((b.agentInstructions as string[]).length).toBeGreaterThan(0);
  expect(b).not.toHaveProperty('reason');
}

const HOSTS = [
  { name: '/api/pricing.v1', post: '/api/pricing.v1/network-status', missing: '/api/pricing.v1/no-such-thing', check: expectPublicShape },
  { name: '/api/pricing', post: '/api/pricing/network-status', missing: '/api/pricing/no-such-thing', check: expectMainShape },
] as const;

describe.each(HOSTS)('errors before the handler on $name', (h) => {
  async function send(opts: { method?: 'GET' | 'POST' | 'PUT'; url?: string; type?: string; payload?: string }) {
    const r = await t.app.inject({
      method: opts.method ?? 'POST', url: opts.url ?? h.post,
      headers: { 'content-type': opts.type ?? 'application/json', origin: ORIGIN }, ...(opts.payload !== undefined ? { payload: opts.payload } : {}),
    });
    return { status: r.statusCode, body: JSON.parse(r.body) as Body, headers: r.headers };
  }

  test('malformed JSON: 400 invalid_json', async () => {
    const r = await send({ payload: '{"providerName":' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_json');
    h.check(r.body);
  });

  test('a non-JSON body: 415', async () => {
    const r = await send({ type: 'text/plain', payload: 'providerName=x' });
    expect(r.status).toBe(415);
    h.check(r.body);
  });

  test('a body over 1 MiB: 413', async () => {
    const r = await send({ payload: JSON.stringify({ providerName: 'x'.repeat(1024 * 1024 + 10) }) });
    expect(r.status).toBe(413);
    h.check(r.body);
  });

  test('wrong method: 405 with Allow', async () => {
    const r = await send({ method: 'PUT', payload: '{}' });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toMatch(/POST/);
    h.check(r.body);
  });

  test('unknown path under the host: 404', async () => {
    const r = await send({ url: h.missing, payload: '{}' });
    expect(r.status).toBe(404);
    h.check(r.body);
  });

  test('request headers over the limit: 431 from the parser, in the route’s shape', async () => {
    const { status, body, headers } = await new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
      const url = new URL(h.post, t.baseUrl);
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-padding': 'p'.repeat(20_000) } }, (res) => {
        let s = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => { s += c; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: s, headers: res.headers }));
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(431);
    const b = JSON.parse(body) as Body;
    expect(b.error).toBe('headers_too_large');
    h.check(b);
    // Written on the raw socket, past Fastify's hooks: the security headers all the same (issue 38, item 6).
    expect(headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' });
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});

test('a main-host route outside pricing keeps the standard body', async () => {
  const r = await t.app.inject({ method: 'POST', url: '/api/profile/accept-terms', headers: { 'content-type': 'application/json' }, payload: '{' });
  expect(r.statusCode).toBe(400);
  expect(JSON.parse(r.body)).toMatchObject({ error: 'invalid_json', needsAuth: false, reason: expect.any(String) });
});

describe('CORS', () => {
  test('public pricing host: preflight 204 allowing any origin without credentials', async () => {
    const r = await t.app.inject({
      method: 'OPTIONS', url: '/api/pricing.v1/network-status',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
    expect(r.statusCode).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-allow-methods']).toMatch(/POST/);
    expect(String(r.headers['access-control-allow-headers'])).toMatch(/content-type/);
    expect(String(r.headers['access-control-allow-headers'])).toMatch(/authorization/);
    expect(r.headers['access-control-allow-credentials']).toBeUndefined();
  });

  test('public pricing host: answers (errors too) carry Access-Control-Allow-Origin', async () => {
    for (const url of ['/api/pricing.v1', '/api/pricing.v1/payers']) {
      const r = await t.app.inject({ method: 'GET', url, headers: { origin: ORIGIN } });
      expect(r.headers['access-control-allow-origin'], url).toBe('*');
      expect(String(r.headers['access-control-expose-headers'])).toMatch(/x-request-id/);
    }
  });

  test('main host /api/* stays closed: no CORS headers, preflight not allowed', async () => {
    for (const url of ['/api/pricing/network-status', '/api/profile']) {
      const pre = await t.app.inject({ method: 'OPTIONS', url, headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
      expect(pre.statusCode, url).not.toBe(204);
      expect(pre.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(pre.headers['access-control-allow-origin'], url).toBeUndefined();
      const r = await t.app.inject({ method: 'POST', url, headers: { origin: ORIGIN, 'content-type': 'application/json' }, payload: '{}' });
      expect(r.headers['access-control-allow-origin'], url).toBeUndefined();
    }
  });
});
