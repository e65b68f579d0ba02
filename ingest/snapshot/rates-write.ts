/**
 * The rates partitions of a snapshot, written in JS (parquet-write.ts) on a worker thread from
 * the rows of DuckDB's join (tic-finalize.ts):
 *
 * - rows (cr, r, sc, ac, negotiated_rate [, fk]), in any order: cr the billing code's rank, r the
 *   item's, sc the set_ref, ac the price description's number, fk the file's number when several
 *   files contribute; the same row may come more than once (the same price staged twice, or by
 *   several files);
 * - then the items of `__iu` (r, cr, the item's strings) in r order, which is cr order.
 *
 * The JS thread streams both out of DuckDB a chunk at a time (numbers as typed-array views, copied
 * into batches of BATCH_ROWS rows) and posts them to a worker (sink-worker.ts) whose RatesSink
 * spills each row to its partition's file as a record of 32-bit words in sort order (cr, sc, r,
 * ac, the rate's bits, fk; record-sort.ts). Once the rows are in, each partition whose items have
 * all come is read back, sorted (RATES_PER_SORT rows at a time at most), its repeats dropped (one
 * row with every file's number, several files) and written as one Parquet file, row groups of
 * rowGroupSize(RATES) rows: the item strings dictionary-encoded with min/max statistics (a code
 * lookup skips row groups by billing_code's), the numbers plain with theirs, file_keys a
 * dictionary-encoded list; zstd on the worker's own thread (ParquetWriter `inline`). terms_id is
 * ac renumbered densely over the descriptions the rows use.
 *
 * Why not DuckDB: it sorted 200 M rows (a 40 GiB file) in 83-88 s under its 256 MB limit after
 * writing the join to a table (45-59 s); one COPY per partition (joining the items back, dropping
 * repeats, sorting, its Parquet writer) took 1.4 s of the 1 GiB benchmark file's rates on both
 * cores. schemas/README.md items 33 and 51.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBDataChunk, DuckDBResult, DuckDBVector } from '@duckdb/node-api';
import { RATES, rowGroupSize } from '../../schemas/pricing-tables.ts';
import { ParquetWriter, type ParquetColumn, type ParquetColumnKind } from './parquet-write.ts';
import { RecordSpill, releaseSortScratch, sortedRuns } from './record-sort.ts';
import { readNumericParquet } from './numeric-parquet.ts';
import { STAGED_NUMERIC } from './staged-layout.ts';
import type { Sink, SinkWorker } from './sink-worker.ts';

/** Partitions whose writers are still closing at most (their last row group being written). */
const CLOSING = 4;
/** Rows per batch posted to the worker. */
export const BATCH_ROWS = 32_768;
/**
 * Rows sorted in memory at once (record-sort.ts sortedRuns): 24 bytes a row (28 with a file
 * number) and 16 of index and keys, ~20 MB at 500 k. Measured 2026-11-23 on the staged 40 GiB
 * file (200 M rows, 200 partitions of ~1 M): finalize's peak RSS 865 MiB against 913 with 1 M
 * (the sorts come while the groups' writer sorts its members), the time within this VM's noise.
 */
export const RATES_PER_SORT = 500_000;
/** Bytes of spill buffers in all (each partition's at least 2,048 rows). */
const SPILL_BUFFERS = 8 << 20;

/** One rates partition: its directory's values and its contiguous range of code ranks. */
export interface RatePartition { type: string; prefix: string; lo: number; hi: number }

/**
 * What the worker writes: the partitions in cr order below `out`, spilling to `spill` (a directory
 * it makes and removes); `terms` the largest ac; `cap` rows sorted at once (RATES_PER_SORT).
 */
export interface RatesInit { out: string; parts: RatePartition[]; fileKeys: string[]; multi: boolean; terms: number; spill: string; cap?: number }

/** Rows of the join, `n` of them, in any order; fk each row's file number (several files only). */
export interface RowBatch {
  n: number; cr: Int32Array; r: Int32Array; sc: Int32Array; ac: Int32Array; rate: Float64Array; fk: Int32Array | null;
}

/** Items of `__iu` in r order: their r, cr and ITEM_STRINGS columns. */
export interface ItemBatch { r: Int32Array; cr: Int32Array; strings: (string | null)[][] }

/**
 * A number for each staged id of one file (-1: none): ids below `base` at lo[id], the parse
 * helper's (from `base` up, tic-stager.ts HELPER_ID_BASE) at hi[id - base].
 */
export interface IdMap { base: number; lo: Int32Array; hi: Int32Array }

