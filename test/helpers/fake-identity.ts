/**
 * TESTS ONLY: an Identity that knows tokens it issued itself, for suites that exercise the API
 * surface without the OAuth flow (bad-input, rate limits). Flows that show real tokens work use
 * test/helpers/oauth-flow.ts against the real authorization server.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Identity, VerifiedToken } from '../../api/identity/identity.ts';
import type { Db } from '../../engine/ports/db.ts';

export interface FakeIdentity extends Identity {
  /** Creates an account row (as sign-up would) and returns a token for it. */
  signUp(db: Db, email?: string): Promise<{ userId: string; token: string; email: string }>;
  revoke(token: string): void;
  /** A token for an existing account (a restarted test server adopting the account it seeded before). */
  adopt(userId: string): string;
}

export function fakeIdentity(baseUrl = 'http://127.0.0.1:8787'): FakeIdentity {
  const tokens = new Map<string, VerifiedToken>();
  return {
    mount: async () => undefined,
    verifyAccessToken: async (t) => tokens.get(t) ?? null,
    resourceMetadataUrl: () => `${baseUrl}/.well-known/oauth-protected-resource`,
    close: async () => undefined,
    async signUp(db, email = `u-${randomUUID()}@example.test`) {
      const userId = `acct_${randomUUID().replaceAll('-', '')}`;
      await db.query('INSERT INTO accounts (id, email, email_lower, password_hash) VALUES ($1, $2, $3, $4)',
        [userId, email, email.toLowerCase(), 'not-a-real-hash']);
      const token = randomBytes(24).toString('base64url');
      tokens.set(token, { userId, clientId: 'test-client', scopes: ['openid'], audience: baseUrl, expiresAt: Date.now() / 1000 + 3600 });
      return { userId, token, email };
    },
    revoke(t) {
      tokens.delete(t);
    },
    adopt(userId) {
      const token = randomBytes(24).toString('base64url');
      tokens.set(token, { userId, clientId: 'test-client', scopes: ['openid'], audience: baseUrl, expiresAt: Date.now() / 1000 + 3600 });
      return token;
    },
  };
}
