/**
 * Sign-in for the care-job approval page (issue 39, item 1; service-spec.md, Authentication:
 * "care-job approval ... requires the user's own verification on their device"). The page is a
 * first-party public OAuth client of our own authorization server (code + PKCE S256), as the
 * clinician console is (api/console/console-session.ts: the same sealed-cookie code, scoped to
 * /care-jobs). `max_age` asks for the user's password again unless they entered it in the last
 * few minutes, so approving is a fresh act of the person; an agent's bearer token is never read
 * by these pages.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../rest/services.ts';
import { CookieSealer, pkceChallenge, randomToken, readCookie, readSession, safeNext, sameToken, setCookie, type ConsoleSession, type PendingAuth } from '../console/console-session.ts';

export const APPROVAL_CLIENT_ID = 'carebridge-care-approval';
export const APPROVAL_COOKIE = 'cb_approval';
const APPROVAL_AUTH_COOKIE = 'cb_approval_auth';
export const APPROVAL_PATH = '/care-jobs';
const AUTH_TTL_S = 10 * 60;
/**
 * OIDC `max_age`: the user must have entered their password within the last 5 minutes, so a
 * browser session left signed in long ago does not approve by itself (`prompt=login` would do the
 * same but is asked again after the consent step of a first sign-in).
 */
const FRESH_SIGN_IN_S = 5 * 60;
/** A signed-in approval session lasts at most 15 minutes: the life of an approval link. */
const SESSION_MAX_S = 15 * 60;

export interface ApprovalSignIn {
  /** The signed-in user (their own account), or null. */
  signedIn(req: FastifyRequest): Promise<{ session: ConsoleSession; userId: string } | null>;
  /** Redirects to sign-in, landing back on `next` after. */
  toSignIn(reply: FastifyReply, next: string): FastifyReply;
  /** Cookie header values that end the approval session. */
  clear: string[];
}

function redirect(reply: FastifyReply, location: string, cookies: string[] = []): FastifyReply {
  if (cookies.length) void reply.header('set-cookie', cookies);
  return reply.code(303).header('location', location).header('cache-control', 'no-store').send();
}

/** Registers /care-jobs/login and /care-jobs/callback in `scope`; returns the session reader. */
export function registerApprovalSignIn(app: FastifyInstance, scope: FastifyInstance, svc: AppServices, cookieSecret: string,
  message: (reply: FastifyReply, status: number, title: string, text: string) => FastifyReply): ApprovalSignIn {
  const sealer = new CookieSealer(cookieSecret);
  const secure = svc.config.baseUrl.startsWith('https:');
  const redirectUri = `${svc.config.baseUrl}${APPROVAL_PATH}/callback`;
  const now = () => svc.ports.clock.now().getTime();
  const cookie = (name: string, value: string, ttl: number) => setCookie(name, value, ttl, secure, APPROVAL_PATH);

  scope.get<{ Querystring: Record<string, string> }>(`${APPROVAL_PATH}/login`, async (req, reply) => {
    const next = safeNext(req.query?.next, `${APPROVAL_PATH}/approve`);
    const auth: PendingAuth = { state: randomToken(), verifier: randomToken(), exp: now() + AUTH_TTL_S * 1000, ...(next ? { next } : {}) };
    const url = new URL('/oauth/authorize', svc.config.baseUrl);
    url.search = new URLSearchParams({
      client_id: APPROVAL_CLIENT_ID, response_type: 'code', redirect_uri: redirectUri, scope: 'openid email', max_age: String(FRESH_SIGN_IN_S),
      state: auth.state, code_challenge: pkceChallenge(auth.verifier), code_challenge_method: 'S256',
    }).toString();
    return redirect(reply, url.toString(), [cookie(APPROVAL_AUTH_COOKIE, sealer.seal(auth), AUTH_TTL_S)]);
  });

  scope.get<{ Querystring: Record<string, string> }>(`${APPROVAL_PATH}/callback`, async (req, reply) => {
    const auth = sealer.open<PendingAuth>(readCookie(req.headers.cookie, APPROVAL_AUTH_COOKIE), now());
    const q = req.query ?? {};
    if (!auth || !sameToken(q.state, auth.state)) return message(reply, 400, 'Sign-in expired', 'This sign-in could not be matched to one started here. Open the approval link again.');
    if (typeof q.code !== 'string') return message(reply, 400, 'Sign-in not completed', 'The sign-in was cancelled or refused. Open the approval link again.');
    // The code is exchanged in-process, as the console does (no HTTP self-call).
    const res = await app.inject({
      method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'authorization_code', code: q.code, redirect_uri: redirectUri, client_id: APPROVAL_CLIENT_ID, code_verifier: auth.verifier }).toString(),
    });
    let body: { access_token?: string; expires_in?: number } = {};
    try { body = res.json(); } catch { /* not JSON: a failed exchange below */ }
    if (res.statusCode !== 200 || !body.access_token) {
      req.log.warn({ status: res.statusCode }, 'approval code exchange failed');
      return message(reply, 400, 'Sign-in failed', 'The sign-in could not be completed. Open the approval link again.');
    }
    const ttl = Math.max(60, Math.min(body.expires_in ?? SESSION_MAX_S, SESSION_MAX_S));
    const session: ConsoleSession = { token: body.access_token, csrf: randomToken(), exp: now() + ttl * 1000 };
    return redirect(reply, safeNext(auth.next, `${APPROVAL_PATH}/approve`) ?? '/', [cookie(APPROVAL_COOKIE, sealer.seal(session), ttl), cookie(APPROVAL_AUTH_COOKIE, '', 0)]);
  });

  return {
    async signedIn(req) {
      const v = await readSession(req.headers.cookie, APPROVAL_COOKIE, sealer, svc.identity, svc.config.baseUrl, now());
      // Only a session this page's own sign-in made counts (never a token some other client holds).
      return v && v.clientId === APPROVAL_CLIENT_ID ? { session: v.session, userId: v.userId } : null;
    },
    toSignIn: (reply, next) => redirect(reply, `${APPROVAL_PATH}/login?next=${encodeURIComponent(next)}`),
    clear: [cookie(APPROVAL_COOKIE, '', 0)],
  };
}
