/**
 * SQL helpers and the per-snapshot in-memory structures of the TiC network tables
 * (schemas/pricing-tables.ts): the small lookup tables (groups, group files, group states) held as
 * in-memory DuckDB tables or JS Maps, built once per snapshot, so requests probe memory instead of
 * re-reading Parquet. network.duckdb.ts (the port) and rates.duckdb.ts (rates, rate sets and
 * distributions) build on these.
 *
 * Lists are inlined as escaped literals (DuckDB prepared parameters take scalars); every value
 * inlined is either a number or a string escaped by sqlStr.
 */
import type { SnapshotDb } from './snapshot.duckdb.ts';
import type { GroupRow } from '../network-status.ports.ts';

/** SQL string literal. */
export function sqlStr(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}
/** SQL list of string literals; `NULL` list when empty so `IN` matches nothing. */
export function sqlStrList(xs: readonly string[]): string {
  return xs.length ? xs.map(sqlStr).join(', ') : 'NULL';
}
/** SQL list of safe integers (others dropped); `NULL` list when empty. */
export function sqlNumList(xs: readonly number[]): string {
  const ok = xs.filter((x) => Number.isSafeInteger(x));
  return ok.length ? ok.join(', ') : 'NULL';
}

/** Runs `run` over slices of at most 2,000 values (long IN lists cost more to bind than to scan). */
export async function chunked<T>(xs: readonly string[], run: (part: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < xs.length; i += 2000) out.push(...(await run(xs.slice(i, i + 2000))));
  return out;
}

/**
 * `column BETWEEN min AND max AND ` for a sorted key list. The snapshot tables are written sorted
 * by their key (rates by billing_code then set_ref, group_sets by group_key: RATES and
 * GROUP_SETS sortBy in schemas/pricing-tables.ts), so the range lets row-group statistics prune row
 * groups, which an IN list alone does less well. Only for printable-ASCII keys (the generated
 * sha256 hex keys are), where JS and DuckDB string order agree; otherwise no prefix.
 */
export function keyRange(column: string, sorted: readonly string[]): string {
  if (!sorted.length || sorted.some((k) => !/^[\x20-\x7e]*$/.test(k))) return '';
  return `${column} BETWEEN ${sqlStr(sorted[0]!)} AND ${sqlStr(sorted[sorted.length - 1]!)} AND `;
}

/** keyRange on group_key (group_sets lookups by the groups of an NPI). */
export function groupKeyRange(sorted: readonly string[]): string {
  return keyRange('group_key', sorted);
}

/**
 * One value per snapshot per db: `build` runs once for the open snapshot and again after a new
 * one is published; a failed build is forgotten so the next call retries.
 */
export function perSnapshot<T>(build: (db: SnapshotDb) => Promise<T>): (db: SnapshotDb) => Promise<T> {
  const by = new WeakMap<SnapshotDb, { snapshot: string; p: Promise<T> }>();
  return (db) => {
    const snap = db.current()?.id ?? '';
    const prev = by.get(db);
    if (prev && prev.snapshot === snap) return prev.p;
    const p = build(db);
    p.catch(() => by.delete(db));
    by.set(db, { snapshot: snap, p });
    return p;
  };
}

const memTables = new WeakMap<SnapshotDb, Map<string, { snapshot: string; p: Promise<string> }>>();
/**
 * An in-memory DuckDB table of the snapshot's instance, built once per snapshot from `select`
 * (sorted so zone maps prune lookups). Parquet views re-read file metadata and decode pages on
 * every query; the small lookup tables (groups, group files, group states) are cheaper in memory.
 * `index` adds an ART index on that column, for tables looked up by a few keys at a time
 * (zone maps still decode a whole 122,880-row group per key; see docs/performance-log.md).
 */
export function memTable(db: SnapshotDb, base: string, select: string, o: { index?: string } = {}): Promise<string> {
  const snap = db.current()?.id ?? '';
  let byName = memTables.get(db);
  if (!byName) {
    byName = new Map();
    memTables.set(db, byName);
  }
  const prev = byName.get(base);
  if (prev && prev.snapshot === snap) return prev.p;
  const name = `${base}_${snap.replace(/[^A-Za-z0-9]/g, '_')}`;
  const p = db.query(`CREATE TABLE IF NOT EXISTS "${name}" AS ${select}`)
    .then(() => (o.index ? db.query(`CREATE INDEX IF NOT EXISTS "${name}_${o.index}" ON "${name}" (${o.index})`) : undefined))
    .then(() => name);
  const m = byName;
  p.catch(() => m.delete(base));
  m.set(base, { snapshot: snap, p });
  return p;
}

