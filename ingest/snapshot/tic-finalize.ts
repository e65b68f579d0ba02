/**
 * Assembles the TiC tables of a snapshot from the staged files of one ingest (or several shard
 * snapshots, see merge.ts): the per-file, unexploded staging is joined and de-duplicated in
 * DuckDB and written as Parquet per schemas/pricing-tables.ts.
 *
 * - rates: one row per (item, price, provider-group set); identical rows from several files or
 *   plans are GROUP BY'd into one row whose file_keys lists every file (issue 3, item 4); its
 *   price's other terms are a price_terms row, named by terms_id.
 * - group_sets: the members of every set, once per set key across all files, with the set's number
 *   (set_ref, 1..n in group_set_key order), by which rates rows name it.
 * - provider_groups: once per group_key across all files, network names unioned, its NPI list
 *   that of the one staged instance chosen (written in JS by group-tables.ts).
 * - group_members: the NPI -> group inverted index (by group_ref, the group's number), from the
 *   same staged NPIs (group-tables.ts).
 *
 * The rates partitions, provider_groups and group_members are written in JS on two worker threads
 * (rates-write.ts, group-tables.ts, sink-worker.ts) that this thread streams DuckDB's rows to.
 */
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  ALLOWED_AMOUNTS, BUNDLES, CODE_PREFIX_LENGTH, GROUP_FILES, GROUP_SETS, PLANS, PLAN_FILES, PRICE_TERMS, RATES,
} from '../../schemas/pricing-tables.ts';
import { MemoryWindow, lit, scalar } from './duck.ts';
import { TERMS_KEY_SQL, keyRanges, pickPlansSql, planKeyRanges } from './keys.ts';
import { ATTR_COLUMNS, ITEM_COLUMNS, SEP, STAGED_NUMERIC, contentHashSql, type DoneMarker } from './staged-layout.ts';
import { copySelectToTable } from './table-writer.ts';
import { writeGroupTables, type GroupCounts, type GselBatch } from './group-tables.ts';
import {
  RATES_PER_SORT, idMapsOf, writeRatePartitions, writeRatePartitionsFromFiles, type FileRates, type RatePartition, type RatesBatch, type RatesResult,
} from './rates-write.ts';
import { isNumericParquet } from './numeric-parquet.ts';
import { HELPER_ID_BASE } from './tic-stager.ts';
import { SinkWorker } from './sink-worker.ts';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tableDir } from '../../schemas/snapshot-layout.ts';

/** A staged list (joined with SEP) back to VARCHAR[]: NULL stays NULL, '' is the empty list. */
const strList = (col: string): string =>
  `CASE WHEN ${col} IS NULL THEN NULL WHEN ${col} = '' THEN []::VARCHAR[] ELSE string_split(${col}, chr(31)) END`;
/** Staged NPIs ('1,2,3': allowed amounts) back to BIGINT[]. */
const npiList = (col: string): string =>
  `CASE WHEN ${col} IS NULL OR ${col} = '' THEN []::BIGINT[] ELSE list_transform(string_split(${col}, ','), x -> x::BIGINT) END`;

/**
 * read_parquet over one staged table of every finished file below `filesDir`. The numeric tables
 * (STAGED_NUMERIC) carry no file_key: it is their directory's name.
 */
export function stagedScan(filesDir: string, name: string): string {
  // A file's numeric tables may come in two parts: the parse helper's is <name>.1.parquet (parse-helper.ts).
  if (name in STAGED_NUMERIC) {
    const parts = lit(join(filesDir, '*', `${name}*.parquet`));
    return `(SELECT parse_filename(parse_dirpath(filename)) AS file_key, * EXCLUDE (filename) FROM read_parquet(${parts}, filename = true))`;
  }
  return `read_parquet(${lit(join(filesDir, '*', `${name}.parquet`))}, union_by_name = true)`;
}

/** Row counts of the TiC tables written. */
export type TableCounts = Record<string, number>;

