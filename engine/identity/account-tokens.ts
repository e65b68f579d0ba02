import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../ports/clock.ts';
import type { Db } from '../ports/db.ts';

export type TokenPurpose = 'verify_email' | 'reset_password';

/**
 * How long a link works. Reset 1 h (OWASP Forgot Password Cheat Sheet: short-lived); verification
 * 24 h, since people read mail later.
 */
export const TOKEN_TTL_SECONDS: Record<TokenPurpose, number> = { verify_email: 24 * 3600, reset_password: 3600 };

function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Single-use, expiring link tokens (table `account_tokens`, migration 011). The token (256 random
 * bits) goes only into the email; the table keeps its SHA-256, so a database read yields no
 * working link. Issuing a new token of a purpose voids the account's older unused ones.
 */
export class AccountTokens {
  private readonly db: Db;
  private readonly clock: Clock;

  constructor(db: Db, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  async issue(accountId: string, purpose: TokenPurpose): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.db.transaction(async (tx) => {
      await tx.query('DELETE FROM account_tokens WHERE account_id = $1 AND purpose = $2 AND used_at IS NULL', [accountId, purpose]);
      await tx.query('INSERT INTO account_tokens (token_hash, account_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [hashToken(token), accountId, purpose, now, new Date(now.getTime() + TOKEN_TTL_SECONDS[purpose] * 1000)]);
    });
    return token;
  }

  /** The account a live (unused, unexpired) token belongs to, without using it up; else null. */
  async peek(token: string, purpose: TokenPurpose): Promise<string | null> {
    if (!TOKEN_SHAPE.test(token)) return null;
    const { rows } = await this.db.query<{ account_id: string }>(
      'SELECT account_id FROM account_tokens WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3',
      [hashToken(token), purpose, this.clock.now()]);
    return rows[0]?.account_id ?? null;
  }

  /**
   * Uses a token up and returns its account, or null when it is unknown, used or expired. One
   * UPDATE decides, so two concurrent uses cannot both succeed. Pass `tx` to use it up inside
   * the caller's transaction (it is then given back if that transaction fails).
   */
  async consume(token: string, purpose: TokenPurpose, tx: Db = this.db): Promise<string | null> {
    if (!TOKEN_SHAPE.test(token)) return null;
    const now = this.clock.now();
    const { rows } = await tx.query<{ account_id: string }>(
      `UPDATE account_tokens SET used_at = $3 WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3
       RETURNING account_id`,
      [hashToken(token), purpose, now]);
    return rows[0]?.account_id ?? null;
  }
}
