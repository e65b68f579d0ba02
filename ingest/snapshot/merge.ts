/**
 * `carebridge snapshot merge <dirs…> --out ROOT`: joins the snapshots of `ingest tic --shard i/n`
 * runs into one new snapshot. TiC tables are unioned and de-duplicated again (rates: identical rows
 * from different shards become one row whose file_keys is the union); other tables are carried
 * over from the first input that has them. Keys are content-derived (keys.ts), so shards agree;
 * only price_terms.terms_id, group_sets.set_ref and provider_groups.group_ref are numbered per
 * snapshot, and renumbered here (mergeTerms, mergeSets, and group_members mapped through __mref).
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { join } from 'node:path';
import { ALL_TABLES, TABLES_BY_NAME, type TableDef } from '../../schemas/pricing-tables.ts';
import { MANIFEST_FILE, STAGING_DIR, tableDir, tableScanSql } from '../../schemas/snapshot-layout.ts';
import { emptySelect, storedColumns } from './catalog.ts';
import { ZSTD, ident, lit, openDuck, runSideBySide, scalar } from './duck.ts';
import { copySelectToTable, rowGroupSize } from './table-writer.ts';
import { assembleSnapshot } from './assemble.ts';
import { TERMS_KEY_SQL, pickPlansSql, planKeyRanges } from './keys.ts';
import { carryOver, listSnapshots, newSnapshotId, readManifest, SnapshotStoreError } from './store.ts';

/** A snapshot directory, or a pricing root (its newest snapshot). */
export function resolveSnapshotDir(p: string): string {
  if (existsSync(join(p, MANIFEST_FILE))) return p;
  const all = listSnapshots(p);
  const last = all.at(-1);
  if (!last) throw new SnapshotStoreError(`${p}: neither a snapshot directory nor a pricing root with snapshots`);
  return join(p, 'snapshots', last.id);
}

function scan(dir: string, t: TableDef): string {
  const d = tableDir(dir, t);
  const has = existsSync(d) && readdirSync(d, { recursive: true }).some((f) => String(f).endsWith('.parquet'));
  return has ? `(SELECT * FROM ${tableScanSql(dir, t)})` : `(${emptySelect(t)})`;
}

const T = (name: string): TableDef => TABLES_BY_NAME.get(name)!;

/** The Parquet files of each rates partition (`billing_code_type=T/code_prefix=P`) across snapshots, by snapshot index. */
function ratePartitions(dirs: readonly string[]): Map<string, { src: number; file: string }[]> {
  const parts = new Map<string, { src: number; file: string }[]>();
  const sub = (d: string): string[] => (existsSync(d) ? readdirSync(d).filter((x) => x.includes('=')) : []);
  for (const [src, d] of dirs.entries()) {
    const base = tableDir(d, T('rates'));
    for (const t of sub(base)) {
      for (const p of sub(join(base, t))) {
        const files = readdirSync(join(base, t, p)).filter((f) => f.endsWith('.parquet')).map((f) => ({ src, file: join(base, t, p, f) }));
        if (files.length) parts.set(`${t}/${p}`, [...(parts.get(`${t}/${p}`) ?? []), ...files]);
      }
    }
  }
  return parts;
}

/**
 * Refuses snapshots written before rates named price_terms and their set by set_ref, and
 * group_members named group_ref: their rows cannot be renumbered. Re-ingesting them gives the
 * current layout.
 */
async function checkLayout(con: DuckDBConnection, dirs: readonly string[]): Promise<void> {
  for (const d of dirs) {
    const columns = await storedColumns(con, d);
    const old = [['rates', 'terms_id'], ['rates', 'set_ref'], ['group_sets', 'set_ref'], ['group_members', 'group_ref']].filter(([name, col]) => !(columns(T(name!))?.includes(col!) ?? true));
    if (old.length) {
      throw new SnapshotStoreError(`${d}: written in an earlier layout (${old.map(([name, col]) => `${name} without ${col}`).join(', ')}); re-ingest it to merge it`);
    }
  }
}

/**
 * price_terms of several snapshots: terms_id numbers are per snapshot, so every distinct
 * combination gets a new number (by TERMS_KEY_SQL, as finalize numbers them), and `__tmap` maps
 * (snapshot index, old terms_id) to it for the rates rows. Returns the rows written.
 */
async function mergeTerms(con: DuckDBConnection, dirs: readonly string[], work: string): Promise<number> {
  const t = T('price_terms');
  const content = t.columns.filter((c) => c.name !== 'terms_id').map((c) => ident(c.name));
  await con.run(`CREATE OR REPLACE TABLE __tall AS ${dirs.map((d, i) => `SELECT ${i} AS src, terms_id, ${TERMS_KEY_SQL} AS k, ${content.join(', ')} FROM ${scan(d, t)}`).join(' UNION ALL ')}`);
  await con.run('CREATE OR REPLACE TABLE __tnew AS SELECT (row_number() OVER (ORDER BY k))::INTEGER AS nid, * FROM (SELECT DISTINCT ON (k) * EXCLUDE (src, terms_id) FROM __tall)');
  await con.run('CREATE OR REPLACE TABLE __tmap AS SELECT a.src, a.terms_id AS old, n.nid FROM __tall a JOIN __tnew n USING (k)');
  const rows = await copySelectToTable(con, t, `SELECT nid AS terms_id, ${content.join(', ')} FROM __tnew`, work);
  await con.run('DROP TABLE __tall; DROP TABLE __tnew');
  return rows;
}

