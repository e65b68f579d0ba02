/** Discovery documents: RFC 8414 / OpenID metadata and RFC 9728 protected-resource metadata. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { audienceFor } from '../../api/identity/provider-config.ts';
import { CookieJar, driveBrowser, exchangeCode, prepareAuthorization } from '../helpers/oauth-flow.ts';
import { startIdentityApp, type IdentityHarness } from './harness.ts';

let h: IdentityHarness;
beforeAll(async () => { h = await startIdentityApp(); });
afterAll(async () => { await h?.close(); });

async function json(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown>; res: Response }> {
  const res = await fetch(new URL(path, h.baseUrl), { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, res };
}

describe('authorization server metadata', () => {
  test.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])('%s', async (path) => {
    const { status, body } = await json(path);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      issuer: h.baseUrl,
      authorization_endpoint: `${h.baseUrl}/oauth/authorize`,
      token_endpoint: `${h.baseUrl}/oauth/token`,
      registration_endpoint: `${h.baseUrl}/oauth/register`,
      revocation_endpoint: `${h.baseUrl}/oauth/revoke`,
      jwks_uri: `${h.baseUrl}/oauth/jwks`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      response_types_supported: ['code'],
    });
    expect(body.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'offline_access']));
    expect(body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(body.token_endpoint_auth_methods_supported).toContain('none');
    expect(body).not.toHaveProperty('userinfo_endpoint');
  });

  test('endpoint URLs come from BASE_URL, not from the Host header', async () => {
    const { body } = await json('/.well-known/oauth-authorization-server', { host: 'evil.example', 'x-forwarded-host': 'evil.example' });
    expect(body.issuer).toBe(h.baseUrl);
    expect(body.token_endpoint).toBe(`${h.baseUrl}/oauth/token`);
  });

  test('the JWKS publishes public keys only', async () => {
    const { body } = await json('/oauth/jwks');
    const keys = body.keys as Record<string, unknown>[];
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) {
      expect(k).toHaveProperty('kid');
      expect(k).not.toHaveProperty('d');
      expect(k).not.toHaveProperty('p');
    }
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  test('names the service as resource and this server as its authorization server', async () => {
    const { status, body, res } = await json('/.well-known/oauth-protected-resource');
    expect(status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(body).toMatchObject({
      resource: h.baseUrl,
      authorization_servers: [h.baseUrl],
      bearer_methods_supported: ['header'],
      resource_documentation: expect.stringMatching(/^http/),
    });
    // offline_access too, so MCP clients ask for a refresh token (issue 38, item 7).
    expect(body.scopes_supported).toEqual(['openid', 'profile', 'email', 'offline_access']);
  });

  test('the path-suffixed form names that path', async () => {
    const { status, body } = await json('/.well-known/oauth-protected-resource/api/profile');
    expect(status).toBe(200);
    expect(body.resource).toBe(`${h.baseUrl}/api/profile`);
  });

  test('a resource named with a trailing slash (as MCP clients send it) still gets the service as audience', async () => {
    const resource = `${h.baseUrl}/`;
    const p = { ...(await prepareAuthorization(h.baseUrl, { extra: { resource } })), resource };
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'aud@example.com', password: 'correct horse battery' });
    const t = await exchangeCode(p, callback!);
    expect((await h.identity.verifyAccessToken(t.access_token))?.audience).toBe(h.baseUrl);
  });

  test('audienceFor: any path on the service origin is the service; anything else is not', () => {
    expect(audienceFor(`${h.baseUrl}/api`, h.baseUrl, 'https://pricing.example')).toBe(h.baseUrl);
    expect(audienceFor('https://pricing.example/api/pricing.v1', h.baseUrl, 'https://pricing.example')).toBe('https://pricing.example');
    expect(audienceFor('https://other.example/', h.baseUrl, h.baseUrl)).toBeUndefined();
    expect(audienceFor(`${h.baseUrl}/?x=1`, h.baseUrl, h.baseUrl)).toBeUndefined();
    expect(audienceFor('not a url', h.baseUrl, h.baseUrl)).toBeUndefined();
  });
});

describe('sign-up entry page', () => {
  test('/oauth/signup and /oauth/signin are real forms without JavaScript', async () => {
    for (const [path, action] of [['/oauth/signup', '/oauth/signup'], ['/oauth/signin', '/oauth/signin']]) {
      const res = await fetch(new URL(path!, h.baseUrl));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const html = await res.text();
      expect(html).toContain(`<form method="post" action="${action}">`);
      expect(html).toContain('name="password"');
      expect(html).not.toContain('<script');
    }
  });

  test('screen_hint=signup opens the sign-up form; /oauth/signup?interaction= continues to it', async () => {
    const p = await prepareAuthorization(h.baseUrl, { extra: { screen_hint: 'signup' } });
    const jar = new CookieJar();
    const start = await fetch(p.authorizationUrl, { redirect: 'manual' });
    jar.store(start);
    const interaction = new URL(start.headers.get('location')!, h.baseUrl);
    const page = await fetch(interaction, { headers: { cookie: jar.header() } });
    expect(await page.text()).toMatch(/action="\/oauth\/interaction\/[^"]+\/signup"/);
    const uid = interaction.pathname.split('/').pop()!;
    const entry = await fetch(new URL(`/oauth/signup?interaction=${uid}`, h.baseUrl), { redirect: 'manual' });
    expect(entry.status).toBe(303);
    expect(entry.headers.get('location')).toBe(`/oauth/interaction/${uid}/signup`);
  });
});

describe('sign-out', () => {
  test('the end-session endpoint asks a signed-in browser for confirmation with a plain form', async () => {
    const jar = new CookieJar();
    const p = await prepareAuthorization(h.baseUrl);
    await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'logout@example.com', password: 'correct horse battery' }, jar);
    const res = await fetch(new URL('/oauth/logout', h.baseUrl), { headers: { cookie: jar.header() } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Sign out of carebridge?');
    expect(html).toMatch(/<form[^>]*method="post"/);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});
