/** The embedded processor's card rules: card-validator's checks, then Stripe's test cards. */
import { describe, expect, it } from 'vitest';
import { checkCard, type CardForm } from '../../engine/payments/adapters/embedded-cards.ts';

const now = new Date('2026-06-01T12:00:00Z');
const form = (number: string, more: Partial<CardForm> = {}): CardForm => ({ name: 'Ada Lovelace', number, exp: '12/34', csc: '123', postalCode: '94107', ...more });

describe('embedded card checks', () => {
  it('authorises 4242 4242 4242 4242 (spaces allowed) and keeps only brand and last four', () => {
    const r = checkCard(form('4242 4242 4242 4242'), now);
    expect(r).toEqual({ kind: 'ok', card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 }, declinesCharges: false });
  });

  it.each([
    ['4000000000000002', 'card_declined', 'cc-number'],
    ['4000000000009995', 'insufficient_funds', 'cc-number'],
    ['4000000000000069', 'expired_card', 'cc-exp'],
    ['4000000000000127', 'incorrect_cvc', 'cc-csc'],
  ])('%s is refused as Stripe refuses it (%s, field %s)', (number, code, field) => {
    const r = checkCard(form(number), now);
    expect(r.kind).toBe('declined');
    if (r.kind === 'declined') {
      expect(r.code).toBe(code);
      expect(r.field).toBe(field);
      expect(r.card.last4).toBe(number.slice(-4));
    }
  });

  it('any other valid number authorises, with its brand (Mastercard, Amex with a 4-digit CVC)', () => {
    expect(checkCard(form('5555555555554444'), now)).toMatchObject({ kind: 'ok', card: { brand: 'mastercard', last4: '4444' } });
    expect(checkCard(form('378282246310005', { csc: '1234' }), now)).toMatchObject({ kind: 'ok', card: { brand: 'amex', last4: '0005' } });
    expect(checkCard(form('378282246310005', { csc: '123' }), now)).toMatchObject({ kind: 'invalid', errors: [{ field: 'cc-csc' }] });
  });

  it('4000 0000 0000 0341 is a good card whose later charges decline', () => {
    expect(checkCard(form('4000000000000341'), now)).toMatchObject({ kind: 'ok', declinesCharges: true });
  });

  it('names every bad field: Luhn, expiry format and past, CVC length, name, postal code', () => {
    const r = checkCard({ name: '', number: '4242424242424241', exp: '13/30', csc: '12', postalCode: '' }, now);
    expect(r.kind).toBe('invalid');
    if (r.kind === 'invalid') expect(r.errors.map((e) => e.field)).toEqual(['cc-name', 'cc-number', 'cc-exp', 'cc-csc', 'postal-code']);
    const past = checkCard(form('4242424242424242', { exp: '05/26' }), now);
    expect(past).toMatchObject({ kind: 'invalid', errors: [{ field: 'cc-exp', message: 'The expiry date must be in the future' }] });
    expect(checkCard(form('4242424242424242', { exp: '12/2034' }), now).kind).toBe('ok');
    expect(checkCard(form('4242-4242-abcd-4242'), now)).toMatchObject({ kind: 'invalid', errors: [{ field: 'cc-number' }] });
  });
});
