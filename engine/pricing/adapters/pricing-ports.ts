/**
 * Builds every pricing port over one SnapshotDb (the composition root for engine/pricing; api/
 * and cli/ call this, handlers only see PricingPorts). Each area's adapter is added here by its
 * owner, marked below.
 */
import type { PricingPorts } from '../ports.ts';
import { DuckEvidenceStore } from './evidence.duckdb.ts';
import { createNetworkPort, warmDistributions, warmNetworkPort } from './network.duckdb.ts';
import { createProviderPort, memProviders } from './providers.duckdb.ts';
import { DuckReferenceStore } from './reference.duckdb.ts';
import type { SnapshotDb } from './snapshot.duckdb.ts';

export interface PricingPortsOptions {
  /** Brand alias file for provider search (default: the provider adapter's own default). */
  brandAliasesPath?: string;
  /** The network port's general-SQL paths (network.duckdb.ts NetworkPortOptions): tests compare answers. */
  plainSql?: boolean;
}

/** PricingPorts over `db`; async so adapters that warm a cache can do it here later. */
export async function createPricingPorts(db: SnapshotDb, opts: PricingPortsOptions = {}): Promise<PricingPorts> {
  // H6: reference data (Medicare fee schedule, catalog, payers) and provider evidence. Warmed in
  // the background (~0.5-2 s on these machines) so the first answer does not wait for it; a
  // failure is not cached and surfaces on first use.
  const reference = new DuckReferenceStore(db);
  const warmups: Promise<unknown>[] = [reference.warm().catch(() => undefined)];
  // H7: TiC network tables and the NPPES provider index. Also warmed in the background: the name
  // index (~5 s for 1M providers) and the in-memory group tables; requests arriving earlier wait
  // on the same builds.
  const network = createNetworkPort(db, { plainSql: opts.plainSql ?? false });
  const providers = createProviderPort(db, opts.brandAliasesPath ? { brandAliasesPath: opts.brandAliasesPath } : {});
  // Then the typical-rate samples of the busiest codes, one at a time (network.duckdb.ts).
  warmups.push(
    warmNetworkPort(db).then(() => warmDistributions(db)).catch(() => undefined),
    providers.nameIndex().catch(() => undefined),
    memProviders(db).catch(() => undefined),
  );
  return {
    snapshot: () => db.current(),
    reference,
    evidence: new DuckEvidenceStore(db),
    network,
    providers,
    warmed: Promise.all(warmups).then(() => undefined),
  };
}
