/**
 * Negative cases of the OAuth flow, each with the error the RFCs name (RFC 6749 §4.1.2.1 and
 * §5.2, RFC 7636 §4.4.1, RFC 8707 §2, OAuth 2.1 §4.1.1), plus the form errors of the pages.
 */
import { THROTTLE } from '../../engine/identity/login-throttle.ts';
import { ManualClock } from '../helpers/app.ts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as oauth from 'oauth4webapi';
import { CookieJar, driveBrowser, exchangeCode, obtainTokens, prepareAuthorization, type PreparedAuthorization } from '../helpers/oauth-flow.ts';
import { startIdentityApp, type IdentityHarness } from './harness.ts';

let h: IdentityHarness;
let other: IdentityHarness;
beforeAll(async () => { [h, other] = await Promise.all([startIdentityApp(), startIdentityApp()]); });
afterAll(async () => { await Promise.all([h?.close(), other?.close()]); });

const password = 'correct horse battery';
let n = 0;
const email = () => `neg${++n}@example.com`;

/** Sends the browser to a modified authorization URL, returning the raw first response. */
async function authorize(p: PreparedAuthorization, change: (q: URLSearchParams) => void): Promise<Response> {
  const url = new URL(p.authorizationUrl);
  change(url.searchParams);
  return fetch(url, { redirect: 'manual' });
}

describe('token endpoint', () => {
  test('a wrong code_verifier is invalid_grant', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: email(), password });
    await expect(exchangeCode(p, callback!, oauth.generateRandomCodeVerifier())).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('a code exchanged without any code_verifier is invalid_grant (RFC 7636 §4.6)', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: email(), password });
    const res = await fetch(p.as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: callback!.searchParams.get('code')!, redirect_uri: p.redirectUri, client_id: p.client.client_id }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
  });

  test('a reused code is invalid_grant, and the tokens issued from it are revoked', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: email(), password });
    const first = await exchangeCode(p, callback!);
    expect(await h.identity.verifyAccessToken(first.access_token)).not.toBeNull();
    await expect(exchangeCode(p, callback!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await h.identity.verifyAccessToken(first.access_token)).toBeNull();
  });

  test('a code presented with another redirect_uri is invalid_grant', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: email(), password });
    await expect(exchangeCode({ ...p, redirectUri: 'http://127.0.0.1:53682/other' }, callback!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});

describe('authorization endpoint', () => {
  test('an unregistered redirect_uri is shown to the user as an error page, never redirected to', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const res = await authorize(p, (q) => q.set('redirect_uri', 'https://evil.example/callback'));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    const html = await res.text();
    expect(html).toContain('redirect_uri');
    expect(html).not.toContain('evil.example/callback?');
  });

  test('a loopback redirect_uri may change its port (RFC 8252 §7.3), but not its path', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const other = 'http://127.0.0.1:61111/callback';
    const url = new URL(p.authorizationUrl);
    url.searchParams.set('redirect_uri', other);
    const ok = await driveBrowser(url, other, { email: email(), password });
    expect(ok.callback?.searchParams.get('code')).toBeTruthy();
    const bad = await authorize(p, (q) => q.set('redirect_uri', 'http://127.0.0.1:61111/callback2'));
    expect(bad.status).toBe(400);
  });

  test('a request without PKCE is sent back as invalid_request', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const res = await authorize(p, (q) => { q.delete('code_challenge'); q.delete('code_challenge_method'); });
    expect(res.status).toBe(303);
    const cb = new URL(res.headers.get('location')!);
    expect(cb.origin + cb.pathname).toBe(p.redirectUri);
    expect(cb.searchParams.get('error')).toBe('invalid_request');
    expect(cb.searchParams.get('state')).toBe(p.state);
    expect(cb.searchParams.get('iss')).toBe(h.baseUrl);
  });

  test('the plain PKCE method is refused (S256 only)', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const res = await authorize(p, (q) => { q.set('code_challenge_method', 'plain'); q.set('code_challenge', p.codeVerifier); });
    const cb = new URL(res.headers.get('location')!);
    expect(cb.searchParams.get('error')).toBe('invalid_request');
  });

  test('a resource that is not this service is invalid_target', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const res = await authorize(p, (q) => q.set('resource', 'https://other.example/api'));
    const cb = new URL(res.headers.get('location')!);
    expect(cb.searchParams.get('error')).toBe('invalid_target');
  });

  test('an unknown scope is never granted', async () => {
    // oidc-provider drops scopes it does not know (RFC 6749 §3.3 lets the server narrow scope).
    const t = await obtainTokens(h.baseUrl, { email: email(), password, scope: 'openid admin' });
    expect((await h.identity.verifyAccessToken(t.accessToken))?.scopes).toEqual(['openid']);
  });

  test('denying consent returns access_denied to the client', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: email(), password, deny: true });
    expect(callback?.searchParams.get('error')).toBe('access_denied');
  });
});

