/**
 * The end-to-end half of `npm run bench:ingest`, in a process of its own so its peak RSS (VmHWM,
 * which includes DuckDB's native memory) is the ingest's alone, not the generator's or the
 * parse-only run's: `node test/bench/ingest-run.ts <file.json.gz> <out dir> [fast|reference] [--allow-private-network]`.
 * Prints one JSON line: seconds, CPU-seconds (every thread), VmHWM bytes, the report's totals and
 * table counts. NOHELPER=1 runs it without the parse helper (for A/B runs).
 */
import { readFileSync } from 'node:fs';
import { enableCompileCache } from '../../cli/compile-cache.ts';

// As the CLI does (cli/main.ts): the parse helper and the writers load their modules from it.
enableCompileCache();
const { runIngest } = await import('../../ingest/run-ingest.ts');

const [src, out, parserArg, remoteArg] = process.argv.slice(2);
// The benchmark serves remote provider references from 127.0.0.1 (ingest.bench.ts): like an internal mirror.
const allowPrivateNetwork = remoteArg === '--allow-private-network';
const parser = parserArg === 'reference' ? 'reference' as const : 'fast' as const;
if (!src || !out) {
  console.error('usage: ingest-run.ts <file> <out dir>');
  process.exit(2);
}
const t = performance.now();
const cpu0 = process.cpuUsage();
const report = await runIngest({ toc: [], inNetwork: [src], allowedAmounts: [], out, concurrency: 1, parser, allowPrivateNetwork, ...(process.env.NOHELPER ? { helper: false as const } : {}) });
const seconds = (performance.now() - t) / 1000;
// Every thread's CPU (getrusage of the process): DuckDB's, the workers' and V8's included.
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
console.log(JSON.stringify({
  seconds, cpuSeconds, vmHwmBytes: hwm ? Number(hwm[1]) * 1024 : null,
  fileSeconds: report.files[0]?.seconds ?? null, remoteSeconds: report.files[0]?.remoteReferences?.seconds ?? 0, parseHelperBytes: report.files[0]?.parseHelperBytes ?? 0, reparsed: report.files[0]?.reparsed ?? false, finalizeSeconds: report.totals.finalizeSeconds, finalizeTimings: report.finalizeTimings,
  tables: report.tables, failed: report.totals.failed, errors: report.errors,
  partial: report.totals.partial, unresolvedReferences: report.totals.unresolvedReferences, unresolvedPrices: report.totals.unresolvedPrices,
}));