export interface FinalizeOptions {
  /** Seconds per table, filled in as each is written (report.totals / bench). */
  timings?: Record<string, number>;
  /**
   * A third one: provider_groups and group_members (group-tables.ts, JS) are then written while
   * DuckDB writes the rates, their chosen groups streamed from it. Without it they come after.
   */
  reader?: DuckDBConnection | null;
  /**
   * Who joins the staged prices to their numbers: the rates' writer thread, reading the staged
   * numeric Parquet itself ('js', the default when every file's is as numeric-parquet.ts writes
   * it), or DuckDB ('duckdb'; tests compare the two).
   */
  ratesJoin?: 'js' | 'duckdb';
  /** Ids the writer joins on at most, else DuckDB joins (JS_JOIN_MAX_IDS; tests make it small). */
  jsJoinMaxIds?: number;
  /** Rates rows sorted in memory at once (rates-write.ts RATES_PER_SORT; tests make it small). */
  ratesPerSort?: number;
  /** (npi, group_ref) pairs sorted in memory at once (group-tables.ts MEMBERS_PER_SORT; tests make it small). */
  membersPerSort?: number;
  /** Staged provider-group rows per group pick (GROUPS_PER_PICK; tests make it small). */
  groupsPerPick?: number;
  /**
   * Staged items, descriptions and sets numbered by the rates' first statements at most for the
   * group pick to run beside them (PICK_BESIDE_MAX; -1: always after them, as tests ask).
   */
  pickBesideMax?: number;
  /** Staged group_sets rows per COPY of group_sets and group_files (ROWS_PER_DISTINCT; tests make it small). */
  rowsPerDistinct?: number;
  /** Staged plans per range of plan keys (keys.ts PLANS_PER_RANGE; tests make it small). */
  plansPerRange?: number;
  /**
   * A connection that runs nothing else: while the rates and the groups only stream rows out of
   * tables already built to their writer threads, DuckDB's memory_limit is lowered on it to
   * `streamMemoryLimit` (MemoryWindow), and put back for the next statement that needs memory.
   */
  control?: DuckDBConnection | null;
  /** The lower limit (STREAM_MEMORY_LIMIT by default). */
  streamMemoryLimit?: string;
}