/**
 * One file's staged prices, read by the worker itself (readNumericParquet) and joined there to the
 * numbers DuckDB gave its items (r, cr), descriptions (ac) and sets (sc): what the rows of the
 * join in SQL would be. A price whose item, description or set has no number is left out, as the
 * join leaves it out (a set none of whose references resolved: tic-file-writer.ts).
 */
export interface FileRates { paths: string[]; fk: number; r: IdMap; cr: IdMap; ac: IdMap; sc: IdMap }

/** What the worker is given: every row (or every file's staged prices), then the items. */
export type RatesBatch = { items: ItemBatch } | { rows: RowBatch } | { file: FileRates };

/** The number `m` gives `id` (-1: none). */
function look(m: IdMap, id: number): number {
  if (id >= m.base) {
    const k = id - m.base;
    return k < m.hi.length ? m.hi[k]! : -1;
  }
  return id >= 0 && id < m.lo.length ? m.lo[id]! : -1;
}


/** What the worker ends with: the rows written, and the descriptions (ac) they use, ascending (terms_id i + 1 is terms[i]). */
export interface RatesResult { rows: number; terms: number[] }

/** Sorted rows on their way to a partition's file; fkFrom[i]..fkFrom[i + 1] a row's file numbers in fk (several files). */
interface OutRows {
  n: number; cr: Int32Array; r: Int32Array; sc: Int32Array; ac: Int32Array; rate: Float64Array; rateWords: Uint32Array;
  fkFrom: Int32Array; fk: Int32Array;
}

/** The item columns of a rates row, in `__iu`, read in this order after r and cr. */
export const ITEM_STRINGS = ['billing_code', 'billing_code_type_version', 'name', 'negotiation_arrangement'] as const;

const KINDS: Record<string, ParquetColumnKind> = {
  billing_code: 'dict-string', billing_code_type_version: 'dict-string', name: 'dict-string', negotiation_arrangement: 'dict-string',
  terms_id: 'int32', negotiated_rate: 'double', set_ref: 'int32', file_keys: 'dict-string-list',
};

/** Strings of one column of one partition's items, numbered on first sight. */
class Interned {
  readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();

  id(s: string | null): number {
    if (s === null) return -1;
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(s);
      this.ids.set(s, id);
    }
    return id;
  }

  clear(): void {
    this.strings.length = 0;
    this.ids.clear();
  }
}

/** A rate's 64 bits as two words that compare, unsigned, high first, as the numbers do (-0 as 0). */
const f64 = new Float64Array(1);
const f64Words = new Uint32Array(f64.buffer);

/**
 * Writes the rows it is given into their partitions' files (the worker's side): every row (in any
 * order) first, spilled; then the items in r order, each partition written once all of its items
 * have come; at the end the rest.
 */
export class RatesSink implements Sink<RatesBatch> {
  rows = 0;
  private readonly W: number;
  private readonly cap: number;
  private readonly spill: RecordSpill;
  /** Each code rank's partition (-1: none). */
  private readonly partOf: Int32Array;
  /** Descriptions the rows use (by ac), then each one's terms_id. */
  private readonly used: Uint8Array;
  private termsId: Int32Array | null = null;
  /** The next partition to write. */
  private nextPart = 0;
  private readonly out: OutRows;
  private readonly interned = ITEM_STRINGS.map(() => new Interned());
  private readonly columns: ParquetColumn[];
  private readonly cTerms: number;
  private readonly cRate: number;
  private readonly cSet: number;
  private readonly cFiles: number;
  private readonly cItems: number[];
  private readonly groupRows = rowGroupSize(RATES);
  // Items received and not yet passed (a queue from `head`).
  private qr: number[] = [];
  private qcr: number[] = [];
  private qs: (string | null)[][] = ITEM_STRINGS.map(() => []);
  private head = 0;
  // The current partition's items: r0 the first r, per item column each item's interned id.
  private r0 = 0;
  private nItems = 0;
  private itemCr: Int32Array = new Int32Array(1024);
  private itemIds: Int32Array[] = ITEM_STRINGS.map(() => new Int32Array(1024));
  private w: ParquetWriter | null = null;
  private previous: ParquetWriter | null = null;
  private part = -1;
  private pcr = -1;
  private pr = -1;
  private psc = -1;
  private pac = -1;
  private prate = NaN;
  private readonly closing: Promise<number>[] = [];
  private readonly typeDirs = new Set<string>();
  private sel = new Int32Array(0);
  private ks = new Int32Array(0);

  private readonly init: RatesInit;

