/**
 * TESTS ONLY: a local HTTP stand-in for api.stripe.com on 127.0.0.1, answering the calls the
 * adapter makes with Stripe's documented JSON objects (shapes from the API reference:
 * https://docs.stripe.com/api/checkout/sessions/object, /api/payment_intents/object,
 * /api/setup_intents/object, /api/errors). It keeps the state a real account would (a
 * PaymentIntent moves requires_capture -> succeeded | canceled) and honours Idempotency-Key as
 * Stripe does: the same key replays the first answer.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type Obj = Record<string, unknown>;

export interface FakeStripe {
  url: string;
  /** Every request: method, path, form params, idempotency key. */
  calls: { method: string; path: string; params: URLSearchParams; idempotencyKey: string | undefined }[];
  intents: Map<string, Obj>;
  sessions: Map<string, Obj>;
  setupIntents: Map<string, Obj>;
  /** What Checkout does when the person pays: the PaymentIntent of `csId` becomes requires_capture with `card`. */
  completeCheckout(csId: string, card?: { brand: string; last4: string }): Obj;
  /** What Checkout does in setup mode: the SetupIntent succeeds with a card PaymentMethod. */
  completeSetup(csId: string, pm: { id: string; brand: string; last4: string }): Obj;
  close(): Promise<void>;
}

let seq = 0;
const id = (prefix: string) => `${prefix}_test_${(++seq).toString().padStart(6, '0')}Fk`;

function metadataOf(params: URLSearchParams, prefix: string): Obj {
  const out: Obj = {};
  for (const [k, v] of params) {
    const m = new RegExp(`^${prefix.replace(/[[\]]/g, '\\$&')}\\[([^\\]]+)\\]$`).exec(k);
    if (m) out[m[1]!] = v;
  }
  return out;
}

function cardError(message: string, code: string, declineCode: string, pi: Obj): { status: number; body: Obj } {
  return { status: 402, body: { error: { type: 'card_error', code, decline_code: declineCode, message, payment_intent: pi, doc_url: `https://docs.stripe.com/error-codes/${code}` } } };
}

