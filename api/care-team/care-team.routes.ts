/**
 * The care team's console pages (issue 39, item 1): /console/care-team lists approved jobs; a
 * job's page starts it, completes it or fails it with an outcome. Part of the clinician console:
 * the same sign-in (/console/login, landing back here) and the same sealed session cookie
 * (api/console/console-session.ts), the same care-team operations the REST API runs
 * (invokeOperation), plain forms with the session's CSRF token, PAGE_HEADERS, no JavaScript.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../engine/core/context.ts';
import type { AnyOperation } from '../../engine/core/operation.ts';
import { isAppError } from '../../engine/core/errors.ts';
import { careTeamComplete, careTeamFail, careTeamJob, careTeamJobs, careTeamStart } from '../../engine/carejobs/care-team.operations.ts';
import { CookieSealer, SESSION_COOKIE, readSession, sameToken, type ConsoleSession } from '../console/console-session.ts';
import { invokeOperation } from '../rest/invoke.ts';
import { contextFor } from '../rest/operation-routes.ts';
import type { AppServices } from '../rest/services.ts';
import { renderPage, sendPage, type FieldError } from '../web/render.ts';

const FORM_LIMIT = 16 * 1024;
const BASE = '/console/care-team';
type Form = Record<string, string>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- operation outputs are read as their zod shapes
type Json = Record<string, any>;

function message(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  return sendPage(reply, status, renderPage('care-team/message', { title, message: text }));
}

export async function registerCareTeamConsole(app: FastifyInstance, svc: AppServices, cookieSecret: string): Promise<void> {
  const sealer = new CookieSealer(cookieSecret);

  async function signedIn(req: FastifyRequest): Promise<{ session: ConsoleSession; caller: Caller } | null> {
    const v = await readSession(req.headers.cookie, SESSION_COOKIE, sealer, svc.identity, svc.config.baseUrl, svc.ports.clock.now().getTime());
    return v ? { session: v.session, caller: { kind: 'user', ip: req.ip, userId: v.userId, clientId: v.clientId, scopes: v.scopes } } : null;
  }
  const toLogin = (reply: FastifyReply, next: string) =>
    reply.code(303).header('location', `/console/login?next=${encodeURIComponent(next)}`).header('cache-control', 'no-store').send();
  const run = async (op: AnyOperation, input: Json, req: FastifyRequest, caller: Caller): Promise<Json> =>
    await invokeOperation(op, input, contextFor(req, svc, caller, 'main'), svc.checkOutput) as Json;

  function known(reply: FastifyReply, e: unknown): FastifyReply | null {
    if (!isAppError(e)) return null;
    if (e.status === 403) return message(reply, 403, 'Not available to this account', `These pages are for care-team accounts. ${e.reason}`);
    if (e.status === 404 || e.details.field === 'jobId') return message(reply, 404, 'Care job not found', 'No approved care job with this id.');
    return null;
  }

  async function jobPage(reply: FastifyReply, req: FastifyRequest, who: { session: ConsoleSession; caller: Caller }, id: string,
    status = 200, errors: FieldError[] = [], values: Form = {}): Promise<FastifyReply> {
    const job = await run(careTeamJob, { jobId: id }, req, who.caller);
    return sendPage(reply, status, renderPage('care-team/job', {
      title: job.sheet.title, errors, job, csrf: who.session.csrf, values, base: BASE, params: JSON.stringify(job.params, null, 2),
      fieldErrors: Object.fromEntries(errors.map((e) => [e.field, e.message])),
    }));
  }

  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });

    scope.get(BASE, async (req, reply) => {
      const who = await signedIn(req);
      if (!who) return toLogin(reply, BASE);
      try {
        const list = await run(careTeamJobs, {}, req, who.caller);
        return sendPage(reply, 200, renderPage('care-team/queue', { title: 'Care jobs to carry out', jobs: list.jobs, base: BASE, csrf: who.session.csrf }));
      } catch (e) {
        const p = known(reply, e);
        if (p) return p;
        throw e;
      }
    });

    scope.get<{ Params: { id: string } }>(`${BASE}/jobs/:id`, async (req, reply) => {
      const who = await signedIn(req);
      if (!who) return toLogin(reply, `${BASE}/jobs/${encodeURIComponent(req.params.id)}`);
      try {
        return await jobPage(reply, req, who, req.params.id);
      } catch (e) {
        const p = known(reply, e);
        if (p) return p;
        throw e;
      }
    });

    const actions: Record<string, { op: AnyOperation; input: (f: Form) => Json; fields: string[] }> = {
      start: { op: careTeamStart, input: () => ({}), fields: [] },
      complete: {
        op: careTeamComplete, fields: ['summary', 'reference', 'appointmentLabel'],
        input: (f) => ({ outcome: { summary: f.summary ?? '', ...(f.reference ? { reference: f.reference } : {}), ...(f.appointmentLabel ? { appointmentLabel: f.appointmentLabel } : {}) } }),
      },
      fail: { op: careTeamFail, fields: ['failSummary'], input: (f) => ({ outcome: { summary: f.failSummary ?? '' } }) },
    };

    scope.post<{ Params: { id: string; action: string }; Body: Form }>(`${BASE}/jobs/:id/:action`, async (req, reply) => {
      const action = actions[req.params.action];
      if (!action) return message(reply, 404, 'Page not found', 'There is no such care-team action.');
      const who = await signedIn(req);
      if (!who) return toLogin(reply, BASE);
      const form: Form = req.body && typeof req.body === 'object' ? req.body : {};
      if (!sameToken(form.csrf, who.session.csrf)) return message(reply, 403, 'Form expired', 'Reload the page and try again.');
      const id = req.params.id;
      try {
        await run(action.op, { ...action.input(form), jobId: id }, req, who.caller);
        return reply.code(303).header('location', `${BASE}/jobs/${encodeURIComponent(id)}`).header('cache-control', 'no-store').send();
      } catch (e) {
        const p = known(reply, e);
        if (p) return p;
        if (!isAppError(e) || e.status >= 500) throw e;
        // Bad input or a job that moved on: the page again, saying why, next to the field.
        const f = (e.details.field ?? '').replace(/^outcome\./, '');
        const field = req.params.action === 'fail' && f.startsWith('summary') || f === 'outcome' && req.params.action === 'fail' ? 'failSummary'
          : action.fields.includes(f) ? f : f === 'outcome' ? 'summary' : 'actions';
        const values = Object.fromEntries(action.fields.map((k) => [k, (form[k] ?? '').slice(0, 2000)]));
        return await jobPage(reply, req, who, id, e.status, [{ field, message: e.reason }], values);
      }
    });
  });
}
