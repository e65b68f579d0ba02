/**
 * An external sort of fixed-width records (W 32-bit words each, compared word by word, unsigned,
 * first word most significant) with memory bounded by a cap on the records sorted at once: the
 * rates' rows (rates-write.ts) are spilled one file per partition as they come out of DuckDB's
 * join, then each file is read back, sorted in memory and written in order.
 *
 * - RecordSpill appends records to one file per partition through a buffer each.
 * - sortRecords orders an index over records in memory: LSD radix, 11-bit digits, only over the
 *   bits that vary in each word (a word the same in every record costs one pass over them).
 * - sortedRuns hands a spill file's records over in order, a sorted run of at most `cap` at a time:
 *   a larger file is split 16 ways by the range of its first word that varies, recursively.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Spill files kept open at once at most; beyond, each write opens and closes its file. */
const KEEP_OPEN = 256;

/** Appends W-word records to one spill file per partition, through a buffer each. */
export class RecordSpill {
  readonly counts: number[];
  /** The buffer `reserve` returned a place in: write the record's W words there. */
  buf: Uint32Array = new Uint32Array(0);
  private readonly bufs: (Uint32Array | null)[];
  private readonly fill: Int32Array;
  private readonly fds: (number | null)[];
  private readonly words: number;

  readonly dir: string;
  readonly parts: number;
  readonly W: number;

  /** `bufferBytes` in all, each partition's at least 8 KiB (allocated at its first record). */
  constructor(dir: string, parts: number, W: number, bufferBytes: number) {
    this.dir = dir;
    this.parts = parts;
    this.W = W;
    this.counts = new Array<number>(parts).fill(0);
    this.bufs = new Array<Uint32Array | null>(parts).fill(null);
    this.fill = new Int32Array(parts);
    this.fds = new Array<number | null>(parts).fill(null);
    this.words = Math.max(2048, Math.floor(bufferBytes / 4 / parts / W)) * W;
  }

  path(p: number): string {
    return join(this.dir, `p${p}.bin`);
  }

  /** A place for one record of partition `p`: its words go to `this.buf` from the offset returned. */
  reserve(p: number): number {
    let b = this.bufs[p];
    if (!b) b = this.bufs[p] = new Uint32Array(this.words);
    let f = this.fill[p]!;
    if (f === b.length) { this.flush(p, b, f); f = 0; }
    this.fill[p] = f + this.W;
    this.counts[p]!++;
    this.buf = b;
    return f;
  }

  private flush(p: number, b: Uint32Array, f: number): void {
    if (f === 0) return;
    const bytes = Buffer.from(b.buffer, b.byteOffset, f * 4);
    if (this.parts <= KEEP_OPEN) {
      writeAll(this.fds[p] ??= openSync(this.path(p), 'w'), bytes);
      return;
    }
    // Thousands of partitions: no descriptor stays open (the process limit is often 1,024).
    const fd = openSync(this.path(p), 'a');
    try {
      writeAll(fd, bytes);
    } finally {
      closeSync(fd);
    }
  }

  /** Writes what is buffered and closes every file (the buffers are let go). */
  close(): void {
    for (let p = 0; p < this.parts; p++) {
      const b = this.bufs[p];
      if (b) this.flush(p, b, this.fill[p]!);
      this.bufs[p] = null;
      this.fill[p] = 0;
      const fd = this.fds[p];
      if (fd !== null && fd !== undefined) closeSync(fd);
      this.fds[p] = null;
    }
    this.buf = new Uint32Array(0);
  }
}

function writeAll(fd: number, b: Buffer): void {
  let done = 0;
  while (done < b.length) done += writeSync(fd, b, done, b.length - done);
}

/** Reads `bytes` bytes at `pos` of `fd` into `into` (whole: a short file is an error). */
function readAll(fd: number, into: Uint8Array, bytes: number, pos: number, path: string): void {
  for (let done = 0; done < bytes;) {
    const got = readSync(fd, into, done, bytes - done, pos + done);
    if (got === 0) throw new Error(`${path}: ends after ${pos + done} bytes, ${pos + bytes} expected`);
    done += got;
  }
}

