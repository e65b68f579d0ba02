/**
 * The clinician console's pages through app.inject (issue 35, item 4): the sign-in redirect (code +
 * PKCE with the built-in console client), a patient's 403 page, CSRF refusal, escaping of what a
 * patient wrote, and a form error naming its field. The session cookie is sealed here with the
 * app's own key around a fake-identity token; the real OAuth sign-in is in the browser test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { loadCookieKeys } from '../../api/identity/keys.ts';
import { CookieSealer, SESSION_COOKIE } from '../../api/console/console-session.ts';
import { gatedConversation, payLink, provider, until } from '../visits/visit-fixture.ts';

let env: TestApp;
let identity: FakeIdentity;
const CSRF = 'c'.repeat(43);

beforeAll(async () => {
  identity = fakeIdentity();
  env = await makeTestApp({ identity, triage: scriptedTriage(), env: { CARE_REPLY_WAIT_SECONDS: '5' }, jobs: { pollSeconds: 0.5, superviseSeconds: 1 } });
});
afterAll(async () => { await env.close(); });

function cookieFor(token: string): string {
  const sealed = new CookieSealer(loadCookieKeys(env.config)[0]!).seal({ token, csrf: CSRF, exp: Date.now() + 3_600_000 });
  return `${SESSION_COOKIE}=${sealed}`;
}

function post(url: string, cookie: string, form: Record<string, string>) {
  return env.app.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() });
}

describe('clinician console pages', () => {
  it('sends a visitor without a session to our OAuth server as the console client (code + PKCE S256, state)', async () => {
    const home = await env.app.inject({ method: 'GET', url: '/console' });
    expect(home.statusCode).toBe(303);
    expect(home.headers.location).toBe('/console/login');
    const login = await env.app.inject({ method: 'GET', url: '/console/login' });
    expect(login.statusCode).toBe(303);
    const to = new URL(String(login.headers.location));
    expect(to.origin + to.pathname).toBe(`${env.config.baseUrl}/oauth/authorize`);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: 'carebridge-console', response_type: 'code', redirect_uri: `${env.config.baseUrl}/console/callback`,
      code_challenge_method: 'S256', code_challenge: expect.stringMatching(/^[\w-]{43}$/), state: expect.stringMatching(/^[\w-]{43}$/),
    });
    expect(String(login.headers['set-cookie'])).toMatch(/^cb_console_auth=[\w-]+; Path=\/console; Max-Age=600; HttpOnly; SameSite=Lax$/);
    // A callback whose state was not started in this browser is refused.
    const forged = await env.app.inject({ method: 'GET', url: `/console/callback?code=x&state=${to.searchParams.get('state')}` });
    expect(forged.statusCode).toBe(400);
    // A tampered session cookie is no session.
    const tampered = await env.app.inject({ method: 'GET', url: '/console', headers: { cookie: `${SESSION_COOKIE}=AAAA${'b'.repeat(60)}` } });
    expect(tampered.statusCode).toBe(303);
  });

  it('shows a patient a clear 403 page, with the page headers (CSP, no framing)', async () => {
    const patient = await identity.signUp(env.db);
    const r = await env.app.inject({ method: 'GET', url: '/console', headers: { cookie: cookieFor(patient.token) } });
    expect(r.statusCode).toBe(403);
    expect(r.body).toContain('The clinician console is for provider accounts');
    expect(r.headers['x-frame-options']).toBe('DENY');
    expect(String(r.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    const act = await post('/console/visits/conv_x/accept', cookieFor(patient.token), { csrf: CSRF });
    expect(act.statusCode).toBe(403);
  });

  it('refuses a form without the session CSRF token, escapes patient text, and names a missing note field', async () => {
    const doctor = await provider(env, identity);
    const cookie = cookieFor(identity.adopt(doctor.accountId));
    const c = await gatedConversation(env, identity);
    const link = await c.api('POST', `/api/consultations/${c.id}/payment`);
    expect((await payLink(env, link.body.paymentUrl)).statusCode).toBe(303);
    await until(() => doctor.api('GET', '/api/provider/queue'), (q) => q.body.waiting?.some((w: { conversationId: string }) => w.conversationId === c.id));

    const queue = await env.app.inject({ method: 'GET', url: '/console', headers: { cookie } });
    expect(queue.statusCode).toBe(200);
    expect(queue.body).toContain(`/console/visits/${c.id}`);
    // Live by a same-origin script and its event stream; the refresh only for a browser without scripting.
    expect(queue.headers.refresh).toBeUndefined();
    expect(queue.body).toContain('<noscript><meta http-equiv="refresh" content="10"></noscript>');
    expect(queue.body).toMatch(/<div id="live" hidden data-events="\/console\/events" data-page="\/console" data-version="[\w-]{22}"><\/div>/);
    expect(queue.body).toContain('<script src="/console/static/live.js" defer></script>');
    expect(String(queue.headers['content-security-policy'])).toMatch(/script-src 'self'; connect-src 'self'$/);
    expect(queue.body).not.toMatch(/<script>|<script [^s]|\son\w+=/);

    for (const csrf of [undefined, 'd'.repeat(43)]) {
      const refused = await post(`/console/visits/${c.id}/accept`, cookie, csrf ? { csrf } : {});
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('Form expired');
    }
    expect((await c.api('GET', `/api/consultations/${c.id}`)).body.status).toBe('MATCHING');

    const accepted = await post(`/console/visits/${c.id}/accept`, cookie, { csrf: CSRF });
    expect(accepted.statusCode).toBe(303);
    expect(accepted.headers.location).toBe(`/console/visits/${c.id}`);
    const seen = (await c.api('GET', `/api/consultations/${c.id}`)).body.messages.at(-1).id as string;
    const sent = await c.api('POST', `/api/consultations/${c.id}/messages`, { text: '<script>alert("x")</script><img src=x onerror=alert(1)>', waitForReply: false, lastSeenMessageId: seen });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const page = await env.app.inject({ method: 'GET', url: `/console/visits/${c.id}`, headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('WITH_PROVIDER');
    expect(page.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(page.body).not.toMatch(/<script(?! src="\/console\/static\/live\.js" defer>)|<img/);
    expect(page.body).toContain(`name="csrf" value="${CSRF}"`);

    const bad = await post(`/console/visits/${c.id}/notes`, cookie, { csrf: CSRF, chiefComplaint: 'Sore <b>throat</b>', assessment: '', plan: 'Fluids', summary: 'Rest' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('href="#assessment"');
    expect(bad.body).toContain('Sore &lt;b&gt;throat&lt;/b&gt;');
    expect(bad.body).not.toContain('http-equiv="refresh"');
    expect(bad.body).not.toContain('id="live"');
    // Accepting again: the page says why, not a 5xx.
    const again = await post(`/console/visits/${c.id}/accept`, cookie, { csrf: CSRF });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('already accepted');
  });

  it('never answers a malformed console request with a 5xx', async () => {
    const doctor = await provider(env, identity);
    const cookie = cookieFor(identity.adopt(doctor.accountId));
    const cases: { method: 'GET' | 'POST'; url: string; payload?: string; type?: string }[] = [
      { method: 'GET', url: '/console/visits/%00%ff' },
      { method: 'GET', url: `/console/visits/${'x'.repeat(150)}` },
      { method: 'GET', url: '/console/callback?state[]=1&code=2' },
      { method: 'POST', url: '/console/visits/conv_x/launch', payload: `csrf=${CSRF}` },
      { method: 'POST', url: '/console/visits/conv_x/notes', payload: `csrf=${CSRF}&chiefComplaint=%00&assessment=a&plan=p&summary=s` },
      { method: 'POST', url: '/console/visits/conv_x/messages', payload: `csrf=${CSRF}&text=${'y'.repeat(5000)}` },
      { method: 'POST', url: '/console/visits/conv_x/end', payload: JSON.stringify([CSRF]), type: 'application/json' },
      { method: 'POST', url: '/console/visits/conv_x/end', payload: JSON.stringify({ csrf: CSRF, conversationId: 5 }), type: 'application/json' },
      { method: 'POST', url: '/console/logout', payload: 'csrf=' },
    ];
    for (const c of cases) {
      const r = await env.app.inject({ method: c.method, url: c.url, headers: { cookie, 'content-type': c.type ?? 'application/x-www-form-urlencoded' }, ...(c.payload !== undefined ? { payload: c.payload } : {}) });
      expect(r.statusCode, `${c.method} ${c.url}: ${r.body.slice(0, 200)}`).toBeLessThan(500);
    }
  });
});
