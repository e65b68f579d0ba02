/**
 * The hosted payment page without JavaScript (app.inject, urlencoded posts as a plain form sends
 * them): the form's fields and headers, each of Stripe's test cards, the error summary naming the
 * field, post/redirect/get, CSRF token, expiry, and fuzzed bad input never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import type { PaymentsPorts } from '../../engine/payments/payments.ports.ts';
import { makeTestApp, ManualClock, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { CARD, formBody, formTokenOf } from './payments-fixture.ts';

let db: Db;
let t: TestApp;
let payments: PaymentsPorts;
const clock = new ManualClock(Date.parse('2026-06-01T12:00:00Z'));
let refs = 0;

beforeAll(async () => {
  db = await openPgliteDb(undefined);
  t = await makeTestApp({ db, identity: fakeIdentity(), clock, visitPurpose: false });
  payments = t.services.ports.payments!;
  payments.purposes.register('visit', { onAuthorized: async () => undefined });
});
afterAll(async () => {
  await t.close();
  await db.close();
});

async function newLink(): Promise<{ path: string; token: string; ref: string }> {
  const ref = `conv${++refs}`;
  const s = await payments.processor.createHoldSession({ purpose: { kind: 'visit', ref, userId: 'acct_p' }, amountCents: 4900, currency: 'usd' });
  const path = new URL(s.url).pathname;
  const page = await t.app.inject({ method: 'GET', url: path });
  return { path, token: formTokenOf(page.body), ref };
}

function post(path: string, fields: Record<string, string>) {
  return t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: formBody(fields) });
}

describe('hosted payment page (no JavaScript)', () => {
  it('serves one form with labelled, autocompleting card fields, a CSRF token, CSP and no framing', async () => {
    const s = await payments.processor.createHoldSession({ purpose: { kind: 'visit', ref: 'form', userId: 'acct_p' }, amountCents: 4900, currency: 'usd' });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/pay\/ps_[A-Za-z0-9_-]{32}$/);
    const res = await t.app.inject({ method: 'GET', url: new URL(s.url).pathname });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).toContain("form-action 'self'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
    for (const ac of ['cc-name', 'cc-number', 'cc-exp', 'cc-csc', 'postal-code']) {
      expect(res.body).toContain(`<label for="${ac}">`);
      expect(res.body).toMatch(new RegExp(`id="${ac}"[^>]*autocomplete="${ac}"`));
    }
    expect(res.body).toContain('Approve a hold of $49.00');
    expect(res.body).not.toContain('<script');
    expect(formTokenOf(res.body)).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('4242 4242 4242 4242 approves: 303 back to the link, which now says so and shows brand and last four', async () => {
    const { path, token, ref } = await newLink();
    const res = await post(path, { ...CARD, formToken: token, ccNumber: '4242 4242 4242 4242' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(path);
    const done = await t.app.inject({ method: 'GET', url: path });
    expect(done.body).toContain('Hold approved');
    expect(done.body).toContain('VISA ending 4242');
    expect(await payments.processor.holdFor({ kind: 'visit', ref })).toMatchObject({ status: 'authorized', last4: '4242' });
    // A second submit (back button) is not a second hold.
    expect((await post(path, { ...CARD, formToken: token, ccNumber: '4242424242424242' })).statusCode).toBe(303);
  });

  it.each([
    ['4000000000000002', 'declined', 'payment_hold_failed', 'cc-number'],
    ['4000000000009995', 'insufficient funds', 'payment_hold_failed', 'cc-number'],
    ['4000000000000069', 'expired', 'expired_card', 'cc-exp'],
    ['4000000000000127', 'security code is incorrect', 'incorrect_cvc', 'cc-csc'],
  ])('%s: the page says "%s" (%s), names the field, keeps no card number, and can be retried', async (number, words, code, field) => {
    const { path, token, ref } = await newLink();
    const res = await post(path, { ...CARD, formToken: token, ccNumber: number });
    expect(res.statusCode).toBe(402);
    expect(res.body).toContain('There is a problem');
    expect(res.body).toContain(`href="#${field}"`);
    expect(res.body).toContain(words);
    expect(res.body).toContain(`Error code: ${code}`);
    expect(res.body).not.toContain(number);
    expect(res.body).toContain('value="Ada Lovelace"');
    expect(await payments.processor.holdFor({ kind: 'visit', ref })).toBeNull();
    const retry = await post(path, { ...CARD, formToken: formTokenOf(res.body), ccNumber: '4242424242424242' });
    expect(retry.statusCode).toBe(303);
  });

  it('field errors are listed in the summary, each linking to its field, with 422', async () => {
    const { path, token } = await newLink();
    const res = await post(path, { formToken: token, ccName: '', ccNumber: '4242424242424241', ccExp: '1/2', ccCsc: 'abc', postalCode: '' });
    expect(res.statusCode).toBe(422);
    for (const f of ['cc-name', 'cc-number', 'cc-exp', 'cc-csc', 'postal-code']) expect(res.body).toContain(`href="#${f}"`);
    expect(res.body).toContain('<title>Error: ');
  });

  it('refuses a post without the page’s form token (CSRF) and unknown or malformed links', async () => {
    const { path } = await newLink();
    expect((await post(path, { ...CARD, formToken: 'forged', ccNumber: '4242424242424242' })).statusCode).toBe(403);
    expect((await post(path, { ...CARD, ccNumber: '4242424242424242' })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: `/pay/ps_${'A'.repeat(32)}` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/pay/../../etc' })).statusCode).toBe(404);
  });

  it('a link older than 30 minutes is gone (410) and takes no payment', async () => {
    const { path, token, ref } = await newLink();
    clock.advance(30 * 60_000 + 1);
    expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(410);
    expect((await post(path, { ...CARD, formToken: token, ccNumber: '4242424242424242' })).statusCode).toBe(410);
    expect(await payments.processor.holdFor({ kind: 'visit', ref })).toBeNull();
  });

  it('fuzzed bad input on /pay never gives a 5xx', async () => {
    const { path, token } = await newLink();
    const bodies: { ct: string; payload: string | Buffer }[] = [
      { ct: 'application/x-www-form-urlencoded', payload: '%%%&&&==' },
      { ct: 'application/x-www-form-urlencoded', payload: `formToken=${token}&ccNumber=${'9'.repeat(5000)}` },
      { ct: 'application/x-www-form-urlencoded', payload: `formToken=${token}&ccNumber[]=1&ccNumber[]=2&ccExp=\u0000` },
      { ct: 'application/x-www-form-urlencoded', payload: 'x='.padEnd(20_000, 'a') },
      { ct: 'application/json', payload: '{"formToken": 1, "ccNumber": {"a": 1}}' },
      { ct: 'application/json', payload: '[1,2' },
      { ct: 'text/plain', payload: 'hello' },
      { ct: 'multipart/form-data; boundary=x', payload: '--x\r\n' },
      { ct: 'application/x-www-form-urlencoded', payload: Buffer.from([0xff, 0xfe, 0x00, 0x41]) },
    ];
    for (const b of bodies) {
      const res = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': b.ct }, payload: b.payload });
      expect(res.statusCode, `${b.ct} ${String(b.payload).slice(0, 40)}`).toBeLessThan(500);
    }
    for (const url of ['/pay/', '/pay/%00', `/pay/${'x'.repeat(300)}`, '/pay/ps_%E0%A4%A', `${path}?formToken=${token}`]) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
        const res = await t.app.inject({ method, url });
        expect(res.statusCode, `${method} ${url}`).toBeLessThan(500);
      }
    }
  });
});
