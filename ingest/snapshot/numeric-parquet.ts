/**
 * Writes Parquet files of numbers straight from JS typed arrays: the staged prices (INT32 / DOUBLE
 * columns, NumericParquetWriter) and the provider groups' NPI lists (an INT32 key and a BIGINT[]
 * list, KeyedListParquetWriter) of a TiC file (tic-file-writer.ts), the bulk of its rows (4.9 M
 * prices and 20.8 M NPIs in the 1 GiB benchmark file).
 *
 * Why not DuckDB's appender: appending those rows to a DuckDB table and COPYing them to Parquet at
 * the end cost the parse thread ~2 s and finish() ~1 s on that file (measured 2026-11-22), and the
 * staged rows sat in DuckDB's buffer pool. Here the parse thread only fills typed arrays; each row
 * group is copied out and compressed with zstd on libuv's thread pool, then written at its offset,
 * in order, while parsing goes on. DuckDB reads the files in finalize.
 *
 * The format is the plain subset of Apache Parquet (parquet-format, parquet.thrift): one data page
 * (PLAIN values; REQUIRED columns, so levels only for lists, as 1-bit bit-packed runs) per column
 * chunk, ZSTD pages, and the footer's FileMetaData in Thrift's compact protocol.
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import { constants, zstdCompress, zstdCompressSync, type ZstdOptions } from 'node:zlib';

export type NumericParquetType = 'INT32' | 'DOUBLE';

export interface NumericColumn {
  name: string;
  type: NumericParquetType;
}

/** Rows per row group (and per page): 256 Ki rows are 1-2 MiB a column before compression. */
export const ROWS_PER_GROUP = 256 * 1024;
/** Row groups being compressed at once on the thread pool; beyond that the parse thread compresses. */
const MAX_IN_FLIGHT = 4;
const ZSTD: ZstdOptions = { params: { [constants.ZSTD_c_compressionLevel]: 1 } };
const MAGIC = Buffer.from('PAR1', 'latin1');

// parquet.thrift enum values.
const LEAF_TYPE = { INT32: 1, INT64: 2, DOUBLE: 5 } as const;
const REQUIRED = 0;
const REPEATED = 2;
const CONVERTED_LIST = 3;
const ENCODING_PLAIN = 0;
const ENCODING_RLE = 3;
const CODEC_ZSTD = 6;
const PAGE_DATA = 0;

// Thrift compact protocol field types.
const T_I32 = 5;
const T_I64 = 6;
const T_BINARY = 8;
const T_LIST = 9;
const T_STRUCT = 12;

/** The Thrift compact protocol, the subset Parquet's footer and page headers need. */
class Compact {
  private readonly out: number[] = [];
  private readonly last: number[] = [0];

  private byte(b: number): void {
    this.out.push(b & 0xff);
  }

