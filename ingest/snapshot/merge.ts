/**
 * `carebridge snapshot merge <dirs…> --out ROOT`: joins the snapshots of `ingest tic --shard i/n`
 * runs into one new snapshot. TiC tables are unioned and de-duplicated again (rates: identical rows
 * from different shards become one row whose file_keys is the union); other tables are carried
 * over from the first input that has them. Keys are content-derived (keys.ts), so shards agree.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_TABLES, TABLES_BY_NAME, type TableDef } from '../../schemas/pricing-tables.ts';
import { MANIFEST_FILE, STAGING_DIR, tableDir, tableScanSql } from '../../schemas/snapshot-layout.ts';
import { emptySelect } from './catalog.ts';
import { openDuck } from './duck.ts';
import { copySelectToTable } from './table-writer.ts';
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
  const union = (name: string): string => dirs.map((d) => `SELECT * FROM ${scan(d, T(name))}`).join(' UNION ALL BY NAME ');
  const counts: Record<string, number> = {};
  try {
    const rateCols = T('rates').columns.map((c) => c.name).filter((c) => c !== 'file_keys');
    counts.rates = await copySelectToTable(con, T('rates'), `SELECT ${rateCols.map((c) => `"${c}"`).join(', ')},
      list_sort(list_distinct(flatten(list(file_keys)))) AS file_keys FROM (${union('rates')}) GROUP BY ALL`, work);
    counts.provider_groups = await copySelectToTable(con, T('provider_groups'), `SELECT group_key, any_value(tin_type) AS tin_type,
      any_value(tin_value) AS tin_value, any_value(npis) AS npis, list_sort(list_distinct(flatten(list(network_names)))) AS network_names,
      any_value(business_name) AS business_name FROM (${union('provider_groups')}) GROUP BY group_key ORDER BY group_key`, work);
    for (const name of ['group_members', 'group_files', 'group_sets', 'bundles', 'plan_files', 'allowed_amounts']) {
      counts[name] = await copySelectToTable(con, T(name), `SELECT DISTINCT * FROM (${union(name)})`, work);
    }
    counts.plans = await copySelectToTable(con, T('plans'), `SELECT DISTINCT ON (plan_key) * FROM (${union('plans')}) ORDER BY plan_key`, work);
    counts.source_files = await copySelectToTable(con, T('source_files'),
      `SELECT DISTINCT ON (file_key) * FROM (${union('source_files')}) ORDER BY file_key, status = 'complete' DESC`, work);
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
