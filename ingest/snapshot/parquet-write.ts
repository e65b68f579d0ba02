/**
 * A Parquet writer for the tables finalize builds in JS (group-tables.ts, rates-write.ts):
 * provider_groups, whose rows carry lists (npis BIGINT[], network_names VARCHAR[]), group_members,
 * whose npi column needs min/max statistics (an NPI lookup reads one row group of its bucket by
 * them), and the rates partitions.
 *
 * The caller fills one ColumnBuffer per column a row at a time and hands a row group over with
 * writeRowGroup(); its pages are compressed with zstd (level 1, as duck.ts ZSTD) on libuv's thread
 * pool (or, `inline`, on the calling thread) and written in order while the caller goes on.
 * Finalize's rates (rates-write.ts) are written through it too: their item strings and file lists
 * as dictionary-encoded columns (`dict-string`, `dict-string-list`: each row group's distinct
 * values in a dictionary page, the values RLE_DICTIONARY indices), with min/max statistics.
 *
 * The format is the plain subset of Apache Parquet (parquet-format, parquet.thrift): one data page
 * (v1) per column chunk, after its dictionary page if it has one; PLAIN values (or dictionary
 * indices in the RLE/bit-packing hybrid, encodeHybrid); definition and repetition levels in that
 * hybrid as RLE runs only (bit width 1); lists in the standard three-level form (`<name>` LIST /
 * repeated `list` / `element`), required at the outer and the element level, so an empty list is
 * one entry at definition level 0; strings as BYTE_ARRAY with the UTF8 converted type. Thrift's
 * compact protocol comes from numeric-parquet.ts.
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import { zstdCompress, zstdCompressSync } from 'node:zlib';
import { fileTail, thriftStruct, zstdPage, type Compact } from './numeric-parquet.ts';

export type ParquetColumnKind = 'int32' | 'int64' | 'double' | 'string' | 'optional-string' | 'int64-list' | 'string-list' | 'dict-string' | 'dict-string-list';

export interface ParquetColumn {
  name: string;
  kind: ParquetColumnKind;
  /** Min/max statistics in the column chunk's metadata (int32, int64, double and dict-string). */
  stats?: boolean;
  /**
   * int32, int64, int64-list: DELTA_BINARY_PACKED values (encodeDelta), stored without zstd. For
   * sorted or clustered numbers it is smaller than zstd's output and far cheaper to make.
   */
  delta?: boolean;
  /**
   * dict-string, dict-string-list: the string a value's id stands for. The values are given as ids
   * (dictId, dictList); each row group's distinct ids become its column chunk's dictionary page
   * and the values RLE_DICTIONARY indices into it.
   */
  lookup?: (id: number) => string;
  /** dict-string: NULL allowed (given as id -1). */
  nullable?: boolean;
}

const MAGIC = Buffer.from('PAR1', 'latin1');
/** Row groups being compressed at once; writeRowGroup waits beyond that. */
const MAX_IN_FLIGHT = 2;

// parquet.thrift enum values.
const TYPE_INT32 = 1, TYPE_INT64 = 2, TYPE_DOUBLE = 5, TYPE_BYTE_ARRAY = 6;
const REQUIRED = 0, OPTIONAL = 1, REPEATED = 2;
const CONVERTED_UTF8 = 0, CONVERTED_LIST = 3;
const ENCODING_PLAIN = 0, ENCODING_RLE = 3, ENCODING_DELTA_BINARY_PACKED = 5, ENCODING_RLE_DICTIONARY = 8;
const CODEC_UNCOMPRESSED = 0, CODEC_ZSTD = 6;
/**
 * A column chunk whose pages hold fewer bytes than this is stored uncompressed: each zstd call
 * costs ~50 µs of context set-up on the calling thread (and ~0.1-0.2 ms more through libuv's
 * pool; measured 2026-11-23), and a rates row group's dictionary-encoded columns are mostly a few
 * hundred bytes.
 */
const SMALL_CHUNK = 16 << 10;
const PAGE_DATA = 0, PAGE_DICTIONARY = 2;

const HEX_DIGITS = Buffer.from('0123456789abcdef');

/** A growable byte buffer. */
export class Bytes {
  buf = Buffer.allocUnsafe(1 << 16);
  len = 0;

  ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.len + extra, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.len++] = b;
  }

  varint(n: number): void {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.len++] = n;
  }

  /** PLAIN BYTE_ARRAY: 4-byte length, then the UTF-8 bytes. */
  string(s: string): void {
    this.ensure(4 + s.length * 3);
    const n = this.buf.write(s, this.len + 4, 'utf8');
    this.buf.writeUInt32LE(n, this.len);
    this.len += 4 + n;
  }

  /** PLAIN BYTE_ARRAY of 32 lowercase hex digits: the words w[at..at+4), most significant first. */
  hex128(w: Uint32Array, at: number): void {
    this.ensure(36);
    const b = this.buf;
    let o = this.len;
    b.writeUInt32LE(32, o);
    o += 4;
    for (let k = 0; k < 4; k++) {
      const x = w[at + k]!;
      for (let s = 28; s >= 0; s -= 4) b[o++] = HEX_DIGITS[(x >>> s) & 15]!;
    }
    this.len = o;
  }

  /** The bytes so far (a view, valid until the next write), and a fresh start for the next page. */
  take(): Buffer {
    const out = this.buf.subarray(0, this.len);
    this.len = 0;
    return out;
  }
}

/**
 * Page bodies, reused once compressed: as fresh buffers the ~1 GB of pages that the 1 GiB benchmark's
 * groups make set off 44 full garbage collections of the small JS heap, for their external memory.
 */
