/**
 * provider_groups and group_members of a snapshot, written in JS from the staged NPIs
 * (npi-stage.ts) and the groups DuckDB picked (tic-finalize.ts `__gsel`: one staged instance per
 * group_key, numbered g2 = group_ref in group_key order).
 *
 * The JS thread streams the picked instances out of DuckDB to a worker thread (sink-worker.ts),
 * whose GroupSink does the rest:
 * 1. One pass in (file_key, gid) order: the picked instances beside each file's staged NPI
 *    records (both in gid order, a merge join). Each picked group becomes a
 *    provider_groups row, its NPI list copied from its record (already sorted and distinct), and
 *    each of its NPIs a (npi / 64, group_ref) pair appended to the spill file of its partition: its
 *    bucket (npi % 64) and, when the run has more pairs than MEMBERS_PER_SORT per bucket, an NPI
 *    range within it.
 * 2. Each partition in order: its pairs read back, radix-sorted by (npi, group_ref) and appended to
 *    its bucket's Parquet file, so each bucket is one file sorted by npi. A partition larger than
 *    MEMBERS_PER_SORT (skewed NPIs) is split again by range first, so memory stays bounded.
 *
 * Why not DuckDB: building the NPI lists with list() + list_sort in slices, and sorting the pairs
 * into buckets, took ~7 s of the staged 1 GiB benchmark file's 11.5 s finalize (~13 of its ~20
 * CPU-seconds); this took 2.7-3.0 s (~4.5 CPU-seconds, zstd on the pool included) beside DuckDB's
 * rates (measured 2026-11-22), and on its own thread with the NPIs delta-packed ~2.3 CPU-seconds
 * (2026-11-23; schemas/README.md items 12, 33, 34).
 */
import { closeSync, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DuckDBConnection, DuckDBDataChunk, DuckDBVector } from '@duckdb/node-api';
import { GROUP_MEMBERS, PROVIDER_GROUPS } from '../../schemas/pricing-tables.ts';
import { tableDir } from '../../schemas/snapshot-layout.ts';
import { NpiStageReader, type NpiRecord } from './npi-stage.ts';
import { RecordSpill } from './record-sort.ts';
import { ParquetWriter, type ParquetColumn, type ParquetColumnKind } from './parquet-write.ts';
import { SinkWorker, type Sink } from './sink-worker.ts';
import { STAGED_NPI_FILES } from './staged-layout.ts';

/** (npi, group_ref) pairs sorted in memory at once: 28 bytes a pair (read, split, sorted), 56 MB at 2 M. */
export const MEMBERS_PER_SORT = 2_000_000;
/** Rows per group_members row group: min/max of npi let a lookup read one of a bucket's. */
const MEMBERS_ROW_GROUP = 122_880;
/** provider_groups row groups: at most this many rows, or this many NPIs (a 50,000-NPI list is one row). */
const GROUPS_ROW_GROUP = 8192;
const GROUPS_NPIS_PER_ROW_GROUP = 1 << 18;
const BUCKETS = 64;
/** Bytes of spill buffers in all (each partition's at least 8 KiB). */
const SPILL_BUFFERS = 8 << 20;
/** NPI ranges split evenly over [1e9, 3e9) (10 digits starting with 1 or 2), as q = npi >>> 6. */
const Q_LO = Math.floor(1e9 / 64), Q_HI = Math.ceil(3e9 / 64);

const NO_NAMES: readonly string[] = [];

/**
 * A group's network names from every staged instance's, joined with SEP (tic-finalize.ts):
 * distinct, in code point order (UTF-8 byte order, as DuckDB sorts VARCHAR).
 */
export function networkNames(joined: string | null): readonly string[] {
  if (joined === null || joined === '') return NO_NAMES;
  const names = joined.split('\u001f');
  if (names.length === 1) return names;
  return [...new Set(names)].sort(byCodePoint);
}

