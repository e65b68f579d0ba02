/**
 * Payments contracts (service-spec.md, Payments: "Shapes of GET, setup and DELETE on
 * /api/subscription: not shown", so they are designed here and documented in OpenAPI; activate's
 * `success`, `billingMode`, `paymentStatus` are the spec's). One zod schema per contract (STYLE.md 2).
 */
import { z } from 'zod';

export const NoInputSchema = z.strictObject({});

const SavedCardSchema = z.object({
  brand: z.string().describe('Card brand as Stripe names it: visa, mastercard, amex, discover, …'),
  last4: z.string().describe('Last four digits of the card number.'),
  expMonth: z.number().int(),
  expYear: z.number().int(),
});

/**
 * `CARD_ON_FILE`: a saved card exists, so POST /api/consultations/{id}/confirm can place a hold
 * without the hosted page. `NO_CARD`: each visit is approved on the hosted payment page.
 */
export const PaymentStatusSchema = z.enum(['CARD_ON_FILE', 'NO_CARD']);

export const SubscriptionSchema = z.object({
  billingMode: z.literal('pay_per_use'),
  paymentStatus: PaymentStatusSchema,
  processor: z.enum(['embedded', 'stripe']).describe('Which processor takes the payments (configuration).'),
  payPerUse: z.object({
    visitPriceCents: z.number().int().describe('Amount held for one provider visit, in cents.'),
    visitPrice: z.number().describe('The same in currency units (e.g. 49 for $49.00).'),
    currency: z.string().describe('ISO 4217, lower case (usd).'),
    holdLifeDays: z.number().int().describe('An uncaptured hold lapses after this many days.'),
    description: z.string(),
  }),
  savedCard: SavedCardSchema.nullable().describe('The card used by confirm, or null.'),
  agentInstructions: z.array(z.string()),
});

export const SetupSessionSchema = z.object({
  setupUrl: z.string().describe('Hosted card-setup page; open it in the patient’s browser. Saves a card, charges nothing.'),
  sessionId: z.string(),
  expiresAt: z.string().describe('ISO 8601; the link works until then (about 30 minutes).'),
  expiresInSeconds: z.number().int(),
  instructions: z.string().describe('Patient-facing wording to relay.'),
  agentInstructions: z.array(z.string()),
});

export const ActivateSchema = z.object({
  success: z.boolean(),
  billingMode: z.literal('pay_per_use'),
  paymentStatus: PaymentStatusSchema,
});

export const CancelSubscriptionSchema = z.object({
  success: z.boolean(),
  billingMode: z.literal('pay_per_use'),
  cancelled: z.boolean().describe('Always false: pay-per-use has no subscription to cancel.'),
  message: z.string(),
});
