/**
 * Benchmark data generator (issue 4, item 12): a pricing snapshot with tens of millions of rate rows
 * and a million providers, written straight from DuckDB SQL (generate_series, deterministic: no
 * random(), only arithmetic on the row number) into the snapshot layout of schemas/pricing-tables.ts
 * with each TableDef's partitioning and sort order. Writing Parquet directly is right here: this is
 * load generation, not ingest (the ingest benchmark measures the pipeline).
 *
 * The small reference tables (Medicare, catalog, payers, ZIPs) are copied from a real snapshot
 * (the demo snapshot), so codes, localities and payer names resolve as in production.
 *
 * Rates follow the set layout (schemas/pricing-tables.ts RATES, GROUP_SETS): each rates row names
 * one provider-group set, and group_sets lists its 1 to 20 member groups (about 10.5 on average,
 * the 10.7 groups per price measured on a real 1 GB payer file: notes, issue 3). Sets are drawn
 * inside one file's groups, so a price's file also lists every group of its set (group_files).
 * Set keys come from groupSetKey (ingest/snapshot/keys.ts), the ingest's own definition.
 * `--rates` counts rates rows (sets priced), so 50 M rows stand for about 525 M price x group
 * pairs; providers, groups and memberships are as before (5 NPIs per group plus one extra).
 *
 * Usage: npx node --import tsx test/bench/gen-pricing-snapshot.ts --out DIR --reference SNAPSHOT_DIR
 *          [--rates 50000000] [--providers 1000000]
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { CODE_PREFIX_LENGTH, RATES_VIEW_COLUMNS, TABLES_BY_NAME, duckColumnsSql, type TableDef } from '../../schemas/pricing-tables.ts';
import { MANIFEST_FILE, tableDir, tableScanSql, type SnapshotManifest } from '../../schemas/snapshot-layout.ts';
import { groupSetKey } from '../../ingest/snapshot/keys.ts';

export interface GenOptions {
  /** Snapshot directory to create. */
  out: string;
  /** A complete snapshot whose reference tables (and catalog) are reused. */
  reference: string;
  rates: number;
  providers: number;
  /** DuckDB spill directory. */
  tempDir: string;
  log?: (line: string) => void;
}

export interface GenResult {
  dir: string;
  counts: Record<string, number>;
  /** Codes that carry rates, and the flat (unpartitioned, unsorted) files for the naive baseline. */
  codes: string[];
  flatRates: string;
  flatSets: string;
  flatGroups: string;
  seconds: number;
}

/** Tables this generator writes; every other table is copied from the reference snapshot. */
const GENERATED = ['plans', 'plan_files', 'source_files', 'provider_groups', 'group_members', 'group_files', 'group_sets', 'rates', 'price_terms', 'providers'];

const BENCH_PAYER = 'bench-payer';
const FILES = 4;
const MEMBERS_PER_GROUP = 5;
/** Largest provider-group set (sizes run 1..MAX_SET, evenly). */
const MAX_SET = 20;

const FIRST = ['MARIA', 'JAMES', 'LINH', 'DAVID', 'PRIYA', 'CARLOS', 'EMILY', 'WEI', 'AISHA', 'ROBERT', 'SOFIA', 'DANIEL', 'MEI', 'JORGE', 'HANNAH', 'OMAR'];
const LAST = ['ALVAREZ', 'NGUYEN', 'PATEL', 'OKAFOR', 'CHEN', 'RAMIREZ', 'KOWALSKI', 'HADDAD', 'TANAKA', 'BRENNAN', 'DELGADO', 'FISCHER', 'IBARRA', 'KIM', 'MORALES', 'NOVAK', 'ORTEGA', 'SATO', 'TORRES', 'VARGA'];
const ORG = ['POPPYFIELD', 'MANZANITA', 'COASTLINE', 'GOLDEN HILLS', 'SEQUOIA', 'BAYVIEW', 'ARROYO', 'MARIPOSA', 'CHAPARRAL', 'LIVE OAK', 'SIERRA', 'REDWOOD'];
const KIND = ['FAMILY MEDICINE', 'MEDICAL GROUP', 'IMAGING CENTER', 'URGENT CARE', 'HEALTH CENTER', 'SURGERY CENTER'];

