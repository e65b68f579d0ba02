/**
 * Node's module compile cache (`module.enableCompileCache`): V8's code for each module, kept on disk
 * between runs, so that a run does not strip the types of and compile ~150 modules again on every
 * thread. Loading the ingest's modules took 300-350 ms of the main thread without it and 160-200 ms
 * with it (measured 2026-11-24); the parse helper and the finalize writers load theirs again.
 *
 * The cache sits in the project's own node_modules/.cache (as other tools keep theirs), not in
 * the shared temporary directory, where another user could plant code for this one to run. Node
 * checks each entry against its module's source, so an edit is never run stale. Worker threads do
 * not inherit a cache enabled by a call, only by the environment: NODE_COMPILE_CACHE is set for
 * them (and for a supervised child process). Where the directory cannot be written, Node runs
 * without the cache; NODE_DISABLE_COMPILE_CACHE=1 (Node's own switch) turns it off.
 */
import module from 'node:module';
import { join } from 'node:path';

export function enableCompileCache(): void {
  const dir = process.env.NODE_COMPILE_CACHE || join(import.meta.dirname, '..', 'node_modules', '.cache', 'node-compile-cache');
  const r = module.enableCompileCache?.(dir);
  // Already enabled: by NODE_COMPILE_CACHE at start (then set) or by an earlier call (which set it).
  if (r?.status === module.constants.compileCacheStatus.ENABLED) process.env.NODE_COMPILE_CACHE = dir;
}
