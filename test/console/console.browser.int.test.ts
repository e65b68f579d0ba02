/**
 * The clinician console's whole visit in a real browser (issue 35, item 5): headless Chromium with
 * JavaScript OFF signs the demo clinician (from DATA_DIR/demo-accounts.json) in through our own
 * OAuth server, accepts the paid request, replies, writes the note and ends the visit, while the
 * patient's side, over REST with a real token, sees the provider join, the reply, the note and the end.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { obtainTokens } from '../helpers/oauth-flow.ts';
import { chromiumAvailable, launchBrowser, withBrowserNote, type TestBrowser } from '../helpers/browser.ts';
import { events, payLink, until, type Json } from '../visits/visit-fixture.ts';

describe.skipIf(!chromiumAvailable())(withBrowserNote('clinician console in Chromium (no JavaScript)'), () => {
  let t: TestApp;
  let browser: TestBrowser;
  let page: Page;
  let token: string;
  const cspErrors: string[] = [];

  beforeAll(async () => {
    t = await makeTestApp({ listen: true, seedDemoProviders: true, triage: scriptedTriage(), env: { CARE_REPLY_WAIT_SECONDS: '5' }, jobs: { pollSeconds: 0.5, superviseSeconds: 1 } });
    token = (await obtainTokens(t.baseUrl, { email: 'patient@example.test', password: 'a long patient passphrase 42' })).accessToken;
    browser = await launchBrowser({ javaScriptEnabled: false });
    page = await browser.context.newPage();
    page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text()); });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function api(method: 'GET' | 'POST', path: string, body?: Json): Promise<Json> {
    const r = await fetch(`${t.baseUrl}${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = await r.json() as Json;
    expect(r.status, JSON.stringify(json)).toBe(200);
    return json;
  }

  async function submit(button: string): Promise<void> {
    await page.getByRole('button', { name: button }).click();
    await page.waitForLoadState('domcontentloaded');
  }

  it('the demo clinician accepts, replies, writes the note and ends the visit; the patient sees each step', async () => {
    // The patient's agent takes a conversation to PAYMENT_REQUIRED and a person approves the hold.
    const start = await api('POST', '/api/consultations', { contextMessage: 'Sore throat for two days #complete', region: 'US-CA' });
    const id = start.conversationId as string;
    expect((await api('POST', `/api/consultations/${id}/wait`, {})).status).toBe('PAYMENT_REQUIRED');
    const link = await api('POST', `/api/consultations/${id}/payment`);
    expect((await payLink(t, link.paymentUrl as string)).statusCode).toBe(303);

    // The demo clinician signs in to the console through the OAuth server's own pages.
    const demo = (JSON.parse(readFileSync(join(t.config.dataDir, 'demo-accounts.json'), 'utf8')) as { role: string; email: string; password: string }[])
      .find((a) => a.role === 'clinician')!;
    await page.goto(`${t.baseUrl}/console`);
    expect(new URL(page.url()).pathname).toMatch(/^\/oauth\/interaction\//);
    await page.getByLabel('Email').fill(demo.email);
    await page.getByLabel('Password').fill(demo.password);
    await submit('Sign in');
    if (await page.getByRole('button', { name: 'Allow' }).count()) await submit('Allow');
    expect(new URL(page.url()).pathname).toBe('/console');
    await expect(page.locator('h1').textContent()).resolves.toBe('Your queue');
    // Without scripting the <noscript> refresh is a live <meta>: this browser reloads the page itself.
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(1);
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'cb_console')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/console' });

    // Matching offers the request; the queue shows it (reloaded by hand rather than waiting for the refresh).
    const row = page.locator(`a[href="/console/visits/${id}"]`);
    await until(async () => { await page.reload(); return row.count(); }, (n) => n === 1);
    await row.click();
    await expect(page.locator('#status').textContent()).resolves.toBe('MATCHING');
    await submit('Accept this visit');
    await expect(page.locator('#status').textContent()).resolves.toBe('WITH_PROVIDER');
    expect((await api('GET', `/api/consultations/${id}`)).status).toBe('WITH_PROVIDER');

    // Live refresh paused while typing, as a clinician would.
    await page.getByRole('link', { name: /Pause live updates/ }).click();
    await page.getByLabel('Reply to the patient').fill('Hello, I am Dr. Demo. How high is your fever?');
    await submit('Send reply');
    await expect(page.locator('#messages').textContent()).resolves.toContain('How high is your fever?');
    const seen = await api('GET', `/api/consultations/${id}`);
    expect(seen.messages.at(-1)).toMatchObject({ sender: 'provider', content: 'Hello, I am Dr. Demo. How high is your fever?' });

    await page.getByRole('link', { name: /Pause live updates/ }).click();
    await page.getByLabel('Chief complaint').fill('Sore throat');
    await page.getByLabel('Assessment').fill('Viral pharyngitis likely');
    await page.getByLabel('Plan').fill('Fluids, rest, paracetamol');
    await page.getByLabel('Summary for the patient').fill('Likely a viral sore throat; rest and fluids.');
    await submit('Save note');
    await expect(page.locator('main').textContent()).resolves.toContain('saved; saving again replaces it');
    await submit('End visit');
    await expect(page.locator('#status').textContent()).resolves.toBe('IDLE');

    const after = await api('GET', `/api/consultations/${id}`);
    expect(after.status).toBe('IDLE');
    expect(after.pastVisits).toEqual([expect.objectContaining({ hasNotes: true })]);
    const notes = await api('GET', `/api/consultations/${id}/notes`);
    expect(JSON.stringify(notes)).toContain('Viral pharyngitis likely');
    const ev = await events(t, id);
    expect(ev).toEqual(expect.arrayContaining(['provider_joined', 'provider_message', 'visit_ended']));
    expect(ev.indexOf('provider_joined')).toBeLessThan(ev.indexOf('provider_message'));
    expect(ev.indexOf('provider_message')).toBeLessThan(ev.indexOf('visit_ended'));
    expect(cspErrors).toEqual([]);
  });
});
