import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../engine/core/errors.ts';
import type { AccountFlows } from '../../engine/identity/account-flows.ts';
import { checkEmail } from '../../engine/identity/accounts.ts';
import type { FixedWindowLimiter } from '../rest/rate-limit.ts';
import {
  checkEmailPage, forgotPasswordPage, resetPasswordPage, signedInPage, standaloneSignInPage, standaloneSignUpPage, verifyEmailPage,
} from './account-views.ts';
import { checkSignIn, type PasswordCheckDeps } from './password-check.ts';
import { PAGE_HEADERS, messagePage } from './pages.ts';

export interface AccountRouteDeps extends PasswordCheckDeps {
  flows: AccountFlows;
  limiter: FixedWindowLimiter;
}

type FormRequest = FastifyRequest<{ Body: Record<string, string> | undefined; Querystring: Record<string, string | undefined> }>;

/** Mail the forms may cause per address per minute (sign-up, forgot password): bounds mail bombing. */
export const MAILS_PER_ADDRESS_PER_MINUTE = 3;
/** Form posts per client IP per minute, all account forms together. */
export const ACCOUNT_POSTS_PER_IP = 60;

export function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).send(body);
}

export function field(body: Record<string, string> | undefined, name: string): string {
  const v = body?.[name];
  return typeof v === 'string' ? v : '';
}

const UID = /^[A-Za-z0-9_-]{8,64}$/;

/** Counts one mail to `email` against MAILS_PER_ADDRESS_PER_MINUTE; false when over. */
export function mailAllowed(limiter: FixedWindowLimiter, email: string): boolean {
  return limiter.hit('mail-address', email.trim().toLowerCase(), MAILS_PER_ADDRESS_PER_MINUTE).allowed;
}

/**
 * The account pages outside an OAuth interaction (issue 38, items 5, 8, 9). Registered inside
 * the interactions' scope, which parses urlencoded forms.
 */
export function registerAccountRoutes(scope: FastifyInstance, deps: AccountRouteDeps): void {
  const { flows, limiter } = deps;

  function tooMany(reply: FastifyReply, retryAfter: number): FastifyReply {
    void reply.header('retry-after', String(retryAfter));
    return html(reply, 429, messagePage('Too many attempts', `Wait ${retryAfter} seconds, then go back and try again.`));
  }

  function ipAllowed(req: FastifyRequest, reply: FastifyReply): boolean {
    const d = limiter.hit('account-form-ip', req.ip, ACCOUNT_POSTS_PER_IP);
    if (!d.allowed) tooMany(reply, d.retryAfterSeconds);
    return d.allowed;
  }

  // Sign-up. With ?interaction=<uid> (a pending authorization in this browser) it continues to
  // that interaction's form; otherwise the form creates the account on its own.
  scope.get('/oauth/signup', async (req: FormRequest, reply) => {
    const uid = req.query.interaction;
    if (typeof uid === 'string' && UID.test(uid)) return reply.redirect(`/oauth/interaction/${uid}/signup`, 303);
    return html(reply, 200, standaloneSignUpPage({}));
  });

  scope.post('/oauth/signup', async (req: FormRequest, reply) => {
    if (!ipAllowed(req, reply)) return reply;
    const values = { email: field(req.body, 'email'), name: field(req.body, 'name') };
    try {
      await flows.signUp({ ...values, password: field(req.body, 'password') }, { mayMail: () => mailAllowed(limiter, values.email) });
    } catch (err) {
      if (err instanceof AppError) return html(reply, err.status, standaloneSignUpPage({ ...values, error: err.reason }));
      throw err;
    }
    return html(reply, 200, checkEmailPage({ email: values.email.trim() }));
  });

  scope.get('/oauth/signin', async (req: FormRequest, reply) => {
    const uid = req.query.interaction;
    if (typeof uid === 'string' && UID.test(uid)) return reply.redirect(`/oauth/interaction/${uid}/signin`, 303);
    return html(reply, 200, standaloneSignInPage({}));
  });

  // Checks the password (throttled like the interaction's form); there is no first-party web
  // session to start, so success says that the account works and how an agent connects.
  scope.post('/oauth/signin', async (req: FormRequest, reply) => {
    if (!ipAllowed(req, reply)) return reply;
    const email = field(req.body, 'email');
    const r = await checkSignIn(deps, req, email, field(req.body, 'password'));
    if (r.kind === 'wait') return tooMany(reply, r.seconds);
    if (r.kind === 'wrong') return html(reply, 401, standaloneSignInPage({ email, error: 'The email or password is incorrect.' }));
    reply.raw.appendHeader('set-cookie', r.setCookie);
    return html(reply, 200, signedInPage(r.account));
  });

  scope.get('/account/forgot-password', async (_req, reply) => html(reply, 200, forgotPasswordPage({})));

  scope.post('/account/forgot-password', async (req: FormRequest, reply) => {
    if (!ipAllowed(req, reply)) return reply;
    const raw = field(req.body, 'email');
    let email: string;
    try {
      email = checkEmail(raw);
    } catch (err) {
      if (err instanceof AppError) return html(reply, 400, forgotPasswordPage({ email: raw, error: err.reason }));
      throw err;
    }
    // Same page whether or not a mail went out (or the per-address cap was reached).
    if (mailAllowed(limiter, email)) await flows.requestPasswordReset(email);
    return html(reply, 200, forgotPasswordPage({ email, sent: true }));
  });

  const expired = (reply: FastifyReply): FastifyReply => html(reply, 400, messagePage('This link does not work',
    'It was already used, has expired, or was copied incompletely. Ask for a new one.',
    '<p><a href="/account/forgot-password">Reset your password</a> · <a href="/oauth/signin">Sign in</a></p>'));

  scope.get('/account/reset-password', async (req: FormRequest, reply) => {
    const token = req.query.token ?? '';
    const account = await flows.resetLinkAccount(token);
    if (!account) return expired(reply);
    return html(reply, 200, resetPasswordPage({ token, email: account.email }));
  });

  scope.post('/account/reset-password', async (req: FormRequest, reply) => {
    if (!ipAllowed(req, reply)) return reply;
    const token = field(req.body, 'token');
    try {
      const account = await flows.resetPassword(token, field(req.body, 'password'));
      if (!account) return expired(reply);
      return html(reply, 200, messagePage('Your password is changed',
        'You are signed out everywhere and every app and agent is disconnected. Connect them again from the agent (or run npx carebridge login), signing in with the new password.'));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const account = await flows.resetLinkAccount(token);
      if (!account) return expired(reply);
      return html(reply, err.status, resetPasswordPage({ token, email: account.email, error: err.reason }));
    }
  });

  scope.get('/account/verify-email', async (req: FormRequest, reply) => html(reply, 200, verifyEmailPage({ token: req.query.token ?? '' })));

  scope.post('/account/verify-email', async (req: FormRequest, reply) => {
    if (!ipAllowed(req, reply)) return reply;
    const account = await flows.verifyEmail(field(req.body, 'token'));
    if (!account) return expired(reply);
    return html(reply, 200, messagePage('Email confirmed', `${account.email} is confirmed. You can close this page.`));
  });
}
