/** Signing and cookie keys: generated once under DATA_DIR (mode 0600) or taken from config. */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { loadCookieKeys, loadSigningKeys } from '../../api/identity/keys.ts';

const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(join(tmpdir(), 'cb-keys-')); dirs.push(d); return d; };
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

describe('signing keys', () => {
  test('generated on first start with mode 0600, the same on the next start', () => {
    const dataDir = tmp();
    const first = loadSigningKeys({ dataDir, oidcJwks: undefined });
    expect(first.keys).toHaveLength(1);
    expect(first.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(first.keys[0]!.d).toBeDefined();
    expect(statSync(join(dataDir, 'keys', 'jwks.json')).mode & 0o777).toBe(0o600);
    expect(loadSigningKeys({ dataDir, oidcJwks: undefined })).toEqual(first);
  });

  test('taken from OIDC_JWKS as a PEM private key or a JWK set', () => {
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const fromPem = loadSigningKeys({ dataDir: tmp(), oidcJwks: pem });
    expect(fromPem.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    const fromJwks = loadSigningKeys({ dataDir: tmp(), oidcJwks: JSON.stringify(fromPem) });
    expect(fromJwks).toEqual(fromPem);
    expect(() => loadSigningKeys({ dataDir: tmp(), oidcJwks: '{"keys":[]}' })).toThrow(/JWK set/);
  });
});

describe('cookie keys', () => {
  test('generated once under DATA_DIR, or taken from COOKIE_KEYS', () => {
    const dataDir = tmp();
    const keys = loadCookieKeys({ dataDir, cookieKeys: undefined });
    expect(keys).toHaveLength(2);
    expect(statSync(join(dataDir, 'keys', 'cookie-keys.json')).mode & 0o777).toBe(0o600);
    expect(loadCookieKeys({ dataDir, cookieKeys: undefined })).toEqual(keys);
    expect(loadCookieKeys({ dataDir, cookieKeys: ['from-env-secret-1'] })).toEqual(['from-env-secret-1']);
  });
});
