/**
 * The clinician console (issue 35, item 4): server-rendered pages under /console on the same
 * provider operations the REST API runs (invokeOperation, no HTTP self-calls). Sign-in goes
 * through our own OAuth server as the built-in public client `carebridge-console` (code + PKCE);
 * the code is exchanged in-process (app.inject on /oauth/token). Plain forms, POST-redirect-GET,
 * a per-session CSRF token in every form, PAGE_HEADERS (no framing; no inline script). The visit
 * and queue pages update live: a small script from this origin follows a server-sent events stream
 * per page (console-live.ts) and swaps the fresh page in; with scripting off, a <noscript> meta
 * refresh reloads them instead, and the clinician can pause that while typing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AnyOperation } from '../../engine/core/operation.ts';
import type { Caller } from '../../engine/core/context.ts';
import { isAppError } from '../../engine/core/errors.ts';
import { conversationTopic } from '../../engine/platform/outbox.ts';
import { threadTopic } from '../../engine/consultations/consultation-store.ts';
import { offersTopic } from '../../engine/visits/visits.ports.ts';
import { acceptVisit, endVisit, providerGetVisit, providerMessage, providerNotes, providerQueue } from '../../engine/visits/provider.operations.ts';
import { prescribeOp, visitPrescriptionsOp } from '../../engine/prescriptions/prescribe.operation.ts';
import { invokeOperation } from '../rest/invoke.ts';
import { contextFor } from '../rest/operation-routes.ts';
import type { AppServices } from '../rest/services.ts';
import { PAGE_HEADERS, renderPage, sendPage, type FieldError } from '../web/render.ts';
import { LIVE_SCRIPT_PATH, LiveStreams, liveVersion, type LiveFeed } from './console-live.ts';
import { providerMediaUrl } from '../../engine/media/media.operations.ts';
import { consoleMedia, consoleMediaHeaders } from '../media/console-media.ts';
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

export interface ConsoleOptions {
  cookieSecret: string;
  /** Live streams' heartbeat period (default DEFAULT_HEARTBEAT_MS; tests shorten it). */
  heartbeatMs?: number;
}

