/**
 * The embedded processor's hosted payment page (issue 35, item 1): `GET/POST /pay/{sessionId}`.
 * A plain HTML form that works without JavaScript, sent with PAGE_HEADERS (CSP, no framing).
 * CSRF: the unguessable session id in the path plus a per-session form token in a hidden field;
 * a cross-site page can neither read the token nor guess the path. Post/redirect/get on success.
 * Card numbers and CVCs are never echoed back into the page.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { isAppError } from '../../engine/core/errors.ts';
import type { EmbeddedProcessor, PageState } from '../../engine/payments/adapters/embedded-processor.ts';
import type { CardForm } from '../../engine/payments/adapters/embedded-cards.ts';
import { renderPage, sendPage, type FieldError } from '../web/render.ts';

const SESSION_ID = /^ps_[A-Za-z0-9_-]{32}$/;
/** A card form is a few hundred bytes. */
const FORM_LIMIT = 8 * 1024;

function money(cents: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
}

function message(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  return sendPage(reply, status, renderPage('payments/message', { title, message: text }));
}

interface FormView {
  values?: { ccName?: string; ccExp?: string; postalCode?: string };
  errors?: FieldError[];
  failure?: string;
}

function formPage(reply: FastifyReply, status: number, state: Extract<PageState, { state: 'open' }>, view: FormView = {}): FastifyReply {
  const s = state.session;
  const errors = view.errors ?? [];
  const title = s.mode === 'hold' ? 'Approve a visit hold' : 'Save a card';
  return sendPage(reply, status, renderPage('payments/pay', {
    title, errors, mode: s.mode, sessionId: s.id, formToken: s.formToken, amount: money(s.amountCents, s.currency),
    expiresAt: s.expiresAt.toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
    values: { ccName: '', ccExp: '', postalCode: '', ...view.values },
    fieldErrors: Object.fromEntries(errors.map((e) => [e.field, e.message])),
    failure: view.failure ?? '',
  }));
}

function statePage(reply: FastifyReply, state: PageState | null): FastifyReply {
  if (!state) return message(reply, 404, 'Payment link not found', 'This payment link does not exist. Ask for a new link.');
  switch (state.state) {
    case 'open': return formPage(reply, 200, state);
    case 'expired': return message(reply, 410, 'Payment link expired', 'This payment link has expired. Ask for a new link; nothing was charged.');
    case 'completed': {
      const card = state.card ? `${state.card.brand.toUpperCase()} ending ${state.card.last4}` : '';
      return sendPage(reply, 200, renderPage('payments/done', { title: state.session.mode === 'hold' ? 'Hold approved' : 'Card saved', mode: state.session.mode, card }));
    }
  }
}

function field(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  return typeof v === 'string' ? v.slice(0, 200) : '';
}

/** Registers the hosted page in its own scope, with a urlencoded parser for its form only. */
export async function registerHostedPageRoutes(app: FastifyInstance, processor: EmbeddedProcessor, log: Logger): Promise<void> {
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });

    scope.get<{ Params: { sessionId: string } }>('/pay/:sessionId', async (req, reply) => {
      const id = req.params.sessionId;
      return statePage(reply, SESSION_ID.test(id) ? await processor.pageState(id) : null);
    });

    scope.post<{ Params: { sessionId: string } }>('/pay/:sessionId', async (req, reply) => {
      const id = req.params.sessionId;
      if (!SESSION_ID.test(id)) return statePage(reply, null);
      const body = (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {}) as Record<string, unknown>;
      const form: CardForm = {
        name: field(body, 'ccName'), number: field(body, 'ccNumber'), exp: field(body, 'ccExp'), csc: field(body, 'ccCsc'), postalCode: field(body, 'postalCode'),
      };
      const values = { ccName: form.name, ccExp: form.exp, postalCode: form.postalCode };
      try {
        const r = await processor.submit(id, field(body, 'formToken'), form);
        switch (r.result) {
          case 'approved': return reply.code(303).header('location', `/pay/${id}`).header('cache-control', 'no-store').send();
          case 'not_open': return r.state?.state === 'completed' ? reply.code(303).header('location', `/pay/${id}`).send() : statePage(reply, r.state);
          case 'bad_token': return message(reply, 403, 'Form expired', 'This form could not be accepted. Go back, reload the payment page and try again.');
          case 'invalid': {
            const state = await processor.pageState(id);
            return state?.state === 'open' ? formPage(reply, 422, state, { values, errors: r.errors }) : statePage(reply, state);
          }
          case 'declined': {
            const state = await processor.pageState(id);
            if (state?.state !== 'open') return statePage(reply, state);
            const failure = r.holdFailed ? 'payment_hold_failed' : r.code;
            return formPage(reply, 402, state, { values, errors: [{ field: r.field ?? 'cc-number', message: r.message }], failure });
          }
        }
      } catch (e) {
        // The purpose's handler refused the authorisation (e.g. the visit no longer needs payment); rolled back.
        if (isAppError(e) && e.status < 500) return message(reply, 409, 'Payment not needed', `${e.reason} Nothing was charged.`);
        log.error({ err: e, sessionId: id.slice(0, 8) }, 'hosted payment page failed');
        return message(reply, 500, 'Something went wrong', 'The payment could not be completed. Nothing was charged; try again shortly.');
      }
    });
  });
}