const BITS = 11;
const RADIX = 1 << BITS;
const hist = new Uint32Array(RADIX);

/** Arrays kept between sorts (grown to the largest): the records, the index and the keys, twice. */
const scratch = { words: new Uint32Array(0), idx: new Uint32Array(0), idx2: new Uint32Array(0), key: new Uint32Array(0), key2: new Uint32Array(0) };

function scratchOf(name: keyof typeof scratch, n: number): Uint32Array {
  if (scratch[name].length < n) scratch[name] = new Uint32Array(n);
  return scratch[name].subarray(0, n);
}

/** Lets the scratch arrays go (after the last sort of a run). */
export function releaseSortScratch(): void {
  for (const k of Object.keys(scratch) as (keyof typeof scratch)[]) scratch[k] = new Uint32Array(0);
}

/**
 * The order of the `n` records of `words` (W words each): an index, ascending by word 0, then 1,
 * ..., stable. LSD radix over 11-bit digits, least significant first; per word only the bits that
 * differ between records are sorted on. The index returned is scratch, valid until the next sort.
 */
export function sortRecords(words: Uint32Array, n: number, W: number): Uint32Array {
  let idx = scratchOf('idx', n), idx2 = scratchOf('idx2', n), key = scratchOf('key', n), key2 = scratchOf('key2', n);
  let first = true;
  for (let w = W - 1; w >= 0; w--) {
    const d = diffOf(words, n, W, w);
    if (d === 0) continue;
    if (first) { firstKeys(words, W, w, idx, key, n); first = false; } else gather(words, W, w, idx, key, n);
    const lo = 31 - Math.clz32(d & -d), hi = 32 - Math.clz32(d);
    for (let sh = lo; sh < hi; sh += BITS) {
      radixPass(key, idx, key2, idx2, n, sh);
      [key, key2] = [key2, key];
      [idx, idx2] = [idx2, idx];
    }
  }
  if (first) for (let i = 0; i < n; i++) idx[i] = i;
  return idx;
}

// Each loop a function of its own (V8 optimizes them apart; see group-tables.ts sortPairs).
//
// The loops that move the records (firstKeys, gather, histogram, scatter) each start with a branch
// that never runs (`n` is never negative) and whose only effect is their size: above V8's inlining
// limit (460 bytes of bytecode), they are never inlined. V8's mid tier (Maglev) inlined them into
// sortRecords and radixPass, which are called a few hundred times a finalize and so stayed in that
// tier, running the loops in its slower code; apart, each loop reaches TurboFan on its own. The
// rates' 200 spill files of the 1 GiB benchmark file sorted 3 times in one process (2026-11-24):
// 1.0-1.4 CPU-seconds against 1.7-2.2 (two of the four guarded: 1.15-1.17; only radixPass and
// gather: no gain; a `try`/`finally` instead: 1.5-1.6; `arguments` in them: no gain).
const NOT_INLINED = new Int32Array(1);
/** The bits in which word `w` of some record differs from the first record's. */
export function diffOf(words: Uint32Array, n: number, W: number, w: number): number {
  return orOfXors(words, w + W, n * W, W, words[w]!) >>> 0;
}

// The loop apart from the `>>> 0` after it: compiled for on-stack replacement in the loop, diffOf
// left that code at the `>>> 0` (no feedback yet) on every later call, 113-180 times finalizing
// the 1 GiB benchmark file (--trace-deopt, 2026-11-24).
function orOfXors(words: Uint32Array, from: number, end: number, W: number, f: number): number {
  let d = 0;
  for (let i = from; i < end; i += W) d |= words[i]! ^ f;
  return d;
}

