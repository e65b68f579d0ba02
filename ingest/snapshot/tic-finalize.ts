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
import { PLAN_PICK_ORDER_SQL, TERMS_KEY_SQL } from './keys.ts';
import { ATTR_COLUMNS, ITEM_COLUMNS, SEP, STAGED_NUMERIC, contentHashSql, type DoneMarker } from './staged-layout.ts';
import { copySelectToTable } from './table-writer.ts';
import { writeGroupTables, type GroupCounts, type GselBatch } from './group-tables.ts';
import { writeRatePartitions, type RatePartition, type RatesBatch } from './rates-write.ts';
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
  /** A second connection to the same database: the rates' items stream on it beside their rows. */
  side?: DuckDBConnection | null;
  /**
   * A third one: provider_groups and group_members (group-tables.ts, JS) are then written while
   * DuckDB writes the rates, their chosen groups streamed from it. Without it they come after.
   */
  reader?: DuckDBConnection | null;
  /** Rates rows per de-duplication batch when several files contribute (tests make it small). */
  rowsPerBatch?: number;
  /** Staged prices above which the rates' join is written out before it is sorted (PRICES_PER_SORT; tests make it small). */
  pricesPerSort?: number;
  /** (npi, group_ref) pairs sorted in memory at once (group-tables.ts MEMBERS_PER_SORT; tests make it small). */
  membersPerSort?: number;
  /** Staged provider-group rows per group pick (GROUPS_PER_PICK; tests make it small). */
  groupsPerPick?: number;
  /** Staged group_sets rows per COPY of group_sets and group_files (ROWS_PER_DISTINCT; tests make it small). */
  rowsPerDistinct?: number;
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
  const side = o.side ?? null;
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
  let groupsSorted = (): void => {};
  const sortedGroups = reader ? new Promise<void>((resolve) => { groupsSorted = resolve; }) : null;
  let ratesPrepared = (): void => {};
  const preparedRates = reader ? new Promise<void>((resolve) => { ratesPrepared = resolve; }) : null;
  const groups = async (): Promise<{ groups: number; members: number }> => {
    const step = (what: string, sql: string): Promise<unknown> =>
      gcon.run(sql).catch((err: unknown) => { throw new Error(`${what}: ${(err as Error).message}`, { cause: err }); });
    const start = performance.now();
    const needed = window?.need('groups');
    // The writer's thread starts now: it loads its modules while DuckDB picks the groups.
    const worker = new SinkWorker<GselBatch, GroupCounts>('groups');
    try {
      await needed;
      await preparedRates;
      // The instance with the least (file_key, gid) per group_key, and every instance's network
      // names joined (group-tables.ts splits, de-duplicates and sorts them): one statement per range
      // of group keys (keyRanges: the aggregate's states, a struct and a string_agg, do not spill),
      // each of at most GROUPS_PER_PICK staged rows; ranges in key order, numbered on from the last,
      // so g2 is the rank in group_key order. Measured 2026-11-23 on the staged 1 GiB benchmark
      // file: 0.22-0.23 s and 0.25-0.31 CPU-seconds for one statement, against 0.39-0.53 s and
      // 0.47-0.64 for a pick with the names unioned as lists in SQL and a join of the staged
      // groups back on it; in two statements 0.51 s.
      const staged = await scalar(gcon, `SELECT count(*) FROM ${scan('groups')}`);
      let done = 0;
      for (const [i, where] of keyRanges('group_key', Math.ceil(staged / (o.groupsPerPick ?? GROUPS_PER_PICK))).entries()) {
        await step('choosing one row per provider group', `${i === 0 ? 'CREATE OR REPLACE TABLE __gsel AS' : 'INSERT INTO __gsel'} SELECT
            (${done} + row_number() OVER (ORDER BY group_key))::INTEGER AS g2, group_key, p.file_key, p.gid, p.tin_type, p.tin_value, p.business_name, network_names
          FROM (SELECT group_key,
              arg_min({'file_key': file_key, 'gid': gid, 'tin_type': tin_type, 'tin_value': tin_value, 'business_name': business_name}, {'f': file_key, 'g': gid}) AS p,
              string_agg(network_names, chr(31)) FILTER (WHERE network_names <> '') AS network_names
            FROM ${scan('groups')} WHERE ${where} GROUP BY group_key)`);
        done = await scalar(gcon, 'SELECT count(*) FROM __gsel');
      }
      return await writeGroupTables(gcon, filesDir, snapshot, { membersPerSort: o.membersPerSort, worker, sorted: groupsSorted, fetched: () => window?.release('groups') })
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
      return await writeRates(con, side, filesDir, snapshot, { rowsPerBatch: o.rowsPerBatch ?? ROWS_PER_BATCH, pricesPerSort: o.pricesPerSort ?? PRICES_PER_SORT }, { prepared: ratesPrepared, before: sortedGroups }, window);
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
  // The tables that need neither the rates nor the groups' writer: built on the rates' connection
  // once the rates are written, beside the groups' writer (which streams a table on its own
  // connection and then sorts members in JS). Measured 2026-11-23 on the staged 40 GiB file: after
  // both they took 24 s, the groups' writer having ended 23 s after the rates; beside it, finalize
  // 224.5 s instead of 242.3.
  const others = async (): Promise<void> => {
    await window?.need('finalize');
    last = performance.now();
    // In key ranges, the joins are made once, before: a join and a DISTINCT in one statement ran
    // out of the 256 MB limit over 1.29 M sets and 10.1 M staged pairs (a 40 GiB file), where the
    // join written to a table (3.5 s) and a DISTINCT of it per range (0.3 s) passed (2026-11-23).
    const ranged = pairRanges.length > 1;
    if (ranged) {
      await con.run(`CREATE OR REPLACE TABLE __gs AS SELECT g.group_set_key, u.sc AS set_ref, g.group_key
        FROM ${scan('group_sets')} g JOIN __su u USING (group_set_key)`);
      await con.run(`CREATE OR REPLACE TABLE __sf AS SELECT DISTINCT file_key, group_set_key FROM ${scan('sets')}`);
    }
    counts.group_sets = await copySelectToTable(con, GROUP_SETS, ranged ? 'SELECT DISTINCT group_set_key, set_ref, group_key FROM __gs'
      : `SELECT DISTINCT g.group_set_key, u.sc AS set_ref, g.group_key FROM ${scan('group_sets')} g JOIN __su u USING (group_set_key)`, snapshot, pairRanges);
    // A file references a group when any of its negotiated_rates names a set holding the group.
    counts.group_files = await copySelectToTable(con, GROUP_FILES, ranged ? 'SELECT DISTINCT g.group_key, s.file_key FROM __sf s JOIN __gs g USING (group_set_key)'
      : `SELECT DISTINCT g.group_key, s.file_key FROM (SELECT DISTINCT file_key, group_set_key FROM ${scan('sets')}) s JOIN ${scan('group_sets')} g USING (group_set_key)`,
    snapshot, pairRanges);
    for (const t of ['__su', '__gs', '__sf']) await con.run(`DROP TABLE IF EXISTS ${t}`);

    counts.bundles = await copySelectToTable(con, BUNDLES, `SELECT DISTINCT * FROM ${scan('bundles')}`, snapshot);

    counts.allowed_amounts = await copySelectToTable(con, ALLOWED_AMOUNTS, `
      SELECT file_key, billing_code_type, billing_code, name, tin_type, tin_value, ${strList('service_code')} AS service_code,
        billing_class, setting, allowed_amount, ${strList('billing_code_modifier')} AS billing_code_modifier,
        ${npiList('npis')} AS npis, billed_charge
      FROM ${scan('allowed_amounts')}`, snapshot);

    counts.plans = await copySelectToTable(con, PLANS, `
      SELECT DISTINCT ON (plan_key) *, NULL::VARCHAR AS payer_key FROM ${scan('plans')} ORDER BY ${PLAN_PICK_ORDER_SQL}`, snapshot);

    counts.plan_files = await copySelectToTable(con, PLAN_FILES, `
      SELECT plan_key, file_key, file_type, any_value(description) AS description FROM ${scan('plan_files')}
      GROUP BY ALL ORDER BY plan_key, file_key`, snapshot);
  };
  let r: { rows: number; terms: number }, g: { groups: number; members: number };
  try {
    if (reader) {
      // Both run to their end (neither leaves the other's statements running), then the first error counts.
      const [a, b] = await Promise.allSettled([rates().then(async (written) => { await others(); return written; }), groups()]);
      if (a.status === 'rejected') throw a.reason;
      if (b.status === 'rejected') throw b.reason;
      [r, g] = [a.value, b.value];
    } else {
      r = await rates();
      g = await groups();
      await others();
    }
  } finally {
    await window?.need('finalize');
    for (const t of ['__su', '__gs', '__sf']) await con.run(`DROP TABLE IF EXISTS ${t}`);
  }
  timings.group_members = 0; // written with provider_groups
  return { rates: r.rows, price_terms: r.terms, provider_groups: g.groups, group_members: g.members, ...raw };
}

/**
 * Rates rows per de-duplication batch when several files contribute (list() aggregate states, which
 * hold the file lists, do not spill). Measured 2026-11-22 on 4.9 M rows with a 256 MB memory_limit,
 * when the lists held file_key text: 125 k 13.9 s, 250 k 9.3 s, 500 k 11.4 s, 1 M 13.0 s (larger
 * batches spill; smaller pay a fixed cost). With file numbers, on 9.8 M rows: 250 k, 1 M and 4 M
 * within noise of each other (7.7-9.2 s), 4 M with ~60 MB more RSS.
 */
const ROWS_PER_BATCH = 250_000;

/**
 * Staged prices above which the rates' narrow join is written to a table before it is sorted
 * (writeRatesSteps): 100 M prices (a 20 GiB file) passed in one statement, 200 M did not
 * (measured 2026-11-23).
 */
const PRICES_PER_SORT = 64_000_000;

/** A finished file's staged data is not as done.json recorded it: `src` must be read again. */
export class StagedDataError extends Error {
  override name = 'StagedDataError';
  constructor(readonly src: string, message: string) {
    super(message);
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

/** Rates rows per de-duplication batch (ROWS_PER_BATCH) and staged prices per sort (PRICES_PER_SORT). */
interface RatesSizes { rowsPerBatch: number; pricesPerSort: number }

/**
 * rates. Rows are identified by small numbers first, then written one partition at a time:
 *
 * - every distinct item (by content hash, contentHashSql) gets a rank `r`, and its billing code a
 *   rank `cr` in (billing_code_type, code_prefix, billing_code) order; every distinct price
 *   description a number `ac`; every set its number `sc` (finalizeTic's `__su`: the set_ref
 *   written, so no set key is carried per row);
 * - `__ps` holds the narrow rows (cr, r, sc, ac, rate) in (cr, sc, r, ac, rate) order: when one
 *   file contributes (nothing needs a file list) every staged row, repeats next to each other for
 *   the writer to drop; else one row per distinct rate row, GROUP BY with the list of file numbers
 *   (fks), in batches of cr ranges (identical rows share their code, hence a batch);
 * - each partition is a contiguous cr range: rates-write.ts streams `__ps` and the items (`__iu`)
 *   to a worker thread that writes one Parquet file per partition, the item columns joined on
 *   there; the price terms stay a number (terms_id: the used descriptions numbered densely in
 *   TERMS_KEY_SQL order), written once each to price_terms.
 *
 * Measured 2026-11-22 on the 1 GiB benchmark file (4.9 M rows, 200 partitions): 3.7-4.2 s with a
 * DuckDB COPY per partition; with the terms written on every row 5.8-6.2 s, and one DISTINCT +
 * partitioned COPY per batch of partitions 8.7 s (DuckDB writes a partitioned COPY on one thread).
 * The JS writer: schemas/README.md item 33.
 */
/** The rates' turns beside the groups: `prepared` called once their numbering statements are done, `before` awaited before their join and sort. */
interface RatesTurns { prepared: () => void; before: Promise<void> | null }

async function writeRates(con: DuckDBConnection, side: DuckDBConnection | null, filesDir: string, snapshot: string, sizes: RatesSizes, turns: RatesTurns, window: MemoryWindow | null): Promise<{ rows: number; terms: number }> {
  try {
    return await writeRatesSteps(con, side, filesDir, snapshot, sizes, turns, window);
  } catch (err) {
    throw new Error(`writing table rates: ${(err as Error).message}`, { cause: err });
  }
}

async function writeRatesSteps(con: DuckDBConnection, side: DuckDBConnection | null, filesDir: string, snapshot: string, sizes: RatesSizes, turns: RatesTurns, window: MemoryWindow | null): Promise<{ rows: number; terms: number }> {
  const { rowsPerBatch, pricesPerSort } = sizes;
  const { before } = turns;
  const out = tableDir(snapshot, RATES);
  rmSync(out, { recursive: true, force: true });
  rmSync(tableDir(snapshot, PRICE_TERMS), { recursive: true, force: true });
  const files = filesWithPrices(filesDir);
  if (files.length === 0) return { rows: 0, terms: 0 };
  const single = files.length === 1 ? files[0]! : null;
  const itemCols = ITEM_COLUMNS.join(', ');
  const temps = ['__i', '__iu', '__im', '__a', '__au', '__am', '__sm', '__fk', '__p', '__pg', '__pn', '__ps', '__tid'];
  // The writer's thread starts now: it loads its modules while DuckDB builds the rows.
  const writer = new SinkWorker<RatesBatch, number>('rates');
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
    await con.run(`CREATE OR REPLACE TABLE __au AS SELECT (dense_rank() OVER (ORDER BY ${TERMS_KEY_SQL}))::INTEGER AS ac, * FROM (
      SELECT ah, negotiated_type, TRY_CAST(expiration_date AS DATE) AS expiration_date, ${strList('service_code')} AS service_code, billing_class, setting,
        ${strList('billing_code_modifier')} AS billing_code_modifier, additional_information
      FROM (SELECT DISTINCT ON (ah) * FROM __a))`);
    await con.run('CREATE OR REPLACE TABLE __am AS SELECT a.file_key, a.attr_id, u.ac FROM __a a JOIN __au u USING (ah)');
    await con.run(`CREATE OR REPLACE TABLE __sm AS SELECT s.file_key, s.set_id, u.sc FROM ${stagedScan(filesDir, 'sets')} s JOIN __su u USING (group_set_key)`);
    turns.prepared();
    const joined = `SELECT m.cr, m.r, sm.sc, am.ac, p.negotiated_rate, p.file_key FROM ${stagedScan(filesDir, 'prices')} p
      JOIN __im m USING (file_key, item_seq) JOIN __am am USING (file_key, attr_id) JOIN __sm sm USING (file_key, set_id)`;
    // Joined and sorted in one statement, 200 M prices (a 40 GiB file) ran out of the 256 MB
    // limit even alone; joined into a table first and then sorted they passed (17.7 s and 46.0 s,
    // measured 2026-11-23). Smaller files keep the one statement (one write of the rows less).
    let narrow = joined;
    if (await scalar(con, `SELECT count(*) FROM ${stagedScan(filesDir, 'prices')}`) > pricesPerSort) {
      // After the group pick and sort, as the sort below: beside the pick, this join ran DuckDB out
      // of memory in it ("failed to allocate data of size 2.0 MiB (242.7 MiB/244.1 MiB used)", 40
      // GiB file, 2026-11-23), and beside the groups' sort in the join.
      await before;
      // One file: no file_key to carry (200 M copies of it took the join 114 s instead of ~18).
      await con.run(`CREATE OR REPLACE TABLE __pn AS SELECT ${single !== null ? '* EXCLUDE (file_key)' : '*'} FROM (${joined})`);
      narrow = 'SELECT * FROM __pn';
    }
    // __ps in (cr, sc) order: each partition's COPY below then reads only its own row groups.
    await before;
    const preserve = await setting(con, 'preserve_insertion_order');
    await con.run('SET preserve_insertion_order = true');
    try {
      if (single !== null) {
        // One file: nothing to gather but the rows, so they are only put in (cr, sc) order here and
        // each partition's COPY below drops its own repeats (a repeat has its row's cr): ~24 k rows
        // at a time in a small hash table instead of one of 4.9 M groups. Measured 2026-11-23 on
        // the 1 GiB benchmark file: rates alone 2.95-3.14 s against 3.13-3.27; finalize beside the
        // groups 0.5 CPU-seconds less on average over six alternating pairs.
        await con.run(`CREATE OR REPLACE TABLE __ps AS SELECT cr, r, sc, ac, negotiated_rate FROM (${narrow}) ORDER BY cr, sc, r, ac, negotiated_rate`);
        await con.run('DROP TABLE IF EXISTS __pn');
      } else {
        // Every row is numbers while it is grouped: the files by fk (their rank in file_key order),
        // the set by sc; the keys come back once per distinct row. Measured 2026-11-22 on two
        // staged 1 GiB files (9.8 M prices, each row in both): rates 8.3-9.0 s and finalize ~21
        // CPU-seconds, against 12.8 s and 28 with the file_key and group_set_key text grouped.
        await con.run(`CREATE OR REPLACE TABLE __fk AS SELECT file_key, (row_number() OVER (ORDER BY file_key))::INTEGER AS fk
          FROM (SELECT DISTINCT file_key FROM __im)`);
        await con.run(`CREATE OR REPLACE TABLE __p AS SELECT n.cr, n.r, n.sc, n.ac, n.negotiated_rate, f.fk FROM (${narrow}) n JOIN __fk f USING (file_key) ORDER BY cr`);
        await con.run('CREATE OR REPLACE TABLE __pg (cr INTEGER, r INTEGER, sc INTEGER, ac INTEGER, negotiated_rate DOUBLE, fks INTEGER[])');
        const perCode = (await con.runAndReadAll('SELECT cr, count(*) FROM __p GROUP BY cr ORDER BY cr')).getRows();
        for (const [lo, hi] of rangesOf(perCode.map(([cr, n]) => [Number(cr), Number(n)]), rowsPerBatch)) {
          await con.run(`INSERT INTO __pg SELECT cr, r, sc, ac, negotiated_rate, list_sort(list(DISTINCT fk)) AS fks
            FROM __p WHERE cr BETWEEN ${lo} AND ${hi} GROUP BY cr, r, sc, ac, negotiated_rate`);
        }
        await con.run('DROP TABLE __p');
        await con.run('DROP TABLE IF EXISTS __pn');
        // Sorted as numbers; rates-write.ts gives the file numbers their keys.
        await con.run('CREATE OR REPLACE TABLE __ps AS SELECT * FROM __pg ORDER BY cr, sc, r, ac, negotiated_rate');
        await con.run('DROP TABLE __pg');
      }
      // terms_id: the used terms numbered densely in ac (TERMS_KEY_SQL) order. Usually that is ac
      // itself; only when a description had nothing but dropped prices (a set without members)
      // are the rows renumbered, here once, rather than every partition's COPY joining __tid (a
      // hash table of all ~40 k terms built per partition). Measured 2026-11-23 on the 1 GiB
      // benchmark file, finalize alternating with the join: 0.45-2.1 CPU-seconds less in 4 of 4.
      await con.run('CREATE OR REPLACE TABLE __tid AS SELECT ac, (row_number() OVER (ORDER BY ac))::INTEGER AS terms_id FROM (SELECT DISTINCT ac FROM __ps)');
      const renumber = Number((await con.runAndReadAll('SELECT count(*) FROM __tid WHERE ac <> terms_id')).getRows()[0]?.[0] ?? 0) > 0;
      if (renumber) {
        await con.run('CREATE OR REPLACE TABLE __ps AS SELECT p.* REPLACE (t.terms_id AS ac) FROM __ps p JOIN __tid t USING (ac) ORDER BY p.cr, p.sc, p.r, p.ac, p.negotiated_rate');
      }
    } finally {
      await con.run(`SET preserve_insertion_order = ${preserve}`);
    }
    const parts: RatePartition[] = (await con.runAndReadAll(`SELECT billing_code_type, code_prefix, min(cr), max(cr) FROM __iu
      WHERE cr IN (SELECT DISTINCT cr FROM __ps) GROUP BY ALL ORDER BY 3`)).getRows()
      .map(([type, prefix, lo, hi]) => ({ type: String(type), prefix: String(prefix), lo: Number(lo), hi: Number(hi) }));
    const keys = single !== null ? [single]
      : (await con.runAndReadAll('SELECT fk, file_key FROM __fk ORDER BY fk')).getRows().reduce<string[]>((a, [fk, key]) => { a[Number(fk)] = String(key); return a; }, []);
    // __ps is read in the order it was written in.
    const ordered = await setting(con, 'preserve_insertion_order');
    await con.run('SET preserve_insertion_order = true');
    let rows: number;
    try {
      // From here the rates only stream __ps and the items (a sort of the items, small) to the writer.
      await window?.release('rates');
      rows = await writeRatePartitions(writer, con, side, { out, parts, fileKeys: keys, multi: single === null });
    } finally {
      await window?.need('rates');
      await con.run(`SET preserve_insertion_order = ${ordered}`);
    }
    // The terms the written rows name (a description only dropped prices had is left out).
    const terms = await copySelectToTable(con, PRICE_TERMS, 'SELECT t.terms_id, a.* EXCLUDE (ac, ah) FROM (SELECT DISTINCT ON (ac) * FROM __au) a JOIN __tid t USING (ac)', snapshot);
    return { rows, terms };
  } finally {
    await writer.stop();
    for (const t of temps) await con.run(`DROP TABLE IF EXISTS ${t}`);
  }
}

/** A boolean DuckDB setting (to restore it after a SET). */
async function setting(con: DuckDBConnection, name: string): Promise<boolean> {
  return (await con.runAndReadAll(`SELECT current_setting(${lit(name)})`)).getRows()[0]?.[0] === true;
}

/**
 * Staged provider-group rows per group pick (finalizeTic): the pick's aggregate states stay in
 * memory, ~0.3-0.4 KB a group (a 256 MB memory_limit held ~640 k of them alone, 96 MB ~130 k;
 * measured 2026-11-23), and the rates' statements run beside it.
 */
const GROUPS_PER_PICK = 300_000;

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

/**
 * SQL conditions on `column` (a group key) splitting the key space into `n` consecutive ranges, in
 * key order. Group keys are 32 hex digits of a SHA-256 (keys.ts groupKey), so ranges of the first
 * four digits split them evenly; the first range has no lower bound and the last no upper one, so
 * every string (NULL aside) falls in exactly one whatever it holds.
 *
 * Statements whose aggregate or DISTINCT spans every group (or every (set, group) pair) run once
 * per range: DuckDB's hash aggregate needs memory in proportion to its groups. Measured 2026-11-23
 * on the 5 GiB benchmark file (638 k groups, 1.29 M group_sets rows): the group pick alone failed
 * under a 192 MB memory_limit, and beside the rates under 256 MB; `SELECT DISTINCT` of the
 * group_sets pairs under 128 MB (530 k pairs under 96 MB).
 */
export function keyRanges(column: string, n: number): string[] {
  const parts = Math.max(1, Math.min(n, 0x10000));
  const bound = (i: number): string => lit(Math.floor((i * 0x10000) / parts).toString(16).padStart(4, '0'));
  return Array.from({ length: parts }, (_, i) => {
    const lo = i === 0 ? null : `${column} >= ${bound(i)}`;
    const hi = i === parts - 1 ? null : `${column} < ${bound(i + 1)}`;
    return [lo, hi].filter((c) => c !== null).join(' AND ') || 'true';
  });
}

/** Consecutive [lo, hi] key ranges of at most `cap` rows each (a key with more rows gets a range of its own). */
export function rangesOf(counts: readonly (readonly [number, number])[], cap: number): [number, number][] {
  const out: [number, number][] = [];
  let range: [number, number] | null = null;
  let n = 0;
  for (const [k, c] of counts) {
    if (range && n + c > cap) { out.push(range); range = null; n = 0; }
    range = range ? [range[0], k] : [k, k];
    n += c;
  }
  if (range) out.push(range);
  return out;
}