/** Code point order of two strings (UTF-16 code unit order differs where a surrogate meets U+E000-U+FFFF). */
export function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Both delta-packed (encodeDelta), not zstd-compressed: a bucket's NPIs ascend, ~1.8 bytes a row
 * (37 MB for the 1 GiB benchmark file's 20.8 M), the group numbers ~2.3. Measured 2026-11-23 on
 * that file with provider_groups' lists packed too: zstd had cost the groups' thread ~1.7
 * CPU-seconds, the packing ~0.5-0.7; finalize 3.64-3.82 s against 3.97-4.19.
 */
const MEMBER_COLUMNS: readonly ParquetColumn[] = [{ name: 'npi', kind: 'int64', stats: true, delta: true }, { name: 'group_ref', kind: 'int32', delta: true }];

const GROUP_KINDS: Record<string, ParquetColumnKind> = {
  group_key: 'string', group_ref: 'int32', tin_type: 'optional-string', tin_value: 'optional-string',
  npis: 'int64-list', network_names: 'string-list', business_name: 'optional-string',
};

/** Appends (q, ref) pairs (q = npi / 64) to one spill file per partition (record-sort.ts RecordSpill). */
class PairSpill extends RecordSpill {
  constructor(dir: string, parts: number) {
    super(dir, parts, 2, SPILL_BUFFERS);
  }

  add(p: number, q: number, ref: number): void {
    const at = this.reserve(p);
    const b = this.buf;
    b[at] = q;
    b[at + 1] = ref;
  }
}

/** The interleaved (q, ref) words of a spill file. */
function readPairs(path: string, pairs: number): Uint32Array {
  const out = scratchOf('words', pairs * 2);
  if (pairs === 0) return out;
  const fd = openSync(path, 'r');
  try {
    const bytes = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    let done = 0;
    while (done < bytes.length) {
      const got = readSync(fd, bytes, done, bytes.length - done, done);
      if (got === 0) throw new Error(`${path}: ends after ${done} of ${bytes.length} bytes`);
      done += got;
    }
    if (fstatSync(fd).size !== bytes.length) throw new Error(`${path}: ${fstatSync(fd).size} bytes, expected ${bytes.length}`);
  } finally {
    closeSync(fd);
  }
  return out;
}

/**
 * The digits of an LSD radix sort by q, least significant first: [shift, bits]. q is npi >>> 6
 * within a bucket: 10-digit NPIs give q below 2^28, real ones (1e9-3e9) below 2^26.
 */
const DIGITS = [[0, 13], [13, 13], [26, 6]] as const;
const HISTOGRAMS = DIGITS.map(([, bits]) => new Uint32Array(1 << bits));

/** Arrays kept between partitions (grown to the largest one sorted): a fresh set per bucket cost 0.4 s of collections. */
const scratch = { words: new Uint32Array(0), npi: new Uint32Array(0), ref: new Uint32Array(0), npi2: new Uint32Array(0), ref2: new Uint32Array(0) };

function scratchOf(name: keyof typeof scratch, n: number): Uint32Array {
  if (scratch[name].length < n) scratch[name] = new Uint32Array(n);
  return scratch[name].subarray(0, n);
}

/**
 * Sorts pairs by (q, ref): a stable LSD radix by q (one pass counts every digit's histogram, then
 * one pass per digit that varies moves the pairs; for real NPIs q's top 6 bits never vary), then
 * each run of equal q sorted by ref (the pairs are distinct, so that is the whole order). An NPI is
 * in a few groups at most in most files (the 1 GiB benchmark file: 20.8 M pairs, 20.6 M NPIs, 4 at
 * most), so this costs a pass over the pairs where sorting ref digit by digit cost two moves of them
 * (measured 2026-11-24: see schemas/README.md item 56). `npi` (the q values) and `ref` are taken
 * over; the sorted arrays are returned.
 */
export function sortPairs(npi: Uint32Array, ref: Uint32Array): { npi: Uint32Array; ref: Uint32Array } {
  const n = npi.length;
  histograms(npi);
  let aNpi = npi, aRef = ref, bNpi = scratchOf('npi2', n), bRef = scratchOf('ref2', n);
  for (let d = 0; d < DIGITS.length; d++) {
    const [shift, bits] = DIGITS[d]!;
    const h = HISTOGRAMS[d]!;
    if (h.some((c) => c === n)) continue; // one digit value: nothing moves
    offsets(h);
    scatterPairs(aNpi, aRef, bNpi, bRef, h, shift, (1 << bits) - 1);
    [aNpi, bNpi] = [bNpi, aNpi];
    [aRef, bRef] = [bRef, aRef];
  }
  refsInRuns(aNpi, aRef);
  return { npi: aNpi, ref: aRef };
}

// sortPairs' loops are functions of their own: optimized while one ran, V8 left the code at the
// next one's first property access ("insufficient type feedback", --trace-deopt, 2026-11-23); with
// the histograms' loop still in it, at its calls, up to 63 times finalizing the 1 GiB benchmark
// file (2026-11-24: V8 keeps the code after such a deopt, so every call after it deopts again).
function histograms(npi: Uint32Array): void {
  const [h0, h1, h2] = HISTOGRAMS as [Uint32Array, Uint32Array, Uint32Array];
  for (const h of HISTOGRAMS) h.fill(0);
  for (let i = 0; i < npi.length; i++) {
    const v = npi[i]!;
    h0[v & 8191]!++; h1[(v >>> 13) & 8191]!++; h2[v >>> 26]!++;
  }
}

function offsets(h: Uint32Array): void {
  for (let k = 0, sum = 0; k < h.length; k++) { const c = h[k]!; h[k] = sum; sum += c; }
}

function scatterPairs(key: Uint32Array, other: Uint32Array, keyOut: Uint32Array, otherOut: Uint32Array, h: Uint32Array, shift: number, mask: number): void {
  for (let i = 0; i < key.length; i++) {
    const k = key[i]!;
    const at = h[(k >>> shift) & mask]!++;
    keyOut[at] = k;
    otherOut[at] = other[i]!;
  }
}

/** Each run of equal q (sorted) with its refs in order: a short run by insertion, a long one by the typed array's sort. */
function refsInRuns(q: Uint32Array, ref: Uint32Array): void {
  const n = q.length;
  for (let i = 1; i < n; i++) {
    if (q[i] !== q[i - 1]) continue;
    let j = i + 1;
    while (j < n && q[j] === q[i]) j++;
    const from = i - 1;
    if (j - from > 16) ref.subarray(from, j).sort();
    else {
      for (let k = from + 1; k < j; k++) {
        const v = ref[k]!;
        let m = k - 1;
        while (m >= from && ref[m]! > v) { ref[m + 1] = ref[m]!; m--; }
        ref[m + 1] = v;
      }
    }
    i = j;
  }
}

/** Appends sorted pairs to a bucket's group_members file in row groups of MEMBERS_ROW_GROUP. */
async function appendMembers(w: ParquetWriter, bucket: number, q: Uint32Array, ref: Uint32Array): Promise<void> {
  const [npiCol, refCol] = w.cols as [ParquetWriter['cols'][number], ParquetWriter['cols'][number]];
  for (let from = 0; from < q.length;) {
    const to = Math.min(q.length, from + (MEMBERS_ROW_GROUP - w.pending));
    npiCol.int64sBucket(q, from, to, bucket);
    refCol.int32s(ref, from, to);
    w.endRows(to - from);
    if (w.pending === MEMBERS_ROW_GROUP) await w.writeRowGroup();
    from = to;
  }
}

/** The interleaved (q, ref) words apart (a loop of its own, as sortPairs' are). */
function deinterleave(words: Uint32Array, npi: Uint32Array, ref: Uint32Array): void {
  for (let i = 0, j = 0; i < npi.length; i++, j += 2) { npi[i] = words[j]!; ref[i] = words[j + 1]!; }
}

/**
 * Sorts one partition's spill and appends it to its bucket's writer; a partition above `cap` pairs
 * is split by NPI range (or, when all its NPIs are equal, by ref range) into 16 and each part
 * handled in order.
 */
async function sortPartition(path: string, pairs: number, cap: number, w: ParquetWriter, bucket: number, depth = 0): Promise<void> {
  if (pairs <= cap || depth > 8) {
    const words = readPairs(path, pairs);
    const npi = scratchOf('npi', pairs), ref = scratchOf('ref', pairs);
    deinterleave(words, npi, ref);
    const sorted = sortPairs(npi, ref);
    await appendMembers(w, bucket, sorted.npi, sorted.ref);
    return;
  }
  // Too many pairs to sort at once: split by range, reading the spill a piece at a time.
  const piece = Math.max(2, Math.floor(cap / 2)) * 2;
  const each = (fn: (words: Uint32Array, n: number) => void): void => {
    const fd = openSync(path, 'r');
    try {
      const buf = new Uint32Array(piece);
      const bytes = Buffer.from(buf.buffer);
      for (let pos = 0, total = pairs * 8; pos < total;) {
        let got = 0;
        while (got < Math.min(bytes.length, total - pos)) {
          const r = readSync(fd, bytes, got, Math.min(bytes.length, total - pos) - got, pos + got);
          if (r === 0) throw new Error(`${path}: ends early`);
          got += r;
        }
        fn(buf, got / 8);
        pos += got;
      }
    } finally {
      closeSync(fd);
    }
  };
  const lo = [Infinity, Infinity], hi = [-Infinity, -Infinity];
  each((words, n) => {
    for (let i = 0; i < 2 * n; i += 2) {
      for (const c of [0, 1]) {
        const v = words[i + c]!;
        if (v < lo[c]!) lo[c] = v;
        if (v > hi[c]!) hi[c] = v;
      }
    }
  });
  const c = lo[0] !== hi[0] ? 0 : 1; // split on q, else on ref (every pair is distinct)
  const l = lo[c]!, span = hi[c]! - l + 1;
  const sub = new PairSpill(mkdtempSync(join(dirname(path), 'split-')), 16);
  try {
    each((words, n) => {
      for (let i = 0; i < 2 * n; i += 2) sub.add(Math.min(15, Math.floor(((words[i + c]! - l) * 16) / span)), words[i]!, words[i + 1]!);
    });
    sub.close();
    for (let p = 0; p < 16; p++) if (sub.counts[p]! > 0) await sortPartition(sub.path(p), sub.counts[p]!, cap, w, bucket, depth + 1);
  } finally {
    rmSync(sub.dir, { recursive: true, force: true });
  }
}

/**
 * Each NPI of a staged record (words[from..to)) to its partition as (q = floor(npi / 64), g2): its
 * bucket is npi % 64, its range within the bucket as `ranges` says. A function of its own so that
 * the loop over a group's NPIs does not nest in writeGroupTables' loops: V8 compiled it for
 * on-stack replacement there and left it at its exit ~110 times a 1 GiB file (measured 2026-11-23).
 */
function spillGroup(spill: PairSpill, w: Uint32Array, from: number, to: number, wide: boolean, ranges: number, g2: number): void {
  if (!wide && ranges === 1) {
    for (let k = from; k < to; k++) { const v = w[k]!; spill.add(v & 63, v >>> 6, g2); }
    return;
  }
  for (let k = from; k < to; k += wide ? 2 : 1) {
    const lo = w[k]!, q = wide ? (lo >>> 6) + w[k + 1]! * 0x4000000 : lo >>> 6;
    const r = ranges === 1 ? 0 : Math.min(ranges - 1, Math.max(0, Math.floor(((q - Q_LO) * ranges) / (Q_HI - Q_LO))));
    spill.add((lo & 63) * ranges + r, q, g2);
  }
}

export interface GroupTablesOptions {
  /** (npi, group_ref) pairs sorted in memory at once (MEMBERS_PER_SORT; tests make it small). */
  membersPerSort?: number;
  /** The writer's thread, started by the caller ahead of time (else started here). */
  worker?: SinkWorker<GselBatch, GroupCounts>;
  /** Called once DuckDB has sorted the chosen groups into a table (the rest only streams it), or failed. */
  sorted?: () => void;
  /** Awaited once the chosen groups are in their sorted table: from there DuckDB only streams it. */
  streaming?: () => Promise<void> | undefined;
}

export interface GroupCounts { groups: number; members: number }

/** What GroupSink is made from. */
export interface GroupsInit { filesDir: string; snapshot: string; cap: number; fileKeys: string[] }

/**
 * `__gord` rows, column by column, in (fk, gid) order (the query in writeGroupTables): the file by
 * its index in GroupsInit.fileKeys, and a group key of 32 lowercase hex digits (keys.ts groupKey) as
 * four 32-bit words in `keyWords` (4 a row, `keyText` null), any other key as text in `keyText`.
 * Numbers, not strings, as far as they go: read from DuckDB, each string over 12 bytes is a call
 * into its bindings and a buffer of its own, then a string to clone for this worker and to encode
 * again (schemas/README.md item 60).
 */
export interface GselBatch {
  fk: Int32Array; gid: Int32Array; g2: Int32Array; keyWords: Uint32Array; keyText: (string | null)[];
  tinType: (string | null)[]; tinValue: (string | null)[]; networkNames: (string | null)[]; businessName: (string | null)[];
}

/**
 * Writes provider_groups and group_members of `snapshot` from `__gsel` (on `con`) and the staged
 * NPIs under `filesDir`, on a worker thread (GroupSink) that this one streams `__gsel` to.
 * Returns their row counts.
 */
export async function writeGroupTables(con: DuckDBConnection, filesDir: string, snapshot: string, o: GroupTablesOptions = {}): Promise<GroupCounts> {
  const worker = o.worker ?? new SinkWorker<GselBatch, GroupCounts>('groups');
  try {
    // In file_key order: a picked group's file is streamed as its index here (fk).
    const fileKeys = (await con.runAndReadAll('SELECT DISTINCT file_key FROM __gsel ORDER BY file_key')).getRows().map((r) => String(r[0]));
    worker.init({ filesDir, snapshot, cap: Math.max(1, o.membersPerSort ?? MEMBERS_PER_SORT), fileKeys } satisfies GroupsInit);
    // Sorted into a table first, then streamed out of it as stored: a sort's result left open on
    // this connection while the writer drains it (minutes on a large run) kept its blocks pinned, and
    // the rates' join beside it spilled over and over. Measured 2026-11-23 on the staged 40 GiB
    // file (200 M prices), the join alone 26.8 s (52 CPU-seconds): beside an open sorted stream of
    // 5.3 M rows 100.7 s (178), beside a stream of the same rows sorted into a table 28.7 s (56; the
    // table took 2.8 s). The order of the table's rows is kept by this connection's own
    // preserve_insertion_order (SESSION: the rates set theirs on another connection meanwhile).
    // The file as its index and the key as four words where it is hex (GselBatch).
    await con.run('SET SESSION preserve_insertion_order = true');
    const word = (k: number): string => `CASE WHEN hex THEN ('0x' || substr(group_key, ${1 + 8 * k}, 8))::UINTEGER ELSE 0 END AS k${k}`;
    await con.run(`CREATE OR REPLACE TABLE __gord AS SELECT fk, gid, g2, ${[0, 1, 2, 3].map(word).join(', ')},
        CASE WHEN hex THEN NULL ELSE group_key END AS key_text, tin_type, tin_value, network_names, business_name
      FROM (SELECT s.*, f.fk, regexp_full_match(s.group_key, '[0-9a-f]{32}') AS hex FROM __gsel s
        JOIN (SELECT file_key, (row_number() OVER (ORDER BY file_key) - 1)::INTEGER AS fk FROM (SELECT DISTINCT file_key FROM __gsel)) f USING (file_key))
      ORDER BY fk, gid`);
    await con.run('DROP TABLE __gsel');
    o.sorted?.();
    await o.streaming?.();
    // Column by column, a chunk at a time: rows as JS arrays (yieldRowsJs) made enough garbage that
    // V8 grew its young generation by ~100 MB beside DuckDB's rates (measured 2026-11-22).
    const result = await con.stream('SELECT * FROM __gord');
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
      await worker.add(gselBatch(chunk));
    }
    return await worker.end();
  } finally {
    o.sorted?.();
    await worker.stop();
    await con.run('DROP TABLE IF EXISTS __gord');
    await con.run('RESET SESSION preserve_insertion_order');
  }
}

