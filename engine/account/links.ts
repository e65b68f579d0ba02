/**
 * Account pages on the main host (api/identity serves them), kept here so that engine code can
 * build links without importing the transport.
 * - SIGNUP_PATH: a real sign-up form; SIGNIN_PATH: a real sign-in form (each continues a pending
 *   OAuth authorization of this browser when given `?interaction=<uid>`).
 * - The email links: verification, and the forgot-password / reset-password pair.
 */
export const SIGNUP_PATH = '/oauth/signup';
export const SIGNIN_PATH = '/oauth/signin';
export const VERIFY_EMAIL_PATH = '/account/verify-email';
export const FORGOT_PASSWORD_PATH = '/account/forgot-password';
export const RESET_PASSWORD_PATH = '/account/reset-password';

/** The built-in public OAuth client of `npx carebridge login` (device grant, RFC 8628). */
export const CLI_CLIENT_ID = 'carebridge-cli';
