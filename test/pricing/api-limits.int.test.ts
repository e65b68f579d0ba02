/**
 * Anonymous per-IP rate limits and bearer handling on the public pricing host (service-spec.md,
 * Limits: network-status 20/min, provider-evidence 60/min; issue 4, item 10): the 21st anonymous
 * call in a minute gets 429 with retryAfterSeconds and Retry-After; a caller with a valid bearer is
 * not counted; an invalid bearer is a 401, not a silent downgrade to anonymous.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEMO_REQUEST, demoNpi, openDemoPricing, pricingApp, type DemoPricing, type PricingTestApp } from './api-demo-app.ts';

let d: DemoPricing;
let t: PricingTestApp;

// One app (one limiter) for the file: every test uses its own client IPs, so no test sees another's
// counts, and the seconds an app build costs on these shared machines are paid once.
beforeAll(async () => {
  d = await openDemoPricing();
  t = await pricingApp(d.ports);
}, 120_000);
afterAll(async () => {
  await t.close();
  d.close();
});

const NS = '/api/pricing.v1/network-status';
const PE = '/api/pricing.v1/provider-evidence';
const POPPY_NPI = demoNpi('POPPYFIELD FAMILY MEDICINE');

async function call(url: string, payload: unknown, ip: string, token?: string) {
  const r = await t.app.inject({
    method: 'POST', url, payload: payload as never, remoteAddress: ip,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: r.statusCode, body: JSON.parse(r.body) as Record<string, unknown>, headers: r.headers };
}

function expect429(r: Awaited<ReturnType<typeof call>>): void {
  expect(r.status).toBe(429);
  expect(r.body.error).toBe('rate_limited');
  expect(typeof r.body.message).toBe('string');
  expect(r.body).toHaveProperty('field');
  const s = r.body.retryAfterSeconds;
  expect(Number.isInteger(s)).toBe(true);
  expect(s as number).toBeGreaterThanOrEqual(1);
  expect(s as number).toBeLessThanOrEqual(60);
  expect(r.headers['retry-after']).toBe(String(s));
}

describe('network-status: 20 anonymous requests per minute per IP', () => {
  test('the 21st anonymous request from one IP is refused; another IP is not affected', async () => {
    for (let i = 1; i <= 20; i++) {
      const r = await call(NS, DEMO_REQUEST, '198.51.100.7');
      expect(r.status, `request ${i}`).toBe(200);
    }
    expect429(await call(NS, DEMO_REQUEST, '198.51.100.7'));
    // Still refused: the window has not moved.
    expect429(await call(NS, { npi: POPPY_NPI }, '198.51.100.7'));
    expect((await call(NS, DEMO_REQUEST, '198.51.100.8')).status).toBe(200);
    // The buckets are separate: provider-evidence from the same IP still answers.
    expect((await call(PE, { npi: POPPY_NPI }, '198.51.100.7')).status).toBe(200);
  }, 60_000);

  test('a caller with a valid bearer is not counted against the anonymous bucket', async () => {
    const { token } = await t.identity.signUp(t.db);
    const ip = '198.51.100.20';
    for (let i = 1; i <= 25; i++) expect((await call(NS, DEMO_REQUEST, ip, token)).status, `bearer request ${i}`).toBe(200);
    // The same IP still has its whole anonymous allowance.
    for (let i = 1; i <= 20; i++) expect((await call(NS, DEMO_REQUEST, ip)).status, `anonymous request ${i}`).toBe(200);
    expect429(await call(NS, DEMO_REQUEST, ip));
    // An exhausted IP is no obstacle for a signed-in caller behind it.
    expect((await call(NS, DEMO_REQUEST, ip, token)).status).toBe(200);
  }, 60_000);
});

describe('provider-evidence: 60 anonymous requests per minute per IP', () => {
  test('the 61st anonymous request is refused with retryAfterSeconds', async () => {
    for (let i = 1; i <= 60; i++) expect((await call(PE, { npi: POPPY_NPI }, '203.0.113.9')).status, `request ${i}`).toBe(200);
    expect429(await call(PE, { npi: POPPY_NPI, code: '99213' }, '203.0.113.9'));
  }, 60_000);
});

describe('bearer on the public host', () => {
  test('an invalid bearer is a 401, not a silent downgrade to anonymous', async () => {
    for (const url of [NS, PE]) {
      const r = await call(url, url === NS ? DEMO_REQUEST : { npi: POPPY_NPI }, '192.0.2.1', 'not-a-real-token');
      expect(r.status, url).toBe(401);
      expect(r.body).toMatchObject({ error: 'not_authenticated', message: expect.any(String) });
    }
    const g = await t.app.inject({ method: 'GET', url: '/api/pricing.v1/payers', headers: { authorization: 'Bearer nope' }, remoteAddress: '192.0.2.1' });
    expect(g.statusCode).toBe(401);
  });

  test('a revoked token is refused too', async () => {
    const { token } = await t.identity.signUp(t.db);
    expect((await call(NS, DEMO_REQUEST, '192.0.2.2', token)).status).toBe(200);
    t.identity.revoke(token);
    expect((await call(NS, DEMO_REQUEST, '192.0.2.2', token)).status).toBe(401);
  });
});