/** A chunk of `__gord` as a GselBatch: its numbers copied out of DuckDB's vectors, the key words interleaved. */
function gselBatch(chunk: DuckDBDataChunk): GselBatch {
  const n = chunk.rowCount;
  const words = [3, 4, 5, 6].map((c) => items(chunk.getColumnVector(c), Uint32Array));
  const keyWords = new Uint32Array(4 * n);
  for (let k = 0; k < 4; k++) interleave(keyWords, words[k]!, k, n);
  const strings = (c: number): (string | null)[] => chunk.getColumnValues(c) as (string | null)[];
  return {
    fk: items(chunk.getColumnVector(0), Int32Array).slice(0, n), gid: items(chunk.getColumnVector(1), Int32Array).slice(0, n),
    g2: items(chunk.getColumnVector(2), Int32Array).slice(0, n), keyWords, keyText: strings(7),
    tinType: strings(8), tinValue: strings(9), networkNames: strings(10), businessName: strings(11),
  };
}

function interleave(out: Uint32Array, w: Uint32Array, k: number, n: number): void {
  for (let i = 0; i < n; i++) out[4 * i + k] = w[i]!;
}

/**
 * The values of a fixed-width vector as the typed-array view @duckdb/node-api keeps of them (its
 * `items`, private in its typings; rates-write.ts reads the rates' numbers so). Its validity is not
 * consulted: `__gord`'s numbers are never NULL.
 */
