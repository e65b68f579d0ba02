/**
 * The rates side of the NetworkPort over a snapshot's TiC tables (schemas/pricing-tables.ts).
 *
 * A rates row is one negotiated price for one provider-group SET (set_ref; group_set_key in a
 * snapshot written before set_ref: SnapshotDb.setColumn); group_sets lists the set's member
 * groups, one row per (set, group). The port still answers per group (RateRow
 * carries group_key, network-status.ports.ts): rates() looks up the sets of the asked groups, reads
 * the code's rows of those sets, and expands each row once per asked group that its set holds.
 *
 * Every rates query filters billing_code_type AND code_prefix (the hive partitions: the partition
 * directories are read directly) AND billing_code (the sort key, so row-group statistics prune),
 * plus a set range and list (the second sort key); group_sets lookups filter a group_key
 * range and list (its sort key). A lookup touches a handful of row groups, not the table.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PRICE_TERMS, RATES, ratesViewSql } from '../../../schemas/pricing-tables.ts';
import { tableDir } from '../../../schemas/snapshot-layout.ts';
import { PRICE_TERMS_MEM, type SnapshotDb } from './snapshot.duckdb.ts';
import type { CodeRef, RateDistribution, RateRow } from '../network-status.ports.ts';
import { allFiles, chunked, groupKeyRange, groupStates, keyRange, memTable, perSnapshot, sqlStr, sqlStrList } from './network-tables.duckdb.ts';

/** Percentage rates are not dollars; distributions and ranges use dollar rates only. */
const DOLLAR_RATES = "negotiated_type <> 'percentage'";

const RATE_COLS = 'billing_code_type, billing_code, negotiated_type, negotiated_rate, negotiation_arrangement, billing_class, setting, service_code, billing_code_modifier, expiration_date, file_keys';

/**
 * The code's possible code_prefix values: every leading substring. The writer uses codePrefix
 * (schemas/pricing-tables.ts CODE_PREFIX_LENGTH: 2 since 2026-11-22, 3 before), so a lookup does
 * not hard-code the length: the partition that exists is the one whose value starts the code,
 * and snapshots written before and after the change read alike.
 */
function prefixesOf(code: string): string[] {
  return Array.from({ length: code.length }, (_, i) => code.slice(0, i + 1));
}

function ratePredicate(code: CodeRef): string {
  return `billing_code_type IN (${sqlStrList(code.types)}) AND code_prefix IN (${sqlStrList(prefixesOf(code.code))}) AND billing_code = ${sqlStr(code.code)}`;
}

/**
 * The rates rows of one code, read from its hive partition directories directly
 * (rates/billing_code_type=T/code_prefix=P/): globbing the whole table through the view costs
 * ~15 ms a query on a few hundred partitions, the direct read ~1 ms. Null when no partition
 * exists (no rows for the code). Falls back to the view when the snapshot directory is unknown.
 */
export function ratesFrom(db: SnapshotDb, code: CodeRef): string | null {
  const dir = db.current()?.dir;
  if (!dir) return `(SELECT * FROM rates WHERE ${ratePredicate(code)})`;
  const parts = code.types
    .flatMap((t) => prefixesOf(code.code).map((p) => join(tableDir(dir, RATES), `billing_code_type=${t}`, `code_prefix=${p}`)))
    .filter((d) => existsSync(d))
    .map((d) => `SELECT * FROM read_parquet(${sqlStr(join(d, '*.parquet'))}, hive_partitioning = true, hive_types = {'billing_code_type': VARCHAR, 'code_prefix': VARCHAR}, union_by_name = true) WHERE billing_code = ${sqlStr(code.code)}`);
  if (!parts.length) return null;
  // The stored rows name their terms (price_terms, in memory); a snapshot from before price_terms
  // holds them on the row (schemas/pricing-tables.ts viewSql).
  return db.hasRows(PRICE_TERMS.name) ? `(${ratesViewSql(`(${parts.join(' UNION ALL ')})`, PRICE_TERMS_MEM, db.setColumn())})` : `(${parts.join(' UNION ALL ')})`;
}

