/**
 * `ingest tic --resume` of a partial file (issue 37): its remote provider references that could
 * not be fetched are fetched again, and only those; the file is not read again. What they answer
 * is patched into the file's staged tables (staged-layout.ts), as finish() would have staged it:
 *
 * - the fetched groups are staged by a TicStager of their own ('refetch': ids from
 *   REFETCH_ID_BASE, or past an earlier resume's, NPIs appended to group_npis.2.bin) and added to
 *   groups.parquet;
 * - in group_sets.parquet, a set key holding a member that stood for a location now resolved gets
 *   that location's groups instead, and its key is computed again from its members
 *   (GROUP_SET_KEY_SQL), so the set is the one a run that fetched it at once would have staged;
 * - sets.parquet names the new keys; unresolved_refs.parquet keeps what is still unresolved.
 *
 * Each table is written beside the old one and renamed over it, then done.json (its sizes and
 * counts) last: a kill midway leaves sizes that no longer match, and the file is read again.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { resolveRemoteReferences, type RemoteRef, type ResolveStats } from '../tic/remote-refs.ts';
import type { WarningSummary } from '../report/warnings.ts';
import { ZSTD, lit } from './duck.ts';
import { GROUP_SET_KEY_SQL } from './keys.ts';
import { replayRows, RowRecorder } from './stage-rows.ts';
import { STAGE_TABLES, type DoneMarker } from './staged-layout.ts';
import { REFETCH_ID_BASE, TicStager, type StageTable } from './tic-stager.ts';
import type { RemoteTuning } from './remote.ts';

/** Stages fetched references into recorded rows (no DuckDB appender: the file's tables are Parquet by now). */
class RefetchStager extends TicStager {
  readonly recorders: Map<StageTable, RowRecorder>;

  constructor(src: string, dir: string, idBase: number, recorders: Map<StageTable, RowRecorder>) {
    super({ src, dir }, (name) => recorders.get(name)!, 'refetch', idBase);
    this.recorders = recorders;
  }

  /** Closes the NPI file; the stager stages no prices (their file is removed). */
  async close(): Promise<void> {
    this.groupNpis.close();
    await this.prices.abort();
  }
}

export interface RefetchOptions {
  duck: DuckDBInstance;
  signal?: AbortSignal | undefined;
  allowPrivateNetwork?: boolean | undefined;
  parser?: 'fast' | 'reference' | undefined;
  tuning?: RemoteTuning | undefined;
}

const pq = (dir: string, name: string): string => lit(join(dir, `${name}.parquet`));

/**
 * Fetches a partial file's unresolved references again and patches its staged tables; returns the
 * updated marker (written to done.json), or the marker with the same counts when none answered.
 */