function firstKeys(words: Uint32Array, W: number, w: number, idx: Uint32Array, key: Uint32Array, n: number): void {
  if (n < 0) {
    let x = n; // never runs: makes this function too large to inline (above)
    x = (x * 3 + 0) | 0; x = (x * 4 + 1) | 0; x = (x * 5 + 2) | 0; x = (x * 6 + 3) | 0; x = (x * 7 + 4) | 0; x = (x * 8 + 5) | 0; x = (x * 9 + 6) | 0; x = (x * 10 + 7) | 0;
    x = (x * 11 + 8) | 0; x = (x * 12 + 9) | 0; x = (x * 13 + 10) | 0; x = (x * 14 + 11) | 0; x = (x * 15 + 12) | 0; x = (x * 16 + 13) | 0; x = (x * 17 + 14) | 0; x = (x * 18 + 15) | 0;
    x = (x * 19 + 16) | 0; x = (x * 20 + 17) | 0; x = (x * 21 + 18) | 0; x = (x * 22 + 19) | 0; x = (x * 23 + 20) | 0; x = (x * 24 + 21) | 0; x = (x * 25 + 22) | 0; x = (x * 26 + 23) | 0;
    x = (x * 27 + 24) | 0; x = (x * 28 + 25) | 0; x = (x * 29 + 26) | 0; x = (x * 30 + 27) | 0; x = (x * 31 + 28) | 0; x = (x * 32 + 29) | 0; x = (x * 33 + 30) | 0; x = (x * 34 + 31) | 0;
    x = (x * 35 + 32) | 0; x = (x * 36 + 33) | 0; x = (x * 37 + 34) | 0; x = (x * 38 + 35) | 0; x = (x * 39 + 36) | 0; x = (x * 40 + 37) | 0; x = (x * 41 + 38) | 0; x = (x * 42 + 39) | 0;
    x = (x * 43 + 40) | 0; x = (x * 44 + 41) | 0; x = (x * 45 + 42) | 0; x = (x * 46 + 43) | 0; x = (x * 47 + 44) | 0; x = (x * 48 + 45) | 0; x = (x * 49 + 46) | 0; x = (x * 50 + 47) | 0;
    x = (x * 51 + 48) | 0; x = (x * 52 + 49) | 0; x = (x * 53 + 50) | 0; x = (x * 54 + 51) | 0; x = (x * 55 + 52) | 0; x = (x * 56 + 53) | 0; x = (x * 57 + 54) | 0; x = (x * 58 + 55) | 0;
    x = (x * 59 + 56) | 0; x = (x * 60 + 57) | 0; x = (x * 61 + 58) | 0; x = (x * 62 + 59) | 0; x = (x * 63 + 60) | 0; x = (x * 64 + 61) | 0; x = (x * 65 + 62) | 0; x = (x * 66 + 63) | 0;
    NOT_INLINED[0] = x;
  }
  for (let i = 0, j = w; i < n; i++, j += W) { idx[i] = i; key[i] = words[j]!; }
}

