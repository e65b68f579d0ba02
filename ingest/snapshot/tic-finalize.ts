/**
 * Assembles the TiC tables of a snapshot from the staged files of one ingest (or several shard
 * snapshots, see merge.ts): the per-file, unexploded staging is joined and de-duplicated in
 * DuckDB and written as Parquet per schemas/pricing-tables.ts.
 *
 * - rates: one row per (item, price, provider-group set); identical rows from several files or
 *   plans are GROUP BY'd into one row whose file_keys lists every file (issue 3, item 4).
 * - group_sets: the members of every set, once per set key across all files.
 * - provider_groups: once per group_key across all files, network names unioned.
 * - group_members: the NPI -> group_key inverted index, derived from provider_groups.
 */
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  ALLOWED_AMOUNTS, BUNDLES, CODE_PREFIX_LENGTH, GROUP_FILES, GROUP_MEMBERS, GROUP_SETS, PLANS, PLAN_FILES, PROVIDER_GROUPS, RATES,
} from '../../schemas/pricing-tables.ts';
import { lit } from './duck.ts';
import { ATTR_COLUMNS, ITEM_COLUMNS, SEP, contentHashSql, type DoneMarker } from './staged-layout.ts';
import { copyPartitionBatch, copySelectToTable } from './table-writer.ts';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tableDir } from '../../schemas/snapshot-layout.ts';

/** A staged list (joined with SEP) back to VARCHAR[]: NULL stays NULL, '' is the empty list. */
const strList = (col: string): string =>
  `CASE WHEN ${col} IS NULL THEN NULL WHEN ${col} = '' THEN []::VARCHAR[] ELSE string_split(${col}, chr(31)) END`;
/** Staged NPIs ('1,2,3': allowed amounts) back to BIGINT[]. */
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

  // Groups: one staged instance (file, gid) per group_key is chosen by a NARROW aggregate, and the
  // wide row (its NPI list: 20 million NPIs on a 1 GB file) is joined back, never held in an
  // aggregate state (an any_value(npis) GROUP BY ran out of a 400 MB limit, measured).
  const run = (what: string, sql: string): Promise<unknown> =>
    con.run(sql).catch((err: unknown) => { throw new Error(`${what}: ${(err as Error).message}`, { cause: err }); });
  try {
    // g2 numbers the groups in group_key order here, on the narrow rows: a window over the wide ones
    // (NPI lists) ran out of 300 MB on 39 M NPIs (measured); the join back then streams.
    await run('choosing one row per provider group', `CREATE OR REPLACE TABLE __gpick AS SELECT (row_number() OVER (ORDER BY group_key))::INTEGER AS g2, * FROM (
        SELECT group_key, min(file_key || '#' || lpad(gid::VARCHAR, 10, '0')) AS pick,
          coalesce(list_sort(list_distinct(flatten(list(${strList('network_names')}) FILTER (WHERE network_names <> '')))), []::VARCHAR[]) AS network_names
        FROM ${scan('groups')} GROUP BY group_key)`);
    await run('joining provider groups back', `CREATE OR REPLACE TABLE __gsel AS SELECT k.g2, g.group_key, g.tin_type, g.tin_value, g.npis, g.business_name, k.network_names
      FROM ${scan('groups')} g JOIN __gpick k ON k.pick = g.file_key || '#' || lpad(g.gid::VARCHAR, 10, '0')`);
    counts.provider_groups = await writeProviderGroups(con, snapshot);
    // NPI -> group pairs, narrow (12 bytes a row), unsorted: writeGroupMembers sorts them in slices.
    await run('listing the NPIs of provider groups', 'CREATE OR REPLACE TABLE __gm0 AS SELECT g2, unnest(npis) AS npi FROM __gsel');
    counts.group_members = await writeGroupMembers(con, snapshot);
  } finally {
    for (const t of ['__gpick', '__gsel', '__gm0', '__gm']) await con.run(`DROP TABLE IF EXISTS ${t}`);
  }

  counts.group_sets = await copySelectToTable(con, GROUP_SETS, `SELECT DISTINCT group_set_key, group_key FROM ${scan('group_sets')}`, snapshot);
  // A file references a group when any of its negotiated_rates names a set holding the group.
  counts.group_files = await copySelectToTable(con, GROUP_FILES, `SELECT DISTINCT g.group_key, s.file_key
    FROM (SELECT DISTINCT file_key, group_set_key FROM ${scan('sets')}) s JOIN ${scan('group_sets')} g USING (group_set_key)`, snapshot);

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

