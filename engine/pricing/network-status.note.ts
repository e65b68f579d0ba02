/**
 * A match's `networkStatus` and `note` (issue 37, items 6-7). inNetwork answers "is this provider
 * in the user's plan's network?": it is true only when the resolved plan's (or payer's) own files
 * list the provider. With no plan resolved, or with the payer's files not loaded, the answer is
 * unknown (null), never true because some other payer lists them, and never false as if the
 * provider had been looked for and not found.
 */
import type { NetworkStatusValue } from './pricing.schema.ts';
import type { ResolvedPlan } from './plan-resolution.types.ts';
import type { MedicareStatus } from './network-status.deps.ts';
import { isOriginalMedicare, ORIGINAL_MEDICARE } from './network-status.words.ts';
import { countOf } from './words.ts';

/** What inNetwork rests on for one provider. `listed`: an in-scope file lists the provider. */
export function networkStatusOf(plan: Pick<ResolvedPlan, 'payer' | 'dataAvailable'>, listed: boolean): NetworkStatusValue {
  if (isOriginalMedicare(plan.payer?.key)) return listed ? 'listed' : 'no_network';
  if (!plan.payer) return 'plan_unknown';
  if (plan.dataAvailable === false) return 'payer_data_not_loaded';
  return listed ? 'listed' : 'not_found';
}

export interface NoteFacts {
  plan: Pick<ResolvedPlan, 'payer' | 'exact' | 'fileKeys'>;
  status: MedicareStatus | null;
  /** In-scope files listing the provider (with no plan: every file in the snapshot that lists them). */
  files: number;
  /** Labels of the other payers whose files list the provider. */
  otherPayers: string[];
}

function payersListing(labels: string[]): string {
  if (!labels.length) return 'No payer’s files in this snapshot list this provider.';
  const shown = labels.slice(0, 5).join(', ');
  const whose = labels.length === 1 ? '1 payer’s files list' : `${labels.length} payers’ files list`;
  return `${whose} this provider (${shown}${labels.length > 5 ? ', …' : ''}), which says nothing about the user's own plan.`;
}

/** The match `note`, to relay as written. */
export function matchNote(ns: NetworkStatusValue, f: NoteFacts): string {
  const label = f.plan.payer?.label ?? '';
  switch (ns) {
    case 'no_network':
      return ORIGINAL_MEDICARE.note(f.status);
    case 'plan_unknown':
      return `No plan resolved, so whether this provider is in the user's network is unknown (inNetwork is null). ${payersListing(f.otherPayers)} Name the insurer (planHints.payerName) to check the user's plan.`;
    case 'payer_data_not_loaded':
      return `${label}'s published in-network files are not loaded in this snapshot, so whether this provider is in its network is unknown (inNetwork is null): this is not "not found". Confirm with the plan.${f.otherPayers.length ? ` ${payersListing(f.otherPayers)}` : ''}`;
    case 'listed':
      return f.plan.exact
        ? `Listed in ${countOf(f.files, 'in-network file')} ${label} publishes for this plan: in network for this plan per the insurer's own files.`
        : `Listed in ${f.files} of ${label}'s ${countOf(f.plan.fileKeys.size, 'published in-network file')}: in network for at least one of its plans per the insurer's own files.`;
    case 'not_found':
      return `Not found in ${label}'s published in-network files${f.plan.exact ? ' for this plan' : ''}. That is not a verdict that the provider is out of network: call the insurer to confirm.${f.otherPayers.length ? ' Other payers’ files do list this provider.' : ''}`;
  }
}