function items<T extends Int32Array | Uint32Array>(v: DuckDBVector, kind: { new (n: number): T; name: string }): T {
  const a = (v as unknown as { items?: unknown }).items;
  if (!(a instanceof kind)) throw new Error(`provider_groups: a DuckDB vector without ${kind.name} items (@duckdb/node-api changed?)`);
  return a;
}

/**
 * The writing itself (on the worker): each batch of picked groups merged with the staged NPI
 * records into provider_groups rows and spilled member pairs; at the end, the buckets sorted into
 * group_members.
 */
export class GroupSink implements Sink<GselBatch> {
  private readonly cap: number;
  private readonly gmDir: string;
  private readonly ranges: number;
  private readonly spill: PairSpill;
  private readonly pg: ParquetWriter;
  private members = 0;
  private npisInGroup = 0;
  private file: number | null = null;
  private gid = -Infinity;
  private readers: NpiStageReader[] = [];
  private rec: NpiRecord | null = null;
  private finished = false;

  private readonly init: GroupsInit;

  constructor(init: GroupsInit) {
    this.init = init;
    const { filesDir, snapshot, fileKeys } = init;
    this.cap = init.cap;
    const pgDir = tableDir(snapshot, PROVIDER_GROUPS);
    this.gmDir = tableDir(snapshot, GROUP_MEMBERS);
    for (const d of [pgDir, this.gmDir]) { rmSync(d, { recursive: true, force: true }); mkdirSync(d, { recursive: true }); }
    const kinds = PROVIDER_GROUPS.columns.map((c) => {
      const kind = GROUP_KINDS[c.name];
      if (!kind) throw new Error(`provider_groups.${c.name}: no Parquet column kind for it (group-tables.ts GROUP_KINDS)`);
      return { name: c.name, kind, delta: kind === 'int64-list' };
    });
    const stored = GROUP_MEMBERS.columns.filter((c) => !GROUP_MEMBERS.partitionBy?.includes(c.name)).map((c) => `${c.name} ${c.type}`).join(', ');
    if (stored !== 'npi BIGINT, group_ref INTEGER') throw new Error(`group_members is now (${stored}): update group-tables.ts, which writes (npi, group_ref)`);
    // Partitions: 64 buckets, each split into `ranges` NPI ranges when the run has that many pairs
    // (the staged words bound them from above).
    let words = 0;
    for (const fk of fileKeys) for (const f of STAGED_NPI_FILES) { const p = join(filesDir, fk, f); if (existsSync(p)) words += statSync(p).size / 4; }
    this.ranges = Math.max(1, Math.ceil(words / BUCKETS / this.cap));
    // Beside the snapshot directory, named after it: a run killed here leaves it to the next finalize
    // of the same snapshot, which starts by removing it.
    const spillDir = `${snapshot.replace(/[\\/]+$/, '')}.members-spill`;
    rmSync(spillDir, { recursive: true, force: true });
    mkdirSync(spillDir, { recursive: true });
    this.spill = new PairSpill(spillDir, BUCKETS * this.ranges);
    this.pg = new ParquetWriter(join(pgDir, 'data_0.parquet'), kinds, undefined, true);
  }

