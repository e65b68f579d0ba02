/**
 * Writes a Parquet file of numeric columns (INT32 / DOUBLE, no NULLs) straight from JS typed
 * arrays: the staged prices and NPIs of a TiC file (tic-file-writer.ts), which are the bulk of its
 * rows (4.9 M prices and 20.8 M NPIs in the 1 GiB benchmark file).
 *
 * Why not DuckDB's appender: appending those rows to a DuckDB table and COPYing them to Parquet at
 * the end cost the parse thread ~2 s and finish() ~1 s on that file (measured 2026-11-22), and the
 * staged rows sat in DuckDB's buffer pool. Here the parse thread only fills typed arrays; each row
 * group (ROWS_PER_GROUP rows) is copied out and compressed with zstd on libuv's thread pool, then
 * written at its offset, in order, while parsing goes on. DuckDB reads the file in finalize.
 *
 * The format is the plain subset of Apache Parquet (parquet-format, parquet.thrift): one data page
 * (PLAIN encoding, REQUIRED columns, so no definition or repetition levels) per column chunk, ZSTD
 * pages (or uncompressed ones for a column marked `plain`), and the footer's FileMetaData in
 * Thrift's compact protocol.
 */
import { closeSync, fstatSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import { constants, zstdCompress, zstdCompressSync, zstdDecompressSync, type ZstdOptions } from 'node:zlib';

export type NumericParquetType = 'INT32' | 'DOUBLE';

export interface NumericColumn {
  name: string;
  type: NumericParquetType;
  /**
   * Stored as they are, not compressed with zstd: for columns zstd shrinks little for its CPU. The
   * staged prices' rates (doubles; 39 MB of the 1 GiB benchmark file's, 21.8 MB with zstd at ~140
   * ms to compress and ~55 to decompress) and description ids (19.5 MB, 8.3 MB with zstd at ~75 and
   * ~30 ms), measured 2026-11-24; the item numbers and set ids shrink 30-1000x in ~20 ms and stay
   * compressed.
   */
  plain?: boolean;
}

/** Rows per row group (and per page): 256 Ki rows are 1-2 MiB a column before compression. */
export const ROWS_PER_GROUP = 256 * 1024;
/** Row groups being compressed at once on the thread pool; beyond that the parse thread compresses. */
const MAX_IN_FLIGHT = 4;
const ZSTD: ZstdOptions = { params: { [constants.ZSTD_c_compressionLevel]: 1 } };
/**
 * zstd options for one page: output chunks of half the page, so a compressed page takes one or two.
 * With zlib's default 16 KiB chunks an asynchronous compression returns to JS and goes back to the
 * pool once per chunk: 200 pages of 2 MiB took 2.6 CPU-seconds that way and 1.5 with one chunk
 * (measured 2026-11-22); a chunk as large as the page allocated twice the memory it needed.
 */
export const zstdPage = (bytes: number): ZstdOptions => ({ ...ZSTD, chunkSize: Math.max(64 * 1024, Math.ceil(bytes / 2) + 4096) });
const MAGIC = Buffer.from('PAR1', 'latin1');
/** The footer's created_by: readNumericParquet reads only files this writer wrote. */
const CREATED_BY = 'carebridge numeric-parquet';

// parquet.thrift enum values.
const TYPE = { INT32: 1, DOUBLE: 5 } as const;
const REQUIRED = 0;
const ENCODING_PLAIN = 0;
const ENCODING_RLE = 3;
const CODEC_UNCOMPRESSED = 0;
const CODEC_ZSTD = 6;
const PAGE_DATA = 0;

// Thrift compact protocol field types.
const T_I32 = 5;
const T_I64 = 6;
const T_BINARY = 8;
const T_LIST = 9;
const T_STRUCT = 12;

/** The Thrift compact protocol, the subset Parquet's footer and page headers need (parquet-write.ts uses it too). */
export class Compact {
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

  binary(id: number, b: Uint8Array): this {
    this.header(id, T_BINARY);
    this.varint(b.length);
    for (const x of b) this.byte(x);
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

/** What ends a Parquet file after its row groups: the footer, its length, the magic. */
export function fileTail(footer: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32LE(footer.length);
  return Buffer.concat([footer, len, MAGIC]);
}

/** A top-level Thrift struct. */
export function thriftStruct(fields: (c: Compact) => void): Buffer {
  const c = new Compact();
  fields(c);
  return c.end();
}

interface ChunkMeta { offset: number; values: number; raw: number; stored: number; codec: number }
interface GroupMeta { rows: number; chunks: ChunkMeta[] }

/**
 * Column arrays of closed writers, kept for the next writer: a run over many small files otherwise
 * allocated 8 MB of arrays a file (two writers of 256 Ki rows), which V8 answers with garbage
 * collections for their external memory. Measured 2026-11-22 on 100 files of 190 KB staged one
 * after another: 51-63 ms a file before, 45-54 ms with the pool (alternating runs). At most
 * POOL_MAX arrays of each kind are kept.
 */
const pool = new Map<string, (Int32Array | Float64Array)[]>();
const POOL_MAX = 8;
const poolKey = (type: NumericParquetType, n: number): string => `${type}:${n}`;

function takeArray(type: NumericParquetType, n: number): Int32Array | Float64Array {
  return pool.get(poolKey(type, n))?.pop() ?? (type === 'INT32' ? new Int32Array(n) : new Float64Array(n));
}

function giveArray(type: NumericParquetType, a: Int32Array | Float64Array): void {
  const k = poolKey(type, a.length);
  const free = pool.get(k) ?? [];
  if (free.length < POOL_MAX) free.push(a);
  pool.set(k, free);
}

export class NumericParquetWriter {
  /**
   * One typed array per column: fill row `i` (from next()) as cols[c][i]. The arrays never change
   * while the writer is open; after close() or abort() they belong to the next writer.
   */
  readonly cols: (Int32Array | Float64Array)[];
  /** Rows written so far (including those still buffered). */
  rows = 0;
  private n = 0;
  private fd: number | null;
  private offset = MAGIC.length;
  private readonly groups: GroupMeta[] = [];
  /** Row groups are written in order: each waits for the one before. */
  private chain: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private error: Error | null = null;

  /**
   * `inline`: compress on the calling thread. The parse helper's writers do (parse-helper.ts): its
   * thread has the time, and on two cores libuv's pool, busy with the parse thread's gunzip,
   * returned their row groups so late that they piled up in memory (measured 2026-11-22).
   */
  readonly path: string;
  readonly columns: readonly NumericColumn[];
  private readonly rowsPerGroup: number;
  private readonly inline: boolean;

  constructor(path: string, columns: readonly NumericColumn[], rowsPerGroup = ROWS_PER_GROUP, inline = false) {
    this.path = path;
    this.columns = columns;
    this.rowsPerGroup = rowsPerGroup;
    this.inline = inline;
    if (endianness() !== 'LE') throw new Error('numeric Parquet staging needs a little-endian machine (typed arrays are written as they are)');
    this.cols = columns.map((c) => takeArray(c.type, rowsPerGroup));
    this.fd = openSync(path, 'w');
    writeSync(this.fd, MAGIC);
  }

  /** The index of the next row to fill; hands a full row group to the writer first. */
  next(): number {
    if (this.n === this.rowsPerGroup) this.flushGroup();
    this.rows++;
    return this.n++;
  }

  /** Copies the buffered rows out as one row group, compressed off the parse thread unless too many are in flight. */
  private flushGroup(): void {
    const n = this.n;
    if (n === 0) return;
    this.n = 0;
    // Compressed here and now, the column arrays are read in place; on the pool, from a copy. A
    // plain column's bytes are copied either way (the arrays are filled again before they are written).
    const now = this.inline || this.inFlight >= MAX_IN_FLIGHT;
    const plain = this.columns.map((c) => c.plain === true);
    const raw = this.cols.map((a, c) => (now && !plain[c] ? Buffer.from(a.buffer, a.byteOffset, n * a.BYTES_PER_ELEMENT) : Buffer.from(a.slice(0, n).buffer)));
    const rawBytes = raw.map((b) => b.length); // not the buffers: a row group waiting for the one before holds only its pages
    let pages: Promise<Buffer[]>;
    if (now) {
      pages = Promise.resolve(raw.map((b, c) => (plain[c] ? b : zstdCompressSync(b, zstdPage(b.length)))));
    } else {
      this.inFlight++;
      pages = Promise.all(raw.map((b, c) => (plain[c] ? Promise.resolve(b) : new Promise<Buffer>((resolve, reject) => zstdCompress(b, zstdPage(b.length), (err, out) => (err ? reject(err) : resolve(out)))))))
        .finally(() => { this.inFlight--; });
    }
    pages.catch(() => undefined); // handled where the chain awaits it
    this.chain = this.chain.then(async () => {
      const compressed = await pages;
      if (this.error) return;
      const group: GroupMeta = { rows: n, chunks: [] };
      for (let c = 0; c < compressed.length; c++) {
        const header = thriftStruct((t) => t.i32(1, PAGE_DATA).i32(2, rawBytes[c]!).i32(3, compressed[c]!.length)
          .struct(5, (d) => d.i32(1, n).i32(2, ENCODING_PLAIN).i32(3, ENCODING_RLE).i32(4, ENCODING_RLE)));
        group.chunks.push({ offset: this.offset, values: n, raw: header.length + rawBytes[c]!, stored: header.length + compressed[c]!.length, codec: plain[c] ? CODEC_UNCOMPRESSED : CODEC_ZSTD });
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

  /** Writes the last row group and the footer, and closes the file. Returns the rows written. */
  async close(): Promise<number> {
    this.flushGroup();
    this.release();
    await this.chain;
    if (this.error) throw this.error;
    const leaves = this.columns;
    const footer = thriftStruct((t) => t
      .i32(1, 1)
      .structList(2, [null, ...leaves], (s, col) => {
        if (col === null) s.string(4, 'schema').i32(5, leaves.length);
        else s.i32(1, TYPE[col.type]).i32(3, REQUIRED).string(4, col.name);
      })
      .i64(3, this.rows)
      .structList(4, this.groups, (g, group) => g
        .structList(1, group.chunks, (cc, ch, i) => cc
          .i64(2, ch.offset)
          .struct(3, (m) => m.i32(1, TYPE[leaves[i]!.type]).i32List(2, [ENCODING_PLAIN, ENCODING_RLE])
            .stringList(3, [leaves[i]!.name]).i32(4, ch.codec).i64(5, ch.values)
            .i64(6, ch.raw).i64(7, ch.stored).i64(9, ch.offset)))
        .i64(2, group.chunks.reduce((s, ch) => s + ch.raw, 0))
        .i64(3, group.rows))
      .string(6, CREATED_BY));
    this.write(fileTail(footer));
    closeSync(this.fd!);
    this.fd = null;
    return this.rows;
  }

  /** Hands the column arrays to the pool (flushGroup copied what it needed); once. */
  private released = false;
  private release(): void {
    if (this.released) return;
    this.released = true;
    this.cols.forEach((a, i) => giveArray(this.columns[i]!.type, a));
  }

  /**
   * Stops writing (a failed file): waits for the row groups in flight, closes and removes the file.
   * A file already closed (complete) is left alone.
   */
  async abort(): Promise<void> {
    if (this.fd === null && this.error === null) return;
    this.error ??= new Error('aborted');
    this.release();
    await this.chain;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.path, { force: true });
  }
}

/** The Thrift compact protocol read back, the subset the footers and page headers written above need. */
class ThriftIn {
  i: number;
  private readonly b: Buffer;
  constructor(b: Buffer, i = 0) {
    this.b = b;
    this.i = i;
  }

  private byte(): number {
    if (this.i >= this.b.length) throw new Error('thrift: past the end');
    return this.b[this.i++]!;
  }

  varint(): number {
    let r = 0, m = 1;
    for (;;) {
      const x = this.byte();
      r += (x & 0x7f) * m;
      if (x < 0x80) return r;
      m *= 128;
    }
  }

  zigzag(): number {
    const v = this.varint();
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }

  binary(): Buffer {
    const n = this.varint();
    const out = this.b.subarray(this.i, this.i + n);
    this.i += n;
    return out;
  }

  /** Calls `f` with each field's id and type; `f` reads the value (or skip()s it). */
  struct(f: (id: number, type: number) => void): void {
    let last = 0;
    for (;;) {
      const h = this.byte();
      if (h === 0) return;
      const d = h >> 4;
      const id = d === 0 ? this.zigzag() : last + d;
      last = id;
      f(id, h & 0x0f);
    }
  }

  list(f: (type: number) => void): void {
    const h = this.byte();
    const n = (h >> 4) === 15 ? this.varint() : h >> 4;
    for (let k = 0; k < n; k++) f(h & 0x0f);
  }

  /** Skips a value of `type` (`inList`: a bool is a byte there, in a struct its type says it). */
  skip(type: number, inList = false): void {
    if (type === 1 || type === 2) { if (inList) this.i++; return; }
    if (type === 3) { this.i++; return; }
    if (type === 4 || type === T_I32 || type === T_I64) { this.varint(); return; }
    if (type === 7) { this.i += 8; return; }
    if (type === T_BINARY) { this.binary(); return; }
    if (type === T_LIST || type === 10) { this.list((t) => this.skip(t, true)); return; }
    if (type === 11) {
      const n = this.varint();
      const kv = n > 0 ? this.byte() : 0;
      for (let k = 0; k < n; k++) { this.skip(kv >> 4, true); this.skip(kv & 0x0f, true); }
      return;
    }
    if (type === T_STRUCT) { this.struct((_, t) => this.skip(t)); return; }
    throw new Error(`thrift: type ${type}`);
  }
}

interface ChunkAt { offset: number; type: number; codec: number; values: number }

function readAt(fd: number, at: number, n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let done = 0;
  while (done < n) {
    const got = readSync(fd, b, done, n - done, at + done);
    if (got === 0) throw new Error(`ends at byte ${at + done}, ${n - done} bytes short`);
    done += got;
  }
  return b;
}

/** The row groups of a file NumericParquetWriter wrote with `columns`; null for any other file (another writer, other columns). */
function numericLayout(fd: number, columns: readonly NumericColumn[]): { rows: number; chunks: ChunkAt[] }[] | null {
  const size = fstatSync(fd).size;
  if (size < 12) return null;
  const tail = readAt(fd, size - 8, 8);
  if (!tail.subarray(4).equals(MAGIC)) return null;
  const len = tail.readUInt32LE(0);
  if (len + 12 > size) return null;
  const t = new ThriftIn(readAt(fd, size - 8 - len, len));
  let createdBy = '';
  const names: string[] = [], types: number[] = [];
  const groups: { rows: number; chunks: ChunkAt[] }[] = [];
  t.struct((id, type) => {
    if (id === 2 && type === T_LIST) {
      t.list(() => t.struct((f, ft) => {
        if (f === 1 && ft === T_I32) types.push(t.zigzag());
        else if (f === 4 && ft === T_BINARY) names.push(t.binary().toString('utf8'));
        else t.skip(ft);
      }));
    } else if (id === 4 && type === T_LIST) {
      t.list(() => {
        const g = { rows: 0, chunks: [] as ChunkAt[] };
        t.struct((f, ft) => {
          if (f === 1 && ft === T_LIST) {
            t.list(() => {
              const c: ChunkAt = { offset: -1, type: -1, codec: -1, values: -1 };
              t.struct((cf, ct) => {
                if (cf === 3 && ct === T_STRUCT) {
                  t.struct((m, mt) => {
                    if (m === 1 && mt === T_I32) c.type = t.zigzag();
                    else if (m === 4 && mt === T_I32) c.codec = t.zigzag();
                    else if (m === 5 && mt === T_I64) c.values = t.zigzag();
                    else if (m === 9 && mt === T_I64) c.offset = t.zigzag();
                    else t.skip(mt);
                  });
                } else t.skip(ct);
              });
              g.chunks.push(c);
            });
          } else if (f === 3 && ft === T_I64) g.rows = t.zigzag();
          else t.skip(ft);
        });
        groups.push(g);
      });
    } else if (id === 6 && type === T_BINARY) createdBy = t.binary().toString('utf8');
    else t.skip(type);
  });
  // The root element first (a name, no type), then one leaf per column.
  if (createdBy !== CREATED_BY || names.length !== columns.length + 1 || types.length !== columns.length) return null;
  for (let c = 0; c < columns.length; c++) if (names[c + 1] !== columns[c]!.name || types[c] !== TYPE[columns[c]!.type]) return null;
  for (const g of groups) {
    if (g.chunks.length !== columns.length) return null;
    for (let c = 0; c < columns.length; c++) {
      const ch = g.chunks[c]!;
      if (ch.type !== TYPE[columns[c]!.type] || (ch.codec !== CODEC_ZSTD && ch.codec !== CODEC_UNCOMPRESSED) || ch.values !== g.rows || ch.offset < 4) return null;
    }
  }
  return groups;
}

/** True when `path` is a file NumericParquetWriter wrote with `columns` (readNumericParquet reads it). */
export function isNumericParquet(path: string, columns: readonly NumericColumn[]): boolean {
  const fd = openSync(path, 'r');
  try {
    return numericLayout(fd, columns) !== null;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * The row groups of a file NumericParquetWriter wrote with `columns`, one at a time: its rows and
 * one typed array per column (fresh arrays each time). Throws for any other file (isNumericParquet
 * says beforehand). Finalize's rates writer reads the staged prices so (rates-write.ts), not
 * through DuckDB.
 */
export function* readNumericParquet(path: string, columns: readonly NumericColumn[]): Generator<{ rows: number; cols: (Int32Array | Float64Array)[] }> {
  const fd = openSync(path, 'r');
  try {
    const groups = numericLayout(fd, columns);
    if (groups === null) throw new Error(`${path}: not a numeric Parquet file of columns ${columns.map((c) => c.name).join(', ')}`);
    for (const g of groups) {
      const cols = g.chunks.map((ch, c) => {
        // The page header (a few dozen bytes), then the page.
        const head = readAt(fd, ch.offset, Math.min(256, fstatSync(fd).size - ch.offset));
        const t = new ThriftIn(head);
        let type = -1, raw = -1, stored = -1, values = -1, encoding = -1;
        t.struct((id, ft) => {
          if (id === 1 && ft === T_I32) type = t.zigzag();
          else if (id === 2 && ft === T_I32) raw = t.zigzag();
          else if (id === 3 && ft === T_I32) stored = t.zigzag();
          else if (id === 5 && ft === T_STRUCT) {
            t.struct((d, dt) => {
              if (d === 1 && dt === T_I32) values = t.zigzag();
              else if (d === 2 && dt === T_I32) encoding = t.zigzag();
              else t.skip(dt);
            });
          } else t.skip(ft);
        });
        const width = columns[c]!.type === 'INT32' ? 4 : 8;
        if (type !== PAGE_DATA || encoding !== ENCODING_PLAIN || values !== g.rows || raw !== g.rows * width || stored < 0) {
          throw new Error(`${path}: a page at byte ${ch.offset} not as NumericParquetWriter writes them`);
        }
        const body = readAt(fd, ch.offset + t.i, stored);
        const page = ch.codec === CODEC_ZSTD ? zstdDecompressSync(body) : body;
        if (page.length !== raw) throw new Error(`${path}: a page at byte ${ch.offset} holds ${page.length} bytes, ${raw} expected`);
        const int = columns[c]!.type === 'INT32';
        // A page in a buffer of its own, aligned (as readAt's and zstd's are), is the column as it is.
        if (page.byteOffset % width === 0 && page.byteLength === page.buffer.byteLength) {
          return int ? new Int32Array(page.buffer, page.byteOffset, g.rows) : new Float64Array(page.buffer, page.byteOffset, g.rows);
        }
        const out = int ? new Int32Array(g.rows) : new Float64Array(g.rows);
        new Uint8Array(out.buffer).set(page);
        return out;
      });
      yield { rows: g.rows, cols };
    }
  } finally {
    closeSync(fd);
  }
}
