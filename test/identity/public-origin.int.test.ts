/**
 * Behind a TLS-terminating proxy: BASE_URL is https, the app listens on plain HTTP. URLs are
 * built from BASE_URL and cookies are Secure (issue 2, item 8).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REGISTRATIONS_PER_IP_PER_MINUTE } from '../../api/identity/oidc.ts';
import { startIdentityApp, type IdentityHarness } from './harness.ts';

let h: IdentityHarness;
beforeAll(async () => { h = await startIdentityApp({ BASE_URL: 'https://carebridge.example' }); });
afterAll(async () => { await h?.close(); });

test('metadata names the https origin and the interaction cookie is Secure, HttpOnly, SameSite=Lax', async () => {
  const meta = (await (await fetch(`${h.listenUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, string>;
  expect(meta.issuer).toBe('https://carebridge.example');
  expect(meta.authorization_endpoint).toBe('https://carebridge.example/oauth/authorize');

  const reg = await fetch(`${h.listenUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9999/cb'], token_endpoint_auth_method: 'none', client_name: 'c' }),
  });
  expect(reg.status).toBe(201);
  const { client_id } = (await reg.json()) as { client_id: string };
  const q = new URLSearchParams({
    client_id, redirect_uri: 'http://127.0.0.1:9999/cb', response_type: 'code', scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: 's',
  });
  const res = await fetch(`${h.listenUrl}/oauth/authorize?${q}`, { redirect: 'manual' });
  expect(res.status).toBe(303);
  const cookies = res.headers.getSetCookie().filter((c) => c.startsWith('_cb_interaction='));
  expect(cookies.length).toBeGreaterThan(0);
  for (const c of cookies) {
    expect(c.toLowerCase()).toContain('; secure');
    expect(c.toLowerCase()).toContain('; httponly');
    expect(c.toLowerCase()).toContain('samesite=lax');
  }
});

test('a malformed registration is a 400 invalid_client_metadata / invalid_redirect_uri, not a 5xx', async () => {
  for (const body of [
    '{',
    JSON.stringify({ redirect_uris: ['not a url'] }),
    JSON.stringify({ redirect_uris: ['https://x.example/cb#frag'] }),
    JSON.stringify({}),
    JSON.stringify({ redirect_uris: 'https://x.example/cb' }),
    JSON.stringify({ redirect_uris: ['http://x.example/cb'] }), // plain http off loopback
    JSON.stringify({ redirect_uris: ['https://x.example/cb'], software_id: 7 }),
  ]) {
    const res = await fetch(`${h.listenUrl}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status, body).toBe(400);
    const err = (await res.json()) as { error: string };
    expect(['invalid_request', 'invalid_client_metadata', 'invalid_redirect_uri']).toContain(err.error);
  }
  const ok = await fetch(`${h.listenUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['https://x.example/cb', 'http://localhost:3000/cb', 'http://[::1]/cb'], software_id: 'agent-x' }),
  });
  expect(ok.status).toBe(201);
  expect(await ok.json()).toMatchObject({ software_id: 'agent-x' });
});

test('open registration is rate limited per IP (429 with Retry-After, never a 5xx)', async () => {
  const register = () => fetch(`${h.listenUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9999/cb'], token_endpoint_auth_method: 'none' }),
  });
  const statuses: number[] = [];
  for (let i = 0; i <= REGISTRATIONS_PER_IP_PER_MINUTE; i++) statuses.push((await register()).status);
  // Earlier tests in this file registered too; what matters: 201s, then 429s, nothing else.
  expect(statuses.every((s) => s === 201 || s === 429)).toBe(true);
  const limited = await register();
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await limited.json()).toMatchObject({ error: 'rate_limited', needsAuth: false });
});