/** Builds every TiC table of `snapshot` from the staged files under `filesDir`. */
export async function finalizeTic(con: DuckDBConnection, filesDir: string, snapshot: string, o: FinalizeOptions = {}): Promise<TableCounts> {
  const timings = o.timings ?? {};
  const reader = o.reader ?? null;
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
  checkStaged(filesDir);

  // Groups: one staged instance (file, gid) per group_key is chosen (network names joined from
  // every instance), numbered g2 in group_key order (the group_ref); group-tables.ts then writes
  // provider_groups and group_members in JS from those and the staged NPIs, on the JS thread and
  // libuv's pool. Given a reader connection, all that runs while DuckDB writes the rates on the
  // other two: they share nothing. Measured 2026-11-22 on the staged 1 GiB benchmark file: finalize
  // 5.8 s so, 6.3-6.9 s one after the other (11 CPU-seconds either way), 11.5 s (~20 CPU-seconds)
  // when DuckDB built the NPI lists and sorted the members.
  const gcon = reader ?? con;
  const t0 = performance.now();
  // While both only stream rows to their writers, DuckDB's cached blocks give way (MemoryWindow).
  const window = o.control ? new MemoryWindow(o.control, o.streamMemoryLimit ?? STREAM_MEMORY_LIMIT) : null;
  // Beside the rates, the group pick (an aggregate whose states do not spill) and the sort of the
  // picked groups for their writer end before the rates' sort (or, for many prices, their join)
  // starts: together they ran out of memory where each alone did not (see keyRanges; and the 40
  // GiB file's join, 2026-11-23: "failed to allocate data of size 4.0 MiB (242.5 MiB/244.1 MiB
  // used)" in the join after the pick, beside the groups' sort).
  // And the pick starts once the rates' first statements (their item, description and set
  // numbers) are done: beside them it ran out of memory too (the 40 GiB file end to end,
  // 2026-11-23 15:40 UTC: "failed to allocate data of size 512.0 KiB (243.7 MiB/244.1 MiB used)"
  // in the pick). DuckDB's big statements so run one at a time; the groups' writer (JS) beside them.
  // Only a small run's pick goes beside the numbering (PICK_BESIDE_MAX).
  let groupsSorted = (): void => {};
  const sortedGroups = reader ? new Promise<void>((resolve) => { groupsSorted = resolve; }) : null;
  let ratesPrepared = (): void => {};
  const preparedRates = reader ? new Promise<void>((resolve) => { ratesPrepared = resolve; }) : null;
  let narrowed: Promise<void> = Promise.resolve();
  const groups = async (): Promise<{ groups: number; members: number }> => {
    const step = (what: string, sql: string): Promise<unknown> =>
      gcon.run(sql).catch((err: unknown) => { throw new Error(`${what}: ${(err as Error).message}`, { cause: err }); });
    const start = performance.now();
    const needed = window?.need('groups');
    // The writer's thread starts now: it loads its modules while DuckDB picks the groups.
    const worker = new SinkWorker<GselBatch, GroupCounts>('groups');
    try {
      await needed;
      const staged = await scalar(gcon, `SELECT count(*) FROM ${scan('groups')}`);
      const perPick = o.groupsPerPick ?? GROUPS_PER_PICK;
      // A small run's pick (one statement) runs beside the rates' numbering statements, a larger
      // one after them (PICK_BESIDE_MAX).
      const numbered = await scalar(gcon, `SELECT (SELECT count(*) FROM ${scan('items')}) + (SELECT count(*) FROM ${scan('attrs')}) + (SELECT count(*) FROM ${scan('sets')})`);
      if (staged > perPick || numbered > (o.pickBesideMax ?? PICK_BESIDE_MAX)) await preparedRates;
      // Beside the numbering, two statements at a time up to the groups' sort: one thread each
      // (MemoryWindow.oneThreadUntil). After it, at two threads, as a large run's pick.
      else if (window && preparedRates && sortedGroups) narrowed = (await window.oneThreadUntil([preparedRates, sortedGroups])).restored;
      // The instance with the least (file_key, gid) per group_key, and every instance's network
      // names joined (group-tables.ts splits, de-duplicates and sorts them): one statement per range
      // of group keys (keyRanges: the aggregate's states, a struct and a string_agg, do not spill),
      // each of at most GROUPS_PER_PICK staged rows; ranges in key order, numbered on from the last,
      // so g2 is the rank in group_key order. Measured 2026-11-23 on the staged 1 GiB benchmark
      // file: 0.22-0.23 s and 0.25-0.31 CPU-seconds for one statement, against 0.39-0.53 s and
      // 0.47-0.64 for a pick with the names unioned as lists in SQL and a join of the staged
      // groups back on it; in two statements 0.51 s.
      let done = 0;
      for (const [i, where] of keyRanges('group_key', Math.ceil(staged / perPick)).entries()) {
        await step('choosing one row per provider group', `${i === 0 ? 'CREATE OR REPLACE TABLE __gsel AS' : 'INSERT INTO __gsel'} SELECT
            (${done} + row_number() OVER (ORDER BY group_key))::INTEGER AS g2, group_key, p.file_key, p.gid, p.tin_type, p.tin_value, p.business_name, network_names
          FROM (SELECT group_key,
              arg_min({'file_key': file_key, 'gid': gid, 'tin_type': tin_type, 'tin_value': tin_value, 'business_name': business_name}, {'f': file_key, 'g': gid}) AS p,
              string_agg(network_names, chr(31)) FILTER (WHERE network_names <> '') AS network_names
            FROM ${scan('groups')} WHERE ${where} GROUP BY group_key)`);
        done = await scalar(gcon, 'SELECT count(*) FROM __gsel');
      }
      return await writeGroupTables(gcon, filesDir, snapshot, { membersPerSort: o.membersPerSort, worker, sorted: groupsSorted, streaming: () => window?.release('groups') })
        .catch((err: unknown) => { throw new Error(`writing tables provider_groups and group_members: ${(err as Error).message}`, { cause: err }); });
    } finally {
      groupsSorted();
      await worker.stop();
      await gcon.run('DROP TABLE IF EXISTS __gsel');
      await window?.release('groups');
      timings.provider_groups = (performance.now() - start) / 1000;
    }
  };
  const rates = async (): Promise<{ rows: number; terms: number }> => {
    const needed = window?.need('rates');
    try {
      await needed;
      return await writeRates(con, filesDir, snapshot, o.ratesPerSort ?? RATES_PER_SORT, { prepared: ratesPrepared, before: sortedGroups, join: o.ratesJoin ?? 'js', maxIds: o.jsJoinMaxIds ?? JS_JOIN_MAX_IDS }, window);
    } finally {
      ratesPrepared();
      await window?.release('rates');
      timings.rates = (performance.now() - t0) / 1000;
    }
  };
  // Every set's number (set_ref, `sc` while rates are built), in group_set_key order: rates rows
  // name their set by it, group_sets rows carry it. A staged set has at least one member
  // (tic-file-writer.ts), so every number has group_sets rows.
  // group_sets and group_files are DISTINCTs over every staged (set, group) pair: in key ranges.
  const pairRanges = keyRanges('group_key', Math.ceil(await scalar(con, `SELECT count(*) FROM ${scan('group_sets')}`) / (o.rowsPerDistinct ?? ROWS_PER_DISTINCT)));
  await con.run(`CREATE OR REPLACE TABLE __su AS SELECT (row_number() OVER (ORDER BY group_set_key))::INTEGER AS sc, group_set_key
    FROM (SELECT DISTINCT group_set_key FROM ${scan('sets')})`);
  // The tables that need neither the rates nor the groups' writer: built on `con`, the connection
  // of whichever of the two ended first, beside the other (the groups' writer streams a table on its
  // own connection and then sorts members in JS; the rates' writer sorts in JS). Measured 2026-11-23
  // on the staged 40 GiB file: after both they took 24 s, the groups' writer having ended 23 s after
  // the rates; beside it, finalize 224.5 s instead of 242.3. Started earlier, while both writers
  // still ran, they gained nothing (item 54).
  const others = async (con: DuckDBConnection): Promise<void> => {
    // Under the lower limit of a MemoryWindow (if the groups' writer is only sorting members by
    // then): each statement here is bounded (key ranges; the join written to a table spills), and
    // beside the groups' member sorts the full limit made finalize's peak RSS. Measured 2026-11-23
    // on the staged 40 GiB file: 950-964 MiB in this phase with 256 MB, at most 840 with 128 MB,
    // group_sets and group_files within noise.
    last = performance.now();
    // In key ranges, the joins are made once, before: a join and a DISTINCT in one statement ran
    // out of the 256 MB limit over 1.29 M sets and 10.1 M staged pairs (a 40 GiB file), where the
    // join written to a table (3.5 s) and a DISTINCT of it per range (0.3 s) passed (2026-11-23).
    const ranged = pairRanges.length > 1;
    if (ranged) {
      await con.run(`CREATE OR REPLACE TABLE __gs AS SELECT g.group_set_key, u.sc AS set_ref, g.group_key, g.location AS unresolved_location
        FROM ${scan('group_sets')} g JOIN __su u USING (group_set_key)`);
      await con.run(`CREATE OR REPLACE TABLE __sf AS SELECT DISTINCT file_key, group_set_key FROM ${scan('sets')}`);
    }
    // A member standing for an unresolved remote reference carries its location (unresolved_location).
    counts.group_sets = await copySelectToTable(con, GROUP_SETS, ranged ? 'SELECT DISTINCT group_set_key, set_ref, group_key, unresolved_location FROM __gs'
      : `SELECT DISTINCT g.group_set_key, u.sc AS set_ref, g.group_key, g.location AS unresolved_location FROM ${scan('group_sets')} g JOIN __su u USING (group_set_key)`, snapshot, pairRanges);
    // A file references a group when any of its negotiated_rates names a set holding the group (a
    // member standing for an unresolved reference is no group: left out).
    counts.group_files = await copySelectToTable(con, GROUP_FILES, ranged ? 'SELECT DISTINCT g.group_key, s.file_key FROM __sf s JOIN __gs g USING (group_set_key) WHERE g.unresolved_location IS NULL'
      : `SELECT DISTINCT g.group_key, s.file_key FROM (SELECT DISTINCT file_key, group_set_key FROM ${scan('sets')}) s JOIN ${scan('group_sets')} g USING (group_set_key) WHERE g.location IS NULL`,
    snapshot, pairRanges);
    // __su stays (dropped at the end): a small run's groups can end before the rates have numbered their sets with it.
    for (const t of ['__gs', '__sf']) await con.run(`DROP TABLE IF EXISTS ${t}`);

    counts.bundles = await copySelectToTable(con, BUNDLES, `SELECT DISTINCT * FROM ${scan('bundles')}`, snapshot);

    counts.allowed_amounts = await copySelectToTable(con, ALLOWED_AMOUNTS, `
      SELECT file_key, billing_code_type, billing_code, name, tin_type, tin_value, ${strList('service_code')} AS service_code,
        billing_class, setting, allowed_amount, ${strList('billing_code_modifier')} AS billing_code_modifier,
        ${npiList('npis')} AS npis, billed_charge
      FROM ${scan('allowed_amounts')}`, snapshot);

    // One row per plan across files, and each (plan, file) link once: per range of plan keys when
    // many (a large table of contents stages millions; keys.ts planKeyRanges).
    const planCounts = await con.runAndReadAll(`SELECT (SELECT count(*) FROM ${scan('plans')}), (SELECT count(*) FROM ${scan('plan_files')})`);
    const [stagedPlans, stagedLinks] = planCounts.getRows()[0]!.map(Number) as [number, number];
    const planRanges = planKeyRanges(stagedPlans, stagedLinks, o.plansPerRange);
    counts.plans = await copySelectToTable(con, PLANS, pickPlansSql(`SELECT *, NULL::VARCHAR AS payer_key FROM ${scan('plans')}`), snapshot, planRanges);

    counts.plan_files = await copySelectToTable(con, PLAN_FILES, `
      SELECT plan_key, file_key, file_type, any_value(description) AS description FROM ${scan('plan_files')}
      GROUP BY ALL`, snapshot, planRanges);
  };
  let r: { rows: number; terms: number }, g: { groups: number; members: number };
  try {
    if (reader) {
      // The other tables on the connection of whichever of the two ends first, beside the other
      // (on the 1 GiB benchmark file the groups' writer ends first, on the 40 GiB one the rates').
      // All run to their end (none leaves its statements running), then the first error counts.
      const ratesDone = rates(), groupsDone = groups();
      const first = Promise.race([ratesDone.then(() => con), groupsDone.then(() => gcon)]);
      const [a, b, c] = await Promise.allSettled([ratesDone, groupsDone, first.then((free) => others(free))]);
      if (a.status === 'rejected') throw a.reason;
      if (b.status === 'rejected') throw b.reason;
      if (c.status === 'rejected') throw c.reason;
      [r, g] = [a.value, b.value];
    } else {
      r = await rates();
      g = await groups();
      await others(con);
    }
  } finally {
    await narrowed;
    await window?.need('finalize');
    for (const t of ['__su', '__gs', '__sf']) await con.run(`DROP TABLE IF EXISTS ${t}`);
  }
  timings.group_members = 0; // written with provider_groups
  return { rates: r.rows, price_terms: r.terms, provider_groups: g.groups, group_members: g.members, ...raw };
}

