/**
 * Ports network-status reads through (STYLE.md 3): the TiC network tables (plans, files, groups,
 * rates) and the NPPES provider tables. DuckDB adapters: adapters/network.duckdb.ts and
 * adapters/providers.duckdb.ts. Column names follow schemas/pricing-tables.ts.
 */
import type { NameIndex } from './provider-search.index.ts';

/** plans (schemas/pricing-tables.ts PLANS). */
export interface PlanRow {
  plan_key: string;
  reporting_entity_name: string | null;
  reporting_entity_type: string | null;
  plan_name: string | null;
  plan_id_type: string | null;
  plan_id: string | null;
  plan_market_type: string | null;
  plan_sponsor_name: string | null;
  issuer_name: string | null;
  payer_key: string | null;
}

/** Coverage linked to a patient (insurance connection); none is stored yet, so adapters return null. */
export interface LinkedCoverage {
  payerName: string | null;
  employerName: string | null;
  planName: string | null;
  groupNumber: string | null;
  /** Exact plan when the connection names it. */
  planKey: string | null;
  /** Where it came from, in words ("insurance card imported 2026-03-01"). */
  source: string;
}

/**
 * Where linked coverage comes from (issue 36, item 3): the health-records import's stored
 * Coverage. Declared here, implemented outside pricing and wired by the composition root
 * (api/app.ts), so pricing never imports the records area.
 */
export interface LinkedCoveragePort {
  /** Null when the patient (the account holder when patientId is null) has no usable linked coverage. */
  linkedCoverage(userId: string, patientId: string | null): Promise<LinkedCoverage | null>;
}

/** provider_groups, the TIN a group bills under. */
export interface GroupRow {
  group_key: string;
  tin_type: string | null;
  tin_value: string | null;
  business_name: string | null;
  network_names: string[] | null;
}

/** The rates columns network-status reads. */
export interface RateRow {
  billing_code_type: string;
  billing_code: string;
  negotiated_type: string;
  negotiated_rate: number;
  negotiation_arrangement: string;
  billing_class: string;
  setting: string | null;
  service_code: string[] | null;
  billing_code_modifier: string[] | null;
  expiration_date: string | null;
  group_key: string;
  file_keys: string[];
}

/** Which plans (and payers) publish a file; plan_key is null for a file no table of contents maps to a plan. */
export interface FilePlanRow {
  file_key: string;
  plan_key: string | null;
  payer_key: string | null;
  reporting_entity_name: string | null;
}

/** A code as the rates table stores it: the type(s) to look under and the normalised code. */
export interface CodeRef {
  types: string[];
  code: string;
}

/** Summary of a rate distribution (dollars). */
export interface RateDistribution {
  n: number;
  p25: number | null;
  p50: number | null;
  p75: number | null;
  /** What the distribution covers, in words ("same payer, providers in CA"). */
  scope: string;
}

export interface NetworkPort {
  /** Coverage linked to the caller's patient; null when none (no coverage store exists yet). */
  linkedCoverage(userId: string, patientId: string | null): Promise<LinkedCoverage | null>;
  /** Plans whose payer_key is `payerKey` or whose reporting entity is one of `reportingEntityNames` (case-insensitive). */
  plansForPayer(payerKey: string, reportingEntityNames: readonly string[]): Promise<PlanRow[]>;
  /** Every plan (small table: one row per plan in the tables of contents). */
  allPlans(): Promise<PlanRow[]>;
  /** In-network files published by these reporting entities (case-insensitive), with or without a plan mapping. */
  entityFiles(reportingEntityNames: readonly string[]): Promise<string[]>;
  /** In-network files of these plans. */
  planFiles(planKeys: readonly string[]): Promise<{ plan_key: string; file_key: string }[]>;
  /** Groups listing these NPIs (group_members, pruned by npi_bucket). */
  groupsForNpis(npis: readonly number[]): Promise<{ npi: number; group_key: string }[]>;
  /** Groups whose TIN is one of these values (TIN-only groups, NPI-type TINs). */
  groupsForTins(tins: readonly string[]): Promise<GroupRow[]>;
  groups(groupKeys: readonly string[]): Promise<GroupRow[]>;
  groupFiles(groupKeys: readonly string[]): Promise<{ group_key: string; file_key: string }[]>;
  filePlans(fileKeys: readonly string[]): Promise<FilePlanRow[]>;
  /** Rates for one code and these groups (partition-pruned: type, prefix, code). */
  rates(code: CodeRef, groupKeys: readonly string[]): Promise<RateRow[]>;
  /** Whether any rate row exists for the code at all (any payer). */
  codeHasRates(code: CodeRef): Promise<boolean>;
  /** The code's rate distribution in these files, restricted to providers in `state` when given. */
  localDistribution(code: CodeRef, fileKeys: readonly string[], state: string | null): Promise<RateDistribution>;
  /** Whether a snapshot table holds any row (manifest), to explain absent data. */
  hasRows(table: string): boolean;
}

/** providers (schemas/pricing-tables.ts PROVIDERS), the columns network-status reads. */
export interface ProviderRow {
  npi: number;
  entity_type: number;
  /**
   * Display name. The providers table may hold NULL (NPPES blanks the whole row of a deactivated
   * NPI; schemas/pricing-tables.ts makes name optional): adapters fill it with `fallbackProviderName`.
   */
  name: string;
  org_name: string | null;
  other_names: string[] | null;
  address: string | null;
  city: string | null;
  state: string | null;
  zip5: string | null;
  mailing_state: string | null;
  latitude: number | null;
  longitude: number | null;
  taxonomy: string | null;
  taxonomy_description: string | null;
  subpart: boolean | null;
  parent_org_name: string | null;
  parent_org_tin: string | null;
  deactivation_date: string | null;
  reactivation_date: string | null;
}

/** A consumer brand and the legal/DBA names or NPIs it stands for (data/brand-aliases.json). */
export interface BrandAlias {
  brand: string;
  aliases: string[];
  names: string[];
  npis: number[];
}

/** An organization an individual reassigns Medicare benefits to (PECOS): who they work for / bill through. */
export interface Affiliation {
  npi: number;
  orgNpi: number | null;
  orgName: string;
}

export interface ProviderPort {
  byNpis(npis: readonly number[]): Promise<ProviderRow[]>;
  /** The snapshot's name index, built once per snapshot. */
  nameIndex(): Promise<NameIndex>;
  zipCentroid(zip5: string): Promise<{ latitude: number; longitude: number; state: string | null } | null>;
  /** State of the ZIP centroid nearest to a point (for `location.state` from latitude/longitude). */
  nearestState(latitude: number, longitude: number): Promise<string | null>;
  brandAliases(): Promise<BrandAlias[]>;
  affiliations(npis: readonly number[]): Promise<Affiliation[]>;
}

/**
 * The display name for a registry row whose name is NULL: NPPES blanks every field of a
 * deactivated NPI (NPPES Data Dissemination, deactivated NPI file), so only the NPI is left.
 */
export function fallbackProviderName(row: { npi: number; org_name?: string | null; deactivation_date?: string | null }): string {
  if (row.org_name) return row.org_name;
  return `NPI ${row.npi} (${row.deactivation_date ? 'deactivated; ' : ''}no name in NPPES)`;
}

/** A provider row as read from the table (name possibly NULL) with its display name filled in. */
export function withDisplayName<T extends { npi: number; name: string | null; org_name?: string | null; deactivation_date?: string | null }>(row: T): T & { name: string } {
  return row.name ? (row as T & { name: string }) : { ...row, name: fallbackProviderName(row) };
}