describe('sign-up and sign-in forms', () => {
  test('a wrong password re-shows the sign-in form with an error and no redirect', async () => {
    const address = email();
    await obtainTokens(h.baseUrl, { email: address, password });
    const p = await prepareAuthorization(h.baseUrl);
    const r = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: address, password: 'wrong password!', signIn: true });
    expect(r.callback).toBeUndefined();
    expect(r.page?.status).toBe(401);
    expect(r.page?.html).toContain('The email or password is incorrect.');
    expect(r.page?.html).toContain(`value="${address}"`);
  });

  test('an unknown email is refused the same way', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const r = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'nobody@example.com', password, signIn: true });
    expect(r.page?.status).toBe(401);
    expect(r.page?.html).toContain('The email or password is incorrect.');
  });

  test('a duplicate email (any case) is not refused: sign-up answers "check your email" (issue 38, item 5)', async () => {
    const address = email();
    await obtainTokens(h.baseUrl, { email: address, password });
    const p = await prepareAuthorization(h.baseUrl);
    const r = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: address.toUpperCase(), password: 'someone else entirely', deny: true });
    // The check-email page's sign-in form was tried with the other password: 401, not 409.
    expect(r.page?.status).toBe(401);
    expect(r.page?.html).not.toMatch(/already exists/i);
  });

  test('a short password and a bad email are named on the form', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const short = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: email(), password: 'short' });
    expect(short.page?.status).toBe(400);
    expect(short.page?.html).toContain('at least 15 characters');
    const q = await prepareAuthorization(h.baseUrl);
    const bad = await driveBrowser(q.authorizationUrl, q.redirectUri, { email: 'not-an-email', password });
    expect(bad.page?.status).toBe(400);
    expect(bad.page?.html).toContain('valid email address');
  });

  test('form output is escaped', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const r = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: '"><script>alert(1)</script>', password });
    expect(r.page?.html).not.toContain('<script>');
    expect(r.page?.html).toContain('&quot;&gt;&lt;script&gt;');
  });

  test('a form post without the interaction cookie (cross-site) is refused', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const res = await fetch(p.authorizationUrl, { redirect: 'manual' });
    const page = new URL(res.headers.get('location')!, h.baseUrl);
    const post = await fetch(new URL(`${page.pathname}/signup`, h.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: email(), password }).toString(),
      redirect: 'manual',
    });
    expect(post.status).toBe(400);
    expect(await post.text()).toContain('expired');
    // And the interaction with the right cookie still works afterwards.
    const jar = new CookieJar();
    jar.store(res);
    const ok = await driveBrowser(page, p.redirectUri, { email: email(), password }, jar);
    expect(ok.callback?.searchParams.get('code')).toBeTruthy();
  });
});