/** A finished file's staged data is not as done.json recorded it: `src` must be read again. */
export class StagedDataError extends Error {
  override name = 'StagedDataError';
  readonly src: string;

  constructor(src: string, message: string) {
    super(message);
    this.src = src;
  }
}

/**
 * Every finished file's staged data as done.json recorded it (`staged`: each file's size): the
 * tables are read through globs, which would pass over a file that is gone. A file gone or of
 * another size is named; --resume reads its source again (process-file.ts reusable).
 */
function checkStaged(filesDir: string): void {
  if (!existsSync(filesDir)) return;
  for (const d of readdirSync(filesDir)) {
    let m: DoneMarker;
    try {
      m = JSON.parse(readFileSync(join(filesDir, d, 'done.json'), 'utf8')) as DoneMarker;
    } catch {
      continue; // no readable marker: not a finished file (filesWithPrices counts it anyway)
    }
    for (const [name, size] of Object.entries(m.staged ?? {})) {
      const p = join(filesDir, d, name);
      const got = existsSync(p) ? statSync(p).size : null;
      if (got !== size) throw new StagedDataError(m.src, `staged file ${p} (of ${m.src}) ${got === null ? 'is gone' : `has ${got} bytes, ${size} when staged`}`);
    }
  }
}

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
 * Ids the rates' writer joins on at most (fileRates: an item counts twice, for r and cr): 4 M are
 * 16-32 MB of arrays. The 40 GiB benchmark file has ~2.4 M (487 k items, 87 k descriptions and
 * 1.32 M sets staged).
 */
