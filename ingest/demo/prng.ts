/**
 * Deterministic helpers for the synthetic demo network: the same seed always yields the same
 * network, byte for byte, so the demo snapshot and the tests that read it are reproducible.
 */

import { hashSeed, mulberry32 } from '../../engine/core/prng.ts';

export { hashSeed, mulberry32 };

/** A deterministic float in [lo, hi) for a key. */
export function between(key: string, lo: number, hi: number): number {
  return lo + mulberry32(hashSeed(key))() * (hi - lo);
}

/**
 * A 10-digit NPI with a valid check digit: Luhn over the 9-digit base prefixed by the card issuer
 * prefix 80840 (45 CFR 162.406; the NPPES readme's "NPI check digit" appendix). The constant 24 is
 * the Luhn contribution of that prefix.
 */
export function npiWithCheckDigit(base9: number): number {
  const digits = String(base9).padStart(9, '0');
  let sum = 24;
  for (let i = 0; i < 9; i++) {
    let d = Number(digits[8 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  const check = (10 - (sum % 10)) % 10;
  return Number(`${digits}${check}`);
}

/** Rounds to cents, the unit of TiC negotiated_rate. */
export function cents(x: number): number {
  return Math.round(x * 100) / 100;
}
