/**
 * Returns the parser's garbage to the OS before DuckDB's heavy phase of a file. A file's parse
 * leaves 150-300 MB of dead JS objects that V8 collects lazily (nothing allocates while DuckDB
 * works), and RSS is JS heap plus DuckDB's memory: measured 2026-11-22 on a 1 GiB file, the heap
 * held 314 MB at finish() and the process peaked at 1.17 GB. A full collection there keeps the
 * peak under 1 GB (issue 3, item 9). `--expose-gc` is set at run time so that the CLI, the tests
 * and the benchmark need no Node flag.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null | undefined;

/** Runs a full, synchronous garbage collection (a no-op where V8 refuses the flag). */
export function collectGarbage(): void {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    }
  }
  collect?.();
}

/**
 * JS heap in use above which a parse thread runs a full collection (collectIfLarge), or twice what
 * was alive after its last one, whichever is more (a live heap that large is not garbage: collecting
 * at the bound again would free nothing). The parse used to collect every 128 MiB parsed whatever
 * the heap held; with the growth below, its heap stays small on its own (1 GiB benchmark file,
 * 2026-11-23, `--trace-gc` without forced collections: the parse thread at most 80 MB in use, the
 * parse helper 49 MB), and those 13 collections cost ~0.5 s of pauses, more on V8's threads. With
 * this bound: 2 collections for the 1 GiB file; for the 2 GiB one (10 M prices) peak RSS 755-836
 * MiB over three runs against 785-799 collecting every 128 MiB (128 MB here: 779-836), the file
 * phase 9.3-10.5 s against 10.8-10.9.
 */
export const GC_HEAP_BYTES = 64 * 1024 * 1024;

/** This thread's live heap after its last collectIfLarge. */
let heapAfterGc = 0;

/** A full collection if this thread's JS heap holds more than `limit` bytes (see GC_HEAP_BYTES); whether one ran. */
export function collectIfLarge(limit = GC_HEAP_BYTES): boolean {
  if (getHeapStatistics().used_heap_size <= Math.max(limit, heapAfterGc * 2)) return false;
  collectGarbage();
  heapAfterGc = getHeapStatistics().used_heap_size;
  return true;
}

/**
 * V8's old-generation growth for an ingest: each limit 3x the live heap (`--heap-growing-percent=200`)
 * instead of V8's dynamic factor. The parse thread's live heap is small (20-40 MB) and its limit
 * was about twice that, and V8 started incremental marking from a task (`--trace-incremental-marking`:
 * "Start (task)" at 24 of 48 MB) again and again, every ~80 ms: 65-76
 * full collections (0.7-0.9 s of pauses, and more on V8's helper threads) on the parse thread for
 * the 1 GiB benchmark file, 19-23 with this, most of them the forced ones above. Measured
 * 2026-11-22, alternating runs against the default: 1 GiB file 13.9-14.3 s and 26.1-26.8
 * CPU-seconds against 15.3-16.0 s and 28.9-30.3, peak RSS 686-720 MiB against 719-770; 10 M prices
 * 24.8-25.0 s against 26.8-27.4, RSS 826-840 MiB against 847-863 (the forced collections still
 * bound the heap). V8's flags are process-wide (the parse helper's worker gets it too), so it holds
 * while any ingest runs and V8's default comes back after the last one: a server that builds its demo
 * snapshot in-process (ingest/demo/ensure.ts) keeps the default for its requests.
 */
export function tuneHeapForIngest(): () => void {
  if (ingests++ === 0) setGrowth(200);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--ingests === 0) setGrowth(0);
  };
}
let ingests = 0;

/** V8's heap growing percent; 0 is its default (a dynamic factor). */
function setGrowth(percent: number): void {
  try {
    setFlagsFromString(`--heap-growing-percent=${percent}`);
  } catch {
    // a V8 without the flag: its default growth
  }
}