export async function refetchUnresolved(dir: string, m: DoneMarker, o: RefetchOptions): Promise<DoneMarker> {
  const con = await o.duck.connect();
  const tmp = join(dir, 'refetch.tmp');
  try {
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    const refs = (await con.runAndReadAll(`SELECT ref_id, location FROM read_parquet(${pq(dir, 'unresolved_refs')}) ORDER BY ref_id`)).getRows()
      .map(([refId, location]): RemoteRef => ({ refId: String(refId), location: String(location) }));
    // Past the groups an earlier resume staged (their NPIs are in group_npis.2.bin already).
    const maxGid = Number((await con.runAndReadAll(`SELECT coalesce(max(gid), 0) FROM read_parquet(${pq(dir, 'groups')})`)).getRows()[0]![0]);
    const recorders = new Map<StageTable, RowRecorder>(Object.keys(STAGE_TABLES).map((t) => [t as StageTable, new RowRecorder()]));
    const stager = new RefetchStager(m.src, tmp, Math.max(REFETCH_ID_BASE, maxGid), recorders);
    const resolvedLocations = new Set<string>();
    const reasons = new Map<string, string>();
    const t0 = performance.now();
    let stats: ResolveStats;
    try {
      stats = await resolveRemoteReferences(refs, stager, {
        ...o.tuning, signal: o.signal, allowPrivateNetwork: o.allowPrivateNetwork, parser: o.parser,
        onUnresolved: (location, reason) => reasons.set(location, reason),
      });
    } finally {
      await stager.close();
    }
    const remote = { ...stats, seconds: (performance.now() - t0) / 1000 };
    for (const r of refs) if (!reasons.has(r.location)) resolvedLocations.add(r.location);
    if (resolvedLocations.size === 0) return { ...m, remote };
    await stageRecorded(con, recorders);
    const patched = await patchTables(con, dir, m.fileKey);
    // The fetched groups' NPIs after the earlier ones (their gids are larger: the readers' order).
    const npis = join(tmp, 'group_npis.2.bin');
    if (existsSync(npis)) appendFileSync(join(dir, 'group_npis.2.bin'), readFileSync(npis));
    for (const name of PATCHED) renameSync(join(dir, `${name}.parquet.new`), join(dir, `${name}.parquet`));
    if (patched.unresolvedRefs === 0) rmSync(join(dir, 'unresolved_refs.parquet'), { force: true });
    else renameSync(join(dir, 'unresolved_refs.parquet.new'), join(dir, 'unresolved_refs.parquet'));
    rmSync(join(dir, 'unresolved_refs.parquet.new'), { force: true });
    const resolvedIds = refs.filter((r) => resolvedLocations.has(r.location)).length;
    return {
      ...m,
      counts: {
        ...m.counts, groups: m.counts.groups + patched.groups, group_sets: patched.sets,
        unresolved_references: Math.max(0, m.counts.unresolved_references - resolvedIds),
        unresolved_remote_references: patched.unresolvedRefs, unresolved_prices: patched.unresolvedPrices,
      },
      warnings: withoutResolved(m.warnings as WarningSummary, resolvedLocations, resolvedIds),
      finishedAt: new Date().toISOString(), remote,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    con.closeSync();
  }
}

/** The staged tables the patch rewrites (unresolved_refs aside). */
const PATCHED = ['groups', 'group_sets', 'sets'] as const;

/** The recorded refs and groups rows into TEMP tables fetched_refs / fetched_groups. */
async function stageRecorded(con: DuckDBConnection, recorders: Map<StageTable, RowRecorder>): Promise<void> {
  for (const [table, into] of [['refs', 'fetched_refs'], ['groups', 'fetched_groups']] as const) {
    await con.run(`CREATE OR REPLACE TEMP TABLE ${into} (${STAGE_TABLES[table]})`);
    const values = recorders.get(table)!.take();
    if (!values) continue;
    const ap = await con.createAppender(into, 'main', 'temp');
    replayRows(ap, STAGE_TABLES[table], values);
    ap.closeSync();
  }
}

/** Writes groups, group_sets, sets and unresolved_refs as `<name>.parquet.new`; returns the new counts. */
async function patchTables(con: DuckDBConnection, dir: string, fileKey: string): Promise<{ groups: number; sets: number; unresolvedRefs: number; unresolvedPrices: number }> {
  const copy = (name: string, select: string): Promise<unknown> =>
    con.run(`COPY (${select}) TO ${lit(join(dir, `${name}.parquet.new`))} (FORMAT parquet, ${ZSTD})`);
  // Each location now resolved, with its groups (every ref id of a location had its answer).
  await con.run(`CREATE OR REPLACE TEMP TABLE loc_groups AS SELECT DISTINCT u.location, f.group_key
    FROM read_parquet(${pq(dir, 'unresolved_refs')}) u JOIN fetched_refs f ON f.ref_id = u.ref_id WHERE f.group_key IS NOT NULL`);
  await con.run(`CREATE OR REPLACE TEMP TABLE gs_old AS SELECT group_set_key, group_key, location FROM read_parquet(${pq(dir, 'group_sets')})`);
  // The members of every set key that held a resolved location, with the location's groups in its place.
  await con.run(`CREATE OR REPLACE TEMP TABLE gs_new AS SELECT DISTINCT g.group_set_key AS old_key, coalesce(l.group_key, g.group_key) AS group_key,
      CASE WHEN l.group_key IS NULL THEN g.location END AS location
    FROM gs_old g LEFT JOIN loc_groups l ON l.location = g.location
    WHERE g.group_set_key IN (SELECT g2.group_set_key FROM gs_old g2 JOIN loc_groups l2 ON l2.location = g2.location)`);
  await con.run(`CREATE OR REPLACE TEMP TABLE key_map AS SELECT old_key, ${GROUP_SET_KEY_SQL} AS new_key
    FROM (SELECT DISTINCT old_key, group_key FROM gs_new) GROUP BY old_key`);
  await copy('group_sets', `SELECT DISTINCT * FROM (
      SELECT group_set_key, group_key, location FROM gs_old WHERE group_set_key NOT IN (SELECT old_key FROM key_map)
      UNION ALL SELECT k.new_key, n.group_key, n.location FROM gs_new n JOIN key_map k USING (old_key))`);
  await con.run(`CREATE OR REPLACE TEMP TABLE sets_new AS SELECT s.file_key, s.set_id, coalesce(k.new_key, s.group_set_key) AS group_set_key
    FROM read_parquet(${pq(dir, 'sets')}) s LEFT JOIN key_map k ON k.old_key = s.group_set_key`);
  await copy('sets', 'SELECT * FROM sets_new ORDER BY set_id');
  await copy('groups', `SELECT * FROM read_parquet(${pq(dir, 'groups')}) UNION ALL SELECT ${lit(fileKey)} AS file_key, * FROM fetched_groups`);
  await copy('unresolved_refs', `SELECT * FROM read_parquet(${pq(dir, 'unresolved_refs')}) WHERE location NOT IN (SELECT location FROM loc_groups) ORDER BY ref_id`);
  const prices = `read_parquet(${lit(join(dir, 'prices*.parquet'))})`;
  const [groups, sets, refs, kept] = (await con.runAndReadAll(`SELECT (SELECT count(*) FROM fetched_groups), (SELECT count(DISTINCT group_set_key) FROM sets_new),
      (SELECT count(*) FROM read_parquet(${pq(dir, 'unresolved_refs')}) WHERE location NOT IN (SELECT location FROM loc_groups)),
      (SELECT count(*) FROM ${prices} p JOIN sets_new s USING (set_id)
        WHERE s.group_set_key IN (SELECT n.group_set_key FROM (SELECT DISTINCT group_set_key, location FROM gs_old UNION ALL SELECT k.new_key, n.location FROM gs_new n JOIN key_map k USING (old_key)) n
          WHERE n.location IS NOT NULL AND n.location NOT IN (SELECT location FROM loc_groups)))`)).getRows()[0]!;
  return { groups: Number(groups), sets: Number(sets), unresolvedRefs: Number(refs), unresolvedPrices: Number(kept) };
}

/** The file's warnings without the unresolved_reference examples of locations now resolved. */
function withoutResolved(w: WarningSummary, resolved: ReadonlySet<string>, ids: number): WarningSummary {
  const u = w.unresolved_reference;
  if (!u) return w;
  const examples = u.examples.filter((e) => ![...resolved].some((l) => e.example.startsWith(`${l} (`)));
  const count = u.count - ids;
  const out = { ...w };
  if (count > 0) out.unresolved_reference = { ...u, count, examples };
  else delete out.unresolved_reference;
  return out;
}