const JS_JOIN_MAX_IDS = 4_000_000;

/**
 * Each file's staged prices with the numbers of its ids (FileRates), for the rates' writer to join
 * itself; null when a file's staged prices are not as numeric-parquet.ts writes them (DuckDB joins
 * then). `keys[fk]` is file fk's key (several files; one file: fk 0). The numbers are small tables
 * (the 1 GiB benchmark file stages 12 k items, 68 k descriptions, 36 k sets), the prices millions of
 * rows: DuckDB's join read them, this thread copied its chunks into batches and posted them, all
 * beside the groups' writer on two cores. Measured 2026-11-23 on that file (4.9 M prices), five
 * alternating runs end to end: finalize 4.69-5.59 s against 5.54-6.16 (every pair faster), the
 * whole run 11.26-13.48 s against 12.13-13.73, peak RSS 458-484 MiB against 487-564.
 */
async function fileRates(con: DuckDBConnection, filesDir: string, files: string[], keys: string[], single: string | null, maxIds: number): Promise<FileRates[] | null> {
  const where = single !== null ? `WHERE file_key = ${lit(single)}` : '';
  // The maps are held in memory whole (DuckDB's join spills): a run whose ids are too many (a large
  // table of contents: every file's items, descriptions and sets) is joined by DuckDB.
  const ids = await scalar(con, `SELECT (SELECT 2 * count(*) FROM __im ${where}) + (SELECT count(*) FROM __am ${where}) + (SELECT count(*) FROM __sm ${where})`);
  if (ids > maxIds) return null;
  const paths = new Map(files.map((f) => [f, readdirSync(join(filesDir, f)).filter((n) => /^prices(\.\d+)?\.parquet$/.test(n)).sort().map((n) => join(filesDir, f, n))]));
  for (const ps of paths.values()) for (const p of ps) if (!isNumericParquet(p, STAGED_NUMERIC.prices)) return null;
  const of = (table: string, cols: string): string => single !== null
    ? `SELECT 0 AS fk, ${cols} FROM ${table} ${where}`
    : `SELECT f.fk, ${cols} FROM ${table} JOIN __fk f USING (file_key)`;
  const items = await idMapsOf(con, of('__im', 'item_seq::INTEGER, r::INTEGER, cr::INTEGER'), 2, HELPER_ID_BASE);
  const attrs = await idMapsOf(con, of('__am', 'attr_id::INTEGER, ac::INTEGER'), 1, HELPER_ID_BASE);
  const sets = await idMapsOf(con, of('__sm', 'set_id::INTEGER, sc::INTEGER'), 1, HELPER_ID_BASE);
  const fks = single !== null ? [0] : keys.map((_, fk) => fk).filter((fk) => keys[fk] !== undefined && paths.has(keys[fk]));
  const out: FileRates[] = [];
  for (const fk of fks) {
    const it = items.get(fk), ac = attrs.get(fk)?.[0], sc = sets.get(fk)?.[0];
    // A file with rates rows has items, descriptions and sets; were one missing, DuckDB joins.
    if (!it || !ac || !sc) return null;
    out.push({ paths: paths.get(single ?? keys[fk]!) ?? [], fk, r: it[0]!, cr: it[1]!, ac, sc });
  }
  return out;
}

