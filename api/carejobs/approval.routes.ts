/**
 * The care-job approval page (issue 39, item 1): `approvalUrl` = /care-jobs/approve/{token}.
 * Server-rendered, works without JavaScript, PAGE_HEADERS (CSP, no framing). The user signs in
 * with their own account (approval-session.ts); only the job's own account may decide. The page
 * shows the sheet (what will be done, the agent's note, our published prices beside the agent's
 * figures) and offers Approve / Decline. A cost-bearing job's Approve opens the payment port's
 * hosted hold page; the hold's authorisation approves the job (engine/carejobs/care-job-holds.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../engine/core/errors.ts';
import { approveFree, carePorts, declineJob, expireIfDue } from '../../engine/carejobs/care-job-actions.ts';
import { loadJobByToken, setPaymentSession, type CareJobRow } from '../../engine/carejobs/care-job-store.ts';
import type { AppServices } from '../rest/services.ts';
import { renderPage, sendPage } from '../web/render.ts';
import { sameToken } from '../console/console-session.ts';
import { APPROVAL_PATH, registerApprovalSignIn } from './approval-session.ts';

const TOKEN = /^[A-Za-z0-9_-]{32}$/;
const FORM_LIMIT = 4 * 1024;

function message(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  return sendPage(reply, status, renderPage('carejobs/message', { title, message: text }));
}

function money(cents: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
}

const STATUS_TEXT: Record<string, string> = {
  pending_approval: 'Waiting for your decision',
  approved: 'Approved: the care team will carry it out',
  declined: 'Declined: nothing will be done',
  expired: 'Expired: this link is no longer valid; nothing was done',
  in_progress: 'The care team is working on it',
  completed: 'Completed',
  failed: 'The care team could not complete it',
};

export async function registerApprovalRoutes(app: FastifyInstance, svc: AppServices, cookieSecret: string): Promise<void> {
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    const signIn = registerApprovalSignIn(app, scope, svc, cookieSecret, message);
    const pagePath = (token: string) => `${APPROVAL_PATH}/approve/${token}`;

    /** The job behind the link and the signed-in owner, or null when `reply` was answered instead. */
    async function resolve(req: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply)
      : Promise<{ job: CareJobRow; userId: string; csrf: string } | null> {
      const token = req.params.token;
      const job = TOKEN.test(token) ? await loadJobByToken(svc.ports.db, token) : null;
      if (!job) {
        message(reply, 404, 'Approval link not found', 'This approval link does not exist. Ask your agent for a new one.');
        return null;
      }
      const who = await signIn.signedIn(req);
      if (!who) {
        signIn.toSignIn(reply, pagePath(token));
        return null;
      }
      if (who.userId !== job.account_id) {
        void reply.header('set-cookie', signIn.clear);
        message(reply, 403, 'This request is for another account',
          'You are signed in with an account this request does not belong to. Open the link again and sign in with the account your agent acts for.');
        return null;
      }
      return { job, userId: who.userId, csrf: who.session.csrf };
    }

    function page(reply: FastifyReply, job: CareJobRow, csrf: string, status = 200, error = ''): FastifyReply {
      const pending = job.status === 'pending_approval';
      return sendPage(reply, status, renderPage('carejobs/approve', {
        title: job.sheet.title, errors: error ? [{ field: 'decision', message: error }] : [], job, sheet: job.sheet, pending, csrf,
        statusText: STATUS_TEXT[job.status] ?? job.status, action: pagePath(job.approval_token),
        cost: job.cost_cents !== null ? money(job.cost_cents, job.currency) : null,
        expiresAt: `${job.expires_at.toISOString().replace('T', ' ').slice(0, 16)} UTC`, money: (c: number) => money(c, job.currency),
      }));
    }

    scope.get<{ Params: { token: string } }>(`${APPROVAL_PATH}/approve/:token`, async (req, reply) => {
      const r = await resolve(req, reply);
      if (!r) return reply;
      // A link opened after its 15 minutes shows expired even if the timer has not run yet.
      if (r.job.status === 'pending_approval' && svc.ports.clock.now() >= r.job.expires_at) {
        await expireIfDue(carePorts(svc.ports), r.job.id);
        return page(reply, { ...r.job, status: 'expired' }, r.csrf);
      }
      return page(reply, r.job, r.csrf);
    });

    scope.post<{ Params: { token: string }; Body: Record<string, string> }>(`${APPROVAL_PATH}/approve/:token`, async (req, reply) => {
      const r = await resolve(req, reply);
      if (!r) return reply;
      const form = req.body && typeof req.body === 'object' ? req.body : {};
      if (!sameToken(form.csrf, r.csrf)) return message(reply, 403, 'Form expired', 'This form could not be accepted. Open the approval link again and decide there.');
      const back = () => reply.code(303).header('location', pagePath(r.job.approval_token)).header('cache-control', 'no-store').send();
      const ports = carePorts(svc.ports);
      try {
        if (form.decision === 'decline') {
          await declineJob(ports, r.job.id, r.userId);
          return back();
        }
        if (form.decision !== 'approve') return page(reply, r.job, r.csrf, 422, 'Choose Approve or Decline.');
        if (r.job.cost_cents === null) {
          await approveFree(ports, r.job.id, r.userId);
          return back();
        }
        // Cost-bearing: the hold page of the payment port; its authorisation approves the job.
        const processor = svc.ports.payments?.processor;
        if (!processor) return message(reply, 503, 'Payments unavailable', 'Payments are not available right now; nothing was done. Try again shortly.');
        await expireIfDue(ports, r.job.id);
        if (r.job.status !== 'pending_approval' || svc.ports.clock.now() >= r.job.expires_at) return back();
        const s = await processor.createHoldSession({ purpose: { kind: 'care_job', ref: r.job.id, userId: r.userId }, amountCents: r.job.cost_cents, currency: r.job.currency });
        await setPaymentSession(svc.ports.db, r.job.id, s.sessionId);
        return reply.code(303).header('location', s.url).header('cache-control', 'no-store').send();
      } catch (e) {
        if (isAppError(e) && e.status < 500) return back();
        throw e;
      }
    });
  });
}