/** The live pages' headers: PAGE_HEADERS' policy plus this origin's script and its event stream, nothing inline. */
const LIVE_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': `${PAGE_HEADERS['content-security-policy']}; script-src 'self'; connect-src 'self'`,
});
const LIVE_SCRIPT = readFileSync(join(import.meta.dirname, 'console-live.browser.js'), 'utf8');

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
  const bus = svc.ports.bus;
  const streams = bus ? new LiveStreams(bus, svc.log, opts.heartbeatMs) : undefined;
  // Open streams would hold the server's close: end them first (each browser reconnects elsewhere).
  if (streams) {
    app.addHook('preClose', async () => { streams.closeAll(); });
    app.decorate('consoleLive', streams);
  }

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

  /**
   * What the visit page shows and its live stream fingerprints: the conversation and its
   * prescription orders (their status changes publish on the conversation's topic, so the stream
   * wakes for them as for a message).
   */
  async function readVisit(req: FastifyRequest, caller: Caller, id: string): Promise<{ v: Json; rx: Json[] }> {
    const v = await run(providerGetVisit, { conversationId: id }, req, caller);
    const { prescriptionOrders } = await run(visitPrescriptionsOp, { conversationId: id }, req, caller);
    return { v, rx: prescriptionOrders as Json[] };
  }

  async function visitPage(reply: FastifyReply, req: FastifyRequest, who: { session: ConsoleSession; caller: Caller }, id: string,
    status = 200, errors: FieldError[] = [], values: Form = {}): Promise<FastifyReply> {
    const shown = await readVisit(req, who.caller, id);
    const { v, rx } = shown;
    const mine = v.visit?.providerId === (who.caller.kind === 'user' ? who.caller.userId : '');
    const live = errors.length === 0 && (req.query as Form | undefined)?.live !== '0';
    // The conversation's media (issue 39, item 3): signed URLs through the provider's own read.
    const media = await consoleMedia(v.messages, async (messageId) => run(providerMediaUrl, { conversationId: id, messageId }, req, who.caller) as Promise<{ url: string; contentType: string }>);
    const path = `/console/visits/${encodeURIComponent(id)}`;
    // Images may come from the media store's origin (S3); a live page also runs this origin's script.
    const csp = consoleMediaHeaders(svc.ports.media?.store, svc.config.baseUrl)['content-security-policy'];
    const headers: Record<string, string> = live ? { 'content-security-policy': `${csp ?? PAGE_HEADERS['content-security-policy']}; script-src 'self'; connect-src 'self'` }
      : csp ? { 'content-security-policy': csp } : {};
    return sendPage(reply, status, renderPage('console/visit', {
      title: v.title || 'Conversation', errors, v, rx, mine, csrf: who.session.csrf, values, live, refresh: REFRESH_SECONDS, media,
      fieldErrors: Object.fromEntries(errors.map((e) => [e.field, e.message])),
      stream: live ? stream(path, `${path}/events`, shown) : null,
    }), headers);
  }

  /** What a live page tells its script: where its stream and its fresh copy are, and the version it shows. */
  function stream(page: string, events: string, view: unknown) {
    return streams ? { page, events, version: liveVersion(view), refreshSeconds: REFRESH_SECONDS, script: LIVE_SCRIPT_PATH } : null;
  }

  /** A live stream's feed for the signed-in clinician: `read` runs the page's own operation as them. */
  function feed<T>(who: { session: ConsoleSession; caller: Caller }, read: () => Promise<T>, topics: (v: T) => string[]): LiveFeed<T> {
    return {
      owner: who.caller.kind === 'user' ? who.caller.userId : '', read, topics,
      signedIn: async () => who.session.exp > now() && (await svc.identity.verifyAccessToken(who.session.token, [svc.config.baseUrl])) !== null,
    };
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
        return sendPage(reply, 200, renderPage('console/queue', {
          title: 'Your queue', q, csrf: who.session.csrf, refresh: REFRESH_SECONDS, stream: stream('/console', '/console/events', q),
        }), LIVE_PAGE_HEADERS);
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

    scope.get(LIVE_SCRIPT_PATH, async (_req, reply) => reply
      .header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(LIVE_SCRIPT));

    // The live streams: the queue watches the clinician's offers and every conversation it lists;
    // a conversation page watches its events (status, provider messages) and its thread (every message).
    scope.get('/console/events', async (req, reply) => {
      const who = await signedIn(req);
      if (!streams || !who) return reply.code(401).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Sign in to the console.');
      const me = who.caller.kind === 'user' ? who.caller.userId : '';
      return streams.serve(req, reply, feed(who, () => run(providerQueue, {}, req, who.caller),
        (q) => [offersTopic(me), ...[...q.waiting, ...q.active].map((c: Json) => conversationTopic(c.conversationId as string))]));
    });

    scope.get<{ Params: { id: string } }>('/console/visits/:id/events', async (req, reply) => {
      const who = await signedIn(req);
      if (!streams || !who) return reply.code(401).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('Sign in to the console.');
      const id = req.params.id;
      return streams.serve(req, reply, feed(who, () => readVisit(req, who.caller, id),
        () => [conversationTopic(id), threadTopic(id)]));
    });

    const actions: Record<string, { op: AnyOperation; input: (f: Form) => Json; fields: string[] }> = {
      accept: { op: acceptVisit, input: () => ({}), fields: [] },
      messages: { op: providerMessage, input: (f) => ({ text: f.text ?? '' }), fields: ['text'] },
      notes: {
        op: providerNotes, fields: ['chiefComplaint', 'assessment', 'plan', 'summary'],
        input: (f) => ({ chiefComplaint: f.chiefComplaint ?? '', assessment: f.assessment ?? '', plan: f.plan ?? '', summary: f.summary ?? '' }),
      },
      end: { op: endVisit, input: () => ({}), fields: [] },
      // The prescribe form (templates/console/prescribe.eta): its field names are the API's.
      prescriptions: {
        op: prescribeOp, fields: ['drug.name', 'drug.strength', 'drug.form', 'quantity', 'instructions', 'refillQuantity', 'pharmacyNpi'],
        input: (f) => {
          const refills = (f.refillQuantity ?? '').trim() === '' ? 0 : Number(f.refillQuantity);
          return {
            drug: { name: f['drug.name'] ?? '', strength: f['drug.strength'] ?? '', form: f['drug.form'] ?? '' },
            quantity: Number(f.quantity ?? ''), instructions: f.instructions ?? '', hasRefill: refills > 0, refillQuantity: refills,
            ...((f.pharmacyNpi ?? '').trim() ? { pharmacyNpi: f.pharmacyNpi } : {}),
          };
        },
      },
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
