import { randomBytes, timingSafeEqual } from 'node:crypto';
import { argon2id } from 'hash-wasm';

/**
 * Password hashing with argon2id (memory-hard; issue 2, item 8). Parameters follow the OWASP
 * Password Storage Cheat Sheet's first argon2id option: m=19456 KiB (19 MiB), t=2, p=1. The
 * result is a PHC string (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`) so that the parameters can be
 * raised later and old hashes still verify.
 */
export const ARGON2_PARAMS = { memorySize: 19_456, iterations: 2, parallelism: 1, hashLength: 32 } as const;

/** Hashes a password; returns the PHC-encoded argon2id string to store. */
export async function hashPassword(password: string): Promise<string> {
  return argon2id({ password, salt: randomBytes(16), ...ARGON2_PARAMS, outputType: 'encoded' });
}

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/**
 * Verifies a password against a stored PHC string. The digest comparison is constant-time
 * (`timingSafeEqual`); a malformed stored hash verifies as false rather than throwing.
 */
export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const m = PHC.exec(phc);
  // An empty password never matches (and the KDF refuses it); saying so early reveals nothing.
  if (!m || password.length === 0) return false;
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