function gather(words: Uint32Array, W: number, w: number, idx: Uint32Array, key: Uint32Array, n: number): void {
  if (n < 0) {
    let x = n; // never runs: makes this function too large to inline (above)
    x = (x * 3 + 0) | 0; x = (x * 4 + 1) | 0; x = (x * 5 + 2) | 0; x = (x * 6 + 3) | 0; x = (x * 7 + 4) | 0; x = (x * 8 + 5) | 0; x = (x * 9 + 6) | 0; x = (x * 10 + 7) | 0;
    x = (x * 11 + 8) | 0; x = (x * 12 + 9) | 0; x = (x * 13 + 10) | 0; x = (x * 14 + 11) | 0; x = (x * 15 + 12) | 0; x = (x * 16 + 13) | 0; x = (x * 17 + 14) | 0; x = (x * 18 + 15) | 0;
    x = (x * 19 + 16) | 0; x = (x * 20 + 17) | 0; x = (x * 21 + 18) | 0; x = (x * 22 + 19) | 0; x = (x * 23 + 20) | 0; x = (x * 24 + 21) | 0; x = (x * 25 + 22) | 0; x = (x * 26 + 23) | 0;
    x = (x * 27 + 24) | 0; x = (x * 28 + 25) | 0; x = (x * 29 + 26) | 0; x = (x * 30 + 27) | 0; x = (x * 31 + 28) | 0; x = (x * 32 + 29) | 0; x = (x * 33 + 30) | 0; x = (x * 34 + 31) | 0;
    x = (x * 35 + 32) | 0; x = (x * 36 + 33) | 0; x = (x * 37 + 34) | 0; x = (x * 38 + 35) | 0; x = (x * 39 + 36) | 0; x = (x * 40 + 37) | 0; x = (x * 41 + 38) | 0; x = (x * 42 + 39) | 0;
    x = (x * 43 + 40) | 0; x = (x * 44 + 41) | 0; x = (x * 45 + 42) | 0; x = (x * 46 + 43) | 0; x = (x * 47 + 44) | 0; x = (x * 48 + 45) | 0; x = (x * 49 + 46) | 0; x = (x * 50 + 47) | 0;
    x = (x * 51 + 48) | 0; x = (x * 52 + 49) | 0; x = (x * 53 + 50) | 0; x = (x * 54 + 51) | 0; x = (x * 55 + 52) | 0; x = (x * 56 + 53) | 0; x = (x * 57 + 54) | 0; x = (x * 58 + 55) | 0;
    x = (x * 59 + 56) | 0; x = (x * 60 + 57) | 0; x = (x * 61 + 58) | 0; x = (x * 62 + 59) | 0; x = (x * 63 + 60) | 0; x = (x * 64 + 61) | 0; x = (x * 65 + 62) | 0; x = (x * 66 + 63) | 0;
    NOT_INLINED[0] = x;
  }
  for (let i = 0; i < n; i++) key[i] = words[idx[i]! * W + w]!;
}

/**
 * One pass over the digit at `sh`. Its three loops are functions of their own: as one function V8
 * compiled it while the first loop ran and left that code at the next loop's first compare
 * ("insufficient type feedback"), 11 times on the 1 GiB benchmark file (--trace-deopt, 2026-11-24).
 */
function radixPass(key: Uint32Array, idx: Uint32Array, key2: Uint32Array, idx2: Uint32Array, n: number, sh: number): void {
  histogram(key, n, sh);
  prefixSums();
  scatter(key, idx, key2, idx2, n, sh);
}

function histogram(key: Uint32Array, n: number, sh: number): void {
  if (n < 0) {
    let x = n; // never runs: makes this function too large to inline (above)
    x = (x * 3 + 0) | 0; x = (x * 4 + 1) | 0; x = (x * 5 + 2) | 0; x = (x * 6 + 3) | 0; x = (x * 7 + 4) | 0; x = (x * 8 + 5) | 0; x = (x * 9 + 6) | 0; x = (x * 10 + 7) | 0;
    x = (x * 11 + 8) | 0; x = (x * 12 + 9) | 0; x = (x * 13 + 10) | 0; x = (x * 14 + 11) | 0; x = (x * 15 + 12) | 0; x = (x * 16 + 13) | 0; x = (x * 17 + 14) | 0; x = (x * 18 + 15) | 0;
    x = (x * 19 + 16) | 0; x = (x * 20 + 17) | 0; x = (x * 21 + 18) | 0; x = (x * 22 + 19) | 0; x = (x * 23 + 20) | 0; x = (x * 24 + 21) | 0; x = (x * 25 + 22) | 0; x = (x * 26 + 23) | 0;
    x = (x * 27 + 24) | 0; x = (x * 28 + 25) | 0; x = (x * 29 + 26) | 0; x = (x * 30 + 27) | 0; x = (x * 31 + 28) | 0; x = (x * 32 + 29) | 0; x = (x * 33 + 30) | 0; x = (x * 34 + 31) | 0;
    x = (x * 35 + 32) | 0; x = (x * 36 + 33) | 0; x = (x * 37 + 34) | 0; x = (x * 38 + 35) | 0; x = (x * 39 + 36) | 0; x = (x * 40 + 37) | 0; x = (x * 41 + 38) | 0; x = (x * 42 + 39) | 0;
    x = (x * 43 + 40) | 0; x = (x * 44 + 41) | 0; x = (x * 45 + 42) | 0; x = (x * 46 + 43) | 0; x = (x * 47 + 44) | 0; x = (x * 48 + 45) | 0; x = (x * 49 + 46) | 0; x = (x * 50 + 47) | 0;
    x = (x * 51 + 48) | 0; x = (x * 52 + 49) | 0; x = (x * 53 + 50) | 0; x = (x * 54 + 51) | 0; x = (x * 55 + 52) | 0; x = (x * 56 + 53) | 0; x = (x * 57 + 54) | 0; x = (x * 58 + 55) | 0;
    x = (x * 59 + 56) | 0; x = (x * 60 + 57) | 0; x = (x * 61 + 58) | 0; x = (x * 62 + 59) | 0; x = (x * 63 + 60) | 0; x = (x * 64 + 61) | 0; x = (x * 65 + 62) | 0; x = (x * 66 + 63) | 0;
    NOT_INLINED[0] = x;
  }
  hist.fill(0);
  for (let i = 0; i < n; i++) hist[(key[i]! >>> sh) & (RADIX - 1)]!++;
}

