/**
 * The embedded processor's card checks: card-validator for the form (Luhn, brand, expiry, CVC
 * length, postal code), then Stripe's documented test cards (https://docs.stripe.com/testing)
 * behaving as they do on Stripe. Any other valid number authorises (this is an offline stand-in,
 * not a bank). The full number and the CVC never leave this function: callers get the brand and
 * the last four digits.
 */
import cardValidator from 'card-validator';

/** The hosted form's fields (the input ids, also the `autocomplete` tokens). */
export type CardField = 'cc-name' | 'cc-number' | 'cc-exp' | 'cc-csc' | 'postal-code';

export interface CardForm {
  name: string;
  number: string;
  exp: string;
  csc: string;
  postalCode: string;
}

export interface CardFacts {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** Why a well-formed card was refused, as Stripe's decline codes. */
export type DeclineCode = 'card_declined' | 'insufficient_funds' | 'expired_card' | 'incorrect_cvc';

export type CardCheck =
  | { kind: 'invalid'; errors: { field: CardField; message: string }[] }
  | { kind: 'declined'; code: DeclineCode; field: CardField | null; message: string; card: CardFacts }
  | { kind: 'ok'; card: CardFacts; /** Stripe 4000 0000 0000 0341: saves, but later charges decline. */ declinesCharges: boolean };

/** Stripe's test numbers and what they do (https://docs.stripe.com/testing#declined-payments). */
const TEST_CARDS: Record<string, { code: DeclineCode; field: CardField | null; message: string } | 'declines_charges'> = {
  '4000000000000002': { code: 'card_declined', field: 'cc-number', message: 'Your card was declined. Try another card.' },
  '4000000000009995': { code: 'insufficient_funds', field: 'cc-number', message: 'Your card has insufficient funds. Try another card.' },
  '4000000000000069': { code: 'expired_card', field: 'cc-exp', message: 'Your card has expired. Check the expiry date or use another card.' },
  '4000000000000127': { code: 'incorrect_cvc', field: 'cc-csc', message: 'Your card’s security code is incorrect.' },
  '4000000000000341': 'declines_charges',
};

/** card-validator's type names -> Stripe's `card.brand` values. */
const BRANDS: Record<string, string> = {
  visa: 'visa', mastercard: 'mastercard', 'american-express': 'amex', discover: 'discover', 'diners-club': 'diners',
  jcb: 'jcb', unionpay: 'unionpay', maestro: 'maestro', elo: 'elo', mir: 'mir', hiper: 'hiper', hipercard: 'hipercard',
};

/** Whether a decline is "the hold failed" (retry with another card) rather than a field to correct. */
export function isHoldFailure(code: DeclineCode): boolean {
  return code === 'card_declined' || code === 'insufficient_funds';
}

/** Checks the form; `now` decides expiry (month granularity, as card networks do). */
export function checkCard(form: CardForm, now: Date): CardCheck {
  const errors: { field: CardField; message: string }[] = [];
  const digits = form.number.replace(/[\s-]/g, '');
  const num = cardValidator.number(digits);
  if (!form.name.trim()) errors.push({ field: 'cc-name', message: 'Enter the name on the card' });
  else if (!cardValidator.cardholderName(form.name.trim()).isValid) errors.push({ field: 'cc-name', message: 'Enter the name as it is shown on the card' });
  if (!digits) errors.push({ field: 'cc-number', message: 'Enter the card number' });
  else if (!/^\d+$/.test(digits) || !num.isValid || !num.card) errors.push({ field: 'cc-number', message: 'Enter a valid card number, like 4242 4242 4242 4242' });
  const exp = parseExpiry(form.exp);
  if (!form.exp.trim()) errors.push({ field: 'cc-exp', message: 'Enter the expiry date' });
  else if (!exp) errors.push({ field: 'cc-exp', message: 'Enter the expiry date as MM/YY, like 04/29' });
  else if (!expiryValid(form.exp, exp, now)) errors.push({ field: 'cc-exp', message: 'The expiry date must be in the future' });
  const cvcSize = num.card?.code.size ?? 3;
  if (!form.csc.trim()) errors.push({ field: 'cc-csc', message: 'Enter the security code' });
  else if (!cardValidator.cvv(form.csc.trim(), cvcSize).isValid) errors.push({ field: 'cc-csc', message: `Enter the ${cvcSize}-digit security code` });
  if (!cardValidator.postalCode(form.postalCode.trim()).isValid) errors.push({ field: 'postal-code', message: 'Enter the billing postal code' });
  if (errors.length || !num.card || !exp) return { kind: 'invalid', errors };
  const card: CardFacts = { brand: BRANDS[num.card.type] ?? num.card.type, last4: digits.slice(-4), expMonth: exp.month, expYear: exp.year };
  const test = TEST_CARDS[digits];
  if (test === 'declines_charges') return { kind: 'ok', card, declinesCharges: true };
  if (test) return { kind: 'declined', ...test, card };
  return { kind: 'ok', card, declinesCharges: false };
}

/** MM/YY, MM/YYYY, MM-YY, "MM / YY" or MMYY; null when unreadable. */
function parseExpiry(raw: string): { month: number; year: number } | null {
  const m = /^\s*(\d{1,2})\s*[/-]?\s*(\d{2}|\d{4})\s*$/.exec(raw);
  if (!m) return null;
  const month = Number(m[1]);
  if (month < 1 || month > 12) return null;
  return { month, year: m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]) };
}

/** In the future by card-validator (wall clock, at most 19 years ahead) and by the port clock. */
function expiryValid(raw: string, exp: { month: number; year: number }, now: Date): boolean {
  const v = cardValidator.expirationDate({ month: String(exp.month), year: String(exp.year) }, 19);
  return v.isValid && exp.year * 12 + exp.month >= now.getUTCFullYear() * 12 + now.getUTCMonth() + 1 && raw.length <= 20;
}