  constructor(init: RatesInit) {
    this.init = init;
    this.W = init.multi ? 7 : 6;
    this.cap = Math.max(1, init.cap ?? RATES_PER_SORT);
    const parts = init.parts;
    this.partOf = new Int32Array((parts.at(-1)?.hi ?? 0) + 1).fill(-1);
    parts.forEach((p, i) => {
      if (i > 0 && p.lo <= parts[i - 1]!.hi) throw new Error(`rates partitions out of order: code ranks ${p.lo}-${p.hi} after ${parts[i - 1]!.lo}-${parts[i - 1]!.hi}`);
      this.partOf.fill(i, p.lo, p.hi + 1);
    });
    this.used = new Uint8Array(init.terms + 1);
    rmSync(init.spill, { recursive: true, force: true });
    mkdirSync(init.spill, { recursive: true });
    this.spill = new RecordSpill(init.spill, Math.max(1, parts.length), this.W, SPILL_BUFFERS);
    this.out = {
      n: 0, cr: new Int32Array(BATCH_ROWS), r: new Int32Array(BATCH_ROWS), sc: new Int32Array(BATCH_ROWS), ac: new Int32Array(BATCH_ROWS),
      rate: new Float64Array(BATCH_ROWS), rateWords: new Uint32Array(0), fkFrom: new Int32Array(BATCH_ROWS + 1), fk: new Int32Array(BATCH_ROWS),
    };
    this.out.rateWords = new Uint32Array(this.out.rate.buffer);
    this.columns = RATES.columns.filter((c) => !RATES.partitionBy?.includes(c.name)).map((c) => {
      const kind = KINDS[c.name];
      if (!kind) throw new Error(`rates column ${c.name}: not written by rates-write.ts`);
      const item = (ITEM_STRINGS as readonly string[]).indexOf(c.name);
      if (item >= 0) return { name: c.name, kind, stats: true, nullable: true, lookup: (id: number) => this.interned[item]!.strings[id]! };
      if (kind === 'dict-string-list') return { name: c.name, kind, lookup: (id: number) => init.fileKeys[id]! };
      return { name: c.name, kind, stats: true };
    });
    const col = (name: string): number => {
      const i = this.columns.findIndex((c) => c.name === name);
      if (i < 0) throw new Error(`rates column ${name} missing`);
      return i;
    };
    this.cTerms = col('terms_id');
    this.cRate = col('negotiated_rate');
    this.cSet = col('set_ref');
    this.cFiles = col('file_keys');
    this.cItems = ITEM_STRINGS.map(col);
  }

  async add(b: RatesBatch): Promise<void> {
    if ('items' in b) await this.addItems(b.items);
    else if ('file' in b) this.spillFile(b.file);
    else this.spillRows(b.rows);
  }

  transferOf(b: RatesBatch): ArrayBuffer[] {
    return 'rows' in b ? transferOf(b.rows) : [];
  }

  private fileBatch: RowBatch | null = null;

  /** A file's staged prices, read here and given their numbers (FileRates), to the spill as spillRows takes rows. */
  spillFile(f: FileRates): void {
    const b = this.fileBatch ??= newBatch(this.init.multi);
    b.n = 0;
    for (const path of f.paths) {
      for (const g of readNumericParquet(path, STAGED_NUMERIC.prices)) {
        for (let i = 0; i < g.rows;) {
          i = this.joinRows(f, g.cols as [Int32Array, Int32Array, Int32Array, Float64Array], i, g.rows, b);
          if (b.n === BATCH_ROWS) { this.spillRows(b); b.n = 0; }
        }
      }
    }
    if (b.n > 0) this.spillRows(b);
    b.n = 0;
  }

  /**
   * Staged prices [from, to) of one row group joined to their numbers into `b` until it is full;
   * the next price's index. The loop is a function of its own: nested in spillFile's loops (over
   * the files and their row groups, a generator), V8 compiled it for on-stack replacement and left
   * that code at the outer loops' steps, 4 TurboFan compiles a run (`--trace-opt`, 2026-11-24).
   */
  private joinRows(f: FileRates, cols: [Int32Array, Int32Array, Int32Array, Float64Array], from: number, to: number, b: RowBatch): number {
    const [items, sets, attrs, rates] = cols;
    const multi = this.init.multi;
    // (No statement after the loop but the return: one there, first run when the loop first ends,
    // would leave the on-stack-replaced loop's code for want of type feedback.)
    let i = from;
    for (; i < to && b.n < BATCH_ROWS; i++) {
      const sc = look(f.sc, sets[i]!);
      if (sc < 0) continue;
      const item = items[i]!;
      const r = look(f.r, item), cr = look(f.cr, item), ac = look(f.ac, attrs[i]!);
      if (r < 0 || cr < 0 || ac < 0) continue;
      const k = b.n++;
      b.cr[k] = cr; b.r[k] = r; b.sc[k] = sc; b.ac[k] = ac; b.rate[k] = rates[i]!;
      if (multi) b.fk![k] = f.fk;
    }
    return i;
  }

