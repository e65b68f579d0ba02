/**
 * Deterministic helpers for the synthetic demo network: the same seed always yields the same
 * network, byte for byte, so the demo snapshot and the tests that read it are reproducible.
 */

/** mulberry32: a small, well-distributed 32-bit PRNG (public domain). Returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a string: a stable per-entity seed, so adding one clinic does not reshuffle the others. */
export function hashSeed(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

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