  /** Unsigned varint of a non-negative integer below 2^53. */
  private varint(n: number): void {
    while (n >= 0x80) {
      this.byte((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    this.byte(n);
  }

  private zigzag(n: number): void {
    this.varint(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  private header(id: number, type: number): void {
    const delta = id - this.last[this.last.length - 1]!;
    if (delta > 0 && delta <= 15) this.byte((delta << 4) | type);
    else {
      this.byte(type);
      this.zigzag(id);
    }
    this.last[this.last.length - 1] = id;
  }

  i32(id: number, v: number): this {
    this.header(id, T_I32);
    this.zigzag(v);
    return this;
  }

  i64(id: number, v: number): this {
    this.header(id, T_I64);
    this.zigzag(v);
    return this;
  }

  string(id: number, s: string): this {
    this.header(id, T_BINARY);
    this.bytes(s);
    return this;
  }

  private bytes(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.varint(b.length);
    for (const x of b) this.byte(x);
  }

  private listHeader(id: number, elem: number, size: number): void {
    this.header(id, T_LIST);
    if (size < 15) this.byte((size << 4) | elem);
    else {
      this.byte(0xf0 | elem);
      this.varint(size);
    }
  }

  i32List(id: number, xs: readonly number[]): this {
    this.listHeader(id, T_I32, xs.length);
    for (const x of xs) this.zigzag(x);
    return this;
  }

  stringList(id: number, xs: readonly string[]): this {
    this.listHeader(id, T_BINARY, xs.length);
    for (const x of xs) this.bytes(x);
    return this;
  }

  struct(id: number, fields: (c: this) => void): this {
    this.header(id, T_STRUCT);
    this.inStruct(fields);
    return this;
  }

  structList<T>(id: number, xs: readonly T[], fields: (c: this, x: T, i: number) => void): this {
    this.listHeader(id, T_STRUCT, xs.length);
    xs.forEach((x, i) => this.inStruct((c) => fields(c, x, i)));
    return this;
  }

  private inStruct(fields: (c: this) => void): void {
    this.last.push(0);
    fields(this);
    this.byte(0); // field stop
    this.last.pop();
  }

  /** The bytes of a top-level struct written so far (call on a fresh writer whose fields were added). */
  end(): Buffer {
    this.byte(0);
    return Buffer.from(this.out);
  }
}

/** A top-level Thrift struct. */
function thriftStruct(fields: (c: Compact) => void): Buffer {
  const c = new Compact();
  fields(c);
  return c.end();
}

interface ChunkMeta { offset: number; values: number; raw: number; stored: number }
interface GroupMeta { rows: number; chunks: ChunkMeta[] }

/** A leaf column of a staged Parquet file: a number, or a list of numbers (never NULL). */
export interface ParquetColumn {
  name: string;
  type: NumericParquetType | 'INT64';
  /** A required list of required values (`npis BIGINT[]`). */
  list?: boolean;
}

/**
 * The file half: row groups handed over as one PLAIN page payload per column, compressed on the
 * thread pool (at most MAX_IN_FLIGHT groups at a time, else on the calling thread) and written in
 * order; close() writes the footer.
 */
class ParquetFile {
  /** Rows written so far (including those still buffered by the subclass). */
  rows = 0;
  private fd: number | null;
  private offset = MAGIC.length;
  private readonly groups: GroupMeta[] = [];
  /** Row groups are written in order: each waits for the one before. */
  private chain: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private error: Error | null = null;

  constructor(readonly path: string, readonly leaves: readonly ParquetColumn[]) {
    if (endianness() !== 'LE') throw new Error('numeric Parquet staging needs a little-endian machine (typed arrays are written as they are)');
    this.fd = openSync(path, 'w');
    writeSync(this.fd, MAGIC);
  }

  /** One row group: `rows` rows, and per column its page payload and how many level entries it holds. */
  protected enqueue(rows: number, payloads: readonly { raw: Buffer; values: number }[]): void {
    let pages: Promise<Buffer[]>;
    if (this.inFlight >= MAX_IN_FLIGHT) {
      pages = Promise.resolve(payloads.map((p) => zstdCompressSync(p.raw, ZSTD)));
    } else {
      this.inFlight++;
      pages = Promise.all(payloads.map((p) => new Promise<Buffer>((resolve, reject) => zstdCompress(p.raw, ZSTD, (err, out) => (err ? reject(err) : resolve(out))))))
        .finally(() => { this.inFlight--; });
    }
    pages.catch(() => undefined); // handled where the chain awaits it
    this.chain = this.chain.then(async () => {
      const compressed = await pages;
      if (this.error) return;
      const group: GroupMeta = { rows, chunks: [] };
      for (let c = 0; c < compressed.length; c++) {
        const { raw, values } = payloads[c]!;
        const header = thriftStruct((t) => t.i32(1, PAGE_DATA).i32(2, raw.length).i32(3, compressed[c]!.length)
          .struct(5, (d) => d.i32(1, values).i32(2, ENCODING_PLAIN).i32(3, ENCODING_RLE).i32(4, ENCODING_RLE)));
        group.chunks.push({ offset: this.offset, values, raw: header.length + raw.length, stored: header.length + compressed[c]!.length });
        this.write(header);
        this.write(compressed[c]!);
      }
      this.groups.push(group);
    }).catch((err: unknown) => { this.error ??= err as Error; });
  }

  private write(b: Buffer): void {
    if (this.fd === null) throw new Error(`${this.path}: already closed`);
    let done = 0;
    while (done < b.length) done += writeSync(this.fd, b, done, b.length - done, this.offset + done);
    this.offset += b.length;
  }

  /** Hands the rows still buffered to enqueue() (subclasses). */
  protected flush(): void {}

  /** Writes the last row group and the footer, and closes the file. Returns the rows written. */
  async close(): Promise<number> {
    this.flush();
    await this.chain;
    if (this.error) throw this.error;
    const leaves = this.leaves;
    // The schema, depth first: root, then per column its leaf, or for a list the three-level
    // LIST structure (required group <name> (LIST) { repeated group list { required <type> element } }).
    type Node = { name: string; type?: number; repetition?: number; children?: number; converted?: number };
    const schema: Node[] = [{ name: 'schema', children: leaves.length }];
    for (const col of leaves) {
      if (col.list) {
        schema.push({ name: col.name, repetition: REQUIRED, children: 1, converted: CONVERTED_LIST }, { name: 'list', repetition: REPEATED, children: 1 },
          { name: 'element', type: LEAF_TYPE[col.type], repetition: REQUIRED });
      } else schema.push({ name: col.name, type: LEAF_TYPE[col.type], repetition: REQUIRED });
    }
    const footer = thriftStruct((t) => t
      .i32(1, 1)
      .structList(2, schema, (s, n) => {
        if (n.type !== undefined) s.i32(1, n.type);
        if (n.repetition !== undefined) s.i32(3, n.repetition);
        s.string(4, n.name);
        if (n.children !== undefined) s.i32(5, n.children);
        if (n.converted !== undefined) s.i32(6, n.converted);
      })
      .i64(3, this.rows)
      .structList(4, this.groups, (g, group) => g
        .structList(1, group.chunks, (cc, ch, i) => cc
          .i64(2, ch.offset)
          .struct(3, (m) => m.i32(1, LEAF_TYPE[leaves[i]!.type]).i32List(2, [ENCODING_PLAIN, ENCODING_RLE])
            .stringList(3, leaves[i]!.list ? [leaves[i]!.name, 'list', 'element'] : [leaves[i]!.name]).i32(4, CODEC_ZSTD).i64(5, ch.values)
            .i64(6, ch.raw).i64(7, ch.stored).i64(9, ch.offset)))
        .i64(2, group.chunks.reduce((s, ch) => s + ch.raw, 0))
        .i64(3, group.rows))
      .string(6, 'carebridge numeric-parquet'));
    const len = Buffer.alloc(4);
    len.writeUInt32LE(footer.length);
    this.write(footer);
    this.write(len);
    this.write(MAGIC);
    closeSync(this.fd!);
    this.fd = null;
    return this.rows;
  }

  /**
   * Stops writing (a failed file): waits for the row groups in flight, closes and removes the file.
   * A file already closed (complete) is left alone.
   */
  async abort(): Promise<void> {
    if (this.fd === null && this.error === null) return;
    this.error ??= new Error('aborted');
    await this.chain;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.path, { force: true });
  }
}

/** Rows of numeric columns, filled in place: `const i = w.next(); w.cols[c][i] = ...`. */
export class NumericParquetWriter extends ParquetFile {
  /** One typed array per column: fill row `i` (from next()) as cols[c][i]. The arrays never change. */
  readonly cols: (Int32Array | Float64Array)[];
  private n = 0;

  constructor(path: string, readonly columns: readonly NumericColumn[], private readonly rowsPerGroup = ROWS_PER_GROUP) {
    super(path, columns);
    this.cols = columns.map((c) => (c.type === 'INT32' ? new Int32Array(rowsPerGroup) : new Float64Array(rowsPerGroup)));
  }

  /** The index of the next row to fill; hands a full row group to the writer first. */
  next(): number {
    if (this.n === this.rowsPerGroup) this.flush();
    this.rows++;
    return this.n++;
  }

  /** Copies the buffered rows out as one row group. */
  protected override flush(): void {
    const n = this.n;
    if (n === 0) return;
    this.n = 0;
    this.enqueue(n, this.cols.map((a) => ({ raw: Buffer.from(a.slice(0, n).buffer), values: n })));
  }
}

/**
 * Rows of (an INT32 key, a list of INT64 numbers), added whole: a provider group's number and its
 * NPIs (`npis BIGINT[]`, what provider_groups stores), so finalize copies lists instead of
 * aggregating 20.8 M rows back into them. Values are JS numbers (exact integers below 2^53; any
 * other is rounded, as DuckDB casts a DOUBLE).
 */
export class KeyedListParquetWriter extends ParquetFile {
  private keys = new Int32Array(1024);
  private lens = new Int32Array(1024);
  /** INT64 values as little-endian (low, high) 32-bit halves. */
  private vals: Int32Array;
  private nRows = 0;
  private nVals = 0;

  constructor(path: string, keyName: string, listName: string, private readonly valuesPerGroup = 1 << 20) {
    super(path, [{ name: keyName, type: 'INT32' }, { name: listName, type: 'INT64', list: true }]);
    this.vals = new Int32Array(2 * valuesPerGroup);
  }

  add(key: number, values: ArrayLike<number>): void {
    const m = values.length;
    if (this.nRows > 0 && (this.nVals + m > this.valuesPerGroup || this.nRows === MAX_LISTS_PER_GROUP)) this.flush();
    if (2 * m > this.vals.length) this.vals = new Int32Array(2 * m); // one list longer than a row group: a group of its own
    if (this.nRows === this.keys.length) {
      const grow = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => { const b = new Int32Array(2 * a.length); b.set(a); return b; };
      this.keys = grow(this.keys);
      this.lens = grow(this.lens);
    }
    this.keys[this.nRows] = key;
    this.lens[this.nRows] = m;
    this.nRows++;
    this.rows++;
    const v = this.vals;
    let j = 2 * this.nVals;
    for (let k = 0; k < m; k++) {
      let x = values[k]!;
      if (!(x >= 0 && x <= Number.MAX_SAFE_INTEGER && Number.isInteger(x))) {
        const b = BigInt.asUintN(64, BigInt(Math.round(Number.isFinite(x) ? x : 0)));
        v[j++] = Number(b & 0xffffffffn) | 0;
        v[j++] = Number(b >> 32n) | 0;
        continue;
      }
      v[j++] = x >>> 0 | 0;
      x = Math.floor(x / 4294967296);
      v[j++] = x;
    }
    this.nVals += m;
  }

  /**
   * The row group: the key column, and the list column's page (repetition levels, definition
   * levels, values). Levels are 1-bit RLE/bit-packed hybrid runs of all ones, with a zero bit at
   * each list's first entry (repetition) and at each empty list's single entry (definition).
   */
  protected override flush(): void {
    const rows = this.nRows;
    if (rows === 0) return;
    let entries = 0;
    for (let r = 0; r < rows; r++) entries += this.lens[r]! || 1;
    const groups = Math.ceil(entries / 8);
    const header = varintBytes(groups * 2 + 1); // bit-packed run of `groups` groups of 8
    const rep = new Uint8Array(groups).fill(0xff);
    const def = new Uint8Array(groups).fill(0xff);
    let at = 0;
    for (let r = 0; r < rows; r++) {
      const len = this.lens[r]!;
      rep[at >> 3]! &= ~(1 << (at & 7));
      if (len === 0) def[at >> 3]! &= ~(1 << (at & 7));
      at += len || 1;
    }
    for (let e = entries; e < groups * 8; e++) { // padding after the last entry
      rep[e >> 3]! &= ~(1 << (e & 7));
      def[e >> 3]! &= ~(1 << (e & 7));
    }
    const levels = (bits: Uint8Array): Buffer => {
      const len = Buffer.alloc(4);
      len.writeUInt32LE(header.length + bits.length);
      return Buffer.concat([len, header, bits]);
    };
    const values = Buffer.from(this.vals.slice(0, 2 * this.nVals).buffer);
    this.enqueue(rows, [
      { raw: Buffer.from(this.keys.slice(0, rows).buffer), values: rows },
      { raw: Buffer.concat([levels(rep), levels(def), values]), values: entries },
    ]);
    this.nRows = 0;
    this.nVals = 0;
  }
}

/** Lists per row group at most (besides valuesPerGroup values). */
const MAX_LISTS_PER_GROUP = 65536;

/** Unsigned LEB128 varint. */
function varintBytes(n: number): Buffer {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Buffer.from(out);
}
