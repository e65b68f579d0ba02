/**
 * Security headers on every kind of response (issue 38, item 6): Fastify's JSON, errors and 404s,
 * text documents, oidc-provider's JSON and its own pages (error page, anonymous logout, form_post
 * with its inline script allowed by hash), the sign-in form keeping its own CSP, and MCP (written
 * by the SDK on the raw response). HSTS only when BASE_URL is https.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, driveBrowser, prepareAuthorization } from '../helpers/oauth-flow.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { PAGE_HEADERS } from '../../api/identity/pages.ts';

let t: TestApp;
beforeAll(async () => { t = await makeTestApp({ listen: true }); });
afterAll(async () => { await t?.close(); });

function expectBaseHeaders(res: Response, what: string): void {
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(res.headers.get('x-frame-options'), what).toBe('DENY');
  expect(res.headers.get('referrer-policy'), what).toBe('no-referrer');
  expect(res.headers.get('content-security-policy'), what).toContain("frame-ancestors 'none'");
  expect(res.headers.get('content-security-policy'), what).toContain("default-src 'none'");
  expect(res.headers.get('strict-transport-security'), what).toBeNull(); // BASE_URL is http here
}

describe('security headers', () => {
  it('JSON, errors, 404s, documents and oidc-provider JSON', async () => {
    for (const path of ['/healthz', '/api/profile', '/no/such/route', '/docs/agents', '/.well-known/mcp.json',
      '/.well-known/openid-configuration', '/oauth/jwks', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(new URL(path, t.baseUrl));
      await res.arrayBuffer();
      expectBaseHeaders(res, path);
    }
  });

  it('MCP responses written by the SDK', async () => {
    const res = await fetch(new URL('/', t.baseUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await res.arrayBuffer();
    expect(res.status).toBe(401);
    expectBaseHeaders(res, 'MCP');
  });

  it('oidc-provider pages: its error page and the anonymous logout page', async () => {
    const err = await fetch(new URL('/oauth/authorize?client_id=nope&response_type=code', t.baseUrl));
    expect(err.headers.get('content-type')).toContain('text/html');
    await err.arrayBuffer();
    expectBaseHeaders(err, 'authorize error page');
    const logout = await fetch(new URL('/oauth/logout', t.baseUrl));
    expect(logout.status).toBe(200);
    await logout.arrayBuffer();
    expectBaseHeaders(logout, 'logout');
  });

  it('the form_post response page: headers, and its one inline script allowed by hash', async () => {
    const p = await prepareAuthorization(t.baseUrl, { extra: { response_mode: 'form_post' } });
    const jar = new CookieJar();
    const consent = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'form-post@example.test', password: 'correct horse battery staple', stopAtConsent: true }, jar);
    const action = /action="([^"]+)"/.exec(consent.page!.html)![1]!;
    let res = await fetch(new URL(action, t.baseUrl), {
      method: 'POST', redirect: 'manual', body: new URLSearchParams({ decision: 'approve' }),
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    });
    for (let i = 0; i < 5 && res.status >= 300 && res.status < 400; i++) {
      jar.store(res);
      res = await fetch(new URL(res.headers.get('location')!, t.baseUrl), { redirect: 'manual', headers: { cookie: jar.header() } });
    }
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain(`action="${p.redirectUri}"`);
    expectBaseHeaders(res, 'form_post');
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const hash = createHash('sha256').update(script).digest('base64');
    expect(res.headers.get('content-security-policy')).toContain(`script-src 'sha256-${hash}'`);
  });

  it('a page that sets its own CSP keeps it (the sign-in form)', async () => {
    const p = await prepareAuthorization(t.baseUrl);
    const res = await fetch(p.authorizationUrl, { redirect: 'manual' });
    const jar = new CookieJar();
    jar.store(res);
    const page = await fetch(new URL(res.headers.get('location')!, t.baseUrl), { headers: { cookie: jar.header() } });
    expect(await page.text()).toContain('<form');
    expect(page.headers.get('content-security-policy')).toBe(PAGE_HEADERS['content-security-policy']);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('HSTS', () => {
  it('is sent on every response when BASE_URL is https', async () => {
    const https = await makeTestApp({ env: { BASE_URL: 'https://carebridge.example' } });
    try {
      for (const url of ['/healthz', '/no/such/route', '/.well-known/openid-configuration']) {
        const res = await https.app.inject({ method: 'GET', url });
        expect(res.headers['strict-transport-security'], url).toBe('max-age=31536000');
        expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      }
    } finally {
      await https.close();
    }
  });
});
