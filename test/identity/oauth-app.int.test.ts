/**
 * The whole service (H1's buildApp with the real identity): a generic OAuth client signs up and
 * reads GET /api/profile with the token; bad tokens get the spec's 401 with WWW-Authenticate.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { exchangeCode, driveBrowser, obtainTokens, prepareAuthorization, refresh } from '../helpers/oauth-flow.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => { t = await makeTestApp({ listen: true }); });
afterAll(async () => { await t?.close(); });

const password = 'correct horse battery';

async function profile(token?: string): Promise<{ status: number; body: Record<string, unknown>; wwwAuthenticate: string | null }> {
  const res = await fetch(new URL('/api/profile', t.baseUrl), { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, wwwAuthenticate: res.headers.get('www-authenticate') };
}

describe('OAuth on the service', () => {
  test('sign up, read the profile, refresh, and replaying the old refresh token locks the grant out', async () => {
    const p = await prepareAuthorization(t.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'app.user@example.com', password, name: 'App User' });
    const first = await exchangeCode(p, callback!);

    const me = await profile(first.access_token);
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.body)).toContain('app.user@example.com');

    const second = await refresh(p, first.refresh_token!);
    expect((await profile(second.access_token)).status).toBe(200);
    await expect(refresh(p, first.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const after = await profile(second.access_token);
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ error: 'not_authenticated', needsAuth: true });
  });

  test('missing, foreign and expired tokens: 401 not_authenticated with the resource metadata URL', async () => {
    const metadata = `resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource"`;
    const missing = await profile();
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ error: 'not_authenticated', needsAuth: true });
    expect(missing.wwwAuthenticate).toContain(metadata);

    const foreign = await profile('A'.repeat(43));
    expect(foreign.status).toBe(401);
    expect(foreign.wwwAuthenticate).toContain('invalid_token');

    const { accessToken } = await obtainTokens(t.baseUrl, { email: 'expiring@example.com', password });
    expect((await profile(accessToken)).status).toBe(200);
    await t.db.query(`UPDATE oidc_payloads SET expires_at = now() - interval '1 second' WHERE model = 'AccessToken'`);
    const expired = await profile(accessToken);
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ error: 'not_authenticated', needsAuth: true });
  });

  test('the discovery documents are served by the app', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(new URL(path, t.baseUrl));
      expect(res.status, path).toBe(200);
    }
  });
});
