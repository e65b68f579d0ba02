/**
 * The hosted payment page in a real browser (issue 35, item 5): headless Chromium with JavaScript
 * OFF fills the form by its labels and submits it, once per Stripe test card, against the app
 * listening on 127.0.0.1. Shows the page works without scripts under its CSP, and what a person sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import type { PaymentsPorts } from '../../engine/payments/payments.ports.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { chromiumAvailable, launchBrowser, withBrowserNote, type TestBrowser } from '../helpers/browser.ts';

describe.skipIf(!chromiumAvailable())(withBrowserNote('hosted payment page in Chromium (no JavaScript)'), () => {
  let db: Db;
  let t: TestApp;
  let payments: PaymentsPorts;
  let browser: TestBrowser;
  let page: Page;
  let n = 0;
  const cspErrors: string[] = [];

  beforeAll(async () => {
    db = await openPgliteDb(undefined);
    t = await makeTestApp({ db, identity: fakeIdentity(), listen: true, visitPurpose: false });
    payments = t.services.ports.payments!;
    payments.purposes.register('visit', { onAuthorized: async () => undefined });
    browser = await launchBrowser({ javaScriptEnabled: false });
    page = await browser.context.newPage();
    page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text()); });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await db?.close();
  });

  async function payWith(number: string): Promise<{ ref: string; url: string }> {
    const ref = `browser${++n}`;
    const s = await payments.processor.createHoldSession({ purpose: { kind: 'visit', ref, userId: 'acct_b' }, amountCents: 4900, currency: 'usd' });
    await page.goto(s.url);
    await expect(page.locator('h1').textContent()).resolves.toContain('Approve a hold of $49.00');
    await page.getByLabel('Name on card').fill('Ada Lovelace');
    await page.getByLabel('Card number').fill(number);
    await page.getByLabel('Expiry date').fill('12/34');
    await page.getByLabel('Security code').fill('123');
    await page.getByLabel('Billing postal code').fill('94107');
    await page.getByRole('button', { name: /Approve hold/ }).click();
    await page.waitForLoadState('domcontentloaded');
    return { ref, url: s.url };
  }

  it('4242 4242 4242 4242: the hold is approved and the page says so', async () => {
    const { ref, url } = await payWith('4242 4242 4242 4242');
    expect(page.url()).toBe(url);
    await expect(page.locator('h1').textContent()).resolves.toBe('Hold approved');
    await expect(page.locator('main').textContent()).resolves.toContain('VISA ending 4242');
    expect(await payments.processor.holdFor({ kind: 'visit', ref })).toMatchObject({ status: 'authorized' });
  });

  it.each([
    ['4000 0000 0000 0002', 'Your card was declined', '#cc-number'],
    ['4000 0000 0000 9995', 'insufficient funds', '#cc-number'],
    ['4000 0000 0000 0069', 'Your card has expired', '#cc-exp'],
    ['4000 0000 0000 0127', 'security code is incorrect', '#cc-csc'],
  ])('%s: the error summary says "%s" and links to the field; another card then succeeds', async (number, words, href) => {
    const { ref } = await payWith(number);
    const summary = page.locator('.error-summary');
    await expect(summary.textContent()).resolves.toContain(words);
    await expect(summary.locator('a').first().getAttribute('href')).resolves.toBe(href);
    await expect(page.title()).resolves.toMatch(/^Error: /);
    await expect(page.getByLabel('Card number').inputValue()).resolves.toBe('');
    expect(await payments.processor.holdFor({ kind: 'visit', ref })).toBeNull();
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByLabel('Security code').fill('123');
    await page.getByRole('button', { name: /Approve hold/ }).click();
    await page.waitForLoadState('domcontentloaded');
    await expect(page.locator('h1').textContent()).resolves.toBe('Hold approved');
  });

  it('the page breaks none of its own CSP', () => {
    expect(cspErrors).toEqual([]);
  });
});
