/**
 * Every operation the service offers, in one list: REST routes, MCP tools, OpenAPI, the server card
 * and the agent docs are all generated from it (issue 2, item 5). Each area exports its own array.
 */
import type { AnyOperation } from './core/operation.ts';
import { accountOperations } from './account/account.operations.ts';
import { profileOperations } from './profile/profile.operations.ts';
import { pricingOperations } from './pricing/pricing.operations.ts';
import { consultationOperations } from './consultations/consultations.operations.ts';
import { paymentsOperations } from './payments/payments.operations.ts';
import { recordsOperations } from './records/records.operations.ts';
import { visitPaymentOperations } from './visits/visit-payment.operations.ts';
import { providerOperations } from './visits/provider.operations.ts';
import { prescribeOperations } from './prescriptions/prescribe.operation.ts';
import { prescriptionsOperations } from './prescriptions/prescriptions.operations.ts';
import { mediaOperations } from './media/media.operations.ts';
import { webhookOperations } from './webhooks/webhook.operations.ts';
import { careJobOperations } from './carejobs/care-jobs.operations.ts';
import { careTeamOperations } from './carejobs/care-team.operations.ts';

/** All operations; names are unique (checked here so a clash fails at start-up, not at call time). */
export function allOperations(): AnyOperation[] {
  const ops = [...accountOperations, ...profileOperations, ...pricingOperations, ...consultationOperations, ...paymentsOperations, ...recordsOperations,
    ...visitPaymentOperations, ...providerOperations, ...mediaOperations, ...webhookOperations, ...careJobOperations, ...careTeamOperations];
  ops.push(...prescribeOperations, ...prescriptionsOperations);
  const seen = new Set<string>();
  for (const op of ops) {
    if (seen.has(op.name)) throw new Error(`duplicate operation name ${op.name}`);
    seen.add(op.name);
  }
  return ops;
}