  private nextRec(): NpiRecord | null {
    while (this.readers.length) {
      const r = this.readers[0]!.next();
      if (r) return r;
      this.readers.shift()!.close();
    }
    return null;
  }

  async add(batch: GselBatch): Promise<void> {
    // The rows in a loop of their own (rows()) that returns when a row group is due, the row and a
    // change of file in functions of their own: with all of it in this async loop, V8 compiled the
    // loop for on-stack replacement and left that code at each path not yet taken (the file's
    // start, the first row group written, a group without NPIs), ~5 TurboFan compiles of ~20 ms
    // for one run's groups (`--trace-opt`, 2026-11-24).
    for (let i = 0; i < batch.fk.length;) {
      i = this.rows(batch, i);
      if (this.rowGroupDue()) {
        await this.pg.writeRowGroup();
        this.npisInGroup = 0;
      }
    }
  }

  private rowGroupDue(): boolean {
    return this.pg.pending >= GROUPS_ROW_GROUP || this.npisInGroup >= GROUPS_NPIS_PER_ROW_GROUP;
  }

  /** Rows from `from` on until a row group is due or the batch ends; the next row's index. */
  private rows(batch: GselBatch, from: number): number {
    const n = batch.fk.length;
    // (Nothing after the loop but the return: a statement there, first run when the loop first
    // ends, would leave the on-stack-replaced loop's code for want of type feedback.)
    let i = from;
    for (; i < n && !this.rowGroupDue(); i++) this.row(batch, i);
    return i;
  }

