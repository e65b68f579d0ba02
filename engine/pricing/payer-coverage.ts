/**
 * What the current snapshot holds of one payer (issue 37, item 7): its plans, its in-network files
 * (through its plans, or published under its reporting entity names without a plan mapping) and
 * the newest `last_updated_on` among them. "No files loaded" is told apart from "not found in its
 * files" with this: a provider cannot be found in files the snapshot does not hold.
 */
import type { NetworkPort } from './network-status.ports.ts';

export interface PayerCoverage {
  /** The snapshot holds at least one in-network file of the payer. */
  dataAvailable: boolean;
  files: number;
  plans: number;
  /** Newest TiC last_updated_on of those files (YYYY-MM-DD), or null. */
  lastUpdatedOn: string | null;
}

/** Coverage of one payer in the current snapshot (the port caches each query per snapshot). */
export async function payerCoverage(network: NetworkPort, payer: { key: string; reportingEntityNames: readonly string[] }): Promise<PayerCoverage> {
  const plans = await network.plansForPayer(payer.key, payer.reportingEntityNames);
  const [planFiles, entityFiles] = await Promise.all([
    network.planFiles(plans.map((p) => p.plan_key)),
    network.entityFiles(payer.reportingEntityNames),
  ]);
  const files = new Set([...planFiles.map((r) => r.file_key), ...entityFiles]);
  const lastUpdatedOn = await network.newestFileDate([...files]);
  return { dataAvailable: files.size > 0, files: files.size, plans: plans.length, lastUpdatedOn };
}
