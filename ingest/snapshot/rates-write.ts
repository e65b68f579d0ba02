/**
 * The rates partitions of a snapshot, written in JS (parquet-write.ts) on a worker thread from the
 * narrow rows tic-finalize.ts leaves in DuckDB:
 *
 * - `__ps` (cr, r, sc, ac, negotiated_rate [, fks]) in (cr, sc, r, ac, negotiated_rate) order: cr
 *   the billing code's rank, r the item's, sc the set_ref, ac the terms_id; fks the file numbers
 *   when several files contribute (their rows are distinct already), else absent and a row may
 *   repeat (the same price staged twice), which is dropped as the next row equal to it;
 * - `__iu` (r, cr, the item's strings) in r order, which is cr order: a partition's items are a
 *   contiguous run of them, read alongside its rows (on a second connection).
 *
 * The JS thread streams both out of DuckDB a chunk at a time (numbers as typed-array views, copied
 * into batches of BATCH_ROWS rows) and posts them to a worker (sink-worker.ts) whose `RatesSink` writes each
 * partition as one Parquet file, row groups of rowGroupSize(RATES) rows: the item strings
 * dictionary-encoded with min/max statistics (a code lookup skips row groups by billing_code's),
 * the numbers plain with theirs, file_keys a dictionary-encoded list; zstd on the worker's own
 * thread (ParquetWriter `inline`).
 *
 * Why not DuckDB: one COPY per partition (joining the items back, dropping repeats, sorting, its
 * Parquet writer) took 1.4 s of the 1 GiB benchmark file's rates on both cores, ~2.8
 * CPU-seconds. schemas/README.md item 33.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBDataChunk, DuckDBListVector, DuckDBResult, DuckDBVector } from '@duckdb/node-api';
import { RATES, rowGroupSize } from '../../schemas/pricing-tables.ts';
import { ParquetWriter, type ParquetColumn, type ParquetColumnKind } from './parquet-write.ts';
import type { Sink, SinkWorker } from './sink-worker.ts';

/** Partitions whose writers are still closing at most (their last row group being written). */
const CLOSING = 4;
/** Rows per batch posted to the worker. */
export const BATCH_ROWS = 32_768;

/** One rates partition: its directory's values and its contiguous range of code ranks. */
export interface RatePartition { type: string; prefix: string; lo: number; hi: number }

/** What the worker writes: the partitions in cr order below `out`; see writeRatePartitions. */
export interface RatesInit { out: string; parts: RatePartition[]; fileKeys: string[]; multi: boolean }

/** Rows of `__ps`, `n` of them; fkFrom[i]..fkFrom[i + 1] the row's file numbers in fk (multi only). */
export interface RowBatch {
  n: number; cr: Int32Array; r: Int32Array; sc: Int32Array; ac: Int32Array; rate: Float64Array;
  fkFrom: Int32Array | null; fk: Int32Array | null;
}

/** Items of `__iu` in r order: their r, cr and ITEM_STRINGS columns. */
export interface ItemBatch { r: Int32Array; cr: Int32Array; strings: (string | null)[][] }

/** What the worker is given: a partition's items before any of its rows. */
export type RatesBatch = { items: ItemBatch } | { rows: RowBatch };

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

/**
 * Writes the rows it is given, in order, into their partitions' files (the worker's side). Items
 * must arrive before the rows of their partition: all of a partition's before any of its rows.
 */