  private row(batch: GselBatch, i: number): void {
    const fk = batch.fk[i]!, gid = batch.gid[i]!, text = batch.keyText[i]!;
    if (fk !== this.file) this.openFile(fk);
    if (gid < this.gid) throw new Error(`picked groups out of (file_key, gid) order: gid ${gid} after ${this.gid} in file ${this.init.fileKeys[fk]!}`);
    this.gid = gid;
    while (this.rec !== null && this.rec.gid < gid) this.rec = this.nextRec();
    const rec = this.rec;
    const cols = this.pg.cols;
    if (text === null) cols[0]!.hex128(batch.keyWords, 4 * i); else cols[0]!.string(text);
    const g2 = batch.g2[i]!;
    cols[1]!.int32(g2); cols[2]!.string(batch.tinType[i]!); cols[3]!.string(batch.tinValue[i]!);
    if (rec !== null && rec.gid === gid) {
      const { words: w, from, to, wide } = rec;
      const n = wide ? (to - from) / 2 : to - from;
      if (wide) cols[4]!.int64ListWords(w, from, to); else cols[4]!.int64ListU32(w, from, to);
      this.npisInGroup += n;
      this.members += n;
      spillGroup(this.spill, w, from, to, wide, this.ranges, g2);
    } else {
      cols[4]!.int64ListU32(EMPTY_U32, 0, 0);
    }
    cols[5]!.stringList(networkNames(batch.networkNames[i]!)); cols[6]!.string(batch.businessName[i]!);
    this.pg.endRow();
  }