  /** Each row to its partition's spill file: [cr, sc, r, ac, rate high, rate low(, fk)]. */
  spillRows(b: RowBatch): void {
    if (this.termsId !== null) throw new Error('rates rows after the items');
    const { cr: crs, r: rs, sc: scs, ac: acs, rate: rates, fk: fks } = b;
    const { spill, partOf, used } = this;
    const multi = this.init.multi;
    if (multi !== (fks !== null)) throw new Error(multi ? 'rates rows without file numbers (several files)' : 'rates rows with file numbers (one file)');
    for (let i = 0; i < b.n; i++) {
      const cr = crs[i]!, ac = acs[i]!;
      const p = cr >= 0 && cr < partOf.length ? partOf[cr]! : -1;
      if (p < 0) throw new Error(`rates row of code rank ${cr} in no partition`);
      if (!(ac >= 1 && ac < used.length)) throw new Error(`rates row of code rank ${cr} names price description ${ac}, not one of 1..${used.length - 1}`);
      used[ac] = 1;
      f64[0] = rates[i]! + 0; // -0 as 0
      let hi = f64Words[1]!, lo = f64Words[0]!;
      if (hi & 0x80000000) { hi = ~hi; lo = ~lo; } else hi |= 0x80000000;
      const at = spill.reserve(p), w = spill.buf;
      w[at] = cr; w[at + 1] = scs[i]!; w[at + 2] = rs[i]!; w[at + 3] = ac; w[at + 4] = hi; w[at + 5] = lo;
      if (multi) w[at + 6] = fks![i]!;
    }
  }

  /** Once every row is in: the spill files complete, the descriptions used numbered. */
  private rowsDone(): void {
    if (this.termsId !== null) return;
    this.spill.close();
    const ids = new Int32Array(this.used.length);
    for (let ac = 1, n = 0; ac < ids.length; ac++) if (this.used[ac]) ids[ac] = ++n;
    this.termsId = ids;
  }

  async addItems(b: ItemBatch): Promise<void> {
    this.rowsDone();
    for (let i = 0; i < b.r.length; i++) {
      this.qr.push(b.r[i]!);
      this.qcr.push(b.cr[i]!);
      for (let k = 0; k < ITEM_STRINGS.length; k++) this.qs[k]!.push(b.strings[k]![i]!);
    }
    // A partition's items have all come once an item of a later code rank has.
    const last = b.cr.length ? b.cr[b.cr.length - 1]! : -1;
    const parts = this.init.parts;
    while (this.nextPart < parts.length && parts[this.nextPart]!.hi < last) await this.writePartition(this.nextPart++);
  }

  /** Partition `p`'s rows, sorted, repeats merged, into its file. */
  private async writePartition(p: number): Promise<void> {
    const n = this.spill.counts[p]!;
    if (n === 0) return;
    const path = this.spill.path(p);
    await sortedRuns(path, n, this.W, this.cap, (words, idx, m) => this.emit(words, idx, m));
    await this.flushOut(true);
    rmSync(path, { force: true });
  }

  /** A sorted run of spilled records into `out`: a row per distinct record (several files: per distinct row, with its files), written as it fills. */
  private async emit(words: Uint32Array, idx: Uint32Array, m: number): Promise<void> {
    const W = this.W, out = this.out, termsId = this.termsId!, rw = out.rateWords;
    const multi = this.init.multi;
    for (let j = 0; j < m; j++) {
      const o = idx[j]! * W;
      const cr = words[o]!, sc = words[o + 1]!, r = words[o + 2]!, t = termsId[words[o + 3]!]!;
      let hi = words[o + 4]!, lo = words[o + 5]!;
      if (hi & 0x80000000) hi = (hi & 0x7fffffff) >>> 0; else { hi = ~hi >>> 0; lo = ~lo >>> 0; }
      const k = out.n - 1;
      if (k >= 0 && out.cr[k] === cr && out.sc[k] === sc && out.r[k] === r && out.ac[k] === t && rw[2 * k] === lo && rw[2 * k + 1] === hi) {
        // The row before again: one more file for it (several files; equal files are next to each other), else a repeat.
        if (multi) {
          const fk = words[o + 6]!, end = out.fkFrom[k + 1]!;
          if (out.fk[end - 1] !== fk) { this.pushFk(end, fk); out.fkFrom[k + 1] = end + 1; }
        }
        continue;
      }
      if (out.n === BATCH_ROWS) await this.flushOut(false);
      const i = out.n++;
      out.cr[i] = cr; out.sc[i] = sc; out.r[i] = r; out.ac[i] = t; rw[2 * i] = lo; rw[2 * i + 1] = hi;
      if (multi) {
        const end = out.fkFrom[i]!;
        this.pushFk(end, words[o + 6]!);
        out.fkFrom[i + 1] = end + 1;
      }
    }
  }

