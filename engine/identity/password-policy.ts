import core from '@zxcvbn-ts/core';
import common from '@zxcvbn-ts/language-common';
import { AppError } from '../core/errors.ts';

/**
 * What a new password must be (NIST SP 800-63B-4, §3.1.1.2, passwords as a single factor):
 * - at least 15 characters, counted as Unicode code points after NFKC normalisation;
 * - at most 256 (NIST asks to allow at least 64; the cap keeps the KDF's input bounded);
 * - not on a blocklist of common, expected or breached values. The list is zxcvbn-ts's
 *   `passwords-common` dictionary (@zxcvbn-ts/language-common, built from breached-password
 *   corpora), matched whole and as parts: a password that zxcvbn estimates at under 10^8 guesses
 *   is made of such words, repeats ("          "), sequences ("123456789012345") or keyboard
 *   walks, or of the user's own email. No composition rules (NIST forbids them).
 */
export const MIN_PASSWORD_LENGTH = 15;
export const MAX_PASSWORD_LENGTH = 256;
/** log10 of zxcvbn's guess estimate under which a password counts as blocklisted. */
export const MIN_GUESSES_LOG10 = 8;

const estimator = new core.ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });

/**
 * NFKC normalisation (NIST SP 800-63B-4 §3.1.1.2: normalise before hashing so that the same
 * password typed on two keyboards, e.g. full-width digits or a composed "é", verifies).
 */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** Length in code points, as NIST counts it (an emoji is one character). */
export function passwordLength(normalized: string): number {
  let n = 0;
  for (const _ of normalized) n++;
  return n;
}

/**
 * Checks a new password (already normalised). Throws AppError `invalid_request` naming the field
 * `password` with code `password_too_short`, `password_too_long` or `password_too_common`.
 */
export function assertAcceptablePassword(normalized: string, userInputs: string[] = []): void {
  const length = passwordLength(normalized);
  if (length < MIN_PASSWORD_LENGTH) {
    throw new AppError('invalid_request', `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters. A few unrelated words make a long password that is easy to remember.`, { field: 'password', code: 'password_too_short' });
  }
  if (length > MAX_PASSWORD_LENGTH) {
    throw new AppError('invalid_request', `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`, { field: 'password', code: 'password_too_long' });
  }
  if (estimator.check(normalized, userInputs).guessesLog10 < MIN_GUESSES_LOG10) {
    throw new AppError('invalid_request', 'This password is too common or too easy to guess (it is on lists of breached passwords, or is a repeat, a sequence or your email). Choose another, for example three or four unrelated words.', { field: 'password', code: 'password_too_common' });
  }
}
