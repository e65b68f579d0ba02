/**
 * AES-256-GCM for secrets that must be sent back later and so cannot be hashed: the PKCE verifier
 * between link and callback, and the payer's access and refresh tokens. Sealed form:
 * `v1.<iv>.<tag>.<ciphertext>` (base64url). A wrong key or a tampered value fails to open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretBox } from './records.ports.ts';

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the records token key must be 32 bytes');
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
    },
    open(sealed) {
      const [v, iv, tag, ct] = sealed.split('.');
      if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('not a sealed value');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      d.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
    },
  };
}