/**
 * group_sets of several snapshots: set_ref numbers are per snapshot, so every distinct set key gets
 * a new number (in key order, as finalize numbers them), and `__smap` maps (snapshot index, old
 * set_ref) to it for the rates rows. Returns the rows written.
 */
async function mergeSets(con: DuckDBConnection, dirs: readonly string[], work: string): Promise<number> {
  const t = T('group_sets');
  // unresolved_location since issue 37: a shard written before has none (NULL: every member resolved).
  const loc = await Promise.all(dirs.map(async (d) => ((await storedColumns(con, d))(t)?.includes('unresolved_location') ? 'unresolved_location' : 'NULL::VARCHAR AS unresolved_location')));
  await con.run(`CREATE OR REPLACE TABLE __sall AS ${dirs.map((d, i) => `SELECT ${i} AS src, set_ref, group_set_key, group_key, ${loc[i]!} FROM ${scan(d, t)}`).join(' UNION ALL ')}`);
  await con.run(`CREATE OR REPLACE TABLE __snew AS SELECT (row_number() OVER (ORDER BY group_set_key))::INTEGER AS nid, group_set_key
    FROM (SELECT DISTINCT group_set_key FROM __sall)`);
  await con.run('CREATE OR REPLACE TABLE __smap AS SELECT DISTINCT a.src, a.set_ref AS old, n.nid FROM __sall a JOIN __snew n USING (group_set_key)');
  const rows = await copySelectToTable(con, t, 'SELECT DISTINCT a.group_set_key, n.nid AS set_ref, a.group_key, a.unresolved_location FROM __sall a JOIN __snew n USING (group_set_key)', work);
  await con.run('DROP TABLE __sall; DROP TABLE __snew');
  return rows;
}

/**
 * rates of several snapshots, one partition at a time (identical rows share their partition): each
 * row's terms_id and set_ref are renumbered (mergeTerms' __tmap, mergeSets' __smap), rows are grouped with their file lists
 * unioned, sorted, and written as one file per partition, the COPYs side by side on two
 * connections. A partition at a time bounds the list() aggregate states, which do not spill (one
 * GROUP BY over every rate of every shard did not fit the memory limit).
 */
async function mergeRates(con: DuckDBConnection, side: DuckDBConnection, dirs: readonly string[], work: string): Promise<number> {
  const t = T('rates');
  const out = tableDir(work, t);
  rmSync(out, { recursive: true, force: true });
  const keyCols = t.columns.filter((c) => !t.partitionBy?.includes(c.name) && c.name !== 'file_keys');
  const select = [...keyCols.map((c) => `CAST(${ident(c.name)} AS ${c.type}) AS ${ident(c.name)}`),
    'CAST(list_sort(list_distinct(flatten(list(file_keys)))) AS VARCHAR[]) AS file_keys'].join(', ');
  const order = (t.sortBy ?? []).map(ident).join(', ');
  let rows = 0;
  try {
    await runSideBySide([con, side], [...ratePartitions(dirs)].map(([rel, files]) => async (c: DuckDBConnection) => {
      mkdirSync(join(out, rel), { recursive: true });
      const bySrc = new Map<number, { src: number; file: string }[]>();
      for (const f of files) bySrc.set(f.src, [...(bySrc.get(f.src) ?? []), f]);
      const from = [...bySrc].map(([src, fs]) => `SELECT r.* EXCLUDE (terms_id, set_ref), m.nid AS terms_id, s.nid AS set_ref
        FROM read_parquet([${fs.map((f) => lit(f.file)).join(', ')}], union_by_name = true) r JOIN __tmap m ON m.src = ${src} AND m.old = r.terms_id
        JOIN __smap s ON s.src = ${src} AND s.old = r.set_ref`).join(' UNION ALL BY NAME ');
      const r = await c.runAndReadAll(`COPY (SELECT ${select} FROM (${from})
          GROUP BY ${keyCols.map((k) => ident(k.name)).join(', ')} ORDER BY ${order})
        TO ${lit(join(out, rel, 'data_0.parquet'))} (FORMAT parquet, ${ZSTD}, ROW_GROUP_SIZE ${rowGroupSize(t)})`);
      rows += Number(r.getRows()[0]?.[0] ?? 0);
    }));
  } catch (err) {
    throw new Error(`merging table rates: ${(err as Error).message}`, { cause: err });
  }
  return rows;
}

