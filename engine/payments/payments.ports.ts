/**
 * The payments area's ports on the handler context (engine/core/context.ts: areas add theirs by
 * declaration merging). Built at composition (api/payments/payments.wiring.ts) from configuration.
 */
import { AppError } from '../core/errors.ts';
import type { HandlerContext } from '../core/context.ts';
import type { PaymentProcessor, PurposeRegistry } from './payment-processor.ts';

export interface PaymentsPorts {
  processor: PaymentProcessor;
  /** Where areas register their purpose handlers (onAuthorized, onLapsed). */
  purposes: PurposeRegistry;
  /** Pay-per-use prices (VISIT_PRICE_CENTS), in the currency's minor unit. */
  prices: { visitCents: number; currency: string };
}

declare module '../core/context.ts' {
  interface Ports {
    payments?: PaymentsPorts;
  }
}

/** The payments ports, or 503 on a process that does not serve payments (the pricing-only host). */
export function requirePayments(ctx: HandlerContext): PaymentsPorts {
  const p = ctx.ports.payments;
  if (!p) throw new AppError('upstream_unavailable', 'Payments are not available on this host.');
  return p;
}