function prefixSums(): void {
  for (let k = 0, sum = 0; k < RADIX; k++) { const c = hist[k]!; hist[k] = sum; sum += c; }
}

function scatter(key: Uint32Array, idx: Uint32Array, key2: Uint32Array, idx2: Uint32Array, n: number, sh: number): void {
  if (n < 0) {
    let x = n; // never runs: makes this function too large to inline (above)
    x = (x * 3 + 0) | 0; x = (x * 4 + 1) | 0; x = (x * 5 + 2) | 0; x = (x * 6 + 3) | 0; x = (x * 7 + 4) | 0; x = (x * 8 + 5) | 0; x = (x * 9 + 6) | 0; x = (x * 10 + 7) | 0;
    x = (x * 11 + 8) | 0; x = (x * 12 + 9) | 0; x = (x * 13 + 10) | 0; x = (x * 14 + 11) | 0; x = (x * 15 + 12) | 0; x = (x * 16 + 13) | 0; x = (x * 17 + 14) | 0; x = (x * 18 + 15) | 0;
    x = (x * 19 + 16) | 0; x = (x * 20 + 17) | 0; x = (x * 21 + 18) | 0; x = (x * 22 + 19) | 0; x = (x * 23 + 20) | 0; x = (x * 24 + 21) | 0; x = (x * 25 + 22) | 0; x = (x * 26 + 23) | 0;
    x = (x * 27 + 24) | 0; x = (x * 28 + 25) | 0; x = (x * 29 + 26) | 0; x = (x * 30 + 27) | 0; x = (x * 31 + 28) | 0; x = (x * 32 + 29) | 0; x = (x * 33 + 30) | 0; x = (x * 34 + 31) | 0;
    x = (x * 35 + 32) | 0; x = (x * 36 + 33) | 0; x = (x * 37 + 34) | 0; x = (x * 38 + 35) | 0; x = (x * 39 + 36) | 0; x = (x * 40 + 37) | 0; x = (x * 41 + 38) | 0; x = (x * 42 + 39) | 0;
    x = (x * 43 + 40) | 0; x = (x * 44 + 41) | 0; x = (x * 45 + 42) | 0; x = (x * 46 + 43) | 0; x = (x * 47 + 44) | 0; x = (x * 48 + 45) | 0; x = (x * 49 + 46) | 0; x = (x * 50 + 47) | 0;
    x = (x * 51 + 48) | 0; x = (x * 52 + 49) | 0; x = (x * 53 + 50) | 0; x = (x * 54 + 51) | 0; x = (x * 55 + 52) | 0; x = (x * 56 + 53) | 0; x = (x * 57 + 54) | 0; x = (x * 58 + 55) | 0;
    x = (x * 59 + 56) | 0; x = (x * 60 + 57) | 0; x = (x * 61 + 58) | 0; x = (x * 62 + 59) | 0; x = (x * 63 + 60) | 0; x = (x * 64 + 61) | 0; x = (x * 65 + 62) | 0; x = (x * 66 + 63) | 0;
    NOT_INLINED[0] = x;
  }
  for (let i = 0; i < n; i++) {
    const k = key[i]!;
    const at = hist[(k >>> sh) & (RADIX - 1)]!++;
    key2[at] = k;
    idx2[at] = idx[i]!;
  }
}