/** group_key -> states of its members (group_members x providers), in memory, built once per snapshot. */
export const groupStates = (db: SnapshotDb): Promise<string> =>
  memTable(db, 'mem_group_states', 'SELECT DISTINCT gm.group_key, p.state FROM group_members gm JOIN providers p ON p.npi = gm.npi ORDER BY p.state, gm.group_key');
/** provider_groups without the NPI lists (TIN and names only). */
const groupInfo = (db: SnapshotDb): Promise<string> =>
  memTable(db, 'mem_groups', 'SELECT group_key, tin_type, tin_value, business_name, network_names FROM provider_groups ORDER BY group_key');
const groupFilesMem = (db: SnapshotDb): Promise<string> =>
  memTable(db, 'mem_group_files', 'SELECT DISTINCT group_key, file_key FROM group_files ORDER BY group_key, file_key');

/** provider_groups rows and group_files lists keyed by group_key. */
export interface GroupMaps { groups: Map<string, GroupRow>; files: Map<string, string[]> }

/**
 * provider_groups (TIN and names, no NPI lists) and group_files as JS Maps keyed by group_key,
 * built once per snapshot: a `WHERE group_key IN (...)` over the in-memory DuckDB tables scanned
 * all ~200k rows per request (11-44 ms at 1M providers); a Map lookup is microseconds. Rows come
 * back as aggregated strings (one JS object per row costs ~17 us).
 */
export const groupMaps = perSnapshot(async (db): Promise<GroupMaps> => {
  const [gi, gf] = await Promise.all([groupInfo(db), groupFilesMem(db)]);
  const US = '\u001f';
  const RS = '\u001e';
  const [groupRows, fileRows] = await Promise.all([
    db.query<{ s: string | null }>(`SELECT string_agg(group_key || chr(31) || coalesce(tin_type, chr(2)) || chr(31) || coalesce(tin_value, chr(2)) || chr(31) || coalesce(regexp_replace(business_name, '[\x1d-\x1f]', ' ', 'g'), chr(2)) || chr(31) || coalesce(array_to_string(list_transform(network_names, x -> regexp_replace(x, '[\x1d-\x1f]', ' ', 'g')), chr(29)), chr(2)), chr(30)) AS s FROM "${gi}" GROUP BY hash(group_key) % 16`),
    db.query<{ s: string | null }>(`SELECT string_agg(group_key || chr(31) || file_key, chr(30)) AS s FROM "${gf}" GROUP BY hash(group_key) % 16`),
  ]);
  const nul = (x: string | undefined): string | null => (x === undefined || x === '\u0002' ? null : x);
  const groups = new Map<string, GroupRow>();
  for (const { s } of groupRows) {
    for (const item of s ? s.split(RS) : []) {
      const [k, tt, tv, bn, nn] = item.split(US);
      if (k === undefined) continue;
      const names = nul(nn);
      groups.set(k, { group_key: k, tin_type: nul(tt), tin_value: nul(tv), business_name: nul(bn), network_names: names === null ? null : names ? names.split('\u001d') : [] });
    }
  }
  const files = new Map<string, string[]>();
  for (const { s } of fileRows) {
    for (const item of s ? s.split(RS) : []) {
      const cut = item.indexOf(US);
      if (cut < 0) continue;
      const k = item.slice(0, cut);
      const list = files.get(k);
      if (list) list.push(item.slice(cut + 1));
      else files.set(k, [item.slice(cut + 1)]);
    }
  }
  return { groups, files };
});

/** Every in-network file key of the snapshot (source_files), to skip a file filter that filters nothing. */
export const allFiles = perSnapshot((db) => db.query<{ file_key: string }>('SELECT DISTINCT file_key FROM source_files').then((r) => new Set(r.map((x) => x.file_key))));