  private pushFk(at: number, fk: number): void {
    if (at === this.out.fk.length) this.out.fk = grow(this.out.fk);
    this.out.fk[at] = fk;
  }

  /**
   * Writes the rows gathered in `out`: all of them, or (`all` false) all but the last, which stays
   * as the first (the next record may repeat it).
   */
  private async flushOut(all: boolean): Promise<void> {
    const out = this.out;
    const keep = all ? 0 : Math.min(1, out.n);
    if (out.n - keep > 0) await this.writeRows(out, out.n - keep);
    if (keep) {
      const k = out.n - 1, rw = out.rateWords;
      out.cr[0] = out.cr[k]!; out.sc[0] = out.sc[k]!; out.r[0] = out.r[k]!; out.ac[0] = out.ac[k]!; rw[0] = rw[2 * k]!; rw[1] = rw[2 * k + 1]!;
      const from = out.fkFrom[k]!, to = out.fkFrom[k + 1]!;
      out.fk.copyWithin(0, from, to);
      out.fkFrom[1] = to - from;
    }
    out.fkFrom[0] = 0;
    out.n = keep;
  }

  /** Sorted, distinct rows into their partitions' files. */
  private async writeRows(b: OutRows, n: number): Promise<void> {
    // The rows to write are gathered (their indices in `sel`, their items' in `ks`) and handed to
    // the columns a run at a time: per row, the ten column calls had cost the thread ~90 ns a row.
    // The gathering is a loop of its own (gather()), which stops where this one has to wait (a
    // partition's end, a full row group): with the awaits inside it, V8 compiled it for on-stack
    // replacement and left that code at them, 4 TurboFan compiles a run (`--trace-opt`, 2026-11-24).
    if (this.sel.length < n) { this.sel = new Int32Array(n); this.ks = new Int32Array(n); }
    for (let i = 0; i < n;) {
      if (this.w === null || b.cr[i]! > this.init.parts[this.part]!.hi) await this.nextPartition(b.cr[i]!);
      const to = this.gather(b, i, Math.min(n, i + this.groupRows - this.w!.pending));
      await this.put(b, to - i);
      i = to;
    }
  }

  /**
   * Rows of `b` from `from` on, checked for order and their items, gathered into sel/ks (from
   * their start) until the current partition ends or `to`; the first row left.
   */
  private gather(b: OutRows, from: number, to: number): number {
    const { cr: crs, r: rs, sc: scs, ac: acs, rate: rates } = b;
    const sel = this.sel, ks = this.ks, hi = this.init.parts[this.part]!.hi;
    // (No statement after the loop but the return: see joinRows.)
    let i = from;
    for (; i < to && crs[i]! <= hi; i++) {
      const cr = crs[i]!, r = rs[i]!, sc = scs[i]!, ac = acs[i]!, rate = rates[i]!;
      const order = cr - this.pcr || sc - this.psc || r - this.pr || ac - this.pac || (rate < this.prate ? -1 : rate > this.prate ? 1 : 0);
      if (order <= 0) throw new Error(`rates rows out of order at code rank ${cr}, set ${sc}`);
      this.pcr = cr; this.psc = sc; this.pr = r; this.pac = ac; this.prate = rate;
      const k = r - this.r0;
      if (k < 0 || k >= this.nItems || this.itemCr[k] !== cr) throw new Error(`rates row names item ${r} of code rank ${cr}, which is not one`);
      sel[i - from] = i;
      ks[i - from] = k;
    }
    return i;
  }