/**
 * rates. Rows are identified by small numbers first, then sorted and written by a worker thread:
 *
 * - every distinct item (by content hash, contentHashSql) gets a rank `r`, and its billing code a
 *   rank `cr` in (billing_code_type, code_prefix, billing_code) order; every distinct price
 *   description a number `ac`; every set its number `sc` (finalizeTic's `__su`: the set_ref
 *   written, so no set key is carried per row); when several files contribute, every file a
 *   number `fk` (its rank in file_key order);
 * - the staged prices joined to those numbers are streamed, in the join's order, to rates-write.ts,
 *   whose worker spills them per partition (a contiguous cr range: one (billing_code_type,
 *   code_prefix)), then sorts each partition by (cr, sc, r, ac, rate), drops repeats (or, several
 *   files, gathers each distinct row's file numbers) and writes its Parquet file, the items
 *   (`__iu`, streamed after the rows) joined on there; the price terms stay a number (terms_id: the
 *   used descriptions numbered densely in TERMS_KEY_SQL order), written once each to price_terms.
 *
 * Measured 2026-11-23 on the staged 40 GiB benchmark file (200 M prices): DuckDB's join written to
 * a table, its sort and the stream of the sorted rows to the writer had taken 45-59, 83-88 and
 * 34-37 s of the finalize (schemas/README.md item 51 has the figures of this way).
 */
/** The rates' turns beside the groups: `prepared` called once their numbering statements are done, `before` awaited before their join. */
interface RatesTurns { prepared: () => void; before: Promise<void> | null; join: 'js' | 'duckdb'; maxIds: number }

async function writeRates(con: DuckDBConnection, filesDir: string, snapshot: string, cap: number, turns: RatesTurns, window: MemoryWindow | null): Promise<{ rows: number; terms: number }> {
  try {
    return await writeRatesSteps(con, filesDir, snapshot, cap, turns, window);
  } catch (err) {
    throw new Error(`writing table rates: ${(err as Error).message}`, { cause: err });
  }
}

