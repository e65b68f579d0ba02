/**
 * The OAuth 2.1 flow end to end with an independent client (oauth4webapi) over plain HTTP:
 * registration, PKCE, the sign-up form, code exchange, refresh rotation and reuse detection,
 * revocation, RFC 9207 `iss`, and what is (not) stored.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as oauth from 'oauth4webapi';
import { CookieJar, driveBrowser, exchangeCode, obtainTokens, prepareAuthorization, refresh } from '../helpers/oauth-flow.ts';
import { startIdentityApp, type IdentityHarness } from './harness.ts';

let h: IdentityHarness;
beforeAll(async () => { h = await startIdentityApp(); });
afterAll(async () => { await h?.close(); });

const password = 'correct horse battery';

describe('authorization code flow with PKCE', () => {
  test('sign-up over plain HTML forms yields an opaque access token for this service', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const browser = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'Flow.User@example.com', password, name: 'Flow User' });
    expect(browser.callback).toBeDefined();
    // RFC 9207: the authorization response names the issuer, and oauth4webapi checks it.
    expect(browser.callback!.searchParams.get('iss')).toBe(h.baseUrl);
    const tokens = await exchangeCode(p, browser.callback!);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/); // opaque, 256 bits, not a JWT
    expect(tokens.refresh_token).toBeDefined();
    expect(tokens.id_token).toBeDefined();
    expect(tokens.expires_in).toBe(3600);

    const verified = await h.identity.verifyAccessToken(tokens.access_token);
    expect(verified).toMatchObject({ clientId: p.client.client_id, audience: h.baseUrl });
    expect(verified!.scopes.sort()).toEqual(['email', 'openid', 'profile']);
    const { rows } = await h.db.query<{ id: string; email: string; display_name: string; password_hash: string }>(
      'SELECT id, email, display_name, password_hash FROM accounts WHERE email_lower = $1', ['flow.user@example.com']);
    expect(rows[0]).toMatchObject({ id: verified!.userId, email: 'Flow.User@example.com', display_name: 'Flow User' });
    expect(rows[0]!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const self = await h.db.query('SELECT 1 FROM patients WHERE account_id = $1 AND relationship = $2', [verified!.userId, 'self']);
    expect(self.rows).toHaveLength(1);

    // The ID token carries the granted claims (there is no userinfo endpoint).
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(claims).toMatchObject({ sub: verified!.userId, email: 'Flow.User@example.com', name: 'Flow User', iss: h.baseUrl });
  });

  test('an existing user signs in; a client that asks for no scope gets the default scope', async () => {
    await obtainTokens(h.baseUrl, { email: 'returning@example.com', password });
    const t = await obtainTokens(h.baseUrl, { email: 'returning@example.com', password, signIn: true, scope: '' });
    const v = await h.identity.verifyAccessToken(t.accessToken);
    expect(v?.scopes.sort()).toEqual(['email', 'profile']);
    expect(v?.audience).toBe(h.baseUrl);
  });

  test('a client that sends no resource indicator gets a token for this service (default resource)', async () => {
    const prepared = await prepareAuthorization(h.baseUrl);
    prepared.authorizationUrl.searchParams.delete('resource');
    const p = { ...prepared, resource: '' };
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'no-resource@example.com', password });
    const t = await exchangeCode(p, callback!);
    expect((await h.identity.verifyAccessToken(t.access_token))?.audience).toBe(h.baseUrl);
  });

  test('oauth4webapi rejects a callback whose iss is not the issuer (RFC 9207 mix-up defence)', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'iss@example.com', password });
    const forged = new URL(callback!);
    forged.searchParams.set('iss', 'https://attacker.example');
    expect(() => oauth.validateAuthResponse(p.as, p.client, forged, p.state)).toThrow(/iss/);
    const missing = new URL(callback!);
    missing.searchParams.delete('iss');
    // The server advertises authorization_response_iss_parameter_supported, so iss is required.
    expect(() => oauth.validateAuthResponse(p.as, p.client, missing, p.state)).toThrow(/iss/);
    expect(oauth.validateAuthResponse(p.as, p.client, callback!, p.state).get('code')).toBeTruthy();
  });
});

describe('confidential clients', () => {
  test('a client_secret_basic client completes the flow (PKCE still required) and refreshes', async () => {
    const p = await prepareAuthorization(h.baseUrl, { authMethod: 'client_secret_basic' });
    expect(p.client.client_secret).toEqual(expect.any(String));
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'confidential@example.com', password });
    const t = await exchangeCode(p, callback!);
    expect(await h.identity.verifyAccessToken(t.access_token)).toMatchObject({ clientId: p.client.client_id });
    const r = await refresh(p, t.refresh_token!);
    expect(await h.identity.verifyAccessToken(r.access_token)).not.toBeNull();
    // The wrong secret is invalid_client, as a 401 Basic challenge (RFC 6749 §5.2).
    const err = await refresh({ ...p, client: { ...p.client, client_secret: 'wrong' } }, r.refresh_token!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect(err).toMatchObject({ status: 401, cause: [{ scheme: 'basic', parameters: { error: 'invalid_client' } }] });
  });
});

describe('consent page', () => {
  test('names the client (escaped) and what it may do; Allow is the first submit button', async () => {
    const p = await prepareAuthorization(h.baseUrl, { clientName: '<b>Evil</b> "Agent"' });
    const { page } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'consent@example.com', password, stopAtConsent: true });
    expect(page?.status).toBe(200);
    const html = page!.html;
    expect(html).toContain('&lt;b&gt;Evil&lt;/b&gt; &quot;Agent&quot;');
    expect(html).not.toContain('<b>Evil</b>');
    expect(html).toContain('See your email address');
    expect(html).toContain('See your name');
    expect(html).toContain('Stay connected');
    expect(html).toContain(h.baseUrl);
    expect(html).toContain('consent@example.com');
    expect(html.indexOf('value="approve"')).toBeLessThan(html.indexOf('value="deny"'));
    expect(html).not.toContain('<script');
  });
});

describe('consent form', () => {
  test('a plain submit of the consent form (no decision field) approves', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const jar = new CookieJar();
    const { page } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'plain-submit@example.com', password, stopAtConsent: true }, jar);
    const action = /action="([^"]+\/consent)"/.exec(page!.html)![1]!;
    const res = await fetch(new URL(action, h.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
      body: '',
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    jar.store(res);
    const { callback } = await driveBrowser(new URL(res.headers.get('location')!, h.baseUrl), p.redirectUri, { email: '', password: '' }, jar);
    expect(callback?.searchParams.get('code')).toBeTruthy();
  });
});

describe('account switch', () => {
  test('a browser signed in as A can switch to B from the consent page; the token is B\'s', async () => {
    const a = await obtainTokens(h.baseUrl, { email: 'switch-a@example.com', password });
    const b = await obtainTokens(h.baseUrl, { email: 'switch-b@example.com', password });
    const userA = (await h.identity.verifyAccessToken(a.accessToken))!.userId;
    const userB = (await h.identity.verifyAccessToken(b.accessToken))!.userId;
    // One browser: sign in as A and authorize a client, so the session is A's.
    const jar = new CookieJar();
    const first = await prepareAuthorization(h.baseUrl);
    await driveBrowser(first.authorizationUrl, first.redirectUri, { email: 'switch-a@example.com', password, signIn: true }, jar);
    // Another client in the same browser: consent is shown for A, with a way out.
    const p = await prepareAuthorization(h.baseUrl);
    const { page } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: '', password: '', stopAtConsent: true }, jar);
    expect(page!.html).toContain('switch-a@example.com');
    const other = /<a href="([^"]+\/signin)">Use another account<\/a>/.exec(page!.html)![1]!;
    const { callback } = await driveBrowser(new URL(other, h.baseUrl), p.redirectUri, { email: 'switch-b@example.com', password, signIn: true }, jar);
    const tokens = await exchangeCode(p, callback!);
    const v = await h.identity.verifyAccessToken(tokens.access_token);
    expect(v?.userId).toBe(userB);
    expect(v?.userId).not.toBe(userA);
  });
});

describe('refresh tokens', () => {
  test('rotate on every use; replaying a used one revokes the whole grant', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'refresh@example.com', password });
    const first = await exchangeCode(p, callback!);
    const second = await refresh(p, first.refresh_token!);
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await h.identity.verifyAccessToken(second.access_token)).not.toBeNull();

    // Replay of the rotated (consumed) refresh token: invalid_grant, and everything dies.
    const replay = refresh(p, first.refresh_token!);
    await expect(replay).rejects.toBeInstanceOf(oauth.ResponseBodyError);
    await expect(replay).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await h.identity.verifyAccessToken(second.access_token)).toBeNull();
    expect(await h.identity.verifyAccessToken(first.access_token)).toBeNull();
    await expect(refresh(p, second.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});

describe('revocation (RFC 7009)', () => {
  test('a revoked access token stops verifying at once, and so do the tokens of its grant', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'revoke@example.com', password });
    const t = await exchangeCode(p, callback!);
    const res = await oauth.revocationRequest(p.as, p.client, oauth.None(), t.access_token, { [oauth.allowInsecureRequests]: true });
    await oauth.processRevocationResponse(res);
    expect(await h.identity.verifyAccessToken(t.access_token)).toBeNull();
    // oidc-provider revokes the grant's other tokens too (RFC 7009 §2.1 allows it).
    await expect(refresh(p, t.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});

describe('storage', () => {
  test('codes and tokens are stored only as hashes, with the code living at most 10 minutes', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'storage@example.com', password });
    const code = callback!.searchParams.get('code')!;
    const codeRow = await h.db.query<{ ttl: number }>(
      `SELECT extract(epoch FROM expires_at - now())::float8 AS ttl FROM oidc_payloads WHERE model = 'AuthorizationCode' AND payload->>'accountId' IS NOT NULL ORDER BY expires_at DESC LIMIT 1`);
    expect(codeRow.rows[0]!.ttl).toBeGreaterThan(0);
    expect(codeRow.rows[0]!.ttl).toBeLessThanOrEqual(600);
    const t = await exchangeCode(p, callback!);
    const dump = (await h.db.query<{ t: string }>(`SELECT string_agg(id_hash || ' ' || payload::text, ' ') AS t FROM oidc_payloads`)).rows[0]!.t;
    for (const secret of [code, t.access_token, t.refresh_token!]) expect(dump).not.toContain(secret);
    expect(dump).not.toContain(password);
  });
});
