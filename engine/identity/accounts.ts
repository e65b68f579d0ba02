import { randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import type { Db } from '../ports/db.ts';
import { sqlProfileStore } from '../profile/profile-store.ts';
import { checkPassword, hashPassword, verifyPassword } from './password.ts';
import { MAX_PASSWORD_LENGTH, assertAcceptablePassword, normalizePassword } from './password-policy.ts';

export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './password-policy.ts';

/** An account as the identity layer sees it (never the password hash). */
export interface Account {
  id: string;
  email: string;
  displayName: string | null;
  /** Whether the owner confirmed the address (verification link or password reset). */
  emailVerified: boolean;
}

export interface SignUpInput {
  email: string;
  password: string;
  name?: string | undefined;
}

/** `created: false` means the email already had an account (returned, unchanged). */
export type CreateResult = { created: true; account: Account } | { created: false; account: Account };

const MAX_NAME_LENGTH = 200;
// Deliberately simple: one @, something on each side, a dot in the domain, no spaces (the
// WHATWG `type=email` rule is close to this). Deliverability is not checked here.
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

interface AccountRow extends Record<string, unknown> {
  id: string;
  email: string;
  display_name: string | null;
  email_verified_at: Date | string | null;
}

const COLUMNS = 'id, email, display_name, email_verified_at';

function toAccount(row: AccountRow): Account {
  return { id: row.id, email: row.email, displayName: row.display_name, emailVerified: row.email_verified_at !== null };
}

/** Normalised, checked email; throws `invalid_request` naming `email`. */
export function checkEmail(raw: string): string {
  const email = raw.trim();
  if (!EMAIL.test(email) || email.length > 254) {
    throw new AppError('invalid_request', 'Enter a valid email address, like name@example.com.', { field: 'email', code: 'invalid_email' });
  }
  return email;
}

/**
 * Accounts: creation, sign-in check and lookup, on the Db port. Creation also makes the user's
 * own ('self') patient row (service-spec.md, Profile: patients are the user and dependents).
 * Whether an address already has an account is never told to the caller of sign-up: that is
 * AccountFlows' job (account-flows.ts); this class reports it to its caller only.
 */
export class AccountsService {
  #dummyHash: Promise<string> | undefined;

  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  /**
   * Validates and creates an account, or returns the existing one for that email. Throws
   * AppError `invalid_request` (field `email`/`password`/`name`) for bad input; the password is
   * checked against the policy (password-policy.ts) and hashed in both cases, so both take the
   * same time.
   */
  async create(input: SignUpInput): Promise<CreateResult> {
    const email = checkEmail(input.email);
    const name = input.name?.trim() || null;
    const password = normalizePassword(input.password);
    assertAcceptablePassword(password, [email, email.split('@')[0]!]);
    if (name && name.length > MAX_NAME_LENGTH) {
      throw new AppError('invalid_request', `The name may be at most ${MAX_NAME_LENGTH} characters.`, { field: 'name', code: 'name_too_long' });
    }
    const emailLower = email.toLowerCase();
    const passwordHash = await hashPassword(password);
    const existing = await this.findByEmail(emailLower);
    if (existing) return { created: false, account: existing };
    // A UUID, like patient ids (engine/profile); it is also the OAuth `sub`.
    const id = randomUUID();
    try {
      await this.db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO accounts (id, email, email_lower, password_hash, display_name) VALUES ($1, $2, $3, $4, $5)`,
          [id, email, emailLower, passwordHash, name],
        );
        // The user's own patient record, created the one way the profile store creates it.
        await sqlProfileStore(tx).ensureSelfPatient(id);
      });
    } catch (err) {
      // Two concurrent sign-ups with the same email: the UNIQUE index decides (23505).
      if ((err as { code?: string }).code === '23505') {
        const winner = await this.findByEmail(emailLower);
        if (winner) return { created: false, account: winner };
      }
      throw err;
    }
    return { created: true, account: { id, email, displayName: name, emailVerified: false } };
  }

  /**
   * Checks an email and password. Returns the account, or null for an unknown email or a wrong
   * password (the caller shows one message for both). An unknown email still runs the KDF once
   * so that response time does not reveal which emails have accounts. A hash made before NFKC
   * normalisation that matched the raw password is replaced by one of the normalised password.
   */
  async verifyLogin(email: string, password: string): Promise<Account | null> {
    const { rows } = await this.db.query<AccountRow & { password_hash: string }>(
      `SELECT ${COLUMNS}, password_hash FROM accounts WHERE email_lower = $1`,
      [email.trim().toLowerCase()],
    );
    const row = rows[0];
    const candidate = password.slice(0, MAX_PASSWORD_LENGTH * 4 + 1);
    if (!row) {
      await verifyPassword(candidate, await this.#dummy());
      return null;
    }
    const result = await checkPassword(candidate, row.password_hash);
    if (!result.ok) return null;
    if (result.legacy) {
      await this.db.query('UPDATE accounts SET password_hash = $2, updated_at = now() WHERE id = $1 AND password_hash = $3',
        [row.id, await hashPassword(candidate), row.password_hash]);
    }
    return toAccount(row);
  }

  /**
   * Sets a new password (checked against the policy) inside `tx`, and marks the email verified
   * (the caller proved the mailbox by following a reset link).
   */
  async setPassword(tx: Db, account: Account, password: string): Promise<void> {
    const normalized = normalizePassword(password);
    assertAcceptablePassword(normalized, [account.email, account.email.split('@')[0]!]);
    await tx.query(
      'UPDATE accounts SET password_hash = $2, email_verified_at = COALESCE(email_verified_at, now()), updated_at = now() WHERE id = $1',
      [account.id, await hashPassword(normalized)]);
  }

  /** Records that the owner confirmed the address (idempotent). */
  async markEmailVerified(tx: Db, accountId: string): Promise<void> {
    await tx.query('UPDATE accounts SET email_verified_at = COALESCE(email_verified_at, now()) WHERE id = $1', [accountId]);
  }

  /** The account with this id, or null. */
  async findById(id: string): Promise<Account | null> {
    const { rows } = await this.db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [id]);
    return rows[0] ? toAccount(rows[0]) : null;
  }

  /** The account with this email (any case), or null. */
  async findByEmail(email: string): Promise<Account | null> {
    const { rows } = await this.db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE email_lower = $1`, [email.trim().toLowerCase()]);
    return rows[0] ? toAccount(rows[0]) : null;
  }

  /** Runs the KDF once on a throwaway hash, so a path that skips hashing takes as long. */
  async burnKdf(): Promise<void> {
    await verifyPassword('x', await this.#dummy());
  }

  #dummy(): Promise<string> {
    this.#dummyHash ??= hashPassword(randomBytes(24).toString('base64'));
    return this.#dummyHash;
  }
}