  /** The picked groups of file `fk` begin: its staged NPI records are read from here on. */
  private openFile(fk: number): void {
    const { fileKeys } = this.init;
    // The merge join needs (file_key, gid) order: out of it, a group would silently get no NPIs.
    const key = fileKeys[fk];
    if (key === undefined) throw new Error(`picked groups: file number ${fk} of ${fileKeys.length}`);
    if (this.file !== null && fk < this.file) throw new Error(`picked groups out of (file_key, gid) order: file ${key} after ${fileKeys[this.file]!}`);
    for (const r of this.readers) r.close();
    this.file = fk;
    this.gid = -Infinity;
    const paths = STAGED_NPI_FILES.map((f) => join(this.init.filesDir, key, f));
    if (!existsSync(paths[0]!)) throw new Error(`${join(this.init.filesDir, key)}: no staged NPIs (${STAGED_NPI_FILES[0]}); stage the file again`);
    this.readers = paths.filter((p) => existsSync(p)).map((p) => new NpiStageReader(p));
    this.rec = this.nextRec();
  }

  async end(): Promise<GroupCounts> {
    const { pg, spill, ranges, cap } = this;
    try {
      for (const r of this.readers) r.close();
      this.readers = [];
      spill.close();
      const groups = pg.rows;
      if (groups > 0) await pg.close(); else await pg.abort();
      // Each bucket: its ranges in order into one file.
      let previous: ParquetWriter | null = null;
      for (let b = 0; b < BUCKETS; b++) {
        let n = 0;
        for (let r = 0; r < ranges; r++) n += spill.counts[b * ranges + r]!;
        if (n === 0) continue;
        const dir = join(this.gmDir, `npi_bucket=${b}`);
        mkdirSync(dir, { recursive: true });
        const w: ParquetWriter = new ParquetWriter(join(dir, 'data_0.parquet'), MEMBER_COLUMNS, previous?.cols, true);
        previous = w;
        try {
          for (let r = 0; r < ranges; r++) {
            const p = b * ranges + r;
            if (spill.counts[p]! > 0) await sortPartition(spill.path(p), spill.counts[p]!, cap, w, b);
            rmSync(spill.path(p), { force: true });
          }
          await w.close();
        } catch (err) {
          await w.abort();
          throw err;
        }
      }
      this.finished = true;
      return { groups, members: this.members };
    } finally {
      this.cleanUp();
    }
  }

  async abort(): Promise<void> {
    for (const r of this.readers) r.close();
    this.readers = [];
    if (!this.finished) await this.pg.abort();
    this.cleanUp();
  }

  private cleanUp(): void {
    this.spill.close();
    rmSync(this.spill.dir, { recursive: true, force: true });
    for (const k of Object.keys(scratch) as (keyof typeof scratch)[]) scratch[k] = new Uint32Array(0);
  }
}

const EMPTY_U32 = new Uint32Array(0);