/**
 * provider_groups, unsorted: the engine reads it whole into memory once per snapshot (never a key
 * lookup), and sorting 134,520 rows carrying 20.8 M NPIs in list values took 4-5 s of a 1 GB ingest.
 */
async function writeProviderGroups(con: DuckDBConnection, snapshot: string): Promise<number> {
  return copySelectToTable(con, PROVIDER_GROUPS, 'SELECT group_key, tin_type, tin_value, npis, network_names, business_name FROM __gsel', snapshot);
}

/** NPI -> group pairs sorted per slice of buckets: bounds each sort (one sort of 39 M ran out of 300 MB). */
const MEMBERS_PER_SORT = 4_000_000;

/**
 * group_members: one plain, npi-sorted Parquet file per npi_bucket directory. The NPI -> group
 * pairs (__gm0) are sorted narrow, a slice of buckets at a time, and each bucket joins its group
 * keys back. Measured 2026-11-22 on 10.3 M members: one PARTITION_BY COPY ordered by (bucket, npi)
 * over the wide (npi, 32-character key) rows took 3.1-5.7 s and sorting them into a table 4.7 s.
 */
async function writeGroupMembers(con: DuckDBConnection, snapshot: string): Promise<number> {
  const out = tableDir(snapshot, GROUP_MEMBERS);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const total = Number((await con.runAndReadAll('SELECT count(*) FROM __gm0')).getRows()[0]?.[0] ?? 0);
  const slices = Math.max(1, Math.ceil(total / MEMBERS_PER_SORT));
  const width = Math.ceil(64 / slices);
  let rows = 0;
  try {
    for (let lo = 0; lo < 64; lo += width) {
      const hi = Math.min(63, lo + width - 1);
      await con.run(`CREATE OR REPLACE TABLE __gm AS SELECT npi, g2, (npi % 64)::SMALLINT AS b FROM __gm0
        WHERE npi % 64 BETWEEN ${lo} AND ${hi} ORDER BY b, npi`);
      const buckets = (await con.runAndReadAll('SELECT DISTINCT b FROM __gm ORDER BY b')).getRows().map((r) => Number(r[0]));
      for (const b of buckets) {
        const dir = join(out, `npi_bucket=${b}`);
        mkdirSync(dir, { recursive: true });
        const r = await con.runAndReadAll(`COPY (SELECT m.npi, s.group_key FROM __gm m JOIN __gsel s USING (g2) WHERE m.b = ${b} ORDER BY m.npi)
          TO ${lit(join(dir, 'data_0.parquet'))} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)`);
        rows += Number(r.getRows()[0]?.[0] ?? 0);
      }
    }
  } catch (err) {
    throw new Error(`writing table group_members: ${(err as Error).message}`, { cause: err });
  }
  return rows;
}

/**
 * Rates rows per batch of partitions: bounds what one batch de-duplicates, sorts and buffers.
 * Measured 2026-11-22 on 4.9 M rows with a 256 MB memory_limit: 125 k 13.9 s, 250 k 9.3 s,
 * 500 k 11.4 s, 1 M 13.0 s (larger batches spill; smaller ones pay a fixed cost each).
 */
const ROWS_PER_BATCH = 250_000;
const PARTITIONS_PER_BATCH = 256;

/** The finished files under `filesDir` (directories named by file_key) that staged rates rows (done.json). */
function filesWithPrices(filesDir: string): string[] {
  if (!existsSync(filesDir)) return [];
  return readdirSync(filesDir).filter((d) => {
    try {
      return (JSON.parse(readFileSync(join(filesDir, d, 'done.json'), 'utf8')) as DoneMarker).counts.rate_rows > 0;
    } catch {
      return true; // unreadable marker: count it, so the general (GROUP BY) path runs
    }
  });
}

/**
 * rates, written batch by batch of (billing_code_type, code_prefix) partitions. Identical rows
 * share their billing code, hence their partition, hence their batch: de-duplicating inside a
 * batch is de-duplicating globally, and each batch fits DuckDB's memory limit (list() aggregate
 * states do not spill). Rows are identified by numbers: the content hashes of their item and price
 * description (contentHashSql), the rate and the set key; the wide columns join back once per row
 * from the small dictionaries. When one file contributes, nothing needs a file list: DISTINCT.
 */
async function writeRates(con: DuckDBConnection, filesDir: string, snapshot: string): Promise<number> {
  try {
    return await writeRatesSteps(con, filesDir, snapshot);
  } catch (err) {
    throw new Error(`writing table rates: ${(err as Error).message}`, { cause: err });
  }
}

