/**
 * Port for the reference data the engine keeps in memory per snapshot: the Medicare fee schedule
 * tables, the service catalog and the payers registry. Adapter: adapters/reference.duckdb.ts
 * (loads each once per snapshot id and caches it).
 */
import type { ServiceCatalog } from './catalog.ts';
import type { MedicareTables } from './medicare-tables.ts';
import type { PayerRegistry } from './payers.ts';

export interface ReferenceStore {
  medicare(): Promise<MedicareTables>;
  catalog(): Promise<ServiceCatalog>;
  payers(): Promise<PayerRegistry>;
}
