import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../engine/core/config.ts';

/** A private JWK as oidc-provider's `jwks` option takes it. */
export type PrivateJwk = JsonWebKey & { kid: string; alg: string; use: 'sig' };

/**
 * Signing keys for ID tokens (access tokens are opaque, so only ID tokens and JWT responses are
 * signed). Taken from OIDC_JWKS (a JWK set JSON or one PEM private key) when set, otherwise
 * generated on first start and kept in DATA_DIR/keys/jwks.json with mode 0600 (issue 2, item 3).
 */
export function loadSigningKeys(config: Pick<Config, 'oidcJwks' | 'dataDir'>): { keys: PrivateJwk[] } {
  if (config.oidcJwks) return parseJwks(config.oidcJwks);
  return readOrCreate(join(config.dataDir, 'keys', 'jwks.json'), () => ({ keys: [generateSigningKey()] }), (raw) => parseJwks(raw));
}

/**
 * Secrets oidc-provider signs its cookies with (keygrip; the first signs, all verify, so a new
 * key can be prepended to rotate). From COOKIE_KEYS, else generated under DATA_DIR.
 */
export function loadCookieKeys(config: Pick<Config, 'cookieKeys' | 'dataDir'>): string[] {
  if (config.cookieKeys?.length) return [...config.cookieKeys];
  return readOrCreate(
    join(config.dataDir, 'keys', 'cookie-keys.json'),
    () => [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')],
    (raw) => {
      const keys = JSON.parse(raw) as unknown;
      if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string' && k.length >= 16)) {
        throw new Error('cookie-keys.json must be a JSON array of secrets');
      }
      return keys as string[];
    },
  );
}

/** A fresh RS256 key (RS256 is the ID-token algorithm every OIDC client must support). */
export function generateSigningKey(): PrivateJwk {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return toPrivateJwk(privateKey.export({ format: 'jwk' }));
}

function toPrivateJwk(jwk: JsonWebKey): PrivateJwk {
  if (jwk.kty !== 'RSA' && jwk.kty !== 'EC' && jwk.kty !== 'OKP') throw new Error(`unsupported key type ${jwk.kty}`);
  if (jwk.d === undefined) throw new Error('a private key is required to sign tokens');
  const alg = jwk.kty === 'RSA' ? 'RS256' : jwk.kty === 'OKP' ? 'EdDSA' : jwk.crv === 'P-256' ? 'ES256' : jwk.crv === 'P-384' ? 'ES384' : 'ES512';
  // kid: a hash of the public part, so the same key always gets the same id.
  const pub = jwk.kty === 'RSA' ? `${jwk.e}.${jwk.n}` : `${jwk.crv}.${jwk.x}.${jwk.y ?? ''}`;
  const kid = createHash('sha256').update(pub).digest('base64url').slice(0, 16);
  return { ...jwk, kid: typeof jwk.kid === 'string' ? jwk.kid : kid, alg: typeof jwk.alg === 'string' ? jwk.alg : alg, use: 'sig' };
}

function parseJwks(raw: string): { keys: PrivateJwk[] } {
  const text = raw.trim();
  if (text.startsWith('-----BEGIN')) {
    return { keys: [toPrivateJwk(createPrivateKey(text).export({ format: 'jwk' }))] };
  }
  const parsed = JSON.parse(text) as { keys?: unknown };
  if (!parsed || !Array.isArray(parsed.keys) || parsed.keys.length === 0) {
    throw new Error('OIDC_JWKS must be a JWK set ({"keys": [...]}) or a PEM private key');
  }
  return { keys: (parsed.keys as JsonWebKey[]).map(toPrivateJwk) };
}

/**
 * Reads a secret file, or creates it with mode 0600 in a 0700 directory. `wx` makes creation
 * atomic: when two instances start together on one DATA_DIR, the loser reads the winner's file.
 */
function readOrCreate<T>(path: string, make: () => T, parse: (raw: string) => T): T {
  try {
    return parse(readFileSync(path, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const dir = join(path, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const value = make();
  try {
    writeFileSync(path, JSON.stringify(value, null, 2), { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
    return value;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parse(readFileSync(path, 'utf8'));
    throw err;
  }
}