/**
 * group_sets rows up to which set lookups use an in-memory index (a JS Map group_key -> its set
 * keys, built once per snapshot: measured 18 MB of heap and 0.14 s for 420k rows, so ~210 MB at
 * the limit). A lookup in the
 * Parquet decodes whole row groups of group_key (122,880 rows: 5-9 ms measured on 420k rows on
 * these 2 cores), an in-memory DuckDB table still costs ~2-3 ms a query, the Map microseconds.
 * Above the limit the Parquet is read (its sort order still prunes row groups).
 */
export const GROUP_SETS_IN_MEMORY = 5_000_000;

/** group_sets rows of the open snapshot (manifest); 0 means no rate row names a group. */
const groupSetRows = async (db: SnapshotDb): Promise<number> => db.rowCount('group_sets');

/**
 * A set as the JS side names it: the set column's value as text (set_ref's decimal digits, or the
 * group_set_key itself), so Map keys are alike in both layouts.
 */
const setText = (db: SnapshotDb): string => `${db.setColumn()}::VARCHAR`;

/** A set (setText) as an SQL literal of the set column's type. */
function setLit(db: SnapshotDb, key: string): string {
  if (db.setColumn() === 'group_set_key') return sqlStr(key);
  if (!/^\d{1,10}$/.test(key)) throw new Error(`not a set_ref: ${key}`);
  return key;
}

/** Sets (setText) in the set column's order: numbers by value, keys as text. */
function sortSets(db: SnapshotDb, keys: Iterable<string>): string[] {
  const out = [...keys];
  return db.setColumn() === 'group_set_key' ? out.sort() : out.sort((a, b) => Number(a) - Number(b));
}

/** `col BETWEEN min AND max AND ` over sets sorted by sortSets (row-group pruning on the rates' second sort key). */
function setRange(db: SnapshotDb, sorted: readonly string[]): string {
  if (db.setColumn() === 'group_set_key') return keyRange('group_set_key', sorted);
  return sorted.length ? `set_ref BETWEEN ${setLit(db, sorted[0]!)} AND ${setLit(db, sorted[sorted.length - 1]!)} AND ` : '';
}

/**
 * group_key -> its sets (setText) joined by chr(29), per snapshot. Read as 16 aggregated strings
 * (one JS object per row costs ~17 us); sets are numbers or hex digests, never holding the separators.
 */
const groupSetIndex = perSnapshot(async (db): Promise<Map<string, string>> => {
  const rows = await db.query<{ s: string | null }>(`SELECT string_agg(group_key || chr(31) || keys, chr(30)) AS s
    FROM (SELECT group_key, string_agg(${setText(db)}, chr(29)) AS keys FROM group_sets GROUP BY group_key) GROUP BY hash(group_key) % 16`);
  const m = new Map<string, string>();
  for (const { s } of rows) {
    for (const item of s ? s.split('\u001e') : []) {
      const cut = item.indexOf('\u001f');
      if (cut > 0) m.set(item.slice(0, cut), item.slice(cut + 1));
    }
  }
  return m;
});

/**
 * set (setText) -> the asked groups that set holds (only asked ones: a 500-group set asked for
 * one group expands to one row). From the in-memory index when group_sets has at most
 * `inMemoryLimit` rows; else from the Parquet, sorted by (group_key, group_set_key), so the
 * group_key range plus list prunes row groups.
 */