  /** Appends the m gathered rows of `b` to the current partition's columns (a row group when full). */
  private async put(b: OutRows, m: number): Promise<void> {
    const w = this.w!, cols = w.cols, sel = this.sel;
    for (let c = 0; c < this.cItems.length; c++) cols[this.cItems[c]!]!.dictIdsAt(this.itemIds[c]!, this.ks, m);
    cols[this.cTerms]!.int32sAt(b.ac, sel, m);
    cols[this.cRate]!.doublesAt(b.rate, sel, m);
    cols[this.cSet]!.int32sAt(b.sc, sel, m);
    if (this.init.multi) {
      const files = cols[this.cFiles]!, from = b.fkFrom, fk = b.fk;
      for (let j = 0; j < m; j++) { const i = sel[j]!; files.dictList(fk, from[i]!, from[i + 1]!); }
    } else {
      cols[this.cFiles]!.dictList1Times(0, m);
    }
    w.endRows(m);
    if (w.pending >= this.groupRows) await w.writeRowGroup();
  }

  /** Closes the current partition's file (in the background) and opens the one of code rank `cr`. */
  private async nextPartition(cr: number): Promise<void> {
    const parts = this.init.parts;
    if (this.w !== null) {
      this.closing.push(this.w.close());
      this.previous = this.w;
      this.w = null;
      await this.settle(CLOSING);
    }
    while (this.part + 1 < parts.length && cr > parts[this.part + 1]!.hi) this.part++;
    const p = parts[++this.part];
    if (!p || cr < p.lo) throw new Error(`rates row of code rank ${cr} in no partition`);
    this.takeItems(p);
    const typeDir = join(this.init.out, `billing_code_type=${p.type}`);
    if (!this.typeDirs.has(typeDir)) { mkdirSync(typeDir, { recursive: true }); this.typeDirs.add(typeDir); }
    const dir = join(typeDir, `code_prefix=${p.prefix}`);
    mkdirSync(dir);
    this.w = new ParquetWriter(join(dir, 'data_0.parquet'), this.columns, this.previous?.cols, true);
  }

  /** The queued items of partition `p` become the current ones; those before it are passed. */
  private takeItems(p: RatePartition): void {
    for (const x of this.interned) x.clear();
    this.nItems = 0;
    let h = this.head;
    for (; h < this.qr.length && this.qcr[h]! <= p.hi; h++) {
      const cr = this.qcr[h]!;
      if (cr < p.lo) continue;
      if (this.nItems === 0) this.r0 = this.qr[h]!;
      else if (this.qr[h] !== this.r0 + this.nItems) throw new Error(`rates: item ${this.qr[h]} of code rank ${cr} out of order`);
      if (this.nItems === this.itemCr.length) {
        this.itemCr = grow(this.itemCr);
        this.itemIds = this.itemIds.map(grow);
      }
      this.itemCr[this.nItems] = cr;
      for (let k = 0; k < ITEM_STRINGS.length; k++) this.itemIds[k]![this.nItems] = this.interned[k]!.id(this.qs[k]![h]!);
      this.nItems++;
    }
    this.head = h;
    if (h > 4096 && h * 2 > this.qr.length) {
      this.qr = this.qr.slice(h);
      this.qcr = this.qcr.slice(h);
      this.qs = this.qs.map((q) => q.slice(h));
      this.head = 0;
    }
  }

  private async settle(keep: number): Promise<void> {
    while (this.closing.length > keep) this.rows += await this.closing.shift()!;
  }

  /** Writes the partitions left, closes the last and waits for every file. */
  async end(): Promise<RatesResult> {
    try {
      this.rowsDone();
      while (this.nextPart < this.init.parts.length) await this.writePartition(this.nextPart++);
      if (this.w !== null) { this.closing.push(this.w.close()); this.w = null; }
      await this.settle(0);
      const terms: number[] = [];
      for (let ac = 1; ac < this.used.length; ac++) if (this.used[ac]) terms.push(ac);
      return { rows: this.rows, terms };
    } finally {
      this.cleanUp();
    }
  }

  /** Stops: the open file removed, the closing ones waited for, the spill removed. */
  async abort(): Promise<void> {
    const w = this.w;
    this.w = null;
    try {
      if (w !== null) await w.abort();
      await Promise.allSettled(this.closing);
    } finally {
      this.cleanUp();
    }
  }

  private cleanUp(): void {
    this.spill.close();
    rmSync(this.init.spill, { recursive: true, force: true });
    releaseSortScratch();
  }
}

function grow(a: Int32Array): Int32Array<ArrayBuffer> {
  const next = new Int32Array(a.length * 2);
  next.set(a);
  return next;
}

/**
 * A stream of DuckDB chunks read a row at a time, the next chunk fetched while this one is read
 * (each fetch is a round trip through libuv's pool: awaited one at a time, the 2,400 chunks of the
 * 1 GiB benchmark file's rows left the JS thread idle for ~0.3 s).
 */
