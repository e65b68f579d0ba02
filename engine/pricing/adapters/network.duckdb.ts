/**
 * NetworkPort over a snapshot's TiC tables (schemas/pricing-tables.ts). Every rates query filters
 * billing_code_type AND code_prefix (the hive partitions) AND billing_code (the sort key, so
 * row-group statistics prune), and every group_members query filters npi_bucket (partition) AND
 * npi (sort key): a lookup touches a handful of row groups, not the table.
 *
 * Lists are inlined as escaped literals (DuckDB prepared parameters take scalars); every value
 * inlined is either a number or a string escaped by sqlStr.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GROUP_MEMBERS, RATES } from '../../../schemas/pricing-tables.ts';
import { tableDir } from '../../../schemas/snapshot-layout.ts';
import type { SnapshotDb } from './snapshot.duckdb.ts';
import type { CodeRef, FilePlanRow, GroupRow, LinkedCoverage, NetworkPort, PlanRow, RateDistribution, RateRow } from '../network-status.ports.ts';

/** SQL string literal. */
export function sqlStr(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}
/** SQL list of string literals; `NULL` list when empty so `IN` matches nothing. */
export function sqlStrList(xs: readonly string[]): string {
  return xs.length ? xs.map(sqlStr).join(', ') : 'NULL';
}
function sqlNumList(xs: readonly number[]): string {
  const ok = xs.filter((x) => Number.isSafeInteger(x));
  return ok.length ? ok.join(', ') : 'NULL';
}

const PLAN_COLS = 'plan_key, reporting_entity_name, reporting_entity_type, plan_name, plan_id_type, plan_id, plan_market_type, plan_sponsor_name, issuer_name, payer_key';

/** Percentage rates are not dollars; distributions and ranges use dollar rates only. */
const DOLLAR_RATES = "negotiated_type <> 'percentage'";

function ratePredicate(code: CodeRef): string {
  return `billing_code_type IN (${sqlStrList(code.types)}) AND code_prefix = ${sqlStr(code.code.slice(0, 3))} AND billing_code = ${sqlStr(code.code)}`;
}

/**
 * The rates rows of one code, read from its hive partition directories directly
 * (rates/billing_code_type=T/code_prefix=P/): globbing the whole table through the view costs
 * ~15 ms a query on a few hundred partitions, the direct read ~1 ms. Null when no partition
 * exists (no rows for the code). Falls back to the view when the snapshot directory is unknown.
 */
function ratesFrom(db: SnapshotDb, code: CodeRef): string | null {
  const dir = db.current()?.dir;
  if (!dir) return `(SELECT * FROM rates WHERE ${ratePredicate(code)})`;
  const prefix = code.code.slice(0, 3);
  const parts = code.types
    .map((t) => join(tableDir(dir, RATES), `billing_code_type=${t}`, `code_prefix=${prefix}`))
    .filter((d) => existsSync(d))
    .map((d) => `SELECT * FROM read_parquet(${sqlStr(join(d, '*.parquet'))}, hive_partitioning = true, hive_types = {'billing_code_type': VARCHAR, 'code_prefix': VARCHAR}, union_by_name = true) WHERE billing_code = ${sqlStr(code.code)}`);
  return parts.length ? `(${parts.join(' UNION ALL ')})` : null;
}

/** group_members rows of these NPI buckets, read from their partition directories directly. */
function membersFrom(db: SnapshotDb, buckets: number[]): string | null {
  const dir = db.current()?.dir;
  if (!dir) return 'group_members';
  const parts = buckets.map((b) => join(tableDir(dir, GROUP_MEMBERS), `npi_bucket=${b}`)).filter((d) => existsSync(d)).map((d) => sqlStr(join(d, '*.parquet')));
  return parts.length ? `read_parquet([${parts.join(', ')}])` : null;
}