function list(xs: string[]): string {
  return `[${xs.map((x) => `'${x}'`).join(', ')}]`;
}

async function copyTable(con: DuckDBConnection, dir: string, t: TableDef, select: string): Promise<void> {
  const out = tableDir(dir, t);
  mkdirSync(out, { recursive: true });
  const order = t.sortBy?.length ? ` ORDER BY ${t.sortBy.map((s) => `"${s}"`).join(', ')}` : '';
  if (t.partitionBy?.length) {
    await con.run(`COPY (${select}${order}) TO '${out}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (${t.partitionBy.map((p) => `"${p}"`).join(', ')}), OVERWRITE_OR_IGNORE)`);
  } else {
    await con.run(`COPY (${select}${order}) TO '${join(out, 'data_0.parquet')}' (FORMAT parquet, COMPRESSION zstd)`);
  }
}

/** Casts a SELECT's columns to the TableDef's, in its order, so the Parquet schema is the contract's. */
function shaped(t: TableDef, inner: string): string {
  return `SELECT ${t.columns.map((c) => `CAST("${c.name}" AS ${c.type}) AS "${c.name}"`).join(', ')} FROM (${inner})`;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** Generates the snapshot. Deterministic for given sizes. */
export async function genPricingSnapshot(o: GenOptions): Promise<GenResult> {
  const t0 = performance.now();
  const log = o.log ?? (() => {});
  mkdirSync(o.out, { recursive: true });
  mkdirSync(o.tempDir, { recursive: true });
  const inst = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '6GB', temp_directory: o.tempDir, });
  const con = await inst.connect();
  const T = (n: string) => TABLES_BY_NAME.get(n)!;
  const ref = (n: string) => tableScanSql(o.reference, T(n));
  try {
    // Reference tables: copied file for file.
    for (const t of TABLES_BY_NAME.values()) {
      if (GENERATED.includes(t.name) || !existsSync(tableDir(o.reference, t))) continue;
      cpSync(tableDir(o.reference, t), tableDir(o.out, t), { recursive: true });
    }
    // Codes that get rates: the catalog's CPT/HCPCS codes (what callers may ask for).
    const codeRows = await con.runAndReadAll(`SELECT code, code_type FROM ${ref('service_catalog')} WHERE code_type IN ('CPT', 'HCPCS') ORDER BY code`);
    const codes = (codeRows.getRowObjectsJS() as { code: string; code_type: string }[]).map((r) => ({ code: r.code, type: r.code_type }));
    if (!codes.length) throw new Error('reference snapshot has no service_catalog codes');
    await con.run(`CREATE TABLE zips AS SELECT row_number() OVER (ORDER BY zip5) - 1 AS zi, zip5, latitude, longitude
      FROM ${ref('zip_centroids')} WHERE state = 'CA'`);
    const nz = Number((await con.runAndReadAll('SELECT count(*) FROM zips')).getRows()[0]![0]);
    if (!nz) throw new Error('reference snapshot has no California ZIP centroids');

    const P = o.providers;
    const G = Math.max(1, Math.floor(P / MEMBERS_PER_GROUP));
    const perCode = Math.ceil(o.rates / codes.length);
    log(`generating ${P} providers, ${G} groups, ${codes.length} codes x ${perCode} rates`);

    // providers: every 5th NPI an organization (the group's own NPI), the rest individuals.
    await copyTable(con, o.out, T('providers'), shaped(T('providers'), `
      SELECT 1000000000 + i AS npi, CASE WHEN i % 5 = 0 THEN 2 ELSE 1 END AS entity_type,
        CASE WHEN i % 5 = 0 THEN org ELSE first || ' ' || last || ', MD' END AS name,
        CASE WHEN i % 5 = 0 THEN NULL ELSE last END AS last_name, CASE WHEN i % 5 = 0 THEN NULL ELSE first END AS first_name,
        NULL AS middle_name, CASE WHEN i % 5 = 0 THEN NULL ELSE 'MD' END AS credential,
        CASE WHEN i % 5 = 0 THEN org ELSE NULL END AS org_name, []::VARCHAR[] AS other_names,
        (100 + i % 9000)::VARCHAR || ' MAIN ST' AS address, 'CITY ' || (z.zi % 400)::VARCHAR AS city,
        CASE WHEN i % 10 < 8 THEN 'CA' ELSE ['NV', 'OR', 'AZ', 'WA'][1 + i % 4] END AS state, z.zip5, NULL AS phone, 'CA' AS mailing_state,
        z.latitude, z.longitude, CASE WHEN i % 5 = 0 THEN '261QP2300X' ELSE '207Q00000X' END AS taxonomy,
        CASE WHEN i % 5 = 0 THEN 'Clinic/Center, Primary Care' ELSE 'Family Medicine' END AS taxonomy_description,
        []::VARCHAR[] AS taxonomies, false AS sole_proprietor, false AS subpart, NULL AS parent_org_name, NULL AS parent_org_tin,
        DATE '2015-01-01' AS enumeration_date, NULL AS deactivation_date, NULL AS reactivation_date,
        lower(CASE WHEN i % 5 = 0 THEN org ELSE first || ' ' || last END) AS name_search
      FROM (SELECT i, ${list(FIRST)}[1 + i % ${FIRST.length}] AS first, ${list(LAST)}[1 + (i // 7) % ${LAST.length}] AS last,
              ${list(ORG)}[1 + (i // 5) % ${ORG.length}] || ' ' || ${list(KIND)}[1 + (i // 60) % ${KIND.length}] || ' ' || (i // 5)::VARCHAR AS org
            FROM range(${P}) r(i)) p
      JOIN zips z ON z.zi = p.i % ${nz}`));
    log('providers written');

    // provider_groups: group g = providers 5g..5g+4, plus one extra member (multi-TIN clinicians);
    // group_ref g + 1 (group_key order, as the ingest numbers them).
    await con.run(`CREATE TABLE grp AS SELECT g, printf('g%08d', g) AS group_key,
        list_transform(range(${MEMBERS_PER_GROUP}), k -> 1000000000 + g * ${MEMBERS_PER_GROUP} + k) || [1000000000 + (g * ${MEMBERS_PER_GROUP} + 13) % ${P}] AS npis
      FROM range(${G}) r(g)`);
    await copyTable(con, o.out, T('provider_groups'), shaped(T('provider_groups'), `
      SELECT group_key, (g + 1)::INTEGER AS group_ref, 'ein' AS tin_type, printf('%02d-%07d', 10 + g % 89, g) AS tin_value, npis,
        ['BENCH NETWORK'] AS network_names, 'GROUP ' || g::VARCHAR AS business_name FROM grp`));
    await copyTable(con, o.out, T('group_members'), shaped(T('group_members'), `
      SELECT unnest(npis) AS npi, (g + 1)::INTEGER AS group_ref, (unnest(npis) % 64)::SMALLINT AS npi_bucket FROM grp`));
    await copyTable(con, o.out, T('group_files'), shaped(T('group_files'), `
      SELECT group_key, printf('file%04d', g % ${FILES}) AS file_key FROM grp
      UNION ALL SELECT group_key, printf('file%04d', (g + 1) % ${FILES}) FROM grp WHERE g % 2 = 0`));
    await copyTable(con, o.out, T('source_files'), shaped(T('source_files'), `
      SELECT printf('file%04d', f) AS file_key, 'bench://in-network/' || f::VARCHAR || '.json.gz' AS url, 'in-network' AS file_type,
        NULL AS bytes, NULL AS uncompressed_bytes, NULL AS sha256, DATE '2026-01-01' AS last_updated_on, '2.0.0' AS version,
        'Bench Health Plan (synthetic benchmark)' AS reporting_entity_name, 'health insurance issuer' AS reporting_entity_type,
        'complete' AS status, NULL AS error, 0 AS unresolved_references FROM range(${FILES}) r(f)`));
    await copyTable(con, o.out, T('plans'), shaped(T('plans'), `
      SELECT printf('plan%04d', p) AS plan_key, 'Bench Health Plan (synthetic benchmark)' AS reporting_entity_name,
        'health insurance issuer' AS reporting_entity_type, 'Bench PPO ' || p::VARCHAR || ' (synthetic benchmark)' AS plan_name,
        'EIN' AS plan_id_type, printf('99-%07d', p) AS plan_id, 'group' AS plan_market_type,
        'Bench Employer ' || p::VARCHAR || ' (synthetic benchmark)' AS plan_sponsor_name, 'Bench Insurance Co' AS issuer_name,
        '${BENCH_PAYER}' AS payer_key FROM range(${FILES * 2}) r(p)`));
    await copyTable(con, o.out, T('plan_files'), shaped(T('plan_files'), `
      SELECT printf('plan%04d', p) AS plan_key, printf('file%04d', p // 2) AS file_key, 'in-network' AS file_type, NULL AS description
      FROM range(${FILES * 2}) r(p)`));
    // The bench payer joins the reference payers registry as one more file of the table.
    mkdirSync(tableDir(o.out, T('payers')), { recursive: true });
    await con.run(`COPY (${shaped(T('payers'), `SELECT '${BENCH_PAYER}' AS key, 'Bench Health Plan (synthetic benchmark)' AS label,
        ['Bench Health Plan', 'Bench'] AS accepted_names, ['Bench Health Plan (synthetic benchmark)'] AS reporting_entity_names,
        ['employerName', 'planName'] AS exact_plan_identifiers, 'synthetic benchmark data' AS coverage, false AS blue_card,
        []::VARCHAR[] AS group_number_states`)}) TO '${join(tableDir(o.out, T('payers')), 'bench_payer.parquet')}' (FORMAT parquet)`);
    log('groups, files, plans and payer written');

    // group_sets: one set per group index s (fewer after de-duplication), of 1..MAX_SET groups of
    // file s % FILES: member m is group (s + FILES * 7919 * m) mod G4 (G4 = G rounded down to a
    // multiple of FILES keeps every member in the same residue class, hence in file s % FILES).
    // Member 0 is group s itself, so every group is in at least one set.
    const G4 = Math.max(FILES, G - (G % FILES));
    const members = (s: number): string[] => {
      const size = 1 + ((s * 7 + Math.floor(s / MAX_SET)) % MAX_SET);
      const gs = new Set<string>();
      for (let m = 0; m < size; m++) gs.add(`g${String((((s % G4) + FILES * 7919 * m) % G4) % G).padStart(8, '0')}`);
      return [...gs].sort();
    };
    await con.run('CREATE TABLE sets0 (s BIGINT, f INTEGER, group_set_key VARCHAR, members VARCHAR)');
    const app = await con.createAppender('sets0');
    for (let s = 0; s < G; s++) {
      const ms = members(s);
      app.appendBigInt(BigInt(s));
      app.appendInteger(s % FILES);
      app.appendVarchar(groupSetKey(ms));
      app.appendVarchar(ms.join(','));
      app.endRow();
    }
    app.closeSync();
    await con.run(`CREATE TABLE sets AS SELECT row_number() OVER (ORDER BY group_set_key) - 1 AS srank, group_set_key, f, string_split(members, ',') AS members
      FROM (SELECT group_set_key, any_value(f) AS f, any_value(members) AS members FROM sets0 GROUP BY group_set_key)`);
    await con.run('DROP TABLE sets0');
    const S = Number((await con.runAndReadAll('SELECT count(*) FROM sets')).getRows()[0]![0]);
    await copyTable(con, o.out, T('group_sets'), shaped(T('group_sets'), 'SELECT group_set_key, srank + 1 AS set_ref, unnest(members) AS group_key, NULL AS unresolved_location FROM sets'));
    // A set's file by rank, as a list: rates rows look it up by index (a projection keeps the
    // generation order; a join would not promise it). A set's set_ref is its rank + 1.
    await con.run('CREATE TABLE setarr AS SELECT list(f ORDER BY srank) AS fs FROM sets');
    log(`${S} provider-group sets written`);

    // rates: the big one. Row k is (code k // perCode, j = k % perCode); set ranks (set_ref, in
    // group_set_key order) never decrease in j, so generating k in order yields (billing_code,
    // set_ref) order with no sort. Nearly: the 2-thread partitioned COPY can append a partition's 2,048-row
    // chunks out of order (measured: 8 descents in 300,000 rows), which lookups never notice (they
    // filter exactly) and which widens a row group's min/max only at those seams; an ORDER BY
    // would fix it at the price of sorting 50 M wide rows (not tried).
    const N = codes.length * perCode;
    const codeList = list(codes.map((c) => c.code));
    const typeList = list(codes.map((c) => c.type));
    // Set of row j: spread over all sets, never decreasing in j, offset per code so codes do not
    // all price the same sets (several rates per set when a code has more rows than sets).
    const step = Math.max(1, Math.floor(S / perCode));
    const sidExpr = perCode <= S ? `(j * ${S}) // ${perCode} + ci % ${step}` : `(j * ${S}) // ${perCode}`;
    // Two combinations of price terms (price_terms): professional (terms_id 1) and institutional (2).
    await copyTable(con, o.out, T('price_terms'), shaped(T('price_terms'), `SELECT t AS terms_id, 'negotiated' AS negotiated_type,
        DATE '9999-12-31' AS expiration_date, ['11'] AS service_code, CASE t WHEN 2 THEN 'institutional' ELSE 'professional' END AS billing_class,
        'outpatient' AS setting, NULL AS billing_code_modifier, NULL AS additional_information FROM range(1, 3) r(t)`));
    // Stored rates rows (RATES); the naive flat file has every term on the row (the rates view's columns).
    const ratesFrom = (kExpr: string, wide: boolean) => {
      const cols = wide ? RATES_VIEW_COLUMNS : T('rates').columns;
      return `SELECT ${cols.map((c) => `CAST("${c.name}" AS ${c.type}) AS "${c.name}"`).join(', ')} FROM (
      SELECT ${typeList}[1 + ci] AS billing_code_type, left(${codeList}[1 + ci], ${CODE_PREFIX_LENGTH}) AS code_prefix, ${codeList}[1 + ci] AS billing_code,
        '2026' AS billing_code_type_version, NULL AS name, 'ffs' AS negotiation_arrangement, 'negotiated' AS negotiated_type,
        round(40 + ((ci * 7919 + j * 104729) % 100000) / 100.0 + (ci % 50) * 9, 2) AS negotiated_rate,
        CASE WHEN j % 9 = 0 THEN 2 ELSE 1 END AS terms_id, DATE '9999-12-31' AS expiration_date, ['11'] AS service_code,
        CASE WHEN j % 9 = 0 THEN 'institutional' ELSE 'professional' END AS billing_class, 'outpatient' AS setting,
        NULL AS billing_code_modifier, NULL AS additional_information,
        (1 + sid)::INTEGER AS set_ref, [printf('file%04d', a.fs[1 + sid])] AS file_keys
      FROM (SELECT ci, j, ${sidExpr} AS sid FROM (SELECT k // ${perCode} AS ci, k % ${perCode} AS j FROM (SELECT ${kExpr} AS k FROM range(${N}) r(m)))), setarr a)`;
    };
    const rOut = tableDir(o.out, T('rates'));
    mkdirSync(rOut, { recursive: true });
    await con.run(`COPY (${ratesFrom('m', false)}) TO '${rOut}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (billing_code_type, code_prefix), OVERWRITE_OR_IGNORE)`);
    log('rates written (partitioned, in billing_code/set_ref order)');
    // The naive baseline: the same rows in ONE flat Parquet file in a scrambled order (k = m * A mod N
    // with A coprime to N is a permutation), so neither partitions nor row-group statistics help it.
    let A = 1_000_003;
    while (gcd(A, N) !== 1) A += 2;
    const flatRates = join(o.out, '..', `${o.out.split('/').pop()}-naive-rates.parquet`);
    const flatGroups = join(o.out, '..', `${o.out.split('/').pop()}-naive-groups.parquet`);
    const flatSets = join(o.out, '..', `${o.out.split('/').pop()}-naive-sets.parquet`);
    await con.run(`COPY (${ratesFrom(`(m * ${A}) % ${N}`, true)}) TO '${flatRates}' (FORMAT parquet, COMPRESSION zstd)`);
    await con.run(`COPY (SELECT * FROM (SELECT group_set_key, srank + 1 AS set_ref, unnest(members) AS group_key FROM sets) ORDER BY hash(group_key, group_set_key)) TO '${flatSets}' (FORMAT parquet, COMPRESSION zstd)`);
    await con.run(`COPY (SELECT group_key, npis FROM grp ORDER BY hash(group_key)) TO '${flatGroups}' (FORMAT parquet, COMPRESSION zstd)`);
    log('naive flat files written');

    const counts: Record<string, number> = {};
    for (const n of GENERATED) {
      const r = await con.runAndReadAll(`SELECT count(*) FROM ${tableScanSql(o.out, T(n))}`);
      counts[n] = Number(r.getRows()[0]![0]);
    }
    const refManifest = JSON.parse(readFileSync(join(o.reference, MANIFEST_FILE), 'utf8')) as SnapshotManifest;
    const tables: Record<string, { rows: number }> = {};
    for (const t of TABLES_BY_NAME.values()) tables[t.name] = { rows: counts[t.name] ?? refManifest.tables[t.name]?.rows ?? 0 };
    const manifest: SnapshotManifest = {
      id: o.out.split('/').pop()!, createdAt: new Date().toISOString(), status: 'complete', tables,
      dataVintage: `synthetic benchmark data; reference tables from ${refManifest.id}`, synthetic: true,
      sources: { generator: 'test/bench/gen-pricing-snapshot.ts', rates: o.rates, providers: o.providers },
    };
    writeFileSync(join(o.out, MANIFEST_FILE), JSON.stringify(manifest, null, 2));
    return { dir: o.out, counts, codes: codes.map((c) => c.code), flatRates, flatSets, flatGroups, seconds: (performance.now() - t0) / 1000 };
  } finally {
    con.closeSync();
    inst.closeSync();
  }
}

/** Table DDL helper kept for ad-hoc inspection of the generated data. */
export function ddl(t: TableDef): string {
  return `CREATE TABLE ${t.name} (${duckColumnsSql(t)})`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: {
    out: { type: 'string' }, reference: { type: 'string' }, rates: { type: 'string', default: '50000000' }, providers: { type: 'string', default: '1000000' },
  } });
  if (!values.out || !values.reference) {
    process.stderr.write('usage: gen-pricing-snapshot.ts --out DIR --reference SNAPSHOT_DIR [--rates N] [--providers N]\n');
    process.exitCode = 2;
  } else {
    const r = await genPricingSnapshot({
      out: values.out, reference: values.reference, rates: Number(values.rates), providers: Number(values.providers),
      tempDir: join(values.out, '..', 'duck-tmp'), log: (l) => process.stdout.write(`${l}\n`),
    });
    process.stdout.write(`${JSON.stringify({ counts: r.counts, seconds: r.seconds })}\n`);
  }
}