export async function setsOfGroups(db: SnapshotDb, groupKeys: readonly string[], inMemoryLimit = GROUP_SETS_IN_MEMORY): Promise<Map<string, string[]>> {
  const sets = new Map<string, string[]>();
  const n = groupKeys.length ? await groupSetRows(db) : 0;
  if (!n) return sets;
  const add = (set: string, group: string): void => {
    const l = sets.get(set);
    if (l) l.push(group);
    else sets.set(set, [group]);
  };
  const wanted = [...new Set(groupKeys)].sort();
  if (n <= inMemoryLimit) {
    const index = await groupSetIndex(db);
    for (const g of wanted) for (const k of index.get(g)?.split('\u001d') ?? []) add(k, g);
    return sets;
  }
  const rows = await chunked(wanted, (p) =>
    db.query<{ set_key: string; group_key: string }>(`SELECT ${setText(db)} AS set_key, group_key FROM group_sets WHERE ${groupKeyRange(p)}group_key IN (${sqlStrList(p)})`));
  for (const r of rows) add(r.set_key, r.group_key);
  return sets;
}

/**
 * The set column in these sets. DuckDB plans an IN list of more than a few constants as a hash
 * (mark) join, which costs ~2 ms more a query than list_contains over a short list (measured on
 * the 5 M-row benchmark snapshot, ~12 keys, 2 cores); list_contains is a linear scan of the list
 * per row, so long lists keep the IN.
 */
function setFilter(db: SnapshotDb, keys: readonly string[]): string {
  const col = db.setColumn();
  const list = keys.map((k) => setLit(db, k)).join(', ');
  return keys.length <= 64 ? `list_contains([${list}], ${col})` : `${col} IN (${list})`;
}

/**
 * The code's rates for these groups, one RateRow per (rate row, asked group in its set): the
 * port's per-group shape (network-status.network.ts groups rates by group_key), so a price
 * published once for a set of groups reaches each asked group it applies to.
 * `plainSql` answers through the rates view (ratesFrom) instead of ratesDirect: tests compare the two.
 */
export async function ratesForGroups(db: SnapshotDb, code: CodeRef, groupKeys: readonly string[], plainSql = false): Promise<RateRow[]> {
  if (!groupKeys.length) return [];
  const direct = !plainSql && directRates(db);
  const from = direct ? null : ratesFrom(db, code);
  if (!direct && !from) return [];
  const sets = await setsOfGroups(db, groupKeys);
  if (!sets.size) return [];
  const rows = direct
    ? await ratesDirect(db, code, sortSets(db, sets.keys()))
    : await chunked(sortSets(db, sets.keys()), (p) =>
      db.query<Omit<RateRow, 'group_key'> & { set_key: string }>(`SELECT ${RATE_COLS}, ${setText(db)} AS set_key FROM ${from} WHERE ${setRange(db, p)}${setFilter(db, p)}`));
  const out: RateRow[] = [];
  for (const { set_key, ...r } of rows) for (const g of sets.get(set_key) ?? []) out.push({ ...r, group_key: g });
  return out;
}

/**
 * Whether ratesDirect can answer for the open snapshot: its rates name sets by set_ref and their
 * terms in price_terms (every snapshot written since 2026-11-22), and its directory is known.
 */
export function directRates(db: SnapshotDb): boolean {
  return !!db.current()?.dir && db.setColumn() === 'set_ref' && db.hasRows(PRICE_TERMS.name);
}

/** A price_terms row as the rates view joins it (plain JS values, as db.query returns them). */
type TermsRow = Pick<RateRow, 'negotiated_type' | 'billing_class' | 'setting' | 'service_code' | 'billing_code_modifier' | 'expiration_date'>;

/**
 * price_terms by terms_id, per snapshot: one row per distinct combination of terms (a handful to
 * a few thousand), so the join of the rates view is a Map lookup per row in JS instead of a hash
 * join built in DuckDB for every query.
 */
const termsById = perSnapshot(async (db): Promise<Map<number, TermsRow>> => {
  const rows = await db.query<TermsRow & { terms_id: number }>(`SELECT terms_id, negotiated_type, expiration_date, service_code, billing_class, setting, billing_code_modifier FROM ${PRICE_TERMS_MEM}`);
  return new Map(rows.map(({ terms_id, ...t }) => [terms_id, t]));
});

