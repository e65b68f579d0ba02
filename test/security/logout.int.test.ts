/**
 * Logout is not an open redirect (issue 38, item 3; RFC 9700 §4.11): post_logout_redirect_uris
 * follow the redirect-URI rule (https, or http only on loopback), an unregistered one is refused,
 * and the anonymous logout page never redirects on its own: the visitor sees where the client
 * wants to send them and presses a button (or not).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar } from '../helpers/oauth-flow.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

const EVIL = 'https://evil.example.com/landing';

let t: TestApp;
beforeAll(async () => { t = await makeTestApp({ listen: true }); });
afterAll(async () => { await t?.close(); });

async function register(postLogout: string[]): Promise<Response> {
  return fetch(new URL('/oauth/register', t.baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9999/cb'], post_logout_redirect_uris: postLogout, token_endpoint_auth_method: 'none' }),
  });
}

describe('logout redirects', () => {
  it('registration refuses plain-http post-logout URIs off loopback, as it does redirect URIs', async () => {
    const bad = await register(['http://evil.example.com/landing']);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringContaining('post_logout_redirect_uris') });
    expect((await register(['http://127.0.0.1:9999/bye'])).status).toBe(201);
  });

  it('the anonymous logout page shows a button naming the destination and redirects only when pressed', async () => {
    const reg = await register([EVIL]);
    expect(reg.status).toBe(201);
    const { client_id } = (await reg.json()) as { client_id: string };
    const jar = new CookieJar();
    const q = new URLSearchParams({ client_id, post_logout_redirect_uri: EVIL });
    const res = await fetch(new URL(`/oauth/logout?${q}`, t.baseUrl), { redirect: 'manual' });
    jar.store(res);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(html).not.toContain('<script');
    expect(html).not.toContain('evil.example.com/landing'); // the page names the host, never carries the URL
    expect(html).toMatch(/<button type="submit">Continue to evil\.example\.com<\/button>/);
    expect(res.headers.get('content-security-policy')).not.toContain('script-src');

    // The person presses the button: the confirm step then follows the client's registered URI.
    const form = /<form method="post" action="([^"]+)">/.exec(html)![1]!;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1]!;
    const pressed = await fetch(form, {
      method: 'POST', redirect: 'manual', body: new URLSearchParams({ xsrf, logout: 'yes' }),
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(pressed.status).toBe(303);
    expect(pressed.headers.get('location')).toBe(EVIL);
  });

  it('an unregistered post_logout_redirect_uri is refused with a page, not followed', async () => {
    const { client_id } = (await (await register(['https://app.example/bye'])).json()) as { client_id: string };
    const q = new URLSearchParams({ client_id, post_logout_redirect_uri: EVIL });
    const res = await fetch(new URL(`/oauth/logout?${q}`, t.baseUrl), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('post_logout_redirect_uri not registered');
  });
});
