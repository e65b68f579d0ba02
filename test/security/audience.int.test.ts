/**
 * Audience per host (issue 38, item 2; RFC 8707, RFC 9068 §4): with PRICING_URL != BASE_URL, a
 * token issued for the pricing host (resource=PRICING_URL) is refused on the main host (REST
 * `/api/*`, `/api/pricing/*`, MCP) and still accepted on the pricing host; a BASE_URL token works
 * on both. Real tokens from the real OAuth flow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveBrowser, exchangeCode, obtainTokens, prepareAuthorization } from '../helpers/oauth-flow.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

const PRICING_URL = 'http://pricing.carebridge.test';
const password = 'correct horse battery staple';

let t: TestApp;
let pricingToken: string;
let mainToken: string;

beforeAll(async () => {
  t = await makeTestApp({ listen: true, env: { PRICING_URL } });
  const p = await prepareAuthorization(t.baseUrl, { extra: { resource: PRICING_URL } });
  const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'pricing-aud@example.test', password });
  pricingToken = (await exchangeCode({ ...p, resource: PRICING_URL }, callback!)).access_token;
  mainToken = (await obtainTokens(t.baseUrl, { email: 'main-aud@example.test', password })).accessToken;
});
afterAll(async () => { await t?.close(); });

async function call(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; www: string | null; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(new URL(path, t.baseUrl), { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, www: res.headers.get('www-authenticate'), body: (await res.json()) as Record<string, unknown> };
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

describe('audience per host', () => {
  it('a pricing-host token is 401 invalid_token on /api/profile, /api/pricing/* and MCP', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/profile', undefined],
      ['POST', '/api/pricing/network-status', { zip: '94110' }],
      ['POST', '/', initialize],
    ] as const) {
      const r = await call(method, path, pricingToken, body);
      expect(r.status, path).toBe(401);
      expect(r.www, path).toContain('error="invalid_token"');
    }
  });

  it('the same pricing-host token still works on the pricing host', async () => {
    // No pricing data in this app: a caller past the bearer check gets 503 pricing_data_unavailable,
    // while a token the route refuses gets 401 first.
    expect((await call('GET', '/api/pricing.v1/payers', 'A'.repeat(43))).status).toBe(401);
    const r = await call('GET', '/api/pricing.v1/payers', pricingToken);
    expect(r.body.error).toBe('pricing_data_unavailable');
  });

  it('a BASE_URL token works on the main host, MCP and the pricing host', async () => {
    expect((await call('GET', '/api/profile', mainToken)).status).toBe(200);
    expect((await call('POST', '/', mainToken, initialize)).status).toBe(200);
    expect((await call('GET', '/api/pricing.v1/payers', mainToken)).body.error).toBe('pricing_data_unavailable');
  });
});