const bodies = new Map<number, Buffer[]>();
/** Bytes the pool keeps at most (its buffers count toward the ingest's peak RSS). */
const BODIES_KEPT_BYTES = 16 << 20;
let bodiesKept = 0;

function bodyBuffer(size: number): Buffer {
  const cap = 2 ** Math.ceil(Math.log2(Math.max(size, 4096)));
  const b = bodies.get(cap)?.pop();
  if (b) bodiesKept -= cap;
  return (b ?? Buffer.allocUnsafeSlow(cap)).subarray(0, size);
}

function giveBody(b: Buffer): void {
  const cap = b.buffer.byteLength;
  if (b.byteOffset !== 0 || cap !== 2 ** Math.round(Math.log2(cap)) || bodiesKept + cap > BODIES_KEPT_BYTES) return;
  const free = bodies.get(cap) ?? [];
  free.push(Buffer.from(b.buffer, 0, cap));
  bodies.set(cap, free);
  bodiesKept += cap;
}

/** Levels of bit width 1 as RLE runs, equal neighbours merged; the page holds them behind a 4-byte length. */
class Levels {
  private readonly out = new Bytes();
  private value = -1;
  private count = 0;

  push(value: number, count = 1): void {
    if (count === 0) return;
    if (value === this.value) { this.count += count; return; }
    this.flush();
    this.value = value;
    this.count = count;
  }

  private flush(): void {
    if (this.count === 0) return;
    this.out.varint(this.count * 2); // LSB 0: an RLE run of `count` repeats
    this.out.byte(this.value);
    this.count = 0;
  }

  /** The encoded levels behind their 4-byte length (a view, valid until the next push). */
  take(): Buffer {
    this.flush();
    this.value = -1;
    const n = this.out.len;
    this.out.ensure(4);
    this.out.buf.copyWithin(4, 0, n);
    this.out.buf.writeUInt32LE(n, 0);
    this.out.len = n + 4;
    return this.out.take();
  }
}

/** 64-bit little-endian integers from numbers (non-negative, below 2^53), as pairs of 32-bit words. */
class Int64s {
  words = new Uint32Array(1 << 14);
  n = 0;

  ensure(extra: number): void {
    if (2 * (this.n + extra) <= this.words.length) return;
    const next = new Uint32Array(Math.max(2 * (this.n + extra), this.words.length * 2));
    next.set(this.words.subarray(0, 2 * this.n));
    this.words = next;
  }

  push(v: number): void {
    this.ensure(1);
    const w = this.words, i = 2 * this.n++;
    w[i] = v >>> 0;
    w[i + 1] = v > 0xffffffff ? Math.floor(v / 0x100000000) : 0;
  }

  /** Appends src[from..to), each below 2^32. */
  pushU32(src: Uint32Array, from: number, to: number): void {
    this.ensure(to - from);
    const w = this.words;
    let i = 2 * this.n;
    for (let k = from; k < to; k++, i += 2) { w[i] = src[k]!; w[i + 1] = 0; }
    this.n += to - from;
  }

  /** The values so far (a view, valid until the next push). */
  take(): Buffer {
    const out = Buffer.from(this.words.buffer, this.words.byteOffset, 8 * this.n);
    this.n = 0;
    return out;
  }
}

/**
 * values[0..n) in Parquet's RLE/bit-packing hybrid at `width` bits (1..24): runs of 8 or more
 * equal values as RLE runs, the rest bit-packed in groups of 8 (the last group padded with zeros:
 * the page's value count says where the values end).
 */
export function encodeHybrid(out: Bytes, v: Int32Array, n: number, width: number): void {
  if (width < 1 || width > 24) throw new Error(`encodeHybrid: bit width ${width} out of range`);
  // The loops are functions of their own (sameFrom, groupsFrom, packGroups): nested here, V8
  // compiled the inner ones for on-stack replacement and left them at their exits ~190 times a
  // 1 GiB file (--trace-deopt, 2026-11-23).
  let i = 0;
  while (i < n) {
    const j = sameFrom(v, i, n);
    if (j - i >= 8) {
      rleRun(out, v[i]!, j - i, width);
      i = j;
    } else {
      i = packGroups(out, v, i, n, groupsFrom(v, i, n), width);
    }
  }
}

/** The end of the run of values equal to v[i]. */
function sameFrom(v: Int32Array, i: number, n: number): number {
  const x = v[i]!;
  let j = i + 1;
  while (j < n && v[j] === x) j++;
  return j;
}

/** An RLE run: `count` repeats of x. */
function rleRun(out: Bytes, x: number, count: number, width: number): void {
  const valueBytes = (width + 7) >> 3;
  out.varint(count * 2);
  out.ensure(valueBytes);
  for (let b = 0; b < valueBytes; b++) out.buf[out.len++] = (x >>> (8 * b)) & 0xff;
}

/** Groups of 8 from i, bit-packed, until a run of 8 starts at a group's boundary (or the values end). */
function groupsFrom(v: Int32Array, i: number, n: number): number {
  let groups = 1;
  while (i + 8 * groups < n && !runOf8(v, i + 8 * groups, n)) groups++;
  return groups;
}

/** `groups` bit-packed groups of 8 values from i (the last padded with zeros); returns where they end. */
function packGroups(out: Bytes, v: Int32Array, i: number, n: number, groups: number, width: number): number {
  out.varint(groups * 2 + 1);
  out.ensure(groups * width);
  const end = Math.min(n, i + 8 * groups);
  const buf = out.buf;
  let at = out.len, acc = 0, bits = 0;
  for (let k = i; k < i + 8 * groups; k++) {
    acc |= (k < end ? v[k]! : 0) << bits;
    bits += width;
    while (bits >= 8) { buf[at++] = acc & 0xff; acc >>>= 8; bits -= 8; }
  }
  out.len = at;
  return end;
}