function invalidState(pi: Obj): { status: number; body: Obj } {
  return {
    status: 400,
    body: { error: { type: 'invalid_request_error', code: 'payment_intent_unexpected_state', message: `This PaymentIntent's status is ${String(pi.status)}.`, payment_intent: pi } },
  };
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const calls: FakeStripe['calls'] = [];
  const intents = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const setupIntents = new Map<string, Obj>();
  const replies = new Map<string, { status: number; body: Obj }>();

  function route(method: string, path: string, params: URLSearchParams): { status: number; body: Obj } {
    const now = Math.floor(Date.now() / 1000);
    if (method === 'POST' && path === '/v1/customers') {
      return { status: 200, body: { id: id('cus'), object: 'customer', created: now, livemode: false, metadata: metadataOf(params, 'metadata') } };
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const mode = params.get('mode');
      const csId = id('cs');
      const cs: Obj = {
        id: csId, object: 'checkout.session', mode, status: 'open', payment_status: 'unpaid', livemode: false,
        url: `https://checkout.stripe.com/c/pay/${csId}`, client_reference_id: params.get('client_reference_id'),
        customer: params.get('customer'), currency: params.get('currency') ?? params.get('line_items[0][price_data][currency]'),
        amount_total: mode === 'payment' ? Number(params.get('line_items[0][price_data][unit_amount]')) : null,
        expires_at: Number(params.get('expires_at')), metadata: metadataOf(params, 'metadata'),
        success_url: params.get('success_url'), cancel_url: params.get('cancel_url'), payment_intent: null, setup_intent: null,
      };
      if (mode === 'setup') {
        const si: Obj = { id: id('seti'), object: 'setup_intent', status: 'requires_payment_method', usage: 'off_session', customer: cs.customer, metadata: metadataOf(params, 'setup_intent_data[metadata]'), payment_method: null };
        setupIntents.set(si.id as string, si);
        cs.setup_intent = si.id;
      } else {
        cs._pi_metadata = metadataOf(params, 'payment_intent_data[metadata]');
        cs._capture_method = params.get('payment_intent_data[capture_method]');
      }
      sessions.set(csId, cs);
      return { status: 200, body: cs };
    }
    let m = /^\/v1\/payment_intents\/([^/]+)(\/capture|\/cancel)?$/.exec(path);
    if (m) {
      const pi = intents.get(m[1]!);
      if (!pi) return { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such payment_intent: '${m[1]}'` } } };
      if (method === 'GET') return { status: 200, body: pi };
      if (m[2] === '/capture') {
        if (pi.status !== 'requires_capture') return invalidState(pi);
        Object.assign(pi, { status: 'succeeded', amount_received: pi.amount_capturable, amount_capturable: 0 });
        return { status: 200, body: pi };
      }
      if (m[2] === '/cancel') {
        if (pi.status === 'succeeded' || pi.status === 'canceled') return invalidState(pi);
        Object.assign(pi, { status: 'canceled', canceled_at: now, cancellation_reason: params.get('cancellation_reason'), amount_capturable: 0 });
        return { status: 200, body: pi };
      }
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      const pm = params.get('payment_method') ?? '';
      const pi: Obj = {
        id: id('pi'), object: 'payment_intent', amount: Number(params.get('amount')), currency: params.get('currency'), customer: params.get('customer'),
        capture_method: params.get('capture_method'), payment_method: pm, metadata: metadataOf(params, 'metadata'), livemode: false, created: now,
        status: 'requires_payment_method', amount_capturable: 0, amount_received: 0, latest_charge: null, cancellation_reason: null,
      };
      intents.set(pi.id as string, pi);
      // Stripe's test PaymentMethod that declines (https://docs.stripe.com/testing#declined-payments).
      if (pm === 'pm_card_chargeDeclined') return cardError('Your card was declined.', 'card_declined', 'generic_decline', pi);
      Object.assign(pi, { status: params.get('capture_method') === 'manual' ? 'requires_capture' : 'succeeded', amount_capturable: pi.amount });
      return { status: 200, body: pi };
    }
    m = /^\/v1\/setup_intents\/([^/]+)$/.exec(path);
    if (m && method === 'GET') {
      const si = setupIntents.get(m[1]!);
      return si ? { status: 200, body: si } : { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such setup_intent' } } };
    }
    return { status: 404, body: { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` } } };
  }

  async function read(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = await read(req);
      const params = new URLSearchParams(req.method === 'GET' ? url.search : body);
      const key = req.headers['idempotency-key'] as string | undefined;
      calls.push({ method: req.method ?? '', path: url.pathname, params, idempotencyKey: key });
      const cacheKey = key ? `${req.method} ${url.pathname} ${key}` : null;
      const reply = (cacheKey && replies.get(cacheKey)) || route(req.method ?? '', url.pathname, params);
      if (cacheKey) replies.set(cacheKey, reply);
      // Deep copy: a replayed answer is the first answer, not the object's later state.
      const out = JSON.parse(JSON.stringify(reply.body, (k, v: unknown) => (k.startsWith('_') ? undefined : v))) as Obj;
      res.writeHead(reply.status, { 'content-type': 'application/json', 'request-id': `req_${seq}` });
      res.end(JSON.stringify(out));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls, intents, sessions, setupIntents,
    completeCheckout(csId, card = { brand: 'visa', last4: '4242' }) {
      const cs = sessions.get(csId)!;
      const pi: Obj = {
        id: id('pi'), object: 'payment_intent', amount: cs.amount_total, amount_capturable: cs.amount_total, amount_received: 0,
        capture_method: cs._capture_method, currency: cs.currency, customer: cs.customer, status: 'requires_capture',
        metadata: cs._pi_metadata, livemode: false, cancellation_reason: null,
        latest_charge: { id: id('ch'), object: 'charge', captured: false, payment_method_details: { type: 'card', card: { ...card, exp_month: 12, exp_year: 2034, funding: 'credit' } } },
      };
      intents.set(pi.id as string, pi);
      Object.assign(cs, { status: 'complete', payment_status: 'unpaid', payment_intent: pi.id });
      return cs;
    },
    completeSetup(csId, pm) {
      const cs = sessions.get(csId)!;
      const si = setupIntents.get(cs.setup_intent as string)!;
      Object.assign(si, {
        status: 'succeeded',
        payment_method: { id: pm.id, object: 'payment_method', type: 'card', customer: cs.customer, card: { brand: pm.brand, last4: pm.last4, exp_month: 12, exp_year: 2034, funding: 'credit' } },
      });
      Object.assign(cs, { status: 'complete', payment_status: 'no_payment_required' });
      return cs;
    },
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); }),
  };
}
