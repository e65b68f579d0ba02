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
import { copyPartitionBatch, copySelectToTable } from './table-writer.ts';
import { rmSync } from 'node:fs';
import { tableDir } from '../../schemas/snapshot-layout.ts';

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

  counts.rates = await writeRates(con, filesDir, snapshot);

  // Groups: one staged row per group is chosen by a NARROW aggregate (file name + row number), and
  // the wide row (every NPI as text: 230 MB on a 1 GB file) is joined back, never held in an
  // aggregate state (an any_value(npis) GROUP BY ran out of a 400 MB limit, measured).
  const groupsScan = `read_parquet(${lit(join(filesDir, '*', 'groups.parquet'))}, union_by_name = true, filename = true, file_row_number = true)`;
  await con.run(`CREATE OR REPLACE TEMP TABLE __gpick AS SELECT group_key, min(filename || '#' || lpad(file_row_number::VARCHAR, 12, '0')) AS pick,
      coalesce(list_sort(list_distinct(flatten(list(${strList('network_names')}) FILTER (WHERE network_names <> '')))), []::VARCHAR[]) AS network_names
    FROM ${groupsScan} GROUP BY group_key`);
  await con.run(`CREATE OR REPLACE TEMP TABLE __gsel AS SELECT g.group_key, g.tin_type, g.tin_value, g.npis, g.business_name, k.network_names
    FROM ${groupsScan} g JOIN __gpick k ON k.pick = g.filename || '#' || lpad(g.file_row_number::VARCHAR, 12, '0')`);
  try {
    counts.provider_groups = await copySelectToTable(con, PROVIDER_GROUPS, `
      SELECT group_key, tin_type, tin_value, ${npiList('npis')} AS npis, network_names, business_name FROM __gsel ORDER BY group_key`, snapshot);
    counts.group_members = await copySelectToTable(con, GROUP_MEMBERS, `
      SELECT npi, group_key, (npi % 64)::SMALLINT AS npi_bucket FROM (
        SELECT group_key, unnest(string_split(npis, ','))::BIGINT AS npi FROM __gsel WHERE npis <> '')`, snapshot);
  } finally {
    await con.run('DROP TABLE IF EXISTS __gpick');
    await con.run('DROP TABLE IF EXISTS __gsel');
  }

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

/** Staged prices per rates batch: bounds the rows (x groups) one batch de-duplicates and sorts. */
const PRICES_PER_BATCH = 100_000;
const PARTITIONS_PER_BATCH = 128;

/**
 * rates, written batch by batch of (billing_code_type, code_prefix) partitions. Identical rows
 * share their billing code, hence their partition, hence their batch: de-duplicating inside a
 * batch is de-duplicating globally, and each batch (about PRICES_PER_BATCH prices times their
 * provider groups) fits DuckDB's memory limit, where one GROUP BY over a whole 1 GB file's
 * 50 million exploded rows ran out of memory (measured; list() aggregate states do not spill).
 * Inside a batch, price rows are identified by their content hash `h` (priceHashSql), so the
 * de-duplication groups the narrow (h, group_key) pair and the wide columns join back once.
 */
async function writeRates(con: DuckDBConnection, filesDir: string, snapshot: string): Promise<number> {
  rmSync(tableDir(snapshot, RATES), { recursive: true, force: true });
  const parts = (await con.runAndReadAll(`SELECT billing_code_type, left(billing_code, 3) AS code_prefix, count(*) AS n
    FROM ${stagedScan(filesDir, 'prices')} GROUP BY ALL ORDER BY ALL`)).getRows();
  const batchOf: { t: string; p: string; b: number }[] = [];
  let b = 0;
  let inBatch = 0;
  let pricesInBatch = 0;
  for (const [t, p, n] of parts) {
    if (inBatch > 0 && (inBatch >= PARTITIONS_PER_BATCH || pricesInBatch + Number(n) > PRICES_PER_BATCH)) { b++; inBatch = 0; pricesInBatch = 0; }
    batchOf.push({ t: String(t), p: String(p), b });
    inBatch++;
    pricesInBatch += Number(n);
  }
  if (batchOf.length === 0) return 0;
  await con.run('CREATE OR REPLACE TEMP TABLE __parts (billing_code_type VARCHAR, code_prefix VARCHAR, __b INTEGER)');
  for (let i = 0; i < batchOf.length; i += 500) {
    await con.run(`INSERT INTO __parts VALUES ${batchOf.slice(i, i + 500).map((x) => `(${lit(x.t)}, ${lit(x.p)}, ${x.b})`).join(', ')}`);
  }
  // Stored in batch order: each batch's `WHERE __b = i` then reads only its own row groups (zone
  // maps) instead of scanning every price once per batch (50 full scans on a 1 GB file).
  await con.run(`CREATE OR REPLACE TEMP TABLE __p AS SELECT p.*, b.__b FROM ${stagedScan(filesDir, 'prices')} p
    JOIN __parts b ON b.billing_code_type = p.billing_code_type AND b.code_prefix = left(p.billing_code, 3) ORDER BY b.__b`);
  await con.run(`CREATE OR REPLACE TEMP TABLE __g AS SELECT * FROM ${stagedScan(filesDir, 'rate_groups')}`);
  let rows = 0;
  try {
    for (let i = 0; i <= b; i++) {
      rows += await copyPartitionBatch(con, RATES, `
        SELECT billing_code_type, left(billing_code, 3) AS code_prefix, billing_code, billing_code_type_version, name,
          negotiation_arrangement, negotiated_type, negotiated_rate, TRY_CAST(expiration_date AS DATE) AS expiration_date,
          ${strList('service_code')} AS service_code, billing_class, setting,
          ${strList('billing_code_modifier')} AS billing_code_modifier, additional_information, k.group_key, k.file_keys
        FROM (SELECT p.h, g.group_key, list_sort(list(DISTINCT p.file_key)) AS file_keys
              FROM __p p JOIN __g g ON g.file_key = p.file_key AND g.rate_seq = p.rate_seq
              WHERE p.__b = ${i} GROUP BY p.h, g.group_key) k
        JOIN (SELECT DISTINCT ON (h) * EXCLUDE (file_key, rate_seq, __b) FROM __p WHERE __b = ${i}) p USING (h)`, snapshot, i);
    }
  } catch (err) {
    throw new Error(`writing table rates: ${(err as Error).message}`, { cause: err });
  } finally {
    for (const t of ['__parts', '__p', '__g']) await con.run(`DROP TABLE IF EXISTS ${t}`);
  }
  return rows;
}
