/**
 * Stripe's webhook (`POST /webhooks/stripe`) and the page Checkout returns to. The signature is
 * checked on the RAW body (https://docs.stripe.com/webhooks#verify-official-libraries): the route
 * lives in its own scope whose only content-type parser keeps the bytes, so the app's JSON parser
 * never touches them. A bad signature is 400; a failure while applying is 500 so Stripe redelivers.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { StripeProcessor } from '../../engine/payments/adapters/stripe-processor.ts';
import { renderPage, sendPage } from '../web/render.ts';

/** Stripe's event payloads are a few KB; this is far above them. */
const WEBHOOK_LIMIT = 512 * 1024;

export async function registerStripeWebhookRoute(app: FastifyInstance, stripe: StripeProcessor, secret: string, log: Logger): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_LIMIT }, (_req, body, done) => done(null, body));
    scope.post('/webhooks/stripe', async (req, reply) => {
      const signature = req.headers['stripe-signature'];
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      let event;
      try {
        if (typeof signature !== 'string') throw new Error('no Stripe-Signature header');
        event = stripe.verifyEvent(raw, signature, secret);
      } catch {
        return reply.code(400).send({ error: 'invalid_request', reason: 'The Stripe signature does not verify.', needsAuth: false, code: 'bad_signature' });
      }
      try {
        await stripe.handleEvent(event);
      } catch (e) {
        log.error({ err: e, eventId: event.id, type: event.type }, 'stripe webhook failed; Stripe will redeliver');
        return reply.code(500).send({ error: 'internal_error', reason: 'Could not apply the event; it will be redelivered.', needsAuth: false });
      }
      return reply.code(200).send({ received: true });
    });
  });
  // Where Checkout sends the person back. The webhook, not this page, records the outcome.
  app.get<{ Querystring: { cancelled?: string } }>('/pay/return', async (req, reply) => {
    const cancelled = req.query.cancelled === '1';
    return sendPage(reply, 200, renderPage('payments/message', cancelled
      ? { title: 'Payment not completed', message: 'Nothing was charged. You can return to your conversation and ask for a new link.' }
      : { title: 'Thank you', message: 'Your approval is being confirmed. You can close this page and return to your conversation.' }));
  });
}
