/**
 * The error model over REST (issue 2, item 7; service-spec.md, Errors): registry status, spec
 * bodies per error shape, 401 challenge, rate limits, 404/405/413/415, and 500s that are logged
 * with a request id and never leak the cause.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { ManualClock, makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { testOperations } from './test-operations.ts';

let db: Db;
beforeAll(async () => { db = await openPgliteDb(undefined); });
afterAll(async () => { await db.close(); });

function logCapture(): { logger: pino.Logger; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({ write(c: Buffer, _e, cb) { chunks.push(c.toString()); cb(); } });
  return { logger: pino({ level: 'info' }, stream), text: () => chunks.join('') };
}

describe('REST error model', () => {
  let t: TestApp;
  const identity = fakeIdentity();
  const clock = new ManualClock();
  const logs = logCapture();
  let token: string;

  beforeAll(async () => {
    t = await makeTestApp({ db, identity, clock, operations: testOperations, logger: logs.logger });
    ({ token } = await identity.signUp(db));
  });
  afterAll(async () => { await t.close(); });

  it('unknown route: 404 JSON route_not_found', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/nope?x=1' });
    expect(r.statusCode).toBe(404);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    expect(r.json()).toMatchObject({ error: 'route_not_found', needsAuth: false });
  });

  it('wrong method on a known route: 405 JSON with Allow', async () => {
    const r = await t.app.inject({ method: 'DELETE', url: '/api/test/boom' });
    expect(r.statusCode).toBe(405);
    expect(r.headers.allow).toContain('GET');
    expect(r.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('unknown error: logged 500 internal_error with the request id, no cause in the body', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/test/boom' });
    expect(r.statusCode).toBe(500);
    const body = r.json<Record<string, unknown>>();
    expect(body).toMatchObject({ error: 'internal_error', needsAuth: false });
    expect(body.requestId).toBe(r.headers['x-request-id']);
    expect(r.body).not.toMatch(/SELECT|hunter2|stack|at /);
    expect(logs.text()).toContain(String(body.requestId));
  });

  it('output that breaks its schema is a logged 500, details not leaked', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/test/bad-output' });
    expect(r.statusCode).toBe(500);
    expect(r.body).not.toContain('nobody');
    expect(logs.text()).toContain('operation output does not match its schema');
  });

  it('an AppError keeps its registry status, field and extra payload', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/api/test/region' });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ error: 'REGION_NOT_SUPPORTED', reason: 'Only US-CA is served.', message: 'Only US-CA is served.', needsAuth: false, field: 'region', regions: ['US-CA'] });
  });

  it('path params and coerced query values reach the input; a bad query value names the field', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/api/test/items/abc?limit=5&flag=true' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ id: 'abc', limit: 5, flag: true });
    const bad = await t.app.inject({ method: 'GET', url: '/api/test/items/abc?limit=five' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'invalid_request', field: 'limit' });
    const tooShort = await t.app.inject({ method: 'GET', url: '/api/test/items/ab' });
    expect(tooShort.json()).toMatchObject({ field: 'id' });
    const unknown = await t.app.inject({ method: 'GET', url: '/api/test/items/abc?zzz=1' });
    expect(unknown.json()).toMatchObject({ error: 'invalid_request', field: 'zzz', code: 'unknown_field' });
  });

  it('required auth, no token: 401 not_authenticated with the RFC 9728 challenge', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/api/test/main-shape', payload: { npi: '1234567890' } });
    expect(r.statusCode).toBe(401);
    expect(r.headers['www-authenticate']).toBe(`Bearer resource_metadata="${identity.resourceMetadataUrl()}"`);
    expect(r.json()).toMatchObject({ error: 'not_authenticated', needsAuth: true });
  });

  it('required auth, bad token: 401 with error="invalid_token"', async () => {
    for (const authorization of ['Bearer not-a-real-token', 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const r = await t.app.inject({ method: 'POST', url: '/api/test/main-shape', payload: { npi: '1234567890' }, headers: { authorization } });
      expect(r.statusCode, authorization).toBe(401);
      expect(r.headers['www-authenticate'], authorization).toMatch(/^Bearer resource_metadata="[^"]+"/);
      expect(r.json<{ needsAuth: boolean }>().needsAuth).toBe(true);
    }
    const r = await t.app.inject({ method: 'POST', url: '/api/test/main-shape', payload: { npi: '1' }, headers: { authorization: 'Bearer not-a-real-token' } });
    expect(r.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('pricing-main shape: {error, agentInstructions[]} naming the field', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/api/test/main-shape', payload: { npi: '12' }, headers: { authorization: `Bearer ${token}` } });
    expect(r.statusCode).toBe(400);
    const body = r.json<{ error: string; agentInstructions: string[]; field: string }>();
    expect(body.error).toBe('invalid_request');
    expect(body.field).toBe('npi');
    expect(body.agentInstructions.length).toBeGreaterThan(0);
    expect(body).not.toHaveProperty('reason');
  });

  it('optional auth: anonymous works, a valid bearer is the user, an invalid bearer is 401 (never downgraded)', async () => {
    const anon = await t.app.inject({ method: 'POST', url: '/api/test/optional', payload: {} });
    expect(anon.json()).toEqual({ caller: 'anonymous', userId: null });
    const user = await t.app.inject({ method: 'POST', url: '/api/test/optional', payload: {}, headers: { authorization: `Bearer ${token}` } });
    expect(user.json<{ caller: string }>().caller).toBe('user');
    const bad = await t.app.inject({ method: 'POST', url: '/api/test/optional', payload: {}, headers: { authorization: 'Bearer forged-token-value' } });
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toMatchObject({ error: 'not_authenticated', field: null });
  });

  it('pricing-public shape and the anonymous per-IP limit: 429 with retryAfterSeconds and Retry-After; bearer callers not counted; window resets', async () => {
    const call = (headers: Record<string, string> = {}, ip = '203.0.113.9') =>
      t.app.inject({ method: 'POST', url: '/api/test/optional', payload: {}, headers, remoteAddress: ip });
    clock.advance(120_000); // a fresh window, whatever earlier tests used
    for (let i = 0; i < 3; i++) expect((await call()).statusCode).toBe(200);
    const limited = await call();
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.json()).toEqual({ error: 'rate_limited', message: expect.any(String), field: null, retryAfterSeconds: 60 });
    // Other IPs and signed-in callers are unaffected.
    expect((await call({}, '203.0.113.10')).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await call({ authorization: `Bearer ${token}` })).statusCode).toBe(200);
    clock.advance(30_000);
    expect((await call()).json()).toMatchObject({ retryAfterSeconds: 30 });
    clock.advance(30_000);
    expect((await call()).statusCode).toBe(200);
    // Non-429 pricing-public errors carry no retryAfterSeconds.
    const invalid = await t.app.inject({ method: 'POST', url: '/api/test/optional', payload: { n: 'x' }, remoteAddress: '198.51.100.2' });
    expect(invalid.json()).toEqual({ error: 'invalid_request', message: expect.any(String), field: 'n' });
  });

  it('body limits and media types: 413 over 1 MiB, 415 for non-JSON, 400 for non-object JSON', async () => {
    const big = JSON.stringify({ n: 1, pad: 'x'.repeat(1024 * 1024 + 10) });
    const r413 = await t.app.inject({ method: 'POST', url: '/api/test/region', payload: big, headers: { 'content-type': 'application/json' } });
    expect(r413.statusCode).toBe(413);
    expect(r413.json()).toMatchObject({ error: 'payload_too_large' });
    const r415 = await t.app.inject({ method: 'POST', url: '/api/test/region', payload: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r415.statusCode).toBe(415);
    expect(r415.json()).toMatchObject({ error: 'unsupported_media_type' });
    const arr = await t.app.inject({ method: 'POST', url: '/api/test/optional', payload: '[1,2]', headers: { 'content-type': 'application/json' } });
    expect(arr.statusCode).toBe(400);
    expect(arr.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('malformed URLs, NUL characters and prototype keys are 400s; JSON with parameters or +json is accepted', async () => {
    for (const url of ['/api/test/items/%', '/%%']) {
      const r = await t.app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(400);
      expect(r.json(), url).toMatchObject({ error: 'invalid_request', needsAuth: false });
    }
    const nulBody = await t.app.inject({ method: 'POST', url: '/api/test/optional', payload: '{"n":1,"s":"a\\u0000b"}', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });
    expect(nulBody.statusCode).toBe(400);
    expect(nulBody.json()).toMatchObject({ error: 'invalid_request', field: 's', message: 's contains a NUL character.' });
    const nulQuery = await t.app.inject({ method: 'GET', url: '/api/test/items/abc%00' });
    expect(nulQuery.json()).toMatchObject({ error: 'invalid_request', field: 'id' });
    for (const key of ['__proto__', 'constructor']) {
      const r = await t.app.inject({ method: 'POST', url: '/api/test/optional', payload: `{"${key}":{"polluted":1}}`, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });
      expect(r.json(), key).toMatchObject({ error: 'invalid_request', field: key });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    for (const ct of ['application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json']) {
      const r = await t.app.inject({ method: 'POST', url: '/api/test/optional', payload: '{"n":1}', headers: { 'content-type': ct, authorization: `Bearer ${token}` } });
      expect(r.statusCode, ct).toBe(200);
    }
  });

  it('logs carry request ids but no tokens, cookies, passwords or bodies', async () => {
    const secret = 'sekret-demographics-Zelda';
    await t.app.inject({ method: 'POST', url: '/api/test/optional', payload: { n: 1, password: secret }, headers: { authorization: `Bearer ${token}`, cookie: `sid=${secret}` } });
    const text = logs.text();
    expect(text).not.toContain(token);
    expect(text).not.toContain(secret);
    expect(text).toMatch(/"reqId":"[0-9a-f-]{36}"/);
  });
});

describe('per-user limit for signed-in callers', () => {
  it('counts REST calls per user; over the limit is a 429 with Retry-After; other users unaffected', async () => {
    const identity = fakeIdentity();
    const clock = new ManualClock();
    const t = await makeTestApp({ db, identity, clock, operations: testOperations, userRatePerMinute: 3 });
    try {
      const a = (await identity.signUp(db)).token;
      const b = (await identity.signUp(db)).token;
      const call = (tok: string) => t.app.inject({ method: 'POST', url: '/api/test/main-shape', payload: { npi: '1234567890' }, headers: { authorization: `Bearer ${tok}` } });
      for (let i = 0; i < 3; i++) expect((await call(a)).statusCode).toBe(200);
      const over = await call(a);
      expect(over.statusCode).toBe(429);
      expect(over.headers['retry-after']).toBe('60');
      expect(over.json()).toMatchObject({ error: 'rate_limited', retryAfterSeconds: 60, agentInstructions: expect.any(Array) });
      expect((await call(b)).statusCode).toBe(200);
      clock.advance(60_000);
      expect((await call(a)).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