/** Values a DELTA_BINARY_PACKED block holds, and its miniblocks (of 32 values each). */
const DELTA_BLOCK = 128, DELTA_MINIS = 4, DELTA_MINI = 32;
const deltaScratch = new Float64Array(DELTA_BLOCK);

const zigzag = (v: number): number => (v >= 0 ? 2 * v : -2 * v - 1);

/**
 * The values v[0..n) in Parquet's DELTA_BINARY_PACKED encoding (integers of magnitude below 2^50,
 * their differences too): the first value, then blocks of 128 differences, each stored as its
 * distance from the block's smallest difference, bit-packed in miniblocks of 32 at the width the
 * miniblock's largest distance needs. Sorted columns (a bucket's NPIs) take a byte or two a value.
 */
export function encodeDelta(out: Bytes, v: Float64Array, n: number): void {
  out.varint(DELTA_BLOCK);
  out.varint(DELTA_MINIS);
  out.varint(n);
  out.varint(zigzag(n > 0 ? v[0]! : 0));
  const d = deltaScratch, maxes = MINI_MAX, widths = MINI_WIDTH;
  for (let b = 1; b < n; b += DELTA_BLOCK) {
    const m = Math.min(DELTA_BLOCK, n - b);
    const minis = (m + DELTA_MINI - 1) >>> 5;
    const min = blockDeltas(v, b, m);
    out.varint(zigzag(min));
    for (let j = 0; j < DELTA_MINIS; j++) widths[j] = j < minis ? bitsOf(maxes[j]! - min) : 0;
    out.ensure(DELTA_MINIS + DELTA_MINIS * 4 * 64);
    for (let j = 0; j < DELTA_MINIS; j++) out.buf[out.len++] = widths[j]!;
    for (let j = 0; j < minis; j++) {
      const width = widths[j]!, from = j * DELTA_MINI, to = Math.min(m, from + DELTA_MINI);
      if (width === 0) continue;
      if (width <= 32) packBits(out, d, from, to, min, width);
      else packWide(out, d, from, to, min, width);
    }
  }
}

const MINI_MAX = new Float64Array(DELTA_MINIS);
const MINI_WIDTH = new Int32Array(DELTA_MINIS);

/**
 * The differences v[b + k] - v[b + k - 1] of one block (k < m) into deltaScratch, each miniblock's
 * largest into MINI_MAX; returns the smallest. One flat loop, in a function of its own, not nested
 * in encodeDelta's loops over blocks and miniblocks (see packBits for the encoder's figures).
 */
function blockDeltas(v: Float64Array, b: number, m: number): number {
  const d = deltaScratch, maxes = MINI_MAX;
  maxes.fill(-Infinity);
  let prev = v[b - 1]!, min = Infinity;
  for (let k = 0; k < m; k++) {
    const x = v[b + k]!;
    const delta = x - prev;
    prev = x;
    d[k] = delta;
    if (delta < min) min = delta;
    const j = k >>> 5;
    if (delta > maxes[j]!) maxes[j] = delta;
  }
  return min;
}

let numbers = new Float64Array(0);

/** A scratch array of at least n numbers (a column's values on their way to encodeDelta). */
function numbersOf(n: number): Float64Array {
  if (numbers.length < n) numbers = new Float64Array(Math.max(n, 2 * numbers.length));
  return numbers;
}

/** The bits a non-negative integer below 2^53 needs (0 for 0). */
function bitsOf(x: number): number {
  return x < 0x80000000 ? 32 - Math.clz32(x) : 31 + bitsOf(Math.floor(x / 0x80000000));
}

/** A miniblock's words (packBits), and a byte view of each length (no view made per miniblock). */
const PACKED = new Int32Array(DELTA_MINI);
const PACKED_BYTES = Array.from({ length: DELTA_MINI + 1 }, (_, w) => new Uint8Array(PACKED.buffer, 0, 4 * w));

/**
 * d[from..to) - min, padded with zeros to 32 values, bit-packed at `width` (1-32) bits, least
 * significant first: 32 values of `width` bits are `width` 32-bit words, filled value by value
 * (a value straddling two words is split), then copied out as bytes (little-endian, as the
 * encoding's bit order wants; os.endianness() is checked below), the same bytes as before.
 * Measured 2026-11-23 on 62.7 M values in 122,880-row columns (sorted NPIs, group numbers, NPI
 * lists), the whole encoder, three alternating runs of three: 8.6-11.4 ns a value packing byte by
 * byte with a loop per output byte (and the differences taken in loops nested in the block loop),
 * 6.4-8.5 ns with this and blockDeltas. group_members' two columns are ~0.8 CPU-seconds of
 * encoding on the 1 GiB benchmark file, on the groups' writer thread, which ends finalize.
 */
function packBits(out: Bytes, d: Float64Array, from: number, to: number, min: number, width: number): void {
  const w = PACKED;
  for (let i = 0; i < width; i++) w[i] = 0;
  let bit = 0;
  for (let k = from; k < to; k++) {
    const x = d[k]! - min;
    const i = bit >>> 5, off = bit & 31;
    w[i]! |= x << off;
    if (off + width > 32) w[i + 1]! |= x >>> (32 - off);
    bit += width;
  }
  out.buf.set(PACKED_BYTES[width]!, out.len);
  out.len += 4 * width;
}

