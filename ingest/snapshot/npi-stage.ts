/**
 * The staged NPIs of a TiC file's provider groups (`group_npis.bin`, and `group_npis.1.bin` from the
 * parse helper): for each staged group with NPIs, in the order its stager numbered them (gid
 * ascending), one record of 32-bit little-endian words:
 *
 *     [gid: int32] [n: uint32] [n NPIs: uint32, ascending, distinct]
 *
 * or, when an NPI of the group does not fit 32 bits (10 digits reach 9,999,999,999; real NPIs start
 * with 1 or 2 and fit), a wide record: n with its top bit set (WIDE), then each NPI as two words,
 * low then high. A group without NPIs (TIN only) has no record. Finalize reads the records back in
 * JS (group-tables.ts) to write provider_groups' lists and group_members; DuckDB never reads them.
 *
 * Why raw words: as (gid INT32, npi DOUBLE) rows of zstd-compressed Parquet the 20.8 M NPIs of the
 * 1 GiB benchmark file took 111 MB and ~0.7 s of compression on libuv's pool, and finalize then spent
 * ~7 s of its 11 in DuckDB joining, aggregating, sorting and writing them; these records take 83 MB
 * uncompressed and no compression at all (measured 2026-11-22).
 */
import { closeSync, fstatSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';

/** Words buffered before a write (1 MiB). */
const WORDS = 1 << 18;
/** Words read at once (1 MiB). */
const READ_WORDS = 1 << 18;
/** The count word's top bit: the record's NPIs take two words each (low, high). */
const WIDE = 0x80000000;
const COUNT_MASK = 0x7fffffff;
const NPI_WORDS_MAX = Number.MAX_SAFE_INTEGER;

/**
 * Buffers of closed writers and readers, for the next: a table of contents stages thousands of
 * small files, and a fresh megabyte each is external memory V8 answers with collections (as the
 * numeric Parquet writers found, numeric-parquet.ts).
 */
const spare: Uint32Array[] = [];
const SPARE_MAX = 4;
const takeWords = (n: number): Uint32Array => {
  const i = spare.findIndex((a) => a.length === n);
  return i >= 0 ? spare.splice(i, 1)[0]! : new Uint32Array(n);
};
const giveWords = (a: Uint32Array): void => {
  if (spare.length < SPARE_MAX && (a.length === WORDS || a.length === READ_WORDS)) spare.push(a);
};

// add()'s loops are functions of their own: a 50,000-NPI list made V8 compile add() for on-stack
// replacement inside its first loop, before the code after it had run, and that code then left
// for the interpreter at the first comparison after the loop ("Insufficient type feedback") on
// every long list, ~160 times a 1 GiB file (measured 2026-11-23, `--trace-deopt`).

/** The largest of a group's NPIs; throws for one that is not a positive integer below 2^53. */
function largestNpi(gid: number, npis: ArrayLike<number>): number {
  let max = 0;
  for (let k = 0; k < npis.length; k++) {
    const v = npis[k]!;
    if (!(v > 0 && v <= NPI_WORDS_MAX && Number.isInteger(v))) throw new Error(`NPI ${v} of group ${gid} cannot be staged: not a positive integer below 2^53`);
    if (v > max) max = v;
  }
  return max;
}

/** Copies NPIs below 2^32 into `b` from word `i`, one word each; returns the next word. */
function copyNarrow(b: Uint32Array, i: number, npis: ArrayLike<number>): number {
  for (let k = 0; k < npis.length; k++) b[i++] = npis[k]!;
  return i;
}

/** Copies NPIs as two words each (low, high); returns the next word. */
function copyWide(b: Uint32Array, i: number, npis: ArrayLike<number>): number {
  for (let k = 0; k < npis.length; k++) { const v = npis[k]!; b[i++] = v >>> 0; b[i++] = Math.floor(v / 0x100000000); }
  return i;
}

export class NpiStageWriter {
  private buf = takeWords(WORDS);
  private n = 0;
  private fd: number | null;
  /** NPIs written (the rows group_members may get from this file). */
  npis = 0;

  readonly path: string;

  constructor(path: string) {
    this.path = path;
    if (endianness() !== 'LE') throw new Error('NPI staging needs a little-endian machine (typed arrays are written as they are)');
    this.fd = openSync(path, 'w');
  }

  /** Stages group `gid`'s NPIs (ascending, distinct, each a positive integer of at most 10 digits). */
  add(gid: number, npis: ArrayLike<number>): void {
    const len = npis.length;
    if (len === 0) return;
    const wide = largestNpi(gid, npis) > 0xffffffff;
    const words = wide ? 2 * len : len;
    if (len > COUNT_MASK) throw new Error(`group ${gid}: ${len} NPIs, more than a staged record holds`);
    if (this.buf.length - this.n - 2 - words < 0) this.room(2 + words);
    const b = this.buf;
    let i = this.n;
    b[i++] = gid >>> 0;
    b[i++] = wide ? (len | WIDE) >>> 0 : len;
    this.n = wide ? copyWide(b, i, npis) : copyNarrow(b, i, npis);
    this.npis += len;
  }

  /**
   * Flushes, and makes the buffer `need` words long if it is shorter (one huge group: its own
   * buffer, this once). A function of its own, called rarely: inside add() the comparison here had
   * no type feedback when add() was compiled, and V8 deoptimised add() on it again and again
   * ("Insufficient type feedback for compare operation", up to ~420 times a 1 GiB file).
   */
  private room(need: number): void {
    this.flush();
    if (need > this.buf.length) this.buf = new Uint32Array(need);
  }

  private flush(): void {
    if (this.n === 0) return;
    if (this.fd === null) throw new Error(`${this.path}: already closed`);
    const bytes = Buffer.from(this.buf.buffer, this.buf.byteOffset, this.n * 4);
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done);
    this.n = 0;
    if (this.buf.length > WORDS) this.buf = takeWords(WORDS);
  }

  private done = false;

  close(): void {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    if (!this.done) giveWords(this.buf);
    this.done = true;
  }

  /** A failed file: closes and removes what was written. A file already closed (complete) is left alone. */
  abort(): void {
    if (this.done) return;
    this.done = true;
    giveWords(this.buf);
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.path, { force: true });
  }
}

