/**
 * Returns the parser's garbage to the OS before DuckDB's heavy phase of a file. A file's parse
 * leaves 150-300 MB of dead JS objects that V8 collects lazily (nothing allocates while DuckDB
 * works), and RSS is JS heap plus DuckDB's memory: measured 2026-11-22 on a 1 GiB file, the heap
 * held 314 MB at finish() and the process peaked at 1.17 GB. A full collection there keeps the
 * peak under 1 GB (issue 3, item 9). `--expose-gc` is set at run time so that the CLI, the tests
 * and the benchmark need no Node flag.
 */
import { setFlagsFromString } from 'node:v8';
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
