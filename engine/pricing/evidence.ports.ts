/**
 * Port for the public-data evidence tables (STYLE.md 3): providers (identity), LEIE, Medicare
 * opt-out, PECOS enrollment, and the Medicare Physician & Other Practitioners by Provider and
 * Service file. Adapter: adapters/evidence.duckdb.ts. Column names follow schemas/pricing-tables.ts.
 */

/** The providers columns evidence reads. */
export interface EvidenceProviderRow {
  npi: number;
  entity_type: number;
  name: string;
  city: string | null;
  state: string | null;
  zip5: string | null;
  taxonomy: string | null;
  taxonomy_description: string | null;
  deactivation_date: string | null;
}

/** leie rows (OIG exclusion list). */
export interface ExclusionRow {
  npi: number | null;
  last_name: string | null;
  first_name: string | null;
  business_name: string | null;
  general: string | null;
  specialty: string | null;
  excl_type: string | null;
  excl_date: string | null;
  rein_date: string | null;
  waiver_date: string | null;
  waiver_state: string | null;
  state: string | null;
}

/** medicare_optout rows. */
export interface OptOutRow {
  npi: number;
  optout_effective_date: string | null;
  optout_end_date: string | null;
  specialty: string | null;
}

/** pecos_enrollment rows. */
export interface EnrollmentRow {
  npi: number;
  enrlmt_id: string | null;
  provider_type_desc: string | null;
  state: string | null;
}

/** One puf_provider_service row for the provider and code, with the peer comparison computed in the query. */
export interface VolumeRow {
  year: number;
  hcpcs: string;
  place_of_service: string | null;
  provider_type: string | null;
  state: string | null;
  tot_benes: number | null;
  tot_srvcs: number | null;
  avg_allowed_amount: number | null;
  /** Percentile (0-100) of this provider's tot_srvcs among providers of the same type and state billing the code that year (same place of service). */
  peer_pctl: number | null;
  /** How many peers (including this provider) the percentile is over. */
  peer_count: number;
}

export interface EvidenceStore {
  provider(npi: number): Promise<EvidenceProviderRow | null>;
  /** LEIE rows matching the NPI (the list's NPI column; many old rows have none). */
  exclusions(npi: number): Promise<ExclusionRow[]>;
  optOuts(npis: readonly number[]): Promise<OptOutRow[]>;
  enrollments(npis: readonly number[]): Promise<EnrollmentRow[]>;
  /** PUF rows for the NPI and code, newest year first, with peer percentiles. */
  volume(npi: number, code: string): Promise<VolumeRow[]>;
  /** Codes the provider billed to Medicare, most services first (options for a `code` ask). */
  billedCodes(npi: number, limit: number): Promise<string[]>;
  /** Whether the snapshot holds any row of `table` (to tell "no data loaded" from "no match"). */
  hasRows(table: string): boolean;
}
