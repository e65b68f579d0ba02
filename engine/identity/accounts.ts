import { randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import type { Db } from '../ports/db.ts';
import { sqlProfileStore } from '../profile/profile-store.ts';
import { hashPassword, verifyPassword } from './password.ts';

/** An account as the identity layer sees it (never the password hash). */
export interface Account {
  id: string;
  email: string;
  displayName: string | null;
}

export interface SignUpInput {
  email: string;
  password: string;
  name?: string | undefined;
}

/** Minimum password length (NIST SP 800-63B asks for at least 8; we ask 10). */
export const MIN_PASSWORD_LENGTH = 10;
/** Upper bound so that a huge body cannot make the KDF work on megabytes. */
export const MAX_PASSWORD_LENGTH = 256;
const MAX_NAME_LENGTH = 200;
// Deliberately simple: one @, something on each side, a dot in the domain, no spaces (the
// WHATWG `type=email` rule is close to this). Deliverability is not checked here.
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

/**
 * Accounts: sign-up, sign-in check and lookup, on the Db port. Sign-up also creates the user's
 * own ('self') patient row (service-spec.md, Profile: patients are the user and dependents).
 */
export class AccountsService {
  #dummyHash: Promise<string> | undefined;

  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  /**
   * Creates an account. Throws AppError `invalid_request` (field `email`/`password`/`name`) for
   * bad input and `conflict` (code `email_taken`) when the email already has an account.
   */
  async signUp(input: SignUpInput): Promise<Account> {
    const email = input.email.trim();
    const name = input.name?.trim() || null;
    if (!EMAIL.test(email) || email.length > 254) {
      throw new AppError('invalid_request', 'Enter a valid email address, like name@example.com.', { field: 'email', code: 'invalid_email' });
    }
    if (input.password.length < MIN_PASSWORD_LENGTH) {
      throw new AppError('invalid_request', `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`, { field: 'password', code: 'password_too_short' });
    }
    if (input.password.length > MAX_PASSWORD_LENGTH) {
      throw new AppError('invalid_request', `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`, { field: 'password', code: 'password_too_long' });
    }
    if (name && name.length > MAX_NAME_LENGTH) {
      throw new AppError('invalid_request', `The name may be at most ${MAX_NAME_LENGTH} characters.`, { field: 'name', code: 'name_too_long' });
    }
    const emailLower = email.toLowerCase();
    if (await this.#idByEmail(emailLower)) throw emailTaken();
    const passwordHash = await hashPassword(input.password);
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
      if ((err as { code?: string }).code === '23505') throw emailTaken();
      throw err;
    }
    return { id, email, displayName: name };
  }

  /**
   * Checks an email and password. Returns the account, or null for an unknown email or a wrong
   * password (the caller shows one message for both). An unknown email still runs the KDF once
   * so that response time does not reveal which emails have accounts.
   */
  async verifyLogin(email: string, password: string): Promise<Account | null> {
    const { rows } = await this.db.query<{ id: string; email: string; display_name: string | null; password_hash: string }>(
      'SELECT id, email, display_name, password_hash FROM accounts WHERE email_lower = $1',
      [email.trim().toLowerCase()],
    );
    const row = rows[0];
    const candidate = password.slice(0, MAX_PASSWORD_LENGTH + 1);
    if (!row) {
      await verifyPassword(candidate, await this.#dummy());
      return null;
    }
    if (!(await verifyPassword(candidate, row.password_hash))) return null;
    return { id: row.id, email: row.email, displayName: row.display_name };
  }

  /** The account with this id, or null. */
  async findById(id: string): Promise<Account | null> {
    const { rows } = await this.db.query<{ id: string; email: string; display_name: string | null }>(
      'SELECT id, email, display_name FROM accounts WHERE id = $1',
      [id],
    );
    const row = rows[0];
    return row ? { id: row.id, email: row.email, displayName: row.display_name } : null;
  }

  async #idByEmail(emailLower: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM accounts WHERE email_lower = $1', [emailLower]);
    return rows[0]?.id;
  }

  #dummy(): Promise<string> {
    this.#dummyHash ??= hashPassword(randomBytes(24).toString('base64'));
    return this.#dummyHash;
  }
}

function emailTaken(): AppError {
  return new AppError('conflict', 'An account with this email already exists. Sign in instead.', { field: 'email', code: 'email_taken' });
}