export class RatesSink implements Sink<RatesBatch> {
  rows = 0;
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
    if ('items' in b) this.addItems(b.items);
    else await this.addRows(b.rows);
  }

  transferOf(b: RatesBatch): ArrayBuffer[] {
    return 'rows' in b ? transferOf(b.rows) : [];
  }

  addItems(b: ItemBatch): void {
    for (let i = 0; i < b.r.length; i++) {
      this.qr.push(b.r[i]!);
      this.qcr.push(b.cr[i]!);
      for (let k = 0; k < ITEM_STRINGS.length; k++) this.qs[k]!.push(b.strings[k]![i]!);
    }
  }

  async addRows(b: RowBatch): Promise<void> {
    const { cr: crs, r: rs, sc: scs, ac: acs, rate: rates } = b;
    const multi = this.init.multi;
    // The rows to write are gathered (their indices in `sel`, their items' in `ks`) and handed to
    // the columns a run at a time: per row, the ten column calls had cost the thread ~90 ns a row.
    if (this.sel.length < b.n) { this.sel = new Int32Array(b.n); this.ks = new Int32Array(b.n); }
    const sel = this.sel, ks = this.ks;
    let m = 0;
    for (let i = 0; i < b.n; i++) {
      const cr = crs[i]!, r = rs[i]!, sc = scs[i]!, ac = acs[i]!, rate = rates[i]!;
      const order = cr - this.pcr || sc - this.psc || r - this.pr || ac - this.pac || (rate < this.prate ? -1 : rate > this.prate ? 1 : 0);
      if (order < 0 || (order === 0 && multi)) throw new Error(`rates rows out of order at code rank ${cr}, set ${sc}`);
      if (order === 0) continue; // a repeat of the row before (one file staged the same price twice)
      this.pcr = cr; this.psc = sc; this.pr = r; this.pac = ac; this.prate = rate;
      if (this.w === null || cr > this.init.parts[this.part]!.hi) {
        if (m > 0) { await this.put(b, m); m = 0; }
        await this.nextPartition(cr);
      }
      const k = r - this.r0;
      if (k < 0 || k >= this.nItems || this.itemCr[k] !== cr) throw new Error(`rates row names item ${r} of code rank ${cr}, which is not one`);
      sel[m] = i;
      ks[m++] = k;
      if (this.w!.pending + m >= this.groupRows) { await this.put(b, m); m = 0; }
    }
    if (m > 0) await this.put(b, m);
  }

  /** Appends the m gathered rows of `b` to the current partition's columns (a row group when full). */
  private async put(b: RowBatch, m: number): Promise<void> {
    const w = this.w!, cols = w.cols, sel = this.sel;
    for (let c = 0; c < this.cItems.length; c++) cols[this.cItems[c]!]!.dictIdsAt(this.itemIds[c]!, this.ks, m);
    cols[this.cTerms]!.int32sAt(b.ac, sel, m);
    cols[this.cRate]!.doublesAt(b.rate, sel, m);
    cols[this.cSet]!.int32sAt(b.sc, sel, m);
    if (this.init.multi) {
      const files = cols[this.cFiles]!, from = b.fkFrom!, fk = b.fk!;
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

  /** Closes the last partition and waits for every file. Returns the rows written. */
  async end(): Promise<number> {
    if (this.w !== null) { this.closing.push(this.w.close()); this.w = null; }
    await this.settle(0);
    return this.rows;
  }

  /** Stops: the open file removed, the closing ones waited for. */
  async abort(): Promise<void> {
    const w = this.w;
    this.w = null;
    if (w !== null) await w.abort();
    await Promise.allSettled(this.closing);
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
 * `items`, private in its typings). The columns read so are never NULL (`__ps` and `__iu` numbers
 * come from inner joins and row numbers), so its validity is not consulted.
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
    rate: new Float64Array(BATCH_ROWS), fkFrom: multi ? new Int32Array(BATCH_ROWS + 1) : null, fk: multi ? new Int32Array(BATCH_ROWS) : null,
  };
}

/** A batch's buffers, moved (not copied) when it is posted. */
export const transferOf = (b: RowBatch): ArrayBuffer[] => [b.cr, b.r, b.sc, b.ac, b.rate, b.fkFrom, b.fk]
  .filter((a): a is Int32Array | Float64Array => a !== null).map((a) => a.buffer as ArrayBuffer);