async function writeRatesSteps(con: DuckDBConnection, filesDir: string, snapshot: string, cap: number, turns: RatesTurns, window: MemoryWindow | null): Promise<{ rows: number; terms: number }> {
  const out = tableDir(snapshot, RATES);
  rmSync(out, { recursive: true, force: true });
  rmSync(tableDir(snapshot, PRICE_TERMS), { recursive: true, force: true });
  const files = filesWithPrices(filesDir);
  if (files.length === 0) return { rows: 0, terms: 0 };
  const single = files.length === 1 ? files[0]! : null;
  const itemCols = ITEM_COLUMNS.join(', ');
  const temps = ['__i', '__iu', '__im', '__a', '__au', '__am', '__sm', '__fk', '__tid'];
  // The writer's thread starts now: it loads its modules while DuckDB builds the rows.
  const writer = new SinkWorker<RatesBatch, RatesResult>('rates');
  try {
    await con.run(`CREATE OR REPLACE TABLE __i AS SELECT file_key, item_seq, ${contentHashSql(ITEM_COLUMNS)} AS ih, ${itemCols},
        left(billing_code, ${CODE_PREFIX_LENGTH}) AS code_prefix FROM ${stagedScan(filesDir, 'items')}`);
    await con.run(`CREATE OR REPLACE TABLE __iu AS SELECT
        (row_number() OVER (ORDER BY billing_code_type, code_prefix, billing_code, ih))::INTEGER AS r,
        (dense_rank() OVER (ORDER BY billing_code_type, code_prefix, billing_code))::INTEGER AS cr, * EXCLUDE (file_key, item_seq)
      FROM (SELECT DISTINCT ON (ih) * FROM __i)`);
    await con.run('CREATE OR REPLACE TABLE __im AS SELECT i.file_key, i.item_seq, u.r, u.cr FROM __i i JOIN __iu u USING (ih)');
    await con.run(`CREATE OR REPLACE TABLE __a AS SELECT file_key, attr_id, ${contentHashSql(ATTR_COLUMNS)} AS ah, * EXCLUDE (file_key, attr_id)
      FROM ${stagedScan(filesDir, 'attrs')}`);
    // Lists and dates converted once per description, not once per row.
    // ac numbers the typed terms (two staged forms can type alike: invalid dates both become NULL).
    // One staged row per description hash: picked by the least rowid per hash (an aggregate of
    // fixed-size states, which spills), not DISTINCT ON (one first() state per column, a list's
    // among them, per distinct row: those do not spill; see price_terms below).
    await con.run(`CREATE OR REPLACE TABLE __au AS SELECT (dense_rank() OVER (ORDER BY ${TERMS_KEY_SQL}))::INTEGER AS ac, * FROM (
      SELECT ah, negotiated_type, TRY_CAST(expiration_date AS DATE) AS expiration_date, ${strList('service_code')} AS service_code, billing_class, setting,
        ${strList('billing_code_modifier')} AS billing_code_modifier, additional_information
      FROM __a WHERE rowid IN (SELECT min(rowid) FROM __a GROUP BY ah))`);
    await con.run('CREATE OR REPLACE TABLE __am AS SELECT a.file_key, a.attr_id, u.ac FROM __a a JOIN __au u USING (ah)');
    await con.run(`CREATE OR REPLACE TABLE __sm AS SELECT s.file_key, s.set_id, u.sc FROM ${stagedScan(filesDir, 'sets')} s JOIN __su u USING (group_set_key)`);
    if (single === null) {
      await con.run(`CREATE OR REPLACE TABLE __fk AS SELECT file_key, (row_number() OVER (ORDER BY file_key))::INTEGER AS fk
        FROM (SELECT DISTINCT file_key FROM __im)`);
    }
    turns.prepared();
    const parts: RatePartition[] = (await con.runAndReadAll('SELECT billing_code_type, code_prefix, min(cr), max(cr) FROM __iu GROUP BY ALL ORDER BY 3')).getRows()
      .map(([type, prefix, lo, hi]) => ({ type: String(type), prefix: String(prefix), lo: Number(lo), hi: Number(hi) }));
    const keys = single !== null ? [single]
      : (await con.runAndReadAll('SELECT fk, file_key FROM __fk ORDER BY fk')).getRows().reduce<string[]>((a, [fk, key]) => { a[Number(fk)] = String(key); return a; }, []);
    const terms = await scalar(con, 'SELECT coalesce(max(ac), 0) FROM __au');
    // The join streamed in its own order (the writer sorts). One file: its own prices joined on
    // numbers alone, no file key per row (from each row's file name) nor file number to carry.
    const rowsSql = single !== null
      ? `SELECT m.cr, m.r, sm.sc, am.ac, p.negotiated_rate FROM read_parquet(${lit(join(filesDir, single, 'prices*.parquet'))}) p
        JOIN (SELECT item_seq, r, cr FROM __im WHERE file_key = ${lit(single)}) m USING (item_seq)
        JOIN (SELECT attr_id, ac FROM __am WHERE file_key = ${lit(single)}) am USING (attr_id)
        JOIN (SELECT set_id, sc FROM __sm WHERE file_key = ${lit(single)}) sm USING (set_id)`
      : `SELECT m.cr, m.r, sm.sc, am.ac, p.negotiated_rate, f.fk FROM ${stagedScan(filesDir, 'prices')} p
        JOIN __im m USING (file_key, item_seq) JOIN __am am USING (file_key, attr_id) JOIN __sm sm USING (file_key, set_id) JOIN __fk f USING (file_key)`;
    // After the group pick and the groups' sort: the rates' join beside the pick ran DuckDB out of
    // memory ("failed to allocate data of size 2.0 MiB (242.7 MiB/244.1 MiB used)", 40 GiB file,
    // 2026-11-23), and beside the groups' sort.
    await turns.before;
    // From here DuckDB only streams the join (its build sides: the items, descriptions and sets,
    // hash tables that spill) or the small tables of numbers, then the items to the writer; and
    // numbers the terms used (one row a description): the lower limit serves to the end.
    await window?.release('rates');
    const init = { out, parts, fileKeys: keys, multi: single === null, terms, spill: `${snapshot.replace(/[\\/]+$/, '')}.rates-spill`, cap };
    const inJs = turns.join === 'js' ? await fileRates(con, filesDir, files, keys, single, turns.maxIds) : null;
    const written = inJs ? await writeRatePartitionsFromFiles(writer, con, inJs, init) : await writeRatePartitions(writer, con, rowsSql, init);
    // terms_id: the descriptions the written rows use, numbered densely in ac (TERMS_KEY_SQL) order.
    // A file's descriptions are mostly a few hundred, but may be millions (below): price_terms is
    // then no longer a small table to stream, and takes DuckDB's full limit back (MemoryWindow).
    if (written.terms.length > MANY_TERMS) await window?.need('rates');
    await con.run('CREATE OR REPLACE TABLE __tid (ac INTEGER, terms_id INTEGER)');
    const appender = await con.createAppender('__tid');
    written.terms.forEach((ac, i) => { appender.appendInteger(ac); appender.appendInteger(i + 1); appender.endRow(); });
    appender.closeSync();
    // One row per used ac, the one of its least description hash. Not DISTINCT ON (ac): over a file
    // whose descriptions are millions (gen-tic.mjs --seed 11: 2.88 M staged, service_code lists
    // drawn at random) its aggregate held a first() state per column per row, the lists' among
    // them, which do not spill, and ran out of the 128 MB that finalize's streaming phase leaves
    // DuckDB ("writing table price_terms: Out of Memory Error ... (122.3 MiB/122.0 MiB used)",
    // issue 37). min(ah) per ac is an aggregate of fixed-size states (it spills); the rows are then
    // a join.
    const terms_ = await copySelectToTable(con, PRICE_TERMS, `SELECT t.terms_id, a.* EXCLUDE (ac, ah) FROM __au a
      JOIN (SELECT ac, min(ah) AS ah FROM __au SEMI JOIN __tid USING (ac) GROUP BY ac) k USING (ac, ah) JOIN __tid t USING (ac)`, snapshot);
    return { rows: written.rows, terms: terms_ };
  } finally {
    await writer.stop();
    for (const t of temps) await con.run(`DROP TABLE IF EXISTS ${t}`);
  }
}