/** A sorted run: `n` records of `words` in the order of `idx` (both scratch, valid during the call). */
export type SortedRun = (words: Uint32Array, idx: Uint32Array, n: number) => Promise<void> | void;

/**
 * The `records` W-word records of the spill file `path`, in order, handed to `each` a sorted run at
 * a time, at most `cap` records sorted at once. A larger file is split 16 ways by the range of its
 * first word that varies (so the parts follow each other in order), in a directory beside it,
 * removed after; records all equal are handed over `cap` at a time, unsorted (they are in order).
 */
export async function sortedRuns(path: string, records: number, W: number, cap: number, each: SortedRun): Promise<void> {
  if (records === 0) return;
  if (records <= cap) {
    const words = scratchOf('words', records * W);
    const fd = openSync(path, 'r');
    try {
      readAll(fd, new Uint8Array(words.buffer, words.byteOffset, words.byteLength), words.byteLength, 0, path);
    } finally {
      closeSync(fd);
    }
    await each(words, sortRecords(words, records, W), records);
    return;
  }
  // Pieces of at most `cap` records read in turn: first the words' ranges, then the split.
  const pieces = async (fn: (words: Uint32Array, n: number) => Promise<void> | void): Promise<void> => {
    const fd = openSync(path, 'r');
    try {
      const per = Math.max(1, Math.min(cap, records));
      const buf = scratchOf('words', per * W);
      const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      for (let at = 0; at < records; at += per) {
        const n = Math.min(per, records - at);
        readAll(fd, bytes, n * W * 4, at * W * 4, path);
        await fn(buf, n);
      }
    } finally {
      closeSync(fd);
    }
  };
  const lo = new Array<number>(W).fill(0xffffffff), hi = new Array<number>(W).fill(0);
  await pieces((words, n) => {
    for (let w = 0; w < W; w++) {
      const [a, b] = rangeOf(words, n, W, w);
      if (a < lo[w]!) lo[w] = a;
      if (b > hi[w]!) hi[w] = b;
    }
  });
  const c = lo.findIndex((l, w) => l !== hi[w]);
  if (c < 0) {
    // Every record the same: in order as they are.
    const identity = scratchOf('idx', Math.min(cap, records));
    for (let i = 0; i < identity.length; i++) identity[i] = i;
    await pieces((words, n) => each(words, identity, n));
    return;
  }
  const l = lo[c]!, span = hi[c]! - l + 1;
  const sub = new RecordSpill(mkdtempSync(join(dirname(path), 'split-')), 16, W, 1 << 20);
  try {
    await pieces((words, n) => split(sub, words, n, W, c, l, span));
    sub.close();
    for (let p = 0; p < 16; p++) {
      await sortedRuns(sub.path(p), sub.counts[p]!, W, cap, each);
      rmSync(sub.path(p), { force: true });
    }
  } finally {
    sub.close();
    rmSync(sub.dir, { recursive: true, force: true });
  }
}

function rangeOf(words: Uint32Array, n: number, W: number, w: number): [number, number] {
  let a = 0xffffffff, b = 0;
  for (let i = w, end = n * W; i < end; i += W) { const v = words[i]!; if (v < a) a = v; if (v > b) b = v; }
  return [a, b];
}

function split(sub: RecordSpill, words: Uint32Array, n: number, W: number, c: number, l: number, span: number): void {
  for (let i = 0, o = 0; i < n; i++, o += W) {
    const at = sub.reserve(Math.min(15, Math.floor(((words[o + c]! - l) * 16) / span)));
    const b = sub.buf;
    for (let w = 0; w < W; w++) b[at + w] = words[o + w]!;
  }
}