/** Builds the NetworkPort. Local distributions are memoised per snapshot (same code, files and state repeat across calls). */
export function createNetworkPort(db: SnapshotDb): NetworkPort {
  // Small per-snapshot caches: plan lookups repeat for every request naming the same payer, and
  // TIN-only groups (TiC 1.x `npi: [0]`) are few, so they are held in memory instead of scanning
  // provider_groups per request.
  let cacheSnapshot: string | null = null;
  const cache = new Map<string, Promise<unknown>>();
  const cached = <T>(key: string, load: () => Promise<T>): Promise<T> => {
    const snap = db.current()?.id ?? null;
    if (snap !== cacheSnapshot || cache.size > 5000) {
      cache.clear();
      cacheSnapshot = snap;
    }
    let p = cache.get(key) as Promise<T> | undefined;
    if (!p) {
      p = load();
      p.catch(() => cache.delete(key));
      cache.set(key, p);
    }
    return p;
  };
  const tinOnly = (): Promise<Map<string, GroupRow[]>> => cached('tin-only', async () => {
    const rows = await db.query<GroupRow>('SELECT group_key, tin_type, tin_value, business_name, network_names FROM provider_groups WHERE len(npis) = 0');
    const m = new Map<string, GroupRow[]>();
    for (const r of rows) if (r.tin_value) m.set(r.tin_value, [...(m.get(r.tin_value) ?? []), r]);
    return m;
  });
  const chunked = async <T>(xs: readonly (string | number)[], run: (part: (string | number)[]) => Promise<T[]>): Promise<T[]> => {
    const out: T[] = [];
    for (let i = 0; i < xs.length; i += 2000) out.push(...(await run(xs.slice(i, i + 2000))));
    return out;
  };
  return {
    // No coverage store exists yet (insurance connections are a later issue): always null.
    async linkedCoverage(_userId: string, _patientId: string | null): Promise<LinkedCoverage | null> {
      return null;
    },
    plansForPayer(payerKey, names) {
      const lower = names.map((n) => n.toLowerCase());
      return cached(`plans:${payerKey}:${lower.join('|')}`, () => db.query<PlanRow>(`SELECT ${PLAN_COLS} FROM plans WHERE payer_key = ${sqlStr(payerKey)} OR lower(reporting_entity_name) IN (${sqlStrList(lower)}) ORDER BY plan_key`));
    },
    async allPlans() {
      return db.query<PlanRow>(`SELECT ${PLAN_COLS} FROM plans ORDER BY plan_key`);
    },
    async entityFiles(names) {
      if (!names.length) return [];
      const lower = names.map((n) => n.toLowerCase());
      return cached(`entity-files:${lower.join('|')}`, async () => (await db.query<{ file_key: string }>(`SELECT DISTINCT file_key FROM source_files WHERE lower(reporting_entity_name) IN (${sqlStrList(lower)}) AND file_type = 'in-network' AND status = 'complete'`)).map((x) => x.file_key));
    },
    async planFiles(planKeys) {
      if (!planKeys.length) return [];
      const keys = [...planKeys].sort();
      return cached(`plan-files:${keys.join(',')}`, () => chunked(keys, (p) => db.query<{ plan_key: string; file_key: string }>(`SELECT DISTINCT plan_key, file_key FROM plan_files WHERE plan_key IN (${sqlStrList(p as string[])}) AND file_type = 'in-network'`)));
    },
    async groupsForNpis(npis) {
      if (!npis.length) return [];
      const buckets = [...new Set(npis.filter((n) => Number.isSafeInteger(n)).map((n) => n % 64))];
      const from = membersFrom(db, buckets);
      if (!from) return [];
      return db.query(`SELECT npi, group_key FROM ${from} WHERE npi IN (${sqlNumList(npis)})`);
    },
    async groupsForTins(tins) {
      if (!tins.length) return [];
      const m = await tinOnly();
      return tins.flatMap((t) => m.get(t) ?? []);
    },
    async groups(groupKeys) {
      if (!groupKeys.length) return [];
      const m = (await groupMaps(db)).groups;
      return [...new Set(groupKeys)].flatMap((k) => m.get(k) ?? []);
    },
    async groupFiles(groupKeys) {
      if (!groupKeys.length) return [];
      const m = (await groupMaps(db)).files;
      return [...new Set(groupKeys)].flatMap((k) => (m.get(k) ?? []).map((file_key) => ({ group_key: k, file_key })));
    },
    async filePlans(fileKeys) {
      if (!fileKeys.length) return [];
      // Per snapshot and file set: a provider's files repeat across requests (the same payer's few
      // files), and the three-table join costs ~4 ms a call.
      const keys = [...new Set(fileKeys)].sort();
      // Files no plan maps to (a 1.x file without plan fields, a TOC not ingested) still name their reporting entity.
      return cached(`file-plans:${keys.join(',')}`, () => db.query<FilePlanRow>(`SELECT DISTINCT sf.file_key, pf.plan_key, p.payer_key, coalesce(p.reporting_entity_name, sf.reporting_entity_name) AS reporting_entity_name
        FROM source_files sf LEFT JOIN plan_files pf ON pf.file_key = sf.file_key LEFT JOIN plans p ON p.plan_key = pf.plan_key
        WHERE sf.file_key IN (${sqlStrList(keys)})`));
    },
    async rates(code, groupKeys) {
      const from = ratesFrom(db, code);
      if (!groupKeys.length || !from) return [];
      return chunked([...groupKeys].sort(), (p) => db.query<RateRow>(`SELECT billing_code_type, billing_code, negotiated_type, negotiated_rate, negotiation_arrangement, billing_class, setting, service_code, billing_code_modifier, expiration_date, group_key, file_keys FROM ${from} WHERE ${groupKeyRange(p as string[])}group_key IN (${sqlStrList(p as string[])})`));
    },
    codeHasRates(code) {
      // Per snapshot: the answer cannot change until a new snapshot is published.
      return cached(`has-rates:${code.types.join(',')}:${code.code}`, async () => {
        // Codes the warm-up listed from the rates table have rows: no query.
        const known = codesWithRates.get(db);
        if (known && known.snapshot === (db.current()?.id ?? '') && code.types.some((t) => known.codes.has(`${t}:${code.code}`))) return true;
        const from = ratesFrom(db, code);
        if (!from) return false;
        const r = await db.query<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${from} LIMIT 1)`);
        return (r[0]?.n ?? 0) > 0;
      });
    },
    async localDistribution(code, fileKeys, state) {
      return distributionFor(await distSample(db, code, fileKeys), state, fileKeys.length > 0);
    },
    hasRows(table) {
      return db.hasRows(table);
    },
  };
}

/**
 * group_key -> states of its members, as an in-memory table of the snapshot's DuckDB instance,
 * built once per snapshot: the local distribution then needs no group_members x providers join
 * per request (that join scans both tables; this one is built once in seconds and probed by state).
 */
const memTables = new WeakMap<SnapshotDb, Map<string, { snapshot: string; p: Promise<string> }>>();
/**
 * An in-memory DuckDB table of the snapshot's instance, built once per snapshot from `select`
 * (sorted so zone maps prune lookups). Parquet views re-read file metadata and decode pages on
 * every query; the small lookup tables (groups, group files, group states) are cheaper in memory.
 */
export function memTable(db: SnapshotDb, base: string, select: string): Promise<string> {
  const snap = db.current()?.id ?? '';
  let byName = memTables.get(db);
  if (!byName) {
    byName = new Map();
    memTables.set(db, byName);
  }
  const prev = byName.get(base);
  if (prev && prev.snapshot === snap) return prev.p;
  const name = `${base}_${snap.replace(/[^A-Za-z0-9]/g, '_')}`;
  const p = db.query(`CREATE TABLE IF NOT EXISTS "${name}" AS ${select}`).then(() => name);
  const m = byName;
  p.catch(() => m.delete(base));
  m.set(base, { snapshot: snap, p });
  return p;
}

/**
 * `group_key BETWEEN min AND max AND ` for a sorted key list: rates files are sorted by
 * (billing_code, group_key) (schemas/pricing-tables.ts RATES), so the range lets row-group
 * statistics prune the code's other row groups, which an IN list alone does not. Only for ASCII
 * keys (the generated group keys are), where JS and DuckDB string order agree.
 */
export function groupKeyRange(sorted: readonly string[]): string {
  if (!sorted.length || sorted.some((k) => !/^[\x20-\x7e]*$/.test(k))) return '';
  return `group_key BETWEEN ${sqlStr(sorted[0]!)} AND ${sqlStr(sorted[sorted.length - 1]!)} AND `;
}

/**
 * provider_groups (TIN and names, no NPI lists) and group_files as JS Maps keyed by group_key,
 * built once per snapshot: a `WHERE group_key IN (...)` over the in-memory DuckDB tables scanned
 * all ~200k rows per request (11-44 ms at 1M providers); a Map lookup is microseconds. Rows come
 * back as aggregated strings (one JS object per row costs ~17 us).
 */
const groupMapsBy = new WeakMap<SnapshotDb, { snapshot: string; p: Promise<GroupMaps> }>();
interface GroupMaps { groups: Map<string, GroupRow>; files: Map<string, string[]> }
function groupMaps(db: SnapshotDb): Promise<GroupMaps> {
  const snap = db.current()?.id ?? '';
  const prev = groupMapsBy.get(db);
  if (prev && prev.snapshot === snap) return prev.p;
  const p = (async (): Promise<GroupMaps> => {
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
  })();
  p.catch(() => groupMapsBy.delete(db));
  groupMapsBy.set(db, { snapshot: snap, p });
  return p;
}

/** group_key -> states of its members: the local distribution probes it by state, no per-request join. */
const groupStates = (db: SnapshotDb): Promise<string> =>
  memTable(db, 'mem_group_states', 'SELECT DISTINCT gm.group_key, p.state FROM group_members gm JOIN providers p ON p.npi = gm.npi ORDER BY p.state, gm.group_key');
/** provider_groups without the NPI lists (TIN and names only). */
const groupInfo = (db: SnapshotDb): Promise<string> =>
  memTable(db, 'mem_groups', 'SELECT group_key, tin_type, tin_value, business_name, network_names FROM provider_groups ORDER BY group_key');
const groupFilesMem = (db: SnapshotDb): Promise<string> =>
  memTable(db, 'mem_group_files', 'SELECT DISTINCT group_key, file_key FROM group_files ORDER BY group_key, file_key');

/** Builds the per-snapshot in-memory tables so the first requests do not pay for them. */
export async function warmNetworkPort(db: SnapshotDb): Promise<void> {
  await Promise.all([groupsByState(db), groupMaps(db)]);
}

/**
 * Group keys per state, in JS, built once per snapshot from the in-memory group-states table. The
 * local distribution filters the code's rows by state here: a SQL semi-join would rebuild a hash
 * table of every group of the state (~160k keys at 1M providers) on every request.
 */
const stateSets = new WeakMap<SnapshotDb, { snapshot: string; p: Promise<Map<string, Set<string>>> }>();
function groupsByState(db: SnapshotDb): Promise<Map<string, Set<string>>> {
  const snap = db.current()?.id ?? '';
  const prev = stateSets.get(db);
  if (prev && prev.snapshot === snap) return prev.p;
  const p = (async () => {
    const t = await groupStates(db);
    const rows = await db.query<{ state: string | null; keys: string | null }>(`SELECT state, string_agg(group_key, chr(31)) AS keys FROM "${t}" GROUP BY state`);
    return new Map(rows.filter((r) => r.state).map((r) => [r.state!, new Set((r.keys ?? '').split('\u001f'))]));
  })();
  p.catch(() => stateSets.delete(db));
  stateSets.set(db, { snapshot: snap, p });
  return p;
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

/** A code's rates in a set of files: the (sampled) values, overall and per state of the billing group's members. */
interface DistSample {
  total: number;
  all: number[];
  byState: Map<string, number[]>;
  none: boolean;
}

/** group_key -> states of its members (inverse of groupsByState), per snapshot. */
const groupStateIndex = new WeakMap<SnapshotDb, { snapshot: string; p: Promise<Map<string, string[]>> }>();
function statesByGroup(db: SnapshotDb): Promise<Map<string, string[]>> {
  const snap = db.current()?.id ?? '';
  const prev = groupStateIndex.get(db);
  if (prev && prev.snapshot === snap) return prev.p;
  const p = groupsByState(db).then((byState) => {
    const m = new Map<string, string[]>();
    for (const [st, keys] of byState) for (const k of keys) { const l = m.get(k); if (l) l.push(st); else m.set(k, [st]); }
    return m;
  });
  p.catch(() => groupStateIndex.delete(db));
  groupStateIndex.set(db, { snapshot: snap, p });
  return p;
}

/** Every in-network file key of the snapshot (source_files), to skip a file filter that filters nothing. */
const allFilesBy = new WeakMap<SnapshotDb, { snapshot: string; p: Promise<Set<string>> }>();
function allFiles(db: SnapshotDb): Promise<Set<string>> {
  const snap = db.current()?.id ?? '';
  const prev = allFilesBy.get(db);
  if (prev && prev.snapshot === snap) return prev.p;
  const p = db.query<{ file_key: string }>('SELECT DISTINCT file_key FROM source_files').then((r) => new Set(r.map((x) => x.file_key)));
  p.catch(() => allFilesBy.delete(db));
  allFilesBy.set(db, { snapshot: snap, p });
  return p;
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

/** Codes the warm-up found in the rates table, per snapshot (codeHasRates answers them without a query). */
const codesWithRates = new WeakMap<SnapshotDb, { snapshot: string; codes: Set<string> }>();

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

async function sampleDistribution(db: SnapshotDb, code: CodeRef, fileKeys: readonly string[]): Promise<DistSample> {
  const from = ratesFrom(db, code);
  if (!from) return { total: 0, all: [], byState: new Map(), none: true };
  const filter = fileKeys.length ? inFiles(fileKeys) : 'true';
  // One aggregated string back instead of one JS object per row (the per-row path costs ~17 µs a
  // row); each item is "group_key<US>rate" so the pairing never depends on aggregation order.
  // Above DIST_SAMPLE rows (common codes at national scale: 100k rows) a deterministic reservoir
  // sample keeps the cost flat; the quartiles of 5,000 draws are well within a dollar's noise.
  const [rows, states] = await Promise.all([
    db.query<{ s: string | null; total: number }>(`WITH r AS MATERIALIZED (SELECT group_key, negotiated_rate FROM ${from} WHERE ${DOLLAR_RATES} AND ${filter})
      SELECT (SELECT count(*) FROM r) AS total,
        (SELECT string_agg(group_key || chr(31) || negotiated_rate::VARCHAR, chr(30)) FROM (SELECT * FROM r USING SAMPLE reservoir(${DIST_SAMPLE} ROWS) REPEATABLE (7))) AS s`),
    statesByGroup(db),
  ]);
  const all: number[] = [];
  const byState = new Map<string, number[]>();
  for (const item of rows[0]?.s ? rows[0].s.split('\u001e') : []) {
    const cut = item.indexOf('\u001f');
    if (cut < 0) continue;
    const v = Number(item.slice(cut + 1));
    if (!Number.isFinite(v)) continue;
    all.push(v);
    for (const st of states.get(item.slice(0, cut)) ?? []) { const l = byState.get(st); if (l) l.push(v); else byState.set(st, [v]); }
  }
  all.sort((a, b) => a - b);
  for (const l of byState.values()) l.sort((a, b) => a - b);
  return { total: rows[0]?.total ?? 0, all, byState, none: false };
}

/** The distribution of one state (or all) from a (code, files) sample. */
function distributionFor(d: DistSample, state: string | null, payerScoped: boolean): RateDistribution {
  if (d.none) return { n: 0, p25: null, p50: null, p75: null, scope: 'no published rates for this code' };
  const scope = `${payerScoped ? 'same payer' : 'every payer'}${state ? `, providers practising in ${state}` : ''}`;
  const values = state ? d.byState.get(state) ?? [] : d.all;
  // n is the count the quartiles rest on; the words say when it is a sample of a larger set.
  const scopeWords = d.total > DIST_SAMPLE ? `${scope}; quartiles from a sample of ${DIST_SAMPLE.toLocaleString('en-US')} of ${d.total.toLocaleString('en-US')} rates` : scope;
  return { n: values.length, p25: quantileCont(values, 0.25), p50: quantileCont(values, 0.5), p75: quantileCont(values, 0.75), scope: scopeWords };
}
