/** Types shared by plan resolution and the network-status handler. */
import type { z } from 'zod';
import type { NeedsMoreInfoSchema, PlanSchema } from './pricing.schema.ts';
import type { PlanRow } from './network-status.ports.ts';

/** One `needsMoreInfo[]` item (service-spec.md, Pricing). */
export type Ask = z.infer<typeof NeedsMoreInfoSchema>;

/** The response's `plan` block. */
export type PlanBlock = z.infer<typeof PlanSchema> & {
  matchTier: 'exact_plan' | 'employer' | 'plan_name' | 'group_number' | 'payer' | 'none';
  payerSource: 'planHints' | 'linked_coverage' | 'none' | string;
};

/** A registry payer as plan resolution needs it (from the payers registry, data/payers.json). */
export interface PayerInfo {
  key: string;
  label: string;
  reportingEntityNames: string[];
  /** Which identifiers reach the exact plan (employerName, planName, groupNumber). */
  exactPlanIdentifiers: string[];
  /** States whose state plans match by group number (empty for every other payer). */
  groupNumberStates: string[];
  coverage: string;
  blueCard: boolean;
}

export interface ResolvedPlan {
  block: PlanBlock;
  payer: PayerInfo | null;
  /** The plans the numbers rest on (one when exact; the payer's plans at payer level). */
  plans: PlanRow[];
  /** In-network files of those plans. */
  fileKeys: Set<string>;
  filesByPlan: Map<string, Set<string>>;
  /** True when the plans chosen publish one set of files: one rate is meaningful. */
  exact: boolean;
  /** Whether the snapshot holds in-network files for the chosen plans; null with no payer or for Original Medicare. */
  dataAvailable: boolean | null;
  asks: Ask[];
}