/** Merges snapshot dirs into a new snapshot under `out`; returns its id and directory. */
export async function mergeSnapshots(inputs: string[], out: string, memoryLimit = '512MB',
  o: { /** Plans per range of plan keys (keys.ts PLANS_PER_RANGE; tests make it small). */ plansPerRange?: number } = {}): Promise<{ id: string; dir: string; tables: Record<string, number> }> {
  if (inputs.length < 2) throw new SnapshotStoreError('merge needs at least two snapshot directories');
  const dirs = inputs.map(resolveSnapshotDir);
  const id = newSnapshotId('merge');
  const staging = join(out, STAGING_DIR, id);
  const work = join(staging, 'out');
  mkdirSync(work, { recursive: true });
  const duck = await openDuck({ tempDir: join(staging, 'tmp'), memoryLimit });
  const con = await duck.connect();
  const side = await duck.connect();
  const union = (name: string): string => dirs.map((d) => `SELECT * FROM ${scan(d, T(name))}`).join(' UNION ALL BY NAME ');
  const counts: Record<string, number> = {};
  try {
    await checkLayout(con, dirs);
    counts.price_terms = await mergeTerms(con, dirs, work);
    counts.group_sets = await mergeSets(con, dirs, work);
    counts.rates = await mergeRates(con, side, dirs, work);
    await con.run('DROP TABLE __tmap; DROP TABLE __smap');
    // One row per group_key, taken whole from the first shard that has it: chosen by a narrow
    // aggregate (network names only) and joined back, so no aggregate state holds NPI lists (an
    // any_value(npis) GROUP BY does not spill: 20 M NPIs ran out of memory in finalize, measured).
    // group_ref is numbered anew (1..n in group_key order) and group_members' refs mapped to it.
    const groups = (cols: string): string => dirs.map((d, i) => `SELECT ${cols}, ${i} AS __src FROM ${scan(d, T('provider_groups'))}`).join(' UNION ALL ');
    await con.run(`CREATE TABLE __mpick AS SELECT (row_number() OVER (ORDER BY group_key))::INTEGER AS group_ref, * FROM (
      SELECT group_key, min(__src) AS __src, list_sort(list_distinct(flatten(list(network_names)))) AS network_names
      FROM (${groups('group_key, network_names')}) GROUP BY group_key)`);
    counts.provider_groups = await copySelectToTable(con, T('provider_groups'), `SELECT g.group_key, k.group_ref, g.tin_type, g.tin_value, g.npis,
      k.network_names, g.business_name FROM (${groups('group_key, tin_type, tin_value, npis, business_name')}) g JOIN __mpick k USING (group_key, __src)`, work);
    await con.run(`CREATE TABLE __mref AS SELECT g.__src, g.group_ref AS old, k.group_ref FROM (${groups('group_key, group_ref')}) g JOIN __mpick k USING (group_key)`);
    counts.group_members = await copySelectToTable(con, T('group_members'), `SELECT DISTINCT m.npi, r.group_ref, m.npi_bucket FROM (
      ${dirs.map((d, i) => `SELECT npi, group_ref, npi_bucket, ${i} AS __src FROM ${scan(d, T('group_members'))}`).join(' UNION ALL ')}) m
      JOIN __mref r ON r.__src = m.__src AND r.old = m.group_ref`, work);
    await con.run('DROP TABLE __mpick; DROP TABLE __mref');
    // Plans and their links in ranges of plan keys when many (keys.ts planKeyRanges), as finalize.
    const planRanges = planKeyRanges(await scalar(con, `SELECT count(*) FROM (${union('plans')})`), await scalar(con, `SELECT count(*) FROM (${union('plan_files')})`), o.plansPerRange);
    for (const name of ['group_files', 'bundles', 'plan_files', 'allowed_amounts']) {
      counts[name] = await copySelectToTable(con, T(name), `SELECT DISTINCT * FROM (${union(name)})`, work, name === 'plan_files' ? planRanges : undefined);
    }
    counts.plans = await copySelectToTable(con, T('plans'), pickPlansSql(union('plans')), work, planRanges);
    counts.source_files = await copySelectToTable(con, T('source_files'),
      `SELECT DISTINCT ON (file_key) * FROM (${union('source_files')}) ORDER BY file_key, status = 'complete' DESC`, work);
    side.closeSync();
    con.closeSync();
    const written = Object.fromEntries(Object.entries(counts).map(([k, n]) => [k, { rows: n }]));
    // Non-TiC tables: from the first input that has each.
    for (const d of dirs) {
      const carried = carryOver(d, work, new Set(Object.keys(written)));
      for (const [k, v] of Object.entries(carried)) written[k] ??= v;
    }
    const manifests = dirs.map(readManifest);
    const { dir } = await assembleSnapshot(duck, {
      root: out, id, workDir: work, families: [], written,
      dataVintage: [...new Set(manifests.map((m) => m.dataVintage))].join('; '),
      synthetic: manifests.some((m) => m.synthetic),
      sources: { merged: dirs.map((d, i) => ({ dir: d, id: manifests[i]!.id, sources: manifests[i]!.sources })) },
      report: { merged: dirs, tables: counts },
    });
    return { id, dir, tables: Object.fromEntries(ALL_TABLES.filter((t) => t.name in written).map((t) => [t.name, written[t.name]!.rows])) };
  } finally {
    duck.closeSync();
    rmSync(staging, { recursive: true, force: true });
  }
}