if (endianness() !== 'LE') throw new Error('parquet-write.ts packs DELTA_BINARY_PACKED miniblocks as little-endian words');

/** Wider (up to 48 bits): the low 24 bits, then the rest. */
function packWide(out: Bytes, d: Float64Array, from: number, to: number, min: number, width: number): void {
  if (width > 48) throw new Error(`encodeDelta: a difference of ${width} bits`);
  const buf = out.buf, end = from + DELTA_MINI;
  let at = out.len, acc = 0, bits = 0;
  for (let k = from; k < end; k++) {
    const x = k < to ? d[k]! - min : 0;
    const lo = x % 0x1000000;
    acc |= lo << bits;
    bits += 24;
    while (bits >= 8) { buf[at++] = acc & 0xff; acc >>>= 8; bits -= 8; }
    acc |= ((x - lo) / 0x1000000) << bits;
    bits += width - 24;
    while (bits >= 8) { buf[at++] = acc & 0xff; acc >>>= 8; bits -= 8; }
  }
  out.len = at;
}

/** The largest value of the last gatherI32 / gatherF64 (which return the least). */
let gatheredMax = -Infinity;

/**
 * out[e + j] = src[at[j]] for j < m; returns the least value, gatheredMax the largest. One function
 * per array type: as one method over Int32Array | Float64Array, V8 kept it in its mid tier (Maglev),
 * ~1.6% of a 1 GiB run's CPU in the rates' writer (perf, 2026-11-24). Nothing but a module
 * variable and the return after the loop: a property store there, which the run that had the loop
 * compiled for on-stack replacement had not reached, made V8 deopt at the end of every later call
 * (34 times a finalize, --trace-deopt).
 */
function gatherI32(out: Int32Array, e: number, src: Int32Array, at: Int32Array, m: number): number {
  let min = Infinity, max = -Infinity;
  for (let j = 0; j < m; j++) {
    const v = src[at[j]!]!;
    out[e + j] = v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  gatheredMax = max;
  return min;
}

function gatherF64(out: Float64Array, e: number, src: Float64Array, at: Int32Array, m: number): number {
  let min = Infinity, max = -Infinity;
  for (let j = 0; j < m; j++) {
    const v = src[at[j]!]!;
    out[e + j] = v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  gatheredMax = max;
  return min;
}

function runOf8(v: Int32Array, p: number, n: number): boolean {
  if (p + 8 > n) return false;
  const x = v[p]!;
  for (let k = p + 1; k < p + 8; k++) if (v[k] !== x) return false;
  return true;
}

/** The uncompressed page of one column of one row group (and its dictionary page, for the dict kinds). */
interface ColumnPage { entries: number; body: Buffer; encoding: number; min?: Buffer; max?: Buffer; nulls: number; dict?: Buffer; dictEntries?: number }

function int64Bytes(v: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32LE(v >>> 0, 0);
  b.writeUInt32LE(Math.floor(v / 0x100000000), 4);
  return b;
}

const isDict = (k: ParquetColumnKind): boolean => k === 'dict-string' || k === 'dict-string-list';

// take()'s loops are functions of their own: with them inside, V8 compiled take() for on-stack
// replacement in one column's loop, and that code, kept after each deopt, left for the interpreter
// at the first step another column kind took, on every page: up to ~580 deopts of take() finalizing
// the 1 GiB benchmark file (--trace-deopt-verbose, 2026-11-24).
function int32Numbers(src: Int32Array, v: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) v[i] = src[i]!;
}

function int64Numbers(w: Uint32Array, v: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) v[i] = w[2 * i]! + w[2 * i + 1]! * 0x100000000;
}

/** One column's values of the row group being built; filled a row at a time. */
export class ColumnBuffer {
  private entries = 0;
  private readonly rep = new Levels();
  private readonly def = new Levels();
  private readonly bytes = new Bytes();
  private readonly i64 = new Int64s();
  private i32 = new Int32Array(1 << 12);
  private f64 = new Float64Array(0);
  private min = Infinity;
  private max = -Infinity;
  private nulls = 0;
  // dict kinds: each id's index in this row group's dictionary (valid where its stamp is `gen`).
  private dictStamp = new Int32Array(0);
  private dictIndex = new Int32Array(0);
  private gen = 1;
  private readonly dictIds: number[] = [];
  private readonly dictBytes = new Bytes();
  private idx = new Int32Array(0);
  private nIdx = 0;

  readonly column: ParquetColumn;

  constructor(column: ParquetColumn) {
    this.column = column;
    if (isDict(column.kind) && !column.lookup) throw new Error(`${column.name}: a ${column.kind} column needs a lookup`);
  }

  /** int32. */
  int32(v: number): void {
    if (this.entries === this.i32.length) this.i32 = withRoom(this.i32, this.entries, 1);
    this.i32[this.entries++] = v;
    this.stat(v);
  }

  /** double. */
  double(v: number): void {
    if (this.entries === this.f64.length) this.f64 = withRoom(this.f64, this.entries, 1);
    this.f64[this.entries++] = v;
    this.stat(v);
  }