/**
 * Used price descriptions above which price_terms is written at DuckDB's full limit (writeRates):
 * the 1 GiB benchmark file uses ~68 k, gen-tic.mjs --seed 11 (random service_code lists) 2.64 M,
 * whose join ran out of the streaming limit beside the groups' statements (issue 37).
 */
const MANY_TERMS = 500_000;

/**
 * Staged provider-group rows per group pick (finalizeTic): the pick's aggregate states stay in
 * memory, ~0.3-0.4 KB a group (a 256 MB memory_limit held ~640 k of them alone, 96 MB ~130 k;
 * measured 2026-11-23), and the rates' statements run beside it.
 */
const GROUPS_PER_PICK = 300_000;

/**
 * The group pick runs beside the rates' numbering statements (items, descriptions, sets) when the
 * staged groups fit one pick and those statements number at most this many staged rows (the 1 GiB
 * benchmark file stages 116 k), else after them: beside them the 40 GiB file's pick (~1.9 M such
 * rows) ran out of memory. The pick's aggregate does not spill; the numbering's sorts do.
 */
const PICK_BESIDE_MAX = 500_000;

/**
 * DuckDB's memory_limit while the rates and the groups only stream rows to their writer threads
 * (MemoryWindow): the blocks of the tables they read, cached up to the full limit, are evicted.
 * Measured 2026-11-23 on a 20 GiB file (100 M prices), whose peak came while the rates were
 * written: 843 and 852 MiB against 942 and 973 (the full 256 MB limit throughout); the 5 GiB and
 * 1 GiB files, whose peaks come earlier, within noise in time and RSS over three pairs each.
 */
const STREAM_MEMORY_LIMIT = '128MB';

/** Staged group_sets rows per COPY of group_sets and group_files (their DISTINCTs; see keyRanges). */
const ROWS_PER_DISTINCT = 600_000;
