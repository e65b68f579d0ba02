import { createHash } from 'node:crypto';
import type { Clock } from '../ports/clock.ts';
import type { Db } from '../ports/db.ts';

/**
 * Growing delays between failed sign-ins (issue 38, item 4; OWASP Authentication Cheat Sheet,
 * "Protect against automated attacks"; NIST SP 800-63B-4 §3.2.2 rate limiting). No lockout:
 * after `free` failures on a key, the next attempt must wait 1 s, then 2, 4, 8 … up to `maxDelay`.
 * Three keys, each with its own budget:
 * - `ip`: one client address guessing across many accounts (password spraying);
 * - `accountIp`: one address guessing one account;
 * - `account`: many addresses guessing one account. This is the key an attacker could use to
 *   slow the real user down, so a browser that has signed in to the account before (it holds a
 *   device cookie, OWASP "device cookies") is exempt from it, and a password reset clears it.
 * A key forgets its failures `forgetAfter` seconds after its last one. Rows live in
 * `login_throttle` (migration 010), so a restart does not reset them.
 */
export const THROTTLE = {
  ip: { free: 20, maxDelay: 3600 },
  accountIp: { free: 5, maxDelay: 900 },
  account: { free: 10, maxDelay: 900 },
  forgetAfter: 24 * 3600,
} as const;

type Scope = 'ip' | 'accountIp' | 'account';

export interface AttemptSubject {
  email: string;
  ip: string;
  /** The browser proved an earlier sign-in to this account (device cookie): skip the account key. */
  knownDevice: boolean;
}

function keyHash(scope: Scope, s: { email: string; ip: string }): string {
  const email = s.email.trim().toLowerCase();
  const key = scope === 'ip' ? `ip:${s.ip}` : scope === 'account' ? `acct:${email}` : `acct-ip:${email}|${s.ip}`;
  return createHash('sha256').update(key).digest('base64url');
}

/** Seconds to wait after the `failures`-th failure on a key with this budget. */
export function delayAfter(failures: number, budget: { free: number; maxDelay: number }): number {
  if (failures < budget.free) return 0;
  return Math.min(2 ** (failures - budget.free), budget.maxDelay);
}

/** How often, at most, recordFailure also drops forgotten keys. */
const PRUNE_EVERY_MS = 5 * 60_000;

export class LoginThrottle {
  private readonly db: Db;
  private readonly clock: Clock;
  #lastPrune = 0;

  constructor(db: Db, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  #scopes(s: AttemptSubject): Scope[] {
    return s.knownDevice ? ['ip', 'accountIp'] : ['ip', 'accountIp', 'account'];
  }

  /** Seconds the caller must still wait before this attempt is checked; 0 when it may go ahead. */
  async waitSeconds(s: AttemptSubject): Promise<number> {
    const hashes = this.#scopes(s).map((scope) => keyHash(scope, s));
    const { rows } = await this.db.query<{ until: Date | string }>(
      'SELECT max(blocked_until) AS until FROM login_throttle WHERE key_hash = ANY($1::text[])', [hashes]);
    const until = rows[0]?.until;
    if (!until) return 0;
    const ms = new Date(until).getTime() - this.clock.now().getTime();
    return ms > 0 ? Math.ceil(ms / 1000) : 0;
  }

  /** Counts a failed attempt on every key (the account key too: a known device can still be stolen). */
  async recordFailure(s: AttemptSubject): Promise<void> {
    const now = this.clock.now();
    const forgetBefore = new Date(now.getTime() - THROTTLE.forgetAfter * 1000);
    for (const scope of ['ip', 'accountIp', 'account'] as const) {
      const { rows } = await this.db.query<{ failures: number }>(
        `INSERT INTO login_throttle (key_hash, failures, last_failure_at, blocked_until) VALUES ($1, 1, $2, $2)
         ON CONFLICT (key_hash) DO UPDATE SET
           failures = CASE WHEN login_throttle.last_failure_at < $3 THEN 1 ELSE login_throttle.failures + 1 END,
           last_failure_at = $2
         RETURNING failures`,
        [keyHash(scope, s), now, forgetBefore]);
      const failures = Number(rows[0]!.failures);
      const until = new Date(now.getTime() + delayAfter(failures, THROTTLE[scope]) * 1000);
      await this.db.query('UPDATE login_throttle SET blocked_until = $2 WHERE key_hash = $1', [keyHash(scope, s), until]);
    }
    if (now.getTime() - this.#lastPrune >= PRUNE_EVERY_MS) {
      this.#lastPrune = now.getTime();
      await this.prune();
    }
  }

  /** A successful sign-in clears the account's keys (not the address's: that one only decays). */
  async recordSuccess(s: { email: string; ip: string }): Promise<void> {
    await this.db.query('DELETE FROM login_throttle WHERE key_hash = ANY($1::text[])', [[keyHash('accountIp', s), keyHash('account', s)]]);
  }

  /** A password reset proves the mailbox: the account-wide delay no longer applies. */
  async clearAccount(email: string): Promise<void> {
    await this.db.query('DELETE FROM login_throttle WHERE key_hash = $1', [keyHash('account', { email, ip: '' })]);
  }

  /** Drops keys whose failures are forgotten anyway (called opportunistically). */
  async prune(): Promise<void> {
    await this.db.query('DELETE FROM login_throttle WHERE last_failure_at < $1',
      [new Date(this.clock.now().getTime() - THROTTLE.forgetAfter * 1000)]);
  }
}
