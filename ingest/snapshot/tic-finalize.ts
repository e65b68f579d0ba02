/**
 * Assembles the TiC tables of a snapshot from the staged files of one ingest (or several shard
 * snapshots, see merge.ts): the per-file, unexploded staging is joined and de-duplicated in
 * DuckDB and written as Parquet per schemas/pricing-tables.ts.
 *
 * - rates: one row per (item, price, provider group); identical rows from several files or plans
 *   are GROUP BY'd into one row whose file_keys lists every file (issue 3, item 4).
 * - provider_groups: once per group_key across all files, network names unioned.
 * - group_members: the NPI -> group_key inverted index, derived from provider_groups.
 */
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  ALLOWED_AMOUNTS, BUNDLES, GROUP_FILES, GROUP_MEMBERS, PLANS, PLAN_FILES, PROVIDER_GROUPS, RATES,
} from '../../schemas/pricing-tables.ts';
import { lit } from './duck.ts';
import { SEP } from './staged-layout.ts';
import { copySelectToTable } from './table-writer.ts';

/** A staged list (joined with SEP) back to VARCHAR[]: NULL stays NULL, '' is the empty list. */
const strList = (col: string): string =>
  `CASE WHEN ${col} IS NULL THEN NULL WHEN ${col} = '' THEN []::VARCHAR[] ELSE string_split(${col}, chr(31)) END`;
/** Staged NPIs ('1,2,3') back to BIGINT[]. */
const npiList = (col: string): string =>
  `CASE WHEN ${col} IS NULL OR ${col} = '' THEN []::BIGINT[] ELSE list_transform(string_split(${col}, ','), x -> x::BIGINT) END`;

/** read_parquet over one staged table of every finished file below `filesDir`. */
export function stagedScan(filesDir: string, name: string): string {
  return `read_parquet(${lit(join(filesDir, '*', `${name}.parquet`))}, union_by_name = true)`;
}

/** Row counts of the TiC tables written. */
export type TableCounts = Record<string, number>;

/** Builds every TiC table of `snapshot` from the staged files under `filesDir`. */
export async function finalizeTic(con: DuckDBConnection, filesDir: string, snapshot: string, timings: Record<string, number> = {}): Promise<TableCounts> {
  const scan = (name: string): string => stagedScan(filesDir, name);
  const raw: TableCounts = {};
  let last = performance.now();
  // Records each table's seconds (report.totals / bench) as it is assigned.
  const counts = new Proxy(raw, {
    set(target, key: string, value: number) {
      const now = performance.now();
      timings[key] = (now - last) / 1000;
      last = now;
      target[key] = value;
      return true;
    },
  });
  if (SEP !== '\u001f') throw new Error('staged list separator changed: update strList');

  // De-duplication in two narrow steps (issue 3, item 4: identical rows stored once): price rows
  // are identified by their content hash `h` (staged-layout.ts priceHashSql), the explosion by
  // provider group is de-duplicated on (h, group_key) only, and the wide columns are joined back
  // once per distinct price. Grouping fourteen wide columns of the exploded rows instead was the
  // bottleneck (and spilled) on a 50 MB file.
  await con.run(`CREATE OR REPLACE TEMP TABLE __rk AS
    SELECT p.h, g.group_key, list_sort(list(DISTINCT p.file_key)) AS file_keys
    FROM ${scan('prices')} p JOIN ${scan('rate_groups')} g ON g.file_key = p.file_key AND g.rate_seq = p.rate_seq
    GROUP BY p.h, g.group_key`);
  await con.run(`CREATE OR REPLACE TEMP TABLE __rp AS SELECT DISTINCT ON (h) * EXCLUDE (file_key, rate_seq) FROM ${scan('prices')}`);
  try {
    counts.rates = await copySelectToTable(con, RATES, `
      SELECT billing_code_type, left(billing_code, 3) AS code_prefix, billing_code, billing_code_type_version, name,
        negotiation_arrangement, negotiated_type, negotiated_rate, TRY_CAST(expiration_date AS DATE) AS expiration_date,
        ${strList('service_code')} AS service_code, billing_class, setting,
        ${strList('billing_code_modifier')} AS billing_code_modifier, additional_information, k.group_key, k.file_keys
      FROM __rk k JOIN __rp p USING (h)`, snapshot);
  } finally {
    await con.run('DROP TABLE IF EXISTS __rk');
    await con.run('DROP TABLE IF EXISTS __rp');
  }

  counts.provider_groups = await copySelectToTable(con, PROVIDER_GROUPS, `
    SELECT group_key, any_value(tin_type) AS tin_type, any_value(tin_value) AS tin_value,
      ${npiList('any_value(npis)')} AS npis,
      coalesce(list_sort(list_distinct(flatten(list(${strList('network_names')}) FILTER (WHERE network_names <> '')))), []::VARCHAR[]) AS network_names,
      any_value(business_name) AS business_name
    FROM ${scan('groups')} GROUP BY group_key ORDER BY group_key`, snapshot);

  counts.group_members = await copySelectToTable(con, GROUP_MEMBERS, `
    SELECT npi, group_key, (npi % 64)::SMALLINT AS npi_bucket FROM (
      SELECT DISTINCT group_key, unnest(string_split(any_npis, ','))::BIGINT AS npi FROM (
        SELECT group_key, any_value(npis) AS any_npis FROM ${scan('groups')} WHERE npis <> '' GROUP BY group_key))`, snapshot);

  counts.group_files = await copySelectToTable(con, GROUP_FILES, `SELECT DISTINCT group_key, file_key FROM ${scan('rate_groups')}`, snapshot);

  counts.bundles = await copySelectToTable(con, BUNDLES, `SELECT DISTINCT * FROM ${scan('bundles')}`, snapshot);

  counts.allowed_amounts = await copySelectToTable(con, ALLOWED_AMOUNTS, `
    SELECT file_key, billing_code_type, billing_code, name, tin_type, tin_value, ${strList('service_code')} AS service_code,
      billing_class, setting, allowed_amount, ${strList('billing_code_modifier')} AS billing_code_modifier,
      ${npiList('npis')} AS npis, billed_charge
    FROM ${scan('allowed_amounts')}`, snapshot);

  counts.plans = await copySelectToTable(con, PLANS, `
    SELECT DISTINCT ON (plan_key) *, NULL::VARCHAR AS payer_key FROM ${scan('plans')} ORDER BY plan_key`, snapshot);

  counts.plan_files = await copySelectToTable(con, PLAN_FILES, `
    SELECT plan_key, file_key, file_type, any_value(description) AS description FROM ${scan('plan_files')}
    GROUP BY ALL ORDER BY plan_key, file_key`, snapshot);
  return raw;
}
