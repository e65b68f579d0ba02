import { randomBytes, timingSafeEqual } from 'node:crypto';
import { argon2id } from 'hash-wasm';
import { normalizePassword } from './password-policy.ts';

/**
 * Password hashing with argon2id (memory-hard; issue 2, item 8). Parameters follow the OWASP
 * Password Storage Cheat Sheet's first argon2id option: m=19456 KiB (19 MiB), t=2, p=1. The
 * result is a PHC string (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`) so that the parameters can be
 * raised later and old hashes still verify.
 *
 * Passwords are NFKC-normalised before hashing and before verifying (issue 38, item 4). Hashes
 * made before that were of the raw string; for any password that is already in NFKC form (all
 * ASCII ones, and most others) the two are the same bytes, so those hashes verify unchanged.
 * For the rest, `verifyPassword` reports `legacy: true` when only the raw string matched, and
 * the caller re-hashes the normalised password (AccountsService.verifyLogin).
 */
export const ARGON2_PARAMS = { memorySize: 19_456, iterations: 2, parallelism: 1, hashLength: 32 } as const;

/** Hashes a password (NFKC-normalised first); returns the PHC-encoded argon2id string to store. */
export async function hashPassword(password: string): Promise<string> {
  return argon2id({ password: normalizePassword(password), salt: randomBytes(16), ...ARGON2_PARAMS, outputType: 'encoded' });
}

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

async function matches(password: string, m: RegExpExecArray): Promise<boolean> {
  const [, mem, iter, par, saltB64, hashB64] = m;
  const expected = Buffer.from(hashB64!, 'base64');
  const actual = await argon2id({
    password,
    salt: Buffer.from(saltB64!, 'base64'),
    memorySize: Number(mem),
    iterations: Number(iter),
    parallelism: Number(par),
    hashLength: expected.length,
    outputType: 'binary',
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Verifies a password against a stored PHC string: the NFKC form first, then (only when it
 * differs) the raw string for hashes made before normalisation. The digest comparison is
 * constant-time; a malformed stored hash verifies as false rather than throwing.
 */
export async function checkPassword(password: string, phc: string): Promise<{ ok: boolean; legacy: boolean }> {
  const m = PHC.exec(phc);
  // An empty password never matches (and the KDF refuses it); saying so early reveals nothing.
  if (!m || password.length === 0) return { ok: false, legacy: false };
  const normalized = normalizePassword(password);
  if (await matches(normalized, m)) return { ok: true, legacy: false };
  if (normalized !== password && await matches(password, m)) return { ok: true, legacy: true };
  return { ok: false, legacy: false };
}

/** Verifies a password against a stored PHC string (see checkPassword). */
export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  return (await checkPassword(password, phc)).ok;
}
