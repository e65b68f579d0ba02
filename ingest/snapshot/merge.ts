/**
 * `carebridge snapshot merge <dirs…> --out ROOT`: joins the snapshots of `ingest tic --shard i/n`
 * runs into one new snapshot. TiC tables are unioned and de-duplicated again (rates: identical rows
 * from different shards become one row whose file_keys is the union); other tables are carried
 * over from the first input that has them. Keys are content-derived (keys.ts), so shards agree.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { join } from 'node:path';
import { ALL_TABLES, TABLES_BY_NAME, type TableDef } from '../../schemas/pricing-tables.ts';
import { MANIFEST_FILE, STAGING_DIR, tableDir, tableScanSql } from '../../schemas/snapshot-layout.ts';
import { emptySelect } from './catalog.ts';
import { ident, lit, openDuck, runSideBySide } from './duck.ts';
import { copySelectToTable, rowGroupSize } from './table-writer.ts';
import { assembleSnapshot } from './assemble.ts';
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

/** The Parquet files of each rates partition (`billing_code_type=T/code_prefix=P`) across snapshots. */
function ratePartitions(dirs: readonly string[]): Map<string, string[]> {
  const parts = new Map<string, string[]>();
  const sub = (d: string): string[] => (existsSync(d) ? readdirSync(d).filter((x) => x.includes('=')) : []);
  for (const d of dirs) {
    const base = tableDir(d, T('rates'));
    for (const t of sub(base)) {
      for (const p of sub(join(base, t))) {
        const files = readdirSync(join(base, t, p)).filter((f) => f.endsWith('.parquet')).map((f) => join(base, t, p, f));
        if (files.length) parts.set(`${t}/${p}`, [...(parts.get(`${t}/${p}`) ?? []), ...files]);
      }
    }
  }
  return parts;
}

/**
 * rates of several snapshots, one partition at a time (identical rows share their partition): rows
 * are grouped with their file lists unioned, sorted, and written as one file per partition, the
 * COPYs side by side on two connections. A partition at a time bounds the list() aggregate states,
 * which do not spill (one GROUP BY over every rate of every shard did not fit the memory limit).
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
      const r = await c.runAndReadAll(`COPY (SELECT ${select} FROM read_parquet([${files.map(lit).join(', ')}], union_by_name = true)
          GROUP BY ${keyCols.map((k) => ident(k.name)).join(', ')} ORDER BY ${order})
        TO ${lit(join(out, rel, 'data_0.parquet'))} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupSize(t)})`);
      rows += Number(r.getRows()[0]?.[0] ?? 0);
    }));
  } catch (err) {
    throw new Error(`merging table rates: ${(err as Error).message}`, { cause: err });
  }
  return rows;
}

/** Merges snapshot dirs into a new snapshot under `out`; returns its id and directory. */
export async function mergeSnapshots(inputs: string[], out: string, memoryLimit = '512MB'): Promise<{ id: string; dir: string; tables: Record<string, number> }> {
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
    counts.rates = await mergeRates(con, side, dirs, work);
    // One row per group_key, taken whole from the first shard that has it: chosen by a narrow
    // aggregate (network names only) and joined back, so no aggregate state holds NPI lists (an
    // any_value(npis) GROUP BY does not spill: 20 M NPIs ran out of memory in finalize, measured).
    const groups = (cols: string): string => dirs.map((d, i) => `SELECT ${cols}, ${i} AS __src FROM ${scan(d, T('provider_groups'))}`).join(' UNION ALL ');
    await con.run(`CREATE TABLE __mpick AS SELECT group_key, min(__src) AS __src, list_sort(list_distinct(flatten(list(network_names)))) AS network_names
      FROM (${groups('group_key, network_names')}) GROUP BY group_key`);
    counts.provider_groups = await copySelectToTable(con, T('provider_groups'), `SELECT g.group_key, g.tin_type, g.tin_value, g.npis,
      k.network_names, g.business_name FROM (${groups('group_key, tin_type, tin_value, npis, business_name')}) g JOIN __mpick k USING (group_key, __src)`, work);
    await con.run('DROP TABLE __mpick');
    for (const name of ['group_members', 'group_files', 'group_sets', 'bundles', 'plan_files', 'allowed_amounts']) {
      counts[name] = await copySelectToTable(con, T(name), `SELECT DISTINCT * FROM (${union(name)})`, work);
    }
    counts.plans = await copySelectToTable(con, T('plans'), `SELECT DISTINCT ON (plan_key) * FROM (${union('plans')}) ORDER BY plan_key`, work);
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