/**
 * Per snapshot: a rates partition directory -> its Parquet files (sorted), or null when it does
 * not exist. Bounded by the partitions of the snapshot (a few hundred).
 */
const partitionFiles = perSnapshot(async (): Promise<Map<string, string[] | null>> => new Map());

/**
 * The code's rates rows in these sets (sorted by sortSets), read from the code's partition files
 * directly: the files named (no glob), no hive-partition columns (the type is the directory's
 * value), only the columns a RateRow needs, and the terms joined in JS (termsById). Same rows and
 * values as the rates view: measured 2026-11-28 on the 50 M-row benchmark snapshot, the view's
 * query cost 6.5 ms of CPU, the direct read 4.5 ms (docs/performance-log.md).
 */
async function ratesDirect(db: SnapshotDb, code: CodeRef, sets: readonly string[]): Promise<(Omit<RateRow, 'group_key'> & { set_key: string })[]> {
  const dir = db.current()!.dir;
  const [terms, files] = await Promise.all([termsById(db), partitionFiles(db)]);
  const reads: string[] = [];
  for (const t of code.types) {
    for (const p of prefixesOf(code.code)) {
      const d = join(tableDir(dir, RATES), `billing_code_type=${t}`, `code_prefix=${p}`);
      let list = files.get(d);
      if (list === undefined) {
        list = existsSync(d) ? readdirSync(d).filter((f) => f.endsWith('.parquet')).sort().map((f) => join(d, f)) : null;
        files.set(d, list);
      }
      if (list?.length) reads.push(`SELECT ${sqlStr(t)} AS billing_code_type, billing_code, negotiated_rate, negotiation_arrangement, terms_id, file_keys, set_ref FROM read_parquet([${list.map(sqlStr).join(', ')}], union_by_name = true) WHERE billing_code = ${sqlStr(code.code)}`);
    }
  }
  if (!reads.length) return [];
  const rows = await chunked(sets, (p) =>
    db.query<{ billing_code_type: string; billing_code: string; negotiated_rate: number; negotiation_arrangement: string; terms_id: number; file_keys: string[]; set_ref: number }>(
      `SELECT * FROM (${reads.join(' UNION ALL ')}) WHERE ${setRange(db, p)}${setFilter(db, p)}`));
  const out: (Omit<RateRow, 'group_key'> & { set_key: string })[] = [];
  for (const r of rows) {
    const t = terms.get(r.terms_id);
    // The view's inner join drops a row whose terms are missing; so does this.
    if (!t) continue;
    // Keys in the view's column order (RATE_COLS), so answers serialise alike.
    out.push({
      billing_code_type: r.billing_code_type, billing_code: r.billing_code, negotiated_type: t.negotiated_type, negotiated_rate: r.negotiated_rate,
      negotiation_arrangement: r.negotiation_arrangement, billing_class: t.billing_class, setting: t.setting,
      service_code: t.service_code && [...t.service_code], billing_code_modifier: t.billing_code_modifier && [...t.billing_code_modifier],
      expiration_date: t.expiration_date, file_keys: r.file_keys, set_key: String(r.set_ref),
    });
  }
  return out;
}

/** Codes the warm-up found in the rates table, per snapshot (codeHasRates answers them without a query). */
const codesWithRates = new WeakMap<SnapshotDb, { snapshot: string; codes: Set<string> }>();