  private stat(v: number): void {
    if (!this.column.stats) return;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  /** int32 values src[from..to). */
  int32s(src: Uint32Array | Int32Array, from: number, to: number): void {
    const n = to - from;
    if (this.entries + n > this.i32.length) {
      const next = new Int32Array(Math.max(this.entries + n, this.i32.length * 2));
      next.set(this.i32.subarray(0, this.entries));
      this.i32 = next;
    }
    this.i32.set(src.subarray(from, to), this.entries);
    this.entries += n;
    if (this.column.stats) {
      for (let k = from; k < to; k++) {
        const v = src[k]!;
        if (v < this.min) this.min = v;
        if (v > this.max) this.max = v;
      }
    }
  }

  /** int64: a non-negative integer below 2^53. */
  int64(v: number): void {
    this.i64.push(v);
    this.entries++;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  /** int64 values src[from..to), each below 2^32 (NPIs); with statistics when the column has them. */
  int64sU32(src: Uint32Array, from: number, to: number): void {
    this.i64.pushU32(src, from, to);
    this.entries += to - from;
    if (this.column.stats) {
      for (let k = from; k < to; k++) {
        const v = src[k]!;
        if (v < this.min) this.min = v;
        if (v > this.max) this.max = v;
      }
    }
  }

  /**
   * int64 values q[from..to) * 64 + b (a group_members bucket's NPIs, stored as npi >>> 6), q
   * ascending, so the first and last give the statistics.
   */
  int64sBucket(q: Uint32Array, from: number, to: number, b: number): void {
    const n = to - from;
    if (n === 0) return;
    this.i64.ensure(n);
    bucketWords(this.i64.words, 2 * this.i64.n, q, from, to, b);
    this.i64.n += n;
    this.entries += n;
    const lo = q[from]! * 64 + b, hi = q[to - 1]! * 64 + b;
    if (lo < this.min) this.min = lo;
    if (hi > this.max) this.max = hi;
  }

  /** string / optional-string (null only in the optional kind). */
  string(v: string | null): void {
    this.entries++;
    if (this.column.kind === 'optional-string') this.def.push(v === null ? 0 : 1);
    else if (v === null) throw new Error(`${this.column.name}: null in a required column`);
    if (v !== null) this.bytes.string(v);
  }

  /** string: 32 lowercase hex digits of the words w[at..at+4) (Bytes.hex128). */
  hex128(w: Uint32Array, at: number): void {
    this.entries++;
    if (this.column.kind === 'optional-string') this.def.push(1);
    this.bytes.hex128(w, at);
  }

  /** int64-list: the list src[from..to) of values below 2^32. */
  int64ListU32(src: Uint32Array, from: number, to: number): void {
    const n = to - from;
    this.listLevels(n);
    this.i64.pushU32(src, from, to);
  }

  /** int64-list: the list of the (low, high) word pairs words[from..to). */
  int64ListWords(words: Uint32Array, from: number, to: number): void {
    const n = (to - from) / 2;
    this.listLevels(n);
    this.i64.ensure(n);
    this.i64.words.set(words.subarray(from, to), 2 * this.i64.n);
    this.i64.n += n;
  }

  /** string-list. */
  stringList(v: readonly string[]): void {
    this.listLevels(v.length);
    for (const s of v) this.bytes.string(s);
  }

  /** int32 values src[at[j]] for j < m (a selection of rows). */
  int32sAt(src: Int32Array, at: Int32Array, m: number): void {
    this.i32 = withRoom(this.i32, this.entries, m);
    this.gathered(m, gatherI32(this.i32, this.entries, src, at, m));
  }

  /** double values src[at[j]] for j < m. */
  doublesAt(src: Float64Array, at: Int32Array, m: number): void {
    this.f64 = withRoom(this.f64, this.entries, m);
    this.gathered(m, gatherF64(this.f64, this.entries, src, at, m));
  }

  /** After a gather of m values, `min` the least, gatheredMax the largest. */
  private gathered(m: number, min: number): void {
    this.entries += m;
    if (this.column.stats) {
      if (min < this.min) this.min = min;
      if (gatheredMax > this.max) this.max = gatheredMax;
    }
  }

  /** dict-string: the strings of ids[at[j]] for j < m (-1: NULL, in a nullable column). */
  dictIdsAt(ids: Int32Array, at: Int32Array, m: number): void {
    // A run of rows of one string (rows of one item, mostly) at a time. The loops are functions of
    // their own (runEnd, indexRun): nested here, V8 compiled the inner one for on-stack replacement
    // and left it at its exit ~70 times a 1 GiB file (--trace-deopt, 2026-11-23).
    for (let j = 0; j < m;) {
      const id = ids[at[j]!]!;
      const end = runEnd(ids, at, j, m, id);
      this.putRun(id, end - j);
      j = end;
    }
    this.entries += m;
  }

  private putRun(id: number, n: number): void {
    const nullable = this.column.nullable === true;
    if (nullable) this.def.push(id < 0 ? 0 : 1, n);
    if (id >= 0) this.indexRun(this.dictLocal(id), n);
    else if (nullable) this.nulls += n;
    else throw new Error(`${this.column.name}: null in a required column`);
  }

  private indexRun(local: number, n: number): void {
    if (this.nIdx + n > this.idx.length) this.idx = withRoom(this.idx, this.nIdx, n);
    this.idx.fill(local, this.nIdx, this.nIdx + n);
    this.nIdx += n;
  }

  /** dict-string-list: `m` lists, each of the one string of `id`. */
  dictList1Times(id: number, m: number): void {
    if (m === 0) return;
    this.rep.push(0, m);
    this.def.push(1, m);
    this.entries += m;
    this.indexRun(this.dictLocal(id), m);
  }

  /** dict-string: the string of `id` (lookup), or NULL for -1 in a nullable column. */
  dictId(id: number): void {
    this.entries++;
    if (this.column.nullable) this.def.push(id < 0 ? 0 : 1);
    if (id >= 0) this.index(this.dictLocal(id));
    else if (this.column.nullable) this.nulls++;
    else throw new Error(`${this.column.name}: null in a required column`);
  }

  /** dict-string-list: the list of the strings of ids[from..to). */
  dictList(ids: ArrayLike<number>, from: number, to: number): void {
    this.listLevels(to - from);
    for (let k = from; k < to; k++) this.index(this.dictLocal(ids[k]!));
  }

  /** dict-string-list: a list of the one string of `id`. */
  dictList1(id: number): void {
    this.listLevels(1);
    this.index(this.dictLocal(id));
  }

  private index(local: number): void {
    if (this.nIdx === this.idx.length) {
      const next = new Int32Array(Math.max(1 << 12, this.idx.length * 2));
      next.set(this.idx);
      this.idx = next;
    }
    this.idx[this.nIdx++] = local;
  }

  /** `id`'s index in this row group's dictionary, added to it on first sight. */
  private dictLocal(id: number): number {
    if (id >= this.dictStamp.length) {
      const size = Math.max(id + 1, this.dictStamp.length * 2, 1024);
      const stamp = new Int32Array(size), index = new Int32Array(size);
      stamp.set(this.dictStamp);
      index.set(this.dictIndex);
      this.dictStamp = stamp;
      this.dictIndex = index;
    }
    if (this.dictStamp[id] === this.gen) return this.dictIndex[id]!;
    const local = this.dictIds.length;
    this.dictStamp[id] = this.gen;
    this.dictIndex[id] = local;
    this.dictIds.push(id);
    return local;
  }

  private listLevels(n: number): void {
    this.rep.push(0);
    if (n === 0) { this.def.push(0); this.entries++; return; }
    this.rep.push(1, n - 1);
    this.def.push(1, n);
    this.entries += n;
  }

  /** The page of the values since the last take() (in a pooled buffer, given back once compressed), and a fresh start. */
  take(): ColumnPage {
    const k = this.column.kind;
    const parts: Buffer[] = [];
    const page: ColumnPage = { entries: this.entries, body: EMPTY, encoding: ENCODING_PLAIN, nulls: this.nulls };
    if (isList(k)) parts.push(this.rep.take(), this.def.take());
    else if (k === 'optional-string' || this.column.nullable) parts.push(this.def.take());
    if (this.column.delta && (k === 'int32' || k === 'int64' || k === 'int64-list')) {
      page.encoding = ENCODING_DELTA_BINARY_PACKED;
      const n = k === 'int32' ? this.entries : this.i64.n;
      const v = numbersOf(n);
      if (k === 'int32') int32Numbers(this.i32, v, n);
      else {
        int64Numbers(this.i64.words, v, n);
        this.i64.n = 0;
      }
      encodeDelta(this.bytes, v, n);
      parts.push(this.bytes.take());
    } else if (k === 'int32') parts.push(Buffer.from(this.i32.buffer, this.i32.byteOffset, 4 * this.entries));
    else if (k === 'double') parts.push(Buffer.from(this.f64.buffer, this.f64.byteOffset, 8 * this.entries));
    else if (k === 'int64' || k === 'int64-list') parts.push(this.i64.take());
    else if (isDict(k)) { page.encoding = ENCODING_RLE_DICTIONARY; this.takeDictionary(page, parts); }
    else parts.push(this.bytes.take());
    const body = bodyBuffer(parts.reduce((n, b) => n + b.length, 0));
    let at = 0;
    for (const b of parts) at += b.copy(body, at);
    page.body = body;
    if (this.column.stats && this.entries > this.nulls && !isDict(k)) {
      if (k === 'int32') { page.min = int32Bytes(this.min); page.max = int32Bytes(this.max); }
      else if (k === 'double') { page.min = doubleBytes(this.min); page.max = doubleBytes(this.max); }
      else { page.min = int64Bytes(this.min); page.max = int64Bytes(this.max); }
    }
    this.entries = 0;
    this.nulls = 0;
    this.min = Infinity;
    this.max = -Infinity;
    return page;
  }

  /** The dictionary page and the indices (behind their bit width) of a dict column; its statistics. */
  private takeDictionary(page: ColumnPage, parts: Buffer[]): void {
    const ids = this.dictIds, lookup = this.column.lookup!;
    const width = Math.max(1, 32 - Math.clz32(Math.max(0, ids.length - 1)));
    const out = this.dictBytes;
    out.byte(width);
    encodeHybrid(out, this.idx, this.nIdx, width);
    this.nIdx = 0;
    const indices = Buffer.from(out.take()); // a copy: dictBytes takes the dictionary next
    parts.push(indices);
    let min: Buffer | null = null, max: Buffer | null = null;
    for (const id of ids) {
      const s = lookup(id);
      const start = out.len;
      out.string(s);
      if (this.column.stats) {
        const v = out.buf.subarray(start + 4, out.len);
        if (min === null || Buffer.compare(v, min) < 0) min = Buffer.from(v);
        if (max === null || Buffer.compare(v, max) > 0) max = Buffer.from(v);
      }
    }
    const dict = out.take();
    page.dict = bodyBuffer(dict.length);
    dict.copy(page.dict);
    page.dictEntries = ids.length;
    if (min && max) { page.min = min; page.max = max; }
    ids.length = 0;
    this.gen++;
  }
}

const EMPTY = Buffer.alloc(0);

/** The end of the run of rows from j whose ids[at[.]] are `id`. */
function runEnd(ids: Int32Array, at: Int32Array, j: number, m: number, id: number): number {
  let end = j + 1;
  while (end < m && ids[at[end]!] === id) end++;
  return end;
}

/** q[from..to) * 64 + b as (low, high) 32-bit words into w from `i` (a bucket's NPIs from npi >>> 6). */
function bucketWords(w: Uint32Array, i: number, q: Uint32Array, from: number, to: number, b: number): void {
  for (let k = from; k < to; k++, i += 2) {
    const v = q[k]!;
    w[i] = ((v << 6) | b) >>> 0;
    w[i + 1] = v >>> 26;
  }
}

/** `a`, or a copy with room for `extra` more values after its first `used` (grown at least twofold). */
function withRoom<T extends Int32Array | Float64Array>(a: T, used: number, extra: number): T {
  if (used + extra <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(used + extra, 1 << 12, a.length * 2));
  next.set(a.subarray(0, used));
  return next;
}

function int32Bytes(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(v, 0);
  return b;
}

function doubleBytes(v: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(v, 0);
  return b;
}

interface ChunkMeta {
  /** Where the column chunk starts: its dictionary page, if it has one, else its data page. */
  offset: number;
  dataOffset: number;
  dictOffset?: number;
  entries: number; raw: number; stored: number; min?: Buffer; max?: Buffer; nulls: number; codec: number; encoding: number;
}

const leafType = (k: ParquetColumnKind): number =>
  (k === 'int32' ? TYPE_INT32 : k === 'int64' || k === 'int64-list' ? TYPE_INT64 : k === 'double' ? TYPE_DOUBLE : TYPE_BYTE_ARRAY);
const isList = (k: ParquetColumnKind): boolean => k === 'int64-list' || k === 'string-list' || k === 'dict-string-list';
const isString = (k: ParquetColumnKind): boolean => leafType(k) === TYPE_BYTE_ARRAY;
const pathOf = (c: ParquetColumn): string[] => (isList(c.kind) ? [c.name, 'list', 'element'] : [c.name]);

export class ParquetWriter {
  /** One buffer per column, in order: fill each for every row, then writeRowGroup(). */
  readonly cols: ColumnBuffer[];
  rows = 0;
  private groupRows = 0;
  private fd: number | null;
  private offset = MAGIC.length;
  private readonly groups: { rows: number; chunks: ChunkMeta[] }[] = [];
  private chain: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private waiting: (() => void)[] = [];
  private error: Error | null = null;

  /**
   * `reuse`: the column buffers of a closed writer of the same columns, whose grown arrays this one
   * keeps filling (64 group_members files with buffers of their own made 200 MB of allocations
   * and a full garbage collection every ~80 ms).
   */
  readonly path: string;
  readonly columns: readonly ParquetColumn[];
  private readonly inline: boolean;

  /**
   * `inline`: compress on the calling thread (finalize's writer threads, sink-worker.ts, do): each
   * zstd call on libuv's pool costs the caller ~0.1-0.2 ms of its own besides the compression, and
   * on two busy cores the pool's parallelism buys nothing. Measured 2026-11-23 on the 1 GiB
   * benchmark file: the pool's threads 4.8-5.1 CPU-seconds against 6.0-7.2, the writer threads
   * 0.2-0.7 more, finalize 4.40-4.63 s against 4.30-5.50.
   */
  constructor(path: string, columns: readonly ParquetColumn[], reuse?: readonly ColumnBuffer[], inline = false) {
    this.path = path;
    this.columns = columns;
    this.inline = inline;
    if (endianness() !== 'LE') throw new Error('the Parquet writer needs a little-endian machine (typed arrays are written as they are)');
    this.cols = reuse && reuse.length === columns.length && reuse.every((c, i) => c.column === columns[i]) ? [...reuse] : columns.map((c) => new ColumnBuffer(c));
    this.fd = openSync(path, 'w');
    writeSync(this.fd, MAGIC);
  }

  /** Counts a row whose columns were filled. */
  endRow(): void {
    this.groupRows++;
    this.rows++;
  }

  /** Counts `n` rows whose columns were filled in bulk. */
  endRows(n: number): void {
    this.groupRows += n;
    this.rows += n;
  }

  /** Rows filled since the last row group. */
  get pending(): number {
    return this.groupRows;
  }

  /** Hands the filled rows over as one row group; resolves once fewer than MAX_IN_FLIGHT are being compressed. */
  async writeRowGroup(): Promise<void> {
    const rows = this.groupRows;
    if (rows === 0) return;
    this.groupRows = 0;
    const pages = this.cols.map((c) => c.take());
    this.inFlight++;
    const zstd = (body: Buffer): Promise<Buffer> => (this.inline
      ? Promise.resolve(zstdCompressSync(body, zstdPage(body.length)))
      : new Promise<Buffer>((resolve, reject) => {
        zstdCompress(body, zstdPage(body.length), (err, out) => (err ? reject(err) : resolve(out)));
      }));
    // Small chunks and delta-packed ones are stored as they are.
    const small = pages.map((p) => p.encoding === ENCODING_DELTA_BINARY_PACKED || p.body.length + (p.dict?.length ?? 0) < SMALL_CHUNK);
    // A chunk stored as it is keeps its pooled buffer until written (a copy of every page was
    // ~400 MB of garbage ArrayBuffers for the 5 GiB benchmark file's group_members, 40-85 MB of it
    // alive at a time in the groups' writer thread while its bucket sorts ran).
    const giveBack = (keep: boolean): void => pages.forEach((p, c) => {
      if (small[c] === keep) { giveBody(p.body); if (p.dict) giveBody(p.dict); }
    });
    const compressed = Promise.all(pages.map((p, c) => (small[c]
      ? Promise.resolve([p.body, p.dict ?? null] as const)
      : Promise.all([zstd(p.body), p.dict ? zstd(p.dict) : null])))).finally(() => {
      giveBack(false);
      this.inFlight--;
      this.waiting.shift()?.();
    });
    compressed.catch(() => undefined); // handled where the chain awaits it
    this.chain = this.chain.then(async () => {
      const stored = await compressed;
      if (this.error) return;
      const chunks: ChunkMeta[] = [];
      pages.forEach((p, c) => {
        const [data, dict] = stored[c]!;
        const offset = this.offset;
        let raw = 0, size = 0, dictOffset: number | undefined;
        if (p.dict && dict) {
          dictOffset = this.offset;
          const header = thriftStruct((t) => t.i32(1, PAGE_DICTIONARY).i32(2, p.dict!.length).i32(3, dict.length)
            .struct(7, (d) => d.i32(1, p.dictEntries!).i32(2, ENCODING_PLAIN)));
          raw += header.length + p.dict.length;
          size += header.length + dict.length;
          this.write(header);
          this.write(dict);
        }
        const dataOffset = this.offset;
        const encoding = p.encoding;
        const header = thriftStruct((t) => t.i32(1, PAGE_DATA).i32(2, p.body.length).i32(3, data.length)
          .struct(5, (d) => d.i32(1, p.entries).i32(2, encoding).i32(3, ENCODING_RLE).i32(4, ENCODING_RLE)));
        raw += header.length + p.body.length;
        size += header.length + data.length;
        this.write(header);
        this.write(data);
        chunks.push({ offset, dataOffset, dictOffset, entries: p.entries, raw, stored: size, min: p.min, max: p.max, nulls: p.nulls, codec: small[c] ? CODEC_UNCOMPRESSED : CODEC_ZSTD, encoding });
      });
      this.groups.push({ rows, chunks });
      giveBack(true);
    }).catch((err: unknown) => { this.error ??= err as Error; });
    if (this.inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.error) throw this.error;
  }

  private write(b: Buffer): void {
    if (this.fd === null) throw new Error(`${this.path}: already closed`);
    let done = 0;
    while (done < b.length) done += writeSync(this.fd, b, done, b.length - done, this.offset + done);
    this.offset += b.length;
  }

  private schema(t: Compact): void {
    const elements: ((s: Compact) => void)[] = [(s) => s.string(4, 'schema').i32(5, this.columns.length)];
    for (const c of this.columns) {
      const utf8 = isString(c.kind);
      if (isList(c.kind)) {
        elements.push((s) => s.i32(3, REQUIRED).string(4, c.name).i32(5, 1).i32(6, CONVERTED_LIST));
        elements.push((s) => s.i32(3, REPEATED).string(4, 'list').i32(5, 1));
        elements.push((s) => { s.i32(1, leafType(c.kind)).i32(3, REQUIRED).string(4, 'element'); if (utf8) s.i32(6, CONVERTED_UTF8); });
      } else {
        elements.push((s) => {
          s.i32(1, leafType(c.kind)).i32(3, c.kind === 'optional-string' || c.nullable ? OPTIONAL : REQUIRED).string(4, c.name);
          if (utf8) s.i32(6, CONVERTED_UTF8);
        });
      }
    }
    t.structList(2, elements, (s, f) => f(s));
  }

  /** Writes the last row group and the footer, and closes the file. Returns the rows written. */
  async close(): Promise<number> {
    await this.writeRowGroup();
    await this.chain;
    if (this.error) throw this.error;
    const footer = thriftStruct((t) => {
      t.i32(1, 1);
      this.schema(t);
      t.i64(3, this.rows)
        .structList(4, this.groups, (g, group) => g
          .structList(1, group.chunks, (cc, ch, i) => cc
            .i64(2, ch.offset)
            .struct(3, (m) => {
              const col = this.columns[i]!;
              m.i32(1, leafType(col.kind)).i32List(2, ch.encoding === ENCODING_PLAIN ? [ENCODING_PLAIN, ENCODING_RLE] : isDict(col.kind) ? [ENCODING_PLAIN, ENCODING_RLE, ENCODING_RLE_DICTIONARY] : [ENCODING_RLE, ch.encoding])
                .stringList(3, pathOf(col)).i32(4, ch.codec).i64(5, ch.entries)
                .i64(6, ch.raw).i64(7, ch.stored).i64(9, ch.dataOffset);
              if (ch.dictOffset !== undefined) m.i64(11, ch.dictOffset);
              const { min, max } = ch;
              // Strings: only min_value/max_value (fields 6, 5); the deprecated min/max (2, 1) compare signed bytes.
              if (min && max && isString(col.kind)) m.struct(12, (st) => st.i64(3, ch.nulls).binary(5, max).binary(6, min));
              else if (min && max) m.struct(12, (st) => st.binary(1, max).binary(2, min).i64(3, ch.nulls).binary(5, max).binary(6, min));
            }))
          .i64(2, group.chunks.reduce((s, ch) => s + ch.raw, 0))
          .i64(3, group.rows))
        .string(6, 'carebridge parquet-write');
    });
    this.write(fileTail(footer));
    closeSync(this.fd!);
    this.fd = null;
    return this.rows;
  }

  /** Stops writing (an error elsewhere): waits for the row groups in flight, closes and removes the file. */
  async abort(): Promise<void> {
    if (this.fd === null && this.error === null) return;
    this.error ??= new Error('aborted');
    await this.chain;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.path, { force: true });
  }
}