/**
 * One staged record: its NPIs are words[from..to), one word each, or two (low, high) when `wide`;
 * valid until the reader moves on.
 */
export interface NpiRecord { gid: number; words: Uint32Array; from: number; to: number; wide: boolean }


/** Reads the records of one staged NPI file in order. */
export class NpiStageReader {
  private words = takeWords(READ_WORDS);
  private start = 0;
  private end = 0;
  private readonly fd: number;
  private readonly size: number;
  private pos = 0;
  private readonly rec: NpiRecord = { gid: 0, words: this.words, from: 0, to: 0, wide: false };

  readonly path: string;

  constructor(path: string) {
    this.path = path;
    this.fd = openSync(path, 'r');
    this.size = fstatSync(this.fd).size;
    if (this.size % 4 !== 0) {
      closeSync(this.fd);
      throw new Error(`${path}: ${this.size} bytes is not whole 32-bit words (a damaged staged file)`);
    }
  }

  /** Makes at least `need` words available from `start`. False at the end of the file. */
  private fill(need: number): boolean {
    if (this.end - this.start >= need) return true;
    if (need > this.words.length) {
      const next = new Uint32Array(need);
      next.set(this.words.subarray(this.start, this.end));
      this.words = next;
    } else {
      this.words.copyWithin(0, this.start, this.end);
    }
    this.end -= this.start;
    this.start = 0;
    while (this.end < need && this.pos < this.size) {
      const bytes = Buffer.from(this.words.buffer, this.words.byteOffset + this.end * 4, (this.words.length - this.end) * 4);
      const got = readSync(this.fd, bytes, 0, Math.min(bytes.length, this.size - this.pos), this.pos);
      if (got === 0) break;
      this.pos += got;
      this.end += got / 4;
    }
    return this.end - this.start >= need;
  }

  /** The next record, or null at the end. */
  next(): NpiRecord | null {
    if (!this.fill(2)) {
      if (this.end > this.start) throw new Error(`${this.path}: ends inside a record (a damaged staged file)`);
      return null;
    }
    const gid = this.words[this.start]! | 0;
    const count = this.words[this.start + 1]!;
    const wide = count > COUNT_MASK;
    const n = wide ? 2 * (count & COUNT_MASK) : count;
    if (!this.fill(2 + n)) throw new Error(`${this.path}: ends inside the record of group ${gid} (a damaged staged file)`);
    const r = this.rec;
    r.gid = gid;
    r.wide = wide;
    r.words = this.words;
    r.from = this.start + 2;
    r.to = this.start + 2 + n;
    this.start = r.to;
    return r;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    giveWords(this.words);
  }

  private closed = false;
}
