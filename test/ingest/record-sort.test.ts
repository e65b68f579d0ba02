/**
 * record-sort.ts: the in-memory radix sort against a plain comparison sort, and the external sort
 * (spill files, runs of at most `cap` records, splits by range) handing every record over once,
 * in order, whatever the cap; its split directories removed.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordSpill, diffOf, sortRecords, sortedRuns } from '../../ingest/snapshot/record-sort.ts';
import { mulberry32 } from '../../ingest/demo/prng.ts';

const root = mkdtempSync(join(tmpdir(), 'recordsort-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Records of W words: each word drawn from its own generator (a constant, a few values, anything). */
function records(n: number, W: number, seed: number, shapes: ((rnd: () => number) => number)[]): Uint32Array {
  const rnd = mulberry32(seed);
  const words = new Uint32Array(n * W);
  for (let i = 0; i < n; i++) for (let w = 0; w < W; w++) words[i * W + w] = shapes[w % shapes.length]!(rnd) >>> 0;
  return words;
}

const compare = (words: Uint32Array, W: number) => (a: number, b: number): number => {
  for (let w = 0; w < W; w++) {
    const d = words[a * W + w]! - words[b * W + w]!;
    if (d !== 0) return d;
  }
  return a - b; // stable
};

const SHAPES: ((rnd: () => number) => number)[] = [
  (rnd) => Math.floor(rnd() * 4), // few values
  (rnd) => Math.floor(rnd() * 2 ** 32), // anything, high bit included
  () => 7, // constant
  (rnd) => Math.floor(rnd() * 3) * 2 ** 20, // low bits never vary
  (rnd) => 0xffffffff - Math.floor(rnd() * 5000),
];

describe('sortRecords', () => {
  test.each([[0, 3], [1, 3], [2, 1], [1000, 1], [5000, 3], [20_000, 6], [3000, 7]])('%i records of %i words: the order of a stable comparison sort', (n, W) => {
    const words = records(n, W, n + W, SHAPES);
    const want = Array.from({ length: n }, (_, i) => i).sort(compare(words, W));
    expect(Array.from(sortRecords(words, n, W))).toEqual(want);
  });

  test('diffOf: the bits in which a word differs from the first record\'s', () => {
    const words = Uint32Array.from([5, 0xffffffff, 4, 0xffffffff, 7, 0x7fffffff]);
    expect([diffOf(words, 3, 2, 0), diffOf(words, 3, 2, 1), diffOf(words, 1, 2, 0)]).toEqual([3, 0x80000000, 0]);
  });
});

describe('sortedRuns', () => {
  /** Writes the records to one spill file (through RecordSpill), returns its path. */
  function spillOf(name: string, words: Uint32Array, W: number): string {
    const dir = join(root, name);
    const spill = new RecordSpill(dir, 3, W, 1 << 12);
    mkdirSync(dir);
    for (let i = 0; i < words.length / W; i++) {
      const at = spill.reserve(1);
      for (let w = 0; w < W; w++) spill.buf[at + w] = words[i * W + w]!;
    }
    spill.close();
    expect(spill.counts).toEqual([0, words.length / W, 0]);
    return spill.path(1);
  }

  test.each([1, 2, 7, 100, 4000, 1_000_000])('every record once, in order, at most %i sorted at once', async (cap) => {
    const W = 4, n = 3000;
    // Skewed: most records share word 0, many repeat outright.
    const words = records(n, W, 11, [(rnd) => (rnd() < 0.8 ? 9 : Math.floor(rnd() * 2 ** 32)), (rnd) => Math.floor(rnd() * 3), (rnd) => (rnd() < 0.5 ? 0 : Math.floor(rnd() * 40)), (rnd) => Math.floor(rnd() * 2)]);
    const path = spillOf(`runs-${cap}`, words, W);
    const got: number[][] = [];
    let largest = 0;
    await sortedRuns(path, n, W, cap, (w, idx, m) => {
      largest = Math.max(largest, m);
      for (let j = 0; j < m; j++) got.push(Array.from(w.subarray(idx[j]! * W, idx[j]! * W + W)));
    });
    const want = Array.from({ length: n }, (_, i) => i).sort(compare(words, W)).map((i) => Array.from(words.subarray(i * W, i * W + W)));
    expect(got).toEqual(want);
    expect(largest).toBeLessThanOrEqual(cap);
    expect(readdirSync(join(root, `runs-${cap}`))).toEqual(['p1.bin']); // the splits' directories are gone
  });

  test('records all equal, more than the cap: handed over as they are, the cap at a time', async () => {
    const W = 2, n = 10;
    const words = new Uint32Array(n * W).fill(3);
    const path = spillOf('equal', words, W);
    const sizes: number[] = [];
    await sortedRuns(path, n, W, 4, (_w, _idx, m) => { sizes.push(m); });
    expect(sizes).toEqual([4, 4, 2]);
  });

  test('a spill file shorter than its count is an error naming it', async () => {
    const path = spillOf('short', Uint32Array.from([1, 2, 3, 4]), 2);
    await expect(sortedRuns(path, 3, 2, 10, () => undefined)).rejects.toThrow(/p1\.bin: ends after 16 bytes, 24 expected/);
  });
});
