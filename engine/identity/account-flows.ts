import type { Logger } from 'pino';
import { FORGOT_PASSWORD_PATH, RESET_PASSWORD_PATH, SIGNIN_PATH, VERIFY_EMAIL_PATH } from '../account/links.ts';
import type { Db } from '../ports/db.ts';
import type { Mailer, MailMessage } from '../ports/mailer.ts';
import type { Account, AccountsService, SignUpInput } from './accounts.ts';
import type { AccountTokens } from './account-tokens.ts';
import type { LoginThrottle } from './login-throttle.ts';

export interface AccountFlowsDeps {
  db: Db;
  accounts: AccountsService;
  tokens: AccountTokens;
  throttle: LoginThrottle;
  mailer: Mailer;
  baseUrl: string;
  log: Logger;
}

/**
 * The OAuth artefacts that let a client act for an account: after a password reset none of them
 * may keep working (issue 38, item 8), and browser sessions end too. Interactions and clients
 * are not the account's.
 */
const ACCOUNT_MODELS = ['AccessToken', 'RefreshToken', 'AuthorizationCode', 'Grant', 'Session', 'DeviceCode', 'BackchannelAuthenticationRequest'];

/**
 * Sign-up, email verification and password reset (issue 38, items 5 and 8).
 *
 * Sign-up answers the same whether or not the address has an account: a new address gets a
 * verification link, an existing one a note that someone tried to sign up, with the sign-in and
 * forgot-password links. Mail goes out after the answer (never awaited by the request), so the
 * mail server's speed does not tell the two apart either.
 *
 * What an unverified account may do: sign in with its password, get tokens and use every
 * operation, like a verified one (the agent newcomer flow must not wait for mail). What changes
 * when verified: the ID token's `email_verified` claim. Someone who registers an address that
 * is not theirs gains nothing lasting: the owner's "forgot password" link takes the account
 * over and revokes every token and session the squatter had.
 */
export class AccountFlows {
  readonly #d: AccountFlowsDeps;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(deps: AccountFlowsDeps) {
    this.#d = deps;
  }

  #link(path: string, token?: string): string {
    return `${this.#d.baseUrl}${path}${token ? `?token=${token}` : ''}`;
  }

  /** Sends in the background; failures are logged (the user can ask again). */
  #send(message: MailMessage): void {
    const p = this.#d.mailer.send(message).catch((err: unknown) => {
      this.#d.log.error({ err, subject: message.subject }, 'sending mail failed');
    }).finally(() => this.#inFlight.delete(p));
    this.#inFlight.add(p);
  }

  /** Waits for mail handed to the background (tests; graceful shutdown). */
  async drain(): Promise<void> {
    while (this.#inFlight.size) await Promise.all([...this.#inFlight]);
  }

  /**
   * Sign-up. Throws AppError `invalid_request` naming the field for bad input (which depends on
   * the input only); otherwise returns nothing, whoever owns the address. `mayMail` (asked once,
   * just before a mail would go) lets the caller cap mail per address: when it says no, all
   * but the sending is done, so repeated sign-ups cannot flood a mailbox; the answer is the same.
   */
  async signUp(input: SignUpInput, opts: { mayMail?: () => boolean } = {}): Promise<void> {
    const mayMail = opts.mayMail ?? (() => true);
    const result = await this.#d.accounts.create(input);
    const { account } = result;
    if (result.created) {
      this.#d.log.info({ accountId: account.id }, 'account created');
      const token = await this.#d.tokens.issue(account.id, 'verify_email');
      const link = this.#link(VERIFY_EMAIL_PATH, token);
      if (mayMail()) this.#send({
        to: account.email,
        subject: 'Confirm your email address for carebridge',
        text: `Welcome to carebridge.\n\nConfirm that this is your email address by opening this link (it works once, for 24 hours):\n\n${link}\n\nIf you did not create a carebridge account, ignore this message.\n`,
        link,
      });
      return;
    }
    // Do the same database work as the other branch, so that timing does not tell them apart.
    await this.#d.tokens.peek('0'.repeat(43), 'verify_email');
    const link = this.#link(SIGNIN_PATH);
    if (mayMail()) this.#send({
      to: account.email,
      subject: 'Someone tried to create a carebridge account with your address',
      text: `Someone, perhaps you, tried to create a carebridge account with this email address. You already have one, so nothing was changed.\n\nTo sign in, use "Sign in" on the page that asked you, or go to:\n${link}\n\nForgot your password? Choose a new one here:\n${this.#link(FORGOT_PASSWORD_PATH)}\n\nIf this was not you, you can ignore this message; your account is unchanged.\n`,
      link,
    });
  }

  /** Forgot password: mails a reset link when the address has an account; answers nothing either way. */
  async requestPasswordReset(email: string): Promise<void> {
    const account = await this.#d.accounts.findByEmail(email);
    if (!account) {
      await this.#d.tokens.peek('0'.repeat(43), 'reset_password');
      return;
    }
    const token = await this.#d.tokens.issue(account.id, 'reset_password');
    const link = this.#link(RESET_PASSWORD_PATH, token);
    this.#send({
      to: account.email,
      subject: 'Reset your carebridge password',
      text: `Someone asked to reset the password of your carebridge account. To choose a new password, open this link (it works once, for 1 hour):\n\n${link}\n\nChoosing a new password signs you out everywhere and disconnects every app and agent; connect them again afterwards.\nIf you did not ask for this, ignore this message; your password is unchanged.\n`,
      link,
    });
  }

  /** The account a reset link belongs to while it still works (to show the form), else null. */
  async resetLinkAccount(token: string): Promise<Account | null> {
    const id = await this.#d.tokens.peek(token, 'reset_password');
    return id ? this.#d.accounts.findById(id) : null;
  }

  /**
   * Sets a new password with a reset link: checks the password first (a refused password does
   * not use the link up), then in one transaction uses the link, stores the hash, marks the
   * email verified and deletes every token, grant and session of the account. Returns the
   * account, or null when the link is unknown, used or expired.
   */
  async resetPassword(token: string, password: string): Promise<Account | null> {
    const account = await this.resetLinkAccount(token);
    if (!account) return null;
    const done = await this.#d.db.transaction(async (tx) => {
      const id = await this.#d.tokens.consume(token, 'reset_password', tx);
      if (id !== account.id) return false;
      await this.#d.accounts.setPassword(tx, account, password);
      const r = await tx.query(`DELETE FROM oidc_payloads WHERE model = ANY($1::text[]) AND payload->>'accountId' = $2`, [ACCOUNT_MODELS, account.id]);
      this.#d.log.info({ accountId: account.id, revoked: r.rowCount }, 'password reset; tokens, grants and sessions revoked');
      return true;
    });
    if (!done) return null;
    await this.#d.throttle.clearAccount(account.email);
    return { ...account, emailVerified: true };
  }

  /** Uses a verification link: marks the address confirmed. Null when the link does not work. */
  async verifyEmail(token: string): Promise<Account | null> {
    const id = await this.#d.db.transaction(async (tx) => {
      const accountId = await this.#d.tokens.consume(token, 'verify_email', tx);
      if (accountId) await this.#d.accounts.markEmailVerified(tx, accountId);
      return accountId;
    });
    if (!id) return null;
    const account = await this.#d.accounts.findById(id);
    return account;
  }
}