describe('bearer verification', () => {
  test('missing, malformed, foreign, expired and revoked tokens give null, never a throw', async () => {
    const t = await obtainTokens(h.baseUrl, { email: email(), password });
    expect(await h.identity.verifyAccessToken(t.accessToken)).not.toBeNull();
    for (const bad of ['', 'abc', 'x'.repeat(10_000), 'a.b.c', `${t.accessToken}x`, t.accessToken.slice(1), ' ', '\u0000'.repeat(43)]) {
      expect(await h.identity.verifyAccessToken(bad)).toBeNull();
    }
    expect(await h.identity.verifyAccessToken(undefined as unknown as string)).toBeNull();
    // Issued by another instance of the service (another issuer and database): foreign.
    expect(await other.identity.verifyAccessToken(t.accessToken)).toBeNull();
    // The refresh token is not an access token.
    expect(await h.identity.verifyAccessToken(t.refreshToken!)).toBeNull();
    // Expired: move its expiry into the past in storage.
    await h.db.query(`UPDATE oidc_payloads SET expires_at = now() - interval '1 second', payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch FROM now())::int - 1)) WHERE model = 'AccessToken'`);
    expect(await h.identity.verifyAccessToken(t.accessToken)).toBeNull();
  });

  test('resourceMetadataUrl points at the RFC 9728 document', () => {
    expect(h.identity.resourceMetadataUrl()).toBe(`${h.baseUrl}/.well-known/oauth-protected-resource`);
  });
});

describe('brute-force brakes', () => {
  test('after the free attempts on one account from one address, a growing delay (429 + Retry-After), stored in the database', async () => {
    // A clock that stands still: the delay cannot run out while the test runs, however slow.
    const slow = await startIdentityApp({}, undefined, new ManualClock());
    try {
      const p = await prepareAuthorization(slow.baseUrl);
      const jar = new CookieJar();
      const first = await fetch(p.authorizationUrl, { redirect: 'manual' });
      jar.store(first);
      const page = new URL(first.headers.get('location')!, slow.baseUrl);
      const attempt = (who = 'victim@example.com') => fetch(new URL(`${page.pathname}/login`, slow.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
        body: new URLSearchParams({ email: who, password: 'guess guess guess' }).toString(),
        redirect: 'manual',
      });
      for (let i = 0; i < THROTTLE.accountIp.free; i++) expect((await attempt()).status).toBe(401);
      const limited = await attempt();
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBe(1);
      expect(await limited.text()).toContain('Too many failed attempts');
      // Not a lockout of the address: another account from it is still checked.
      expect((await attempt('someone.else@example.com')).status).toBe(401);
      const { rows } = await slow.db.query<{ n: number }>('SELECT max(failures)::int AS n FROM login_throttle');
      expect(rows[0]!.n).toBe(THROTTLE.accountIp.free + 1);
    } finally {
      await slow.close();
    }
  });
});

describe('bad input on the identity pages never gives a 5xx', () => {
  test('wrong content type, oversized form, unknown interaction, odd methods', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const jar = new CookieJar();
    const start = await fetch(p.authorizationUrl, { redirect: 'manual' });
    jar.store(start);
    const page = new URL(start.headers.get('location')!, h.baseUrl);
    const post = (path: string, contentType: string, body: string) => fetch(new URL(path, h.baseUrl), {
      method: 'POST', headers: { 'content-type': contentType, cookie: jar.header() }, body, redirect: 'manual',
    });
    const cases = await Promise.all([
      post(`${page.pathname}/login`, 'application/json', '{"email":"a@b.c","password":"x"}'),
      post(`${page.pathname}/signup`, 'multipart/form-data; boundary=x', '--x--'),
      post(`${page.pathname}/signup`, 'application/x-www-form-urlencoded', `email=${'a'.repeat(20_000)}`),
      post('/oauth/interaction/does-not-exist/login', 'application/x-www-form-urlencoded', 'email=a&password=b'),
      post(`${page.pathname}/consent`, 'application/x-www-form-urlencoded', 'decision=approve'), // not at consent yet
      fetch(new URL('/oauth/interaction/%3Cscript%3E', h.baseUrl)),
      fetch(new URL('/oauth/token', h.baseUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }),
      fetch(new URL('/oauth/token', h.baseUrl), { method: 'POST' }),
      fetch(new URL('/oauth/authorize?client_id=nope', h.baseUrl), { redirect: 'manual' }),
    ]);
    for (const res of cases) {
      expect(res.status, res.url).toBeGreaterThanOrEqual(300);
      expect(res.status, res.url).toBeLessThan(500);
    }
    // And the interaction is still usable afterwards.
    const ok = await driveBrowser(page, p.redirectUri, { email: email(), password }, jar);
    expect(ok.callback?.searchParams.get('code')).toBeTruthy();
  });
});
