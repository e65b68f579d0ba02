/**
 * The clinician console (issue 35, item 4): server-rendered pages under /console on the same
 * provider operations the REST API runs (invokeOperation, no HTTP self-calls). Sign-in goes
 * through our own OAuth server as the built-in public client `carebridge-console` (code + PKCE);
 * the code is exchanged in-process (app.inject on /oauth/token). Plain forms, POST-redirect-GET,
 * a per-session CSRF token in every form, PAGE_HEADERS (CSP without script, no framing); the visit
 * and queue pages refresh themselves (the `Refresh` header, as <meta http-equiv="refresh"> would,
 * without a script) for live updates; the clinician can pause it while typing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AnyOperation } from '../../engine/core/operation.ts';
import type { Caller } from '../../engine/core/context.ts';
import { isAppError } from '../../engine/core/errors.ts';
import { acceptVisit, endVisit, providerGetVisit, providerMessage, providerNotes, providerQueue } from '../../engine/visits/provider.operations.ts';
import { invokeOperation } from '../rest/invoke.ts';
import { contextFor } from '../rest/operation-routes.ts';
import type { AppServices } from '../rest/services.ts';
import { renderPage, sendPage, type FieldError } from '../web/render.ts';
import {
  AUTH_COOKIE, CONSOLE_CLIENT_ID, CookieSealer, SESSION_COOKIE, pkceChallenge, randomToken, readCookie, readSession, safeNext, sameToken, setCookie,
  type ConsoleSession, type PendingAuth,
} from './console-session.ts';

const FORM_LIMIT = 64 * 1024;
const AUTH_TTL_S = 10 * 60;
const REFRESH_SECONDS = 10;
type Form = Record<string, string>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- operation outputs are read as their zod shapes
type Json = Record<string, any>;

export interface ConsoleOptions { cookieSecret: string }

function message(reply: FastifyReply, status: number, title: string, text: string, headers: Record<string, string> = {}): FastifyReply {
  return sendPage(reply, status, renderPage('console/message', { title, message: text }), headers);
}

function redirect(reply: FastifyReply, location: string, cookies: string[] = []): FastifyReply {
  if (cookies.length) void reply.header('set-cookie', cookies);
  return reply.code(303).header('location', location).header('cache-control', 'no-store').send();
}

export async function registerConsoleRoutes(app: FastifyInstance, svc: AppServices, opts: ConsoleOptions): Promise<void> {
  const sealer = new CookieSealer(opts.cookieSecret);
  const secure = svc.config.baseUrl.startsWith('https:');
  const redirectUri = `${svc.config.baseUrl}/console/callback`;
  const now = () => svc.ports.clock.now().getTime();
  const clear = [setCookie(SESSION_COOKIE, '', 0, secure)];

  /** The signed-in clinician's session and caller, or null (no, bad or expired cookie or token). */
  async function signedIn(req: FastifyRequest): Promise<{ session: ConsoleSession; caller: Caller } | null> {
    const v = await readSession(req.headers.cookie, SESSION_COOKIE, sealer, svc.identity, svc.config.baseUrl, now());
    if (!v) return null;
    return { session: v.session, caller: { kind: 'user', ip: req.ip, userId: v.userId, clientId: v.clientId, scopes: v.scopes } };
  }

  async function run(op: AnyOperation, input: Json, req: FastifyRequest, caller: Caller): Promise<Json> {
    return await invokeOperation(op, input, contextFor(req, svc, caller, 'main'), svc.checkOutput) as Json;
  }

  /** Errors every page shares: 403 (not a provider, not your visit), 404, else rethrown. */
  function known(reply: FastifyReply, e: unknown): FastifyReply | null {
    if (!isAppError(e)) return null;
    if (e.status === 403) {
      return message(reply, 403, 'Not available to this account', `The clinician console is for provider accounts. ${e.reason} Sign out and sign in with a provider account.`);
    }
    if (e.status === 404) return message(reply, 404, 'Conversation not found', 'No conversation with this id was offered to you.');
    return null;
  }

  async function visitPage(reply: FastifyReply, req: FastifyRequest, who: { session: ConsoleSession; caller: Caller }, id: string,
    status = 200, errors: FieldError[] = [], values: Form = {}): Promise<FastifyReply> {
    const v = await run(providerGetVisit, { conversationId: id }, req, who.caller);
    const mine = v.visit?.providerId === (who.caller.kind === 'user' ? who.caller.userId : '');
    const live = errors.length === 0 && (req.query as Form | undefined)?.live !== '0';
    return sendPage(reply, status, renderPage('console/visit', {
      title: v.title || 'Conversation', errors, v, mine, csrf: who.session.csrf, values, live, refresh: REFRESH_SECONDS,
      fieldErrors: Object.fromEntries(errors.map((e) => [e.field, e.message])),
    }), live ? { refresh: String(REFRESH_SECONDS) } : {});
  }

  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });

    scope.get<{ Querystring: Form }>('/console/login', async (req, reply) => {
      // `next`: another console page to land on (the care-team pages, api/care-team/).
      const next = safeNext(req.query?.next, '/console');
      const auth: PendingAuth = { state: randomToken(), verifier: randomToken(), exp: now() + AUTH_TTL_S * 1000, ...(next ? { next } : {}) };
      const url = new URL('/oauth/authorize', svc.config.baseUrl);
      url.search = new URLSearchParams({
        client_id: CONSOLE_CLIENT_ID, response_type: 'code', redirect_uri: redirectUri, scope: 'openid email profile',
        state: auth.state, code_challenge: pkceChallenge(auth.verifier), code_challenge_method: 'S256',
      }).toString();
      return redirect(reply, url.toString(), [setCookie(AUTH_COOKIE, sealer.seal(auth), AUTH_TTL_S, secure)]);
    });

    scope.get<{ Querystring: Form }>('/console/callback', async (req, reply) => {
      const auth = sealer.open<PendingAuth>(readCookie(req.headers.cookie, AUTH_COOKIE), now());
      const q = req.query ?? {};
      if (!auth || !sameToken(q.state, auth.state)) {
        return message(reply, 400, 'Sign-in expired', 'This sign-in could not be matched to one started here. Start again from the console.');
      }
      if (typeof q.code !== 'string') return message(reply, 400, 'Sign-in not completed', 'The sign-in was cancelled or refused. Start again from the console.');
      const res = await app.inject({
        method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'authorization_code', code: q.code, redirect_uri: redirectUri, client_id: CONSOLE_CLIENT_ID, code_verifier: auth.verifier }).toString(),
      });
      let body: { access_token?: string; expires_in?: number } = {};
      try { body = res.json(); } catch { /* not JSON: handled as a failed exchange below */ }
      if (res.statusCode !== 200 || !body.access_token) {
        req.log.warn({ status: res.statusCode }, 'console code exchange failed');
        return message(reply, 400, 'Sign-in failed', 'The sign-in could not be completed. Start again from the console.');
      }
      const ttl = Math.max(60, Math.min(body.expires_in ?? 3600, 3600));
      const session: ConsoleSession = { token: body.access_token, csrf: randomToken(), exp: now() + ttl * 1000 };
      return redirect(reply, safeNext(auth.next, '/console') ?? '/console', [setCookie(SESSION_COOKIE, sealer.seal(session), ttl, secure), setCookie(AUTH_COOKIE, '', 0, secure)]);
    });

    scope.post<{ Body: Form }>('/console/logout', async (req, reply) => {
      const who = await signedIn(req);
      if (who && !sameToken(req.body?.csrf, who.session.csrf)) return message(reply, 403, 'Form expired', 'Reload the page and try again.');
      return redirect(reply, '/console/signed-out', clear);
    });
    scope.get('/console/signed-out', async (_req, reply) => message(reply, 200, 'Signed out of the console', 'To sign out of carebridge in this browser as well, use Sign out on the sign-in pages.'));

    scope.get('/console', async (req, reply) => {
      const who = await signedIn(req);
      if (!who) return redirect(reply, '/console/login', clear);
      try {
        const q = await run(providerQueue, {}, req, who.caller);
        return sendPage(reply, 200, renderPage('console/queue', { title: 'Your queue', q, csrf: who.session.csrf, refresh: REFRESH_SECONDS }),
          { refresh: String(REFRESH_SECONDS) });
      } catch (e) {
        const page = known(reply, e);
        if (page) return page;
        throw e;
      }
    });

    scope.get<{ Params: { id: string } }>('/console/visits/:id', async (req, reply) => {
      const who = await signedIn(req);
      if (!who) return redirect(reply, '/console/login', clear);
      try {
        return await visitPage(reply, req, who, req.params.id);
      } catch (e) {
        const page = known(reply, e);
        if (page) return page;
        throw e;
      }
    });

    const actions: Record<string, { op: AnyOperation; input: (f: Form) => Json; fields: string[] }> = {
      accept: { op: acceptVisit, input: () => ({}), fields: [] },
      messages: { op: providerMessage, input: (f) => ({ text: f.text ?? '' }), fields: ['text'] },
      notes: {
        op: providerNotes, fields: ['chiefComplaint', 'assessment', 'plan', 'summary'],
        input: (f) => ({ chiefComplaint: f.chiefComplaint ?? '', assessment: f.assessment ?? '', plan: f.plan ?? '', summary: f.summary ?? '' }),
      },
      end: { op: endVisit, input: () => ({}), fields: [] },
    };

    scope.post<{ Params: { id: string; action: string }; Body: Form }>('/console/visits/:id/:action', async (req, reply) => {
      const action = actions[req.params.action];
      if (!action) return message(reply, 404, 'Page not found', 'There is no such console action.');
      const who = await signedIn(req);
      if (!who) return redirect(reply, '/console/login', clear);
      const form: Form = req.body && typeof req.body === 'object' ? req.body : {};
      if (!sameToken(form.csrf, who.session.csrf)) {
        return message(reply, 403, 'Form expired', 'This form could not be accepted (it did not come from your console session). Reload the page and try again.');
      }
      const id = req.params.id;
      try {
        await run(action.op, { ...action.input(form), conversationId: id }, req, who.caller);
        return redirect(reply, `/console/visits/${encodeURIComponent(id)}`);
      } catch (e) {
        const page = known(reply, e);
        if (page) return page;
        if (!isAppError(e) || e.status >= 500) throw e;
        // Bad input or a visit that moved on (already accepted, ended): the page again, saying why.
        const f = e.details.field ?? '';
        const field = action.fields.includes(f) ? f : 'actions';
        const values = Object.fromEntries(action.fields.map((f) => [f, (form[f] ?? '').slice(0, 8000)]));
        return await visitPage(reply, req, who, id, e.status, [{ field, message: e.reason }], values);
      }
    });
  });
}