class ChunkCursor {
  chunk: DuckDBDataChunk | null = null;
  i = 0;
  private done = false;
  private next: Promise<DuckDBDataChunk | null> | null = null;

  private readonly result: DuckDBResult;

  constructor(result: DuckDBResult) {
    this.result = result;
  }

  /** False once the rows are all read; else the current chunk has a row at `i`. */
  async ready(): Promise<boolean> {
    while (!this.done && (this.chunk === null || this.i >= this.chunk.rowCount)) {
      const next = await (this.next ?? this.result.fetchChunk());
      this.next = null;
      if (!next || next.rowCount === 0) { this.done = true; this.chunk = null; break; }
      this.chunk = next;
      this.i = 0;
      this.next = this.result.fetchChunk();
      this.next.catch(() => undefined); // awaited by the next ready()
    }
    return !this.done;
  }
}

/**
 * The values of a fixed-width vector as the typed-array view @duckdb/node-api keeps of them (its
 * `items`, private in its typings). The columns read so are never NULL (the join's numbers come
 * from inner joins and row numbers, staged rates are never NULL; `__iu`'s from row numbers), so its
 * validity is not consulted.
 */
function typed<T extends Int32Array | Float64Array>(v: DuckDBVector, kind: { new (n: number): T; name: string }): T {
  const items = (v as unknown as { items?: unknown }).items;
  if (!(items instanceof kind)) throw new Error(`rates: a DuckDB vector without ${kind.name} items (@duckdb/node-api changed?)`);
  return items;
}

const int32s = (ch: DuckDBDataChunk, c: number): Int32Array => typed(ch.getColumnVector(c), Int32Array);

function newBatch(multi: boolean): RowBatch {
  return {
    n: 0, cr: new Int32Array(BATCH_ROWS), r: new Int32Array(BATCH_ROWS), sc: new Int32Array(BATCH_ROWS), ac: new Int32Array(BATCH_ROWS),
    rate: new Float64Array(BATCH_ROWS), fk: multi ? new Int32Array(BATCH_ROWS) : null,
  };
}

/** A batch's buffers, moved (not copied) when it is posted. */
export const transferOf = (b: RowBatch): ArrayBuffer[] => [b.cr, b.r, b.sc, b.ac, b.rate, b.fk]
  .filter((a): a is Int32Array | Float64Array => a !== null).map((a) => a.buffer as ArrayBuffer);

/**
 * Streams the rows of `rowsSql` (cr, r, sc, ac, negotiated_rate [, fk when `init.multi`], in any
 * order; NULL in none of them) and then `__iu`'s items to `sink`, whose RatesSink writes
 * `init.parts`. Resolves with the sink's result once every file is closed.
 */
export async function writeRatePartitions(sink: SinkWorker<RatesBatch, RatesResult>, con: DuckDBConnection, rowsSql: string, init: RatesInit): Promise<RatesResult> {
  sink.init(init);
  const multi = init.multi;
  const rows = new ChunkCursor(await con.stream(rowsSql));
  const next = (): RowBatch => {
    const r = sink.reuse();
    const b = r && 'rows' in r ? r.rows : newBatch(multi);
    b.n = 0;
    return b;
  };
  const send = async (b: RowBatch): Promise<void> => {
    if (b.n > 0) await sink.add({ rows: b }, transferOf(b));
  };
  let b = next();
  while (await rows.ready()) {
    const ch = rows.chunk!;
    const n = ch.rowCount;
    const cols = [int32s(ch, 0), int32s(ch, 1), int32s(ch, 2), int32s(ch, 3)];
    const rates = typed(ch.getColumnVector(4), Float64Array);
    const fks = multi ? int32s(ch, 5) : null;
    let i = 0;
    while (i < n) {
      const m = Math.min(n - i, BATCH_ROWS - b.n);
      b.cr.set(cols[0]!.subarray(i, i + m), b.n);
      b.r.set(cols[1]!.subarray(i, i + m), b.n);
      b.sc.set(cols[2]!.subarray(i, i + m), b.n);
      b.ac.set(cols[3]!.subarray(i, i + m), b.n);
      b.rate.set(rates.subarray(i, i + m), b.n);
      if (fks) b.fk!.set(fks.subarray(i, i + m), b.n);
      b.n += m;
      i += m;
      if (b.n === BATCH_ROWS) {
        await send(b);
        b = next();
      }
    }
    rows.i = n;
  }
  await send(b);
  return await sendItems(sink, con);
}

