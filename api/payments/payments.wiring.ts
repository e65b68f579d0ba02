/**
 * Composition of the payments area (issue 35): the processor chosen by PAYMENT_PROCESSOR, the
 * purpose registry areas add their handlers to, and the hosted page or the Stripe webhook.
 * Called by buildApp (api/app.ts); the lapse worker is registered from engine/workers.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../../engine/core/config.ts';
import type { Ports } from '../../engine/core/context.ts';
import { PurposeRegistry } from '../../engine/payments/payment-processor.ts';
import type { PaymentsPorts } from '../../engine/payments/payments.ports.ts';
import { createEmbeddedProcessor } from '../../engine/payments/adapters/embedded-processor.ts';
import { createStripeProcessor } from '../../engine/payments/adapters/stripe-processor.ts';
import { registerHostedPageRoutes } from './hosted-page.routes.ts';
import { registerStripeWebhookRoute } from './stripe-webhook.routes.ts';

export interface PaymentsWiring {
  ports: PaymentsPorts;
  /** Registers the hosted page (embedded) or the webhook (Stripe). The lapse worker is in engine/workers.ts. */
  registerRoutes(app: FastifyInstance): Promise<void>;
}

export function buildPayments(config: Config, ports: Ports, log: Logger): PaymentsWiring {
  const purposes = new PurposeRegistry();
  const base = { db: ports.db, clock: ports.clock, jobs: ports.jobs, purposes };
  const prices = { visitCents: config.payments.visitPriceCents, currency: config.payments.currency };
  if (config.payments.processor === 'stripe') {
    const stripe = createStripeProcessor({ ...base, baseUrl: config.baseUrl, secretKey: config.payments.stripeSecretKey!, apiBase: config.payments.stripeApiBase });
    return {
      ports: { processor: stripe, purposes, prices },
      registerRoutes: (app) => registerStripeWebhookRoute(app, stripe, config.payments.stripeWebhookSecret!, log),
    };
  }
  const embedded = createEmbeddedProcessor({ ...base, baseUrl: config.baseUrl });
  return {
    ports: { processor: embedded, purposes, prices },
    registerRoutes: (app) => registerHostedPageRoutes(app, embedded, log),
  };
}
