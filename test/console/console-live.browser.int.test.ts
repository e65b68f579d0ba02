/**
 * The console's live updates in a real browser (issue 35, items 4 and 5): headless Chromium WITH
 * JavaScript, under the console's CSP. The open queue page shows a newly matched request, and the
 * open conversation page a patient's message sent through the API, both without a reload (a value
 * set on `window` survives) and without losing the reply the clinician is typing. The session
 * cookie is sealed around a fake-identity token (the real OAuth sign-in is console.browser.int.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { chromiumAvailable, launchBrowser, withBrowserNote, type TestBrowser } from '../helpers/browser.ts';
import { loadCookieKeys } from '../../api/identity/keys.ts';
import { CookieSealer, SESSION_COOKIE } from '../../api/console/console-session.ts';
import { gatedConversation, payLink, provider } from '../visits/visit-fixture.ts';

describe.skipIf(!chromiumAvailable())(withBrowserNote('clinician console live updates in Chromium (JavaScript on)'), () => {
  let t: TestApp;
  let identity: FakeIdentity;
  let browser: TestBrowser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    identity = fakeIdentity();
    t = await makeTestApp({ listen: true, identity, triage: scriptedTriage(), env: { CARE_REPLY_WAIT_SECONDS: '5' }, jobs: { pollSeconds: 0.5, superviseSeconds: 1 } });
    browser = await launchBrowser({ javaScriptEnabled: true });
    page = await browser.context.newPage();
    // Console errors (a CSP refusal is one), bar the 404 of the favicon the browser asks for by itself.
    page.on('console', (m) => { if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) problems.push(`${m.text()} ${m.location().url}`); });
    page.on('pageerror', (e) => problems.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Marks the loaded document; a reload or navigation loses the mark. */
  async function mark(): Promise<void> {
    await page.evaluate('window.liveMark = 1');
  }
  async function stillMarked(): Promise<boolean> {
    return page.evaluate<boolean>('window.liveMark === 1');
  }
  async function streamOpen(): Promise<void> {
    // Strings run in the page (this project's TypeScript has no DOM types).
    await page.waitForFunction('document.documentElement.dataset.live === "open"', undefined, { timeout: 30_000 });
  }

  it('the open queue shows a newly matched request, and the open conversation a patient message, without a reload', async () => {
    const doctor = await provider(t, identity);
    const sealed = new CookieSealer(loadCookieKeys(t.config)[0]!).seal({ token: identity.adopt(doctor.accountId), csrf: 'c'.repeat(43), exp: Date.now() + 3_600_000 });
    await browser.context.addCookies([{ name: SESSION_COOKIE, value: sealed, url: `${t.baseUrl}/console`, httpOnly: true, sameSite: 'Lax' }]);

    await page.goto(`${t.baseUrl}/console`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Your queue');
    // With scripting on, the <noscript> refresh is inert text, not a <meta> element.
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0);
    await streamOpen();
    await mark();

    // A patient's agent takes a conversation to PAYMENT_REQUIRED; a person approves the hold.
    const c = await gatedConversation(t, identity);
    const link = await c.api('POST', `/api/consultations/${c.id}/payment`);
    expect((await payLink(t, link.body.paymentUrl)).statusCode).toBe(303);
    const row = page.locator(`a[href="/console/visits/${c.id}"]`);
    await row.waitFor({ timeout: 30_000 });
    expect(await stillMarked()).toBe(true);

    await row.click();
    await page.waitForURL(`${t.baseUrl}/console/visits/${c.id}`);
    await page.getByRole('button', { name: 'Accept this visit' }).click();
    await page.waitForLoadState('domcontentloaded');
    await expect(page.locator('#status').textContent()).resolves.toBe('WITH_PROVIDER');
    await streamOpen();
    await mark();

    // The clinician starts typing; the patient's message arrives meanwhile.
    const reply = page.getByLabel('Reply to the patient');
    await reply.fill('Thank you. How long have you had');
    const seen = (await c.api('GET', `/api/consultations/${c.id}`)).body.messages.at(-1).id as string;
    const sent = await c.api('POST', `/api/consultations/${c.id}/messages`, { text: 'The fever started last night.', waitForReply: false, lastSeenMessageId: seen });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await page.locator('#messages', { hasText: 'The fever started last night.' }).waitFor({ timeout: 30_000 });
    expect(await stillMarked()).toBe(true);
    await expect(reply.inputValue()).resolves.toBe('Thank you. How long have you had');
    await expect(page.evaluate<string>('document.activeElement.id')).resolves.toBe('text');

    // A status change (the patient's side cannot end a visit; the clinician ends it from the API).
    expect((await doctor.api('POST', `/api/provider/visits/${c.id}/end`)).status).toBe(200);
    await page.locator('#status', { hasText: 'IDLE' }).waitFor({ timeout: 30_000 });
    expect(await stillMarked()).toBe(true);
    expect(problems).toEqual([]);
  });
});