/**
 * As writeRatePartitions, the rows joined by the worker itself from each file's staged prices
 * (FileRates) instead of by DuckDB: the staged numbers are read once, by the thread that spills
 * them, and neither DuckDB's join nor this thread's copying of its chunks runs.
 */
export async function writeRatePartitionsFromFiles(sink: SinkWorker<RatesBatch, RatesResult>, con: DuckDBConnection, files: FileRates[], init: RatesInit): Promise<RatesResult> {
  sink.init(init);
  // The maps are copied, not transferred: a few MB at most (fileRates bounds them). Transferred,
  // one CI run (2026-11-23) failed with "Cannot transfer object of unsupported type", what a buffer
  // already transferred gives; fileRates then handed one shared empty map to any file that lacked
  // one (now it lets DuckDB join instead). Not reproduced in isolation nor under load.
  for (const f of files) await sink.add({ file: f });
  return await sendItems(sink, con);
}

/** The items, a chunk at a time (the sink writes each partition once its items have all come), then the sink's end. */
async function sendItems(sink: SinkWorker<RatesBatch, RatesResult>, con: DuckDBConnection): Promise<RatesResult> {
  const items = new ChunkCursor(await con.stream(`SELECT r, cr, ${ITEM_STRINGS.join(', ')} FROM __iu ORDER BY r`));
  while (await items.ready()) {
    const ch = items.chunk!;
    const strings = ITEM_STRINGS.map((_, k) => ch.getColumnValues(2 + k) as (string | null)[]);
    await sink.add({ items: { r: int32s(ch, 0).slice(), cr: int32s(ch, 1).slice(), strings } });
    items.i = ch.rowCount;
  }
  return await sink.end();
}

/** Grows an IdMap while its numbers are read (idMapOf). */
class IdMapBuilder {
  private lo: Int32Array<ArrayBuffer> = new Int32Array(0);
  private hi: Int32Array<ArrayBuffer> = new Int32Array(0);
  private readonly base: number;
  constructor(base: number) {
    this.base = base;
  }

  set(id: number, v: number): void {
    if (id >= this.base) this.hi = put(this.hi, id - this.base, v);
    else if (id >= 0) this.lo = put(this.lo, id, v);
  }

  take(): IdMap {
    return { base: this.base, lo: this.lo, hi: this.hi };
  }
}

function put(a: Int32Array<ArrayBuffer>, k: number, v: number): Int32Array<ArrayBuffer> {
  if (k >= a.length) {
    const b = new Int32Array(Math.max(k + 1, 16, a.length * 2)).fill(-1);
    b.set(a);
    a = b;
  }
  a[k] = v;
  return a;
}

/**
 * The numbers of `sql`'s rows, per file: its columns are (fk, id, value...) INTEGERs, one IdMap per
 * value column. Ids from `base` up are the parse helper's.
 */
export async function idMapsOf(con: DuckDBConnection, sql: string, values: number, base: number): Promise<Map<number, IdMap[]>> {
  const byFile = new Map<number, IdMapBuilder[]>();
  const cur = new ChunkCursor(await con.stream(sql));
  while (await cur.ready()) {
    const ch = cur.chunk!;
    const fk = int32s(ch, 0), id = int32s(ch, 1);
    const vs = Array.from({ length: values }, (_, k) => int32s(ch, 2 + k));
    // A file's run of rows at a time, one column at a time: with the columns' loop inside the rows'
    // V8 compiled it for on-stack replacement and left it at its exit 53 times on the 1 GiB
    // benchmark file (--trace-deopt, 2026-11-24).
    for (let i = 0; i < ch.rowCount;) {
      const end = runEnd(fk, i, ch.rowCount);
      let m = byFile.get(fk[i]!);
      if (!m) byFile.set(fk[i]!, m = vs.map(() => new IdMapBuilder(base)));
      for (let k = 0; k < values; k++) setRun(m[k]!, id, vs[k]!, i, end);
      i = end;
    }
    cur.i = ch.rowCount;
  }
  return new Map([...byFile].map(([fk, ms]) => [fk, ms.map((m) => m.take())]));
}

/** Where the run of equal values of `a` that starts at `i` ends. */
function runEnd(a: Int32Array, i: number, n: number): number {
  const v = a[i];
  let j = i + 1;
  while (j < n && a[j] === v) j++;
  return j;
}

function setRun(m: IdMapBuilder, id: Int32Array, v: Int32Array, from: number, to: number): void {
  for (let i = from; i < to; i++) m.set(id[i]!, v[i]!);
}