/** Whether any rates row exists for the code (any payer): from the warm-up's list, else one LIMIT 1 read. */
export async function codeHasRows(db: SnapshotDb, code: CodeRef): Promise<boolean> {
  const known = codesWithRates.get(db);
  if (known && known.snapshot === (db.current()?.id ?? '') && code.types.some((t) => known.codes.has(`${t}:${code.code}`))) return true;
  const from = ratesFrom(db, code);
  if (!from) return false;
  const r = await db.query<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${from} LIMIT 1)`);
  return (r[0]?.n ?? 0) > 0;
}

/**
 * set (the set column) -> the states its groups' members practise in (chr(31)-joined), an in-memory
 * table built once per snapshot from group_sets x the group-states table: the typical-rate sample
 * then reads each sampled row's states with one small hash join instead of scanning group_sets
 * (sorted by group_key, so a lookup by set key cannot prune) for every code.
 */
const setStates = async (db: SnapshotDb): Promise<string> => {
  const gst = await groupStates(db);
  const col = db.setColumn();
  return memTable(db, 'mem_set_states', `SELECT gs.${col} AS set_key, array_to_string(list_sort(list(DISTINCT st.state)), chr(31)) AS states
    FROM group_sets gs JOIN "${gst}" st ON st.group_key = gs.group_key WHERE st.state IS NOT NULL AND st.state <> ''
    GROUP BY gs.${col} ORDER BY gs.${col}`);
};

/**
 * The sets holding a member that stands for a remote provider reference the ingest could not fetch
 * (group_sets.unresolved_location, issue 37), in memory once per snapshot: their rates rows are
 * published rates whose providers the file did not name. They name no provider, so no group lookup
 * reaches them; the code's distribution counts them (sampleDistribution).
 */
const unnamedSets = (db: SnapshotDb): Promise<string> =>
  memTable(db, 'mem_unnamed_sets', `SELECT DISTINCT ${db.setColumn()} AS set_key FROM group_sets WHERE unresolved_location IS NOT NULL ORDER BY 1`);

/** Builds the per-snapshot rate-set tables (set lookup, set states) so the first requests do not pay for them. */
export async function warmRateSets(db: SnapshotDb): Promise<void> {
  const n = await groupSetRows(db);
  await Promise.all([n && n <= GROUP_SETS_IN_MEMORY ? groupSetIndex(db) : null, setStates(db), unnamedSets(db)]);
}

/** Rows of a code above which the local distribution is computed from a reservoir sample. */
export const DIST_SAMPLE = 5000;

/** Continuous quantile with linear interpolation (DuckDB quantile_cont semantics) over sorted values. */
function quantileCont(sorted: number[], q: number): number | null {
  if (!sorted.length) return null;
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * Rows of `fileKeys`: most rows list one file, so an IN on the first element (a hash probe)
 * answers them and list_has_any (slower: it materialises the lists) runs only for the rest.
 */
function inFiles(fileKeys: readonly string[]): string {
  if (!fileKeys.length) return 'true';
  const list = sqlStrList(fileKeys);
  return `(file_keys[1] IN (${list}) OR (len(file_keys) > 1 AND list_has_any(file_keys, [${list}])))`;
}

/** (code, files) samples kept per snapshot (each at most DIST_SAMPLE numbers per state: ~80 KB). */
export const DIST_CACHE = 512;

/** A code's rates in a set of files: the (sampled) values, overall and per state of the price's groups' members. */
interface DistSample {
  total: number;
  all: number[];
  byState: Map<string, number[]>;
  /**
   * Sampled values of published rates whose providers the file did not name (an unresolved remote
   * reference) and no named group's state either: in `all`, and in a state's values when the
   * distribution is the payer's own (its unnamed providers may practise there).
   */
  unnamed: number[];
  /** Rows (of `total`) whose set holds an unresolved reference. */
  unnamedTotal: number;
  none: boolean;
}

/** Per snapshot: (code, files) -> sample, a bounded LRU (Map order = recency), shared with the warm-up. */
const distCaches = new WeakMap<SnapshotDb, { snapshot: string; m: Map<string, Promise<DistSample>> }>();

/**
 * The (code, files) sample, from the cache or computed once. When the files are every file of the
 * snapshot (one payer publishes them all) the list filter keeps every row: it is skipped, with the
 * decoding of the file_keys lists, and the sample is shared with the unscoped one (key '*').
 */
async function distSample(db: SnapshotDb, code: CodeRef, fileKeys: readonly string[]): Promise<DistSample> {
  const snap = db.current()?.id ?? '';
  let c = distCaches.get(db);
  if (!c || c.snapshot !== snap) {
    c = { snapshot: snap, m: new Map() };
    distCaches.set(db, c);
  }
  const every = await allFiles(db);
  const wanted = new Set(fileKeys);
  const scoped = fileKeys.length > 0 && !(every.size > 0 && [...every].every((f) => wanted.has(f)));
  const key = JSON.stringify([code.types, code.code, scoped ? [...wanted].sort() : '*']);
  const m = c.m;
  let p = m.get(key);
  if (p) {
    m.delete(key);
  } else {
    p = sampleDistribution(db, code, scoped ? fileKeys : []);
    p.catch(() => m.delete(key));
    while (m.size >= DIST_CACHE) m.delete(m.keys().next().value!);
  }
  m.set(key, p);
  return p;
}

/** The code's rate distribution in these files, restricted to providers in `state` when given. */
export async function localDistribution(db: SnapshotDb, code: CodeRef, fileKeys: readonly string[], state: string | null): Promise<RateDistribution> {
  return distributionFor(await distSample(db, code, fileKeys), state, fileKeys.length > 0);
}

/**
 * Precomputes the unscoped samples of the snapshot's busiest codes (at most DIST_CACHE), one at a
 * time, in the background after publication: the first request for a code then finds its typical
 * rate ready instead of scanning the code's rows (the p95 tail of network-status with a code).
 * Stops when another snapshot is published; errors end it quietly (requests compute on demand).
 */
export async function warmDistributions(db: SnapshotDb): Promise<number> {
  const snap = db.current()?.id;
  if (!snap || !db.hasRows('rates')) return 0;
  const codes = await db.query<{ t: string; c: string }>(`SELECT billing_code_type AS t, billing_code AS c FROM rates GROUP BY ALL ORDER BY count(*) DESC, c LIMIT ${DIST_CACHE}`);
  codesWithRates.set(db, { snapshot: snap, codes: new Set(codes.map((r) => `${r.t}:${r.c}`)) });
  const seen = new Set<string>();
  let n = 0;
  for (const { t, c } of codes) {
    if (db.current()?.id !== snap) break;
    const ref: CodeRef = t === 'MS-DRG' ? { types: ['MS-DRG'], code: c } : { types: ['CPT', 'HCPCS'], code: c };
    const k = JSON.stringify(ref);
    if (seen.has(k)) continue;
    seen.add(k);
    await distSample(db, ref, []);
    n++;
  }
  return n;
}

/**
 * Samples the code's dollar rates: rate rows first (reservoir), then each sampled row's states
 * from the set-states table.
 *
 * What one value is: one rates row, that is one published price for one provider-group set, as
 * the payer's file lists it once with its provider_references. A price that applies to twelve
 * groups counts once, not twelve times (before the set layout, rows were exploded per group and a
 * price counted once per group it named: large sets outweighed everything else). Per state, a
 * price counts once in each state where a member of any group of its set practises (the same
 * rule as before for one group, applied to the union of the set's groups).
 */
async function sampleDistribution(db: SnapshotDb, code: CodeRef, fileKeys: readonly string[]): Promise<DistSample> {
  const from = ratesFrom(db, code);
  if (!from) return { total: 0, all: [], byState: new Map(), unnamed: [], unnamedTotal: 0, none: true };
  const filter = fileKeys.length ? inFiles(fileKeys) : 'true';
  const [states, unnamed] = await Promise.all([setStates(db), unnamedSets(db)]);
  // A snapshot without group_sets rows (written before the set layout, whose rates have no set
  // column) still gets its overall distribution, with no per-state values.
  const setKey = (await groupSetRows(db)) ? `${db.setColumn()} AS set_key` : 'NULL AS set_key';
  // One aggregated string back instead of one JS object per row (the per-row path costs ~17 µs a
  // row); each item is "u states<GS>rate" (u: 1 when the row's providers are unnamed, else 0) so
  // the pairing never depends on aggregation order.
  // Above DIST_SAMPLE rows (common codes at national scale: 100k rows) a deterministic reservoir
  // sample keeps the cost flat; the quartiles of 5,000 draws are well within a dollar's noise.
  const rows = await db.query<{ s: string | null; total: number; unnamed: number }>(`WITH r AS MATERIALIZED (SELECT ${setKey}, negotiated_rate FROM ${from} WHERE ${DOLLAR_RATES} AND ${filter}),
      smp AS (SELECT * FROM r USING SAMPLE reservoir(${DIST_SAMPLE} ROWS) REPEATABLE (7))
    SELECT (SELECT count(*) FROM r) AS total, (SELECT count(*) FROM r SEMI JOIN "${unnamed}" u ON u.set_key = r.set_key) AS unnamed,
      (SELECT string_agg(CASE WHEN u.set_key IS NULL THEN '0' ELSE '1' END || coalesce(ss.states, '') || chr(29) || smp.negotiated_rate::VARCHAR, chr(30))
        FROM smp LEFT JOIN "${states}" ss ON ss.set_key = smp.set_key LEFT JOIN "${unnamed}" u ON u.set_key = smp.set_key) AS s`);
  const all: number[] = [];
  const unnamedValues: number[] = [];
  const byState = new Map<string, number[]>();
  for (const item of rows[0]?.s ? rows[0].s.split('\u001e') : []) {
    const cut = item.lastIndexOf('\u001d');
    if (cut < 1) continue;
    const v = Number(item.slice(cut + 1));
    if (!Number.isFinite(v)) continue;
    all.push(v);
    if (item[0] === '1' && cut === 1) unnamedValues.push(v);
    for (const st of cut > 1 ? item.slice(1, cut).split('\u001f') : []) { const l = byState.get(st); if (l) l.push(v); else byState.set(st, [v]); }
  }
  all.sort((a, b) => a - b);
  unnamedValues.sort((a, b) => a - b);
  for (const l of byState.values()) l.sort((a, b) => a - b);
  return { total: rows[0]?.total ?? 0, all, byState, unnamed: unnamedValues, unnamedTotal: rows[0]?.unnamed ?? 0, none: false };
}

/** Two ascending lists as one. */
function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  return [...a, ...b].sort((x, y) => x - y);
}

/** The distribution of one state (or all) from a (code, files) sample. */
function distributionFor(d: DistSample, state: string | null, payerScoped: boolean): RateDistribution {
  if (d.none) return { n: 0, p25: null, p50: null, p75: null, scope: 'no published rates for this code' };
  // A payer's rates whose providers its file did not name (unresolved remote references) may be
  // for providers in any state of its network: they count in its state distributions too, said so.
  const withUnnamed = state !== null && payerScoped && d.unnamed.length > 0;
  const scope = `${payerScoped ? 'same payer' : 'every payer'}${state ? `, providers practising in ${state}${withUnnamed ? ' or not named by the file' : ''}` : ''}`;
  const values = state ? (withUnnamed ? mergeSorted(d.byState.get(state) ?? [], d.unnamed) : d.byState.get(state) ?? []) : d.all;
  // n is the count the quartiles rest on; the words say when it is a sample of a larger set.
  const sampled = d.total > DIST_SAMPLE ? `; quartiles from a sample of ${DIST_SAMPLE.toLocaleString('en-US')} of ${d.total.toLocaleString('en-US')} rates` : '';
  const unnamed = (state === null || withUnnamed) && d.unnamedTotal > 0
    ? `; ${d.unnamedTotal.toLocaleString('en-US')} of the code's ${d.total.toLocaleString('en-US')} published rates are rates whose providers the file did not name`
    : '';
  const scopeWords = `${scope}${sampled}${unnamed}`;
  return { n: values.length, p25: quantileCont(values, 0.25), p50: quantileCont(values, 0.5), p75: quantileCont(values, 0.75), scope: scopeWords };
}