/**
 * Streams `__iu` (on `side`, or read whole first without it) and `__ps` (on `con`) to `sink`,
 * whose RatesSink writes `init.parts`; resolves with the rows written once every file is closed.
 * `preserve_insertion_order` must be on: `__ps` is read in the order it was written in.
 */
export async function writeRatePartitions(sink: SinkWorker<RatesBatch, number>, con: DuckDBConnection, side: DuckDBConnection | null, init: RatesInit): Promise<number> {
  sink.init(init);
  // On one connection a stream ends when the next query starts: the items are then read whole
  // first, DuckDB holding them.
  const itemsSql = `SELECT r, cr, ${ITEM_STRINGS.join(', ')} FROM __iu ORDER BY r`;
  const items = new ChunkCursor(side ? await side.stream(itemsSql) : await con.run(itemsSql));
  const rows = new ChunkCursor(await con.stream(`SELECT cr, r, sc, ac, negotiated_rate${init.multi ? ', fks' : ''} FROM __ps`));
  const parts = init.parts;
  let part = 0;
  // Posts the items up to the end of the partition of the batch's last row, then the batch.
  const send = async (b: RowBatch): Promise<void> => {
    if (b.n === 0) return;
    const last = b.cr[b.n - 1]!;
    while (part < parts.length - 1 && parts[part]!.hi < last) part++;
    await sendItems(sink, items, parts[part]?.hi ?? last);
    await sink.add({ rows: b }, transferOf(b));
  };
  const multi = init.multi;
  const next = (): RowBatch => {
    const r = sink.reuse();
    const b = r && 'rows' in r ? r.rows : newBatch(multi);
    b.n = 0;
    if (b.fkFrom) b.fkFrom[0] = 0;
    return b;
  };
  let b = next();
  while (await rows.ready()) {
    const ch = rows.chunk!;
    const n = ch.rowCount;
    const cols = [int32s(ch, 0), int32s(ch, 1), int32s(ch, 2), int32s(ch, 3)];
    const rates = typed(ch.getColumnVector(4), Float64Array);
    const fks = multi ? ch.getColumnVector(5) as DuckDBListVector : null;
    const fkItems = fks ? typed(fks.childVector, Int32Array) : null;
    let i = 0;
    while (i < n) {
      const m = Math.min(n - i, BATCH_ROWS - b.n);
      b.cr.set(cols[0]!.subarray(i, i + m), b.n);
      b.r.set(cols[1]!.subarray(i, i + m), b.n);
      b.sc.set(cols[2]!.subarray(i, i + m), b.n);
      b.ac.set(cols[3]!.subarray(i, i + m), b.n);
      b.rate.set(rates.subarray(i, i + m), b.n);
      if (fks) {
        let at = b.fkFrom![b.n]!;
        for (let k = i; k < i + m; k++) {
          const from = fks.getEntryOffset(k), len = fks.getEntryLength(k);
          while (at + len > b.fk!.length) b.fk = grow(b.fk!);
          b.fk!.set(fkItems!.subarray(from, from + len), at);
          at += len;
          b.fkFrom![b.n + (k - i) + 1] = at;
        }
      }
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
  return await sink.end();
}

/** Posts the items of code rank up to `upTo` not yet posted. */
async function sendItems(sink: SinkWorker<RatesBatch, number>, items: ChunkCursor, upTo: number): Promise<void> {
  while (await items.ready()) {
    const ch = items.chunk!;
    const rs = int32s(ch, 0), crs = int32s(ch, 1);
    let j = items.i;
    while (j < ch.rowCount && crs[j]! <= upTo) j++;
    if (j > items.i) {
      const strings = ITEM_STRINGS.map((_, k) => (ch.getColumnValues(2 + k) as (string | null)[]).slice(items.i, j));
      await sink.add({ items: { r: rs.slice(items.i, j), cr: crs.slice(items.i, j), strings } }, undefined, false);
    }
    items.i = j;
    if (j < ch.rowCount) return;
  }
}