async function writeRatesSteps(con: DuckDBConnection, filesDir: string, snapshot: string): Promise<number> {
  rmSync(tableDir(snapshot, RATES), { recursive: true, force: true });
  const files = filesWithPrices(filesDir);
  if (files.length === 0) return 0;
  const single = files.length === 1 ? files[0]! : null;
  const itemCols = ITEM_COLUMNS.join(', ');
  const attrCols = ATTR_COLUMNS.join(', ');
  await con.run(`CREATE OR REPLACE TABLE __i AS SELECT file_key, item_seq, ${contentHashSql(ITEM_COLUMNS)} AS ih, ${itemCols},
      left(billing_code, ${CODE_PREFIX_LENGTH}) AS code_prefix FROM ${stagedScan(filesDir, 'items')}`);
  await con.run(`CREATE OR REPLACE TABLE __a AS SELECT file_key, attr_id, ${contentHashSql(ATTR_COLUMNS)} AS ah, ${attrCols}
      FROM ${stagedScan(filesDir, 'attrs')}`);
  const parts = (await con.runAndReadAll(`SELECT i.billing_code_type, i.code_prefix, count(*) AS n
    FROM ${stagedScan(filesDir, 'prices')} p JOIN __i i USING (file_key, item_seq) GROUP BY ALL ORDER BY ALL`)).getRows();
  const batchOf: { t: string; p: string; b: number }[] = [];
  let b = 0;
  let inBatch = 0;
  let rowsInBatch = 0;
  for (const [t, p, n] of parts) {
    if (inBatch > 0 && (inBatch >= PARTITIONS_PER_BATCH || rowsInBatch + Number(n) > ROWS_PER_BATCH)) { b++; inBatch = 0; rowsInBatch = 0; }
    batchOf.push({ t: String(t), p: String(p), b });
    inBatch++;
    rowsInBatch += Number(n);
  }
  if (batchOf.length === 0) return 0;
  await con.run('CREATE OR REPLACE TABLE __parts (billing_code_type VARCHAR, code_prefix VARCHAR, __b INTEGER)');
  for (let i = 0; i < batchOf.length; i += 500) {
    await con.run(`INSERT INTO __parts VALUES ${batchOf.slice(i, i + 500).map((x) => `(${lit(x.t)}, ${lit(x.p)}, ${x.b})`).join(', ')}`);
  }
  // Narrow rows in batch order: each batch's `WHERE __b = i` then reads only its own row groups
  // (zone maps) instead of scanning every price once per batch.
  await con.run(`CREATE OR REPLACE TABLE __p AS SELECT p.file_key, i.ih, a.ah, p.negotiated_rate, s.group_set_key, k.__b
    FROM ${stagedScan(filesDir, 'prices')} p
    JOIN __i i USING (file_key, item_seq)
    JOIN __a a USING (file_key, attr_id)
    JOIN ${stagedScan(filesDir, 'sets')} s USING (file_key, set_id)
    JOIN __parts k ON k.billing_code_type = i.billing_code_type AND k.code_prefix = i.code_prefix
    ORDER BY k.__b`);
  await con.run(`CREATE OR REPLACE TABLE __iu AS SELECT DISTINCT ON (ih) ih, ${itemCols}, code_prefix FROM __i`);
  await con.run(`CREATE OR REPLACE TABLE __au AS SELECT DISTINCT ON (ah) ah, ${attrCols} FROM __a`);
  const dedup = (i: number): string => (single !== null
    ? `SELECT DISTINCT ih, ah, negotiated_rate, group_set_key, [${lit(single)}] AS file_keys FROM __p WHERE __b = ${i}`
    : `SELECT ih, ah, negotiated_rate, group_set_key, list_sort(list(DISTINCT file_key)) AS file_keys FROM __p WHERE __b = ${i} GROUP BY ALL`);
  let rows = 0;
  try {
    for (let i = 0; i <= b; i++) {
      rows += await copyPartitionBatch(con, RATES, `
        SELECT i.billing_code_type, i.code_prefix, i.billing_code, i.billing_code_type_version, i.name, i.negotiation_arrangement,
          a.negotiated_type, k.negotiated_rate, TRY_CAST(a.expiration_date AS DATE) AS expiration_date,
          ${strList('a.service_code')} AS service_code, a.billing_class, a.setting,
          ${strList('a.billing_code_modifier')} AS billing_code_modifier, a.additional_information, k.group_set_key, k.file_keys
        FROM (${dedup(i)}) k JOIN __iu i USING (ih) JOIN __au a USING (ah)`, snapshot, i);
    }
  } finally {
    for (const t of ['__parts', '__p', '__i', '__a', '__iu', '__au']) await con.run(`DROP TABLE IF EXISTS ${t}`);
  }
  return rows;
}
