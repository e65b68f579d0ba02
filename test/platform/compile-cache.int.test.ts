/**
 * cli/compile-cache.ts: the CLI's process keeps V8's code for its modules in the cache directory,
 * and its worker threads (the parse helper, the finalize writers) use the same directory; turned
 * off, nothing is written.
 */
import { afterAll, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tmp = mkdtempSync(join(tmpdir(), 'compile-cache-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ROOT = join(import.meta.dirname, '../..');
/** Enables the cache, loads a module, and reports the directory the main thread and a worker use. */
const SCRIPT = `
import module from 'node:module';
import { Worker } from 'node:worker_threads';
const { enableCompileCache } = await import('./cli/compile-cache.ts');
enableCompileCache();
await import('./ingest/tic/fast-rate.ts');
const w = new Worker("import module from 'node:module'; import { parentPort } from 'node:worker_threads'; parentPort.postMessage(module.getCompileCacheDir() ?? null);", { eval: true });
const inWorker = await new Promise((resolve) => w.once('message', resolve));
await w.terminate();
console.log(JSON.stringify({ main: module.getCompileCacheDir() ?? null, worker: inWorker, env: process.env.NODE_COMPILE_CACHE ?? null }));
`;

function run(env: Record<string, string>): { main: string | null; worker: string | null; env: string | null } {
  const clean = { ...process.env };
  delete clean.NODE_COMPILE_CACHE;
  delete clean.NODE_DISABLE_COMPILE_CACHE;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: ROOT, env: { ...clean, ...env }, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { main: string | null; worker: string | null; env: string | null };
}

const files = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);

test('the main thread and its workers share one cache directory, which fills', () => {
  const dir = join(tmp, 'on');
  const r = run({ NODE_COMPILE_CACHE: dir });
  expect(r.env).toBe(dir);
  expect(r.main?.startsWith(dir)).toBe(true);
  expect(r.worker).toBe(r.main);
  expect(files(dir).length).toBeGreaterThan(0);
});

test('by default in the project\'s node_modules/.cache, not the shared temporary directory', () => {
  const r = run({});
  expect(r.env).toBe(join(ROOT, 'node_modules', '.cache', 'node-compile-cache'));
  expect(r.worker).toBe(r.main);
});

test('NODE_DISABLE_COMPILE_CACHE turns it off', () => {
  const r = run({ NODE_DISABLE_COMPILE_CACHE: '1' });
  expect(r).toEqual({ main: null, worker: null, env: null });
});
