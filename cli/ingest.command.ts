/**
 * `carebridge ingest tic|nppes|reference` (issue 3, items 1-3, 6, 7): parses flags, calls the plain
 * functions (runIngest, runTableIngest) and prints. Exit codes: 0 ok, 1 some files failed, 2 usage
 * error (bad flag, missing file), 3 every file read but the snapshot not assembled (staged files
 * kept for --resume), 5 every file read and assembled but remote provider references unresolved
 * (partial; not without --allow-partial), 4 stopped by the stall watchdog (supervise.ts: main.ts runs each of them in
 * a child process; this file is the child's side). Each ingest builds a NEW snapshot; `--base current` carries the
 * tables it does not rebuild over from the published snapshot; `--publish` makes it current.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { join } from 'node:path';
import { loadConfig } from '../engine/core/config.ts';
import { isAppError } from '../engine/core/errors.ts';
import { runIngest, IngestAssemblyError, IngestUsageError } from '../ingest/run-ingest.ts';
import { formatSummary } from '../ingest/report/report.ts';
import { progressFor } from '../ingest/progress/progress.ts';
import { runTableIngest } from '../ingest/snapshot/table-ingest.ts';
import { SnapshotStoreError } from '../ingest/snapshot/store.ts';
import type { TableSource } from '../ingest/table-source.ts';
import type { ProgressSink } from '../ingest/progress/progress.ts';
import { STALL_TIMEOUT_SECONDS, type Heartbeat } from './supervise.ts';
import { nppesTableSources } from '../ingest/nppes/nppes.ts';
import { referenceTableSources } from '../ingest/reference/index.ts';
import { medicareTableSources } from '../ingest/reference/medicare/index.ts';
import { catalogTableSources } from '../ingest/reference/catalog.ts';

const collect = (v: string, prev: string[]): string[] => [...prev, v];

function parseShard(v: string): { i: number; n: number } {
  const m = /^(\d+)\/(\d+)$/.exec(v);
  const s = m ? { i: Number(m[1]), n: Number(m[2]) } : null;
  if (!s || s.n < 1 || s.i >= s.n) throw new InvalidArgumentError('expected i/n with 0 <= i < n, e.g. 0/4');
  return s;
}

/** --stall-timeout's value: whole seconds, 0 (no watchdog) to a week. */
export function parseSeconds(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n < 0 || n > 7 * 86400) throw new InvalidArgumentError('expected whole seconds from 0 (no watchdog) to 604800');
  return n;
}

function parsePositiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('expected an integer from 1 to 64');
  return n;
}

/** DATA_DIR/pricing unless --out is given (config read here, in the CLI layer only). */
function rootFrom(out: string | undefined): string {
  return out ?? join(loadConfig(process.env).dataDir, 'pricing');
}

/** Prints one line for a caller mistake and sets exit code 2; rethrows anything else. */
function usageOr(err: unknown): void {
  if (err instanceof IngestUsageError || err instanceof SnapshotStoreError || isAppError(err)) {
    process.stderr.write(`carebridge ingest: ${err.message}\n`);
    process.exitCode = 2;
    return;
  }
  throw err;
}

interface TicFlags {
  toc: string[]; inNetwork: string[]; allowedAmounts: string[]; out?: string; resume?: boolean; shard?: { i: number; n: number };
  concurrency?: number; quiet?: boolean; publish?: boolean; base?: string; memoryLimit?: string; parser?: 'fast' | 'reference'; json?: boolean;
  stallTimeout?: number; allowPrivateNetwork?: boolean; allowPartial?: boolean;
}

/** How main.ts runs the commands that may run under the stall watchdog (ingest tic | nppes | reference, snapshot merge). */
export interface IngestCliOptions {
  /** Set in a child under the stall watchdog (supervise.ts): fed every progress event. */
  heartbeat?: Heartbeat | null;
}

/** The progress events also counted by the heartbeat. */
function tapped(sink: ProgressSink, hb: Heartbeat | null | undefined): ProgressSink {
  if (!hb) return sink;
  return { event: (e) => { hb.event(e); sink.event(e); }, close: () => sink.close() };
}

async function ingestTic(f: TicFlags, o: IngestCliOptions): Promise<void> {
  const ac = new AbortController();
  const onSig = (): void => ac.abort(new Error('interrupted'));
  // Under the watchdog a terminal's Ctrl-C comes twice (from the terminal and passed on by the
  // parent): the repeat is ignored, the parent kills on a second one. Alone, a second one kills.
  const listen = o.heartbeat ? process.on.bind(process) : process.once.bind(process);
  listen('SIGINT', onSig);
  listen('SIGTERM', onSig);
  try {
    const report = await runIngest({
      toc: f.toc, inNetwork: f.inNetwork, allowedAmounts: f.allowedAmounts, out: rootFrom(f.out), resume: f.resume ?? false,
      shard: f.shard ?? null, concurrency: f.concurrency ?? 2, publish: f.publish ?? false, base: f.base ?? null,
      memoryLimit: f.memoryLimit, parser: f.parser, allowPrivateNetwork: f.allowPrivateNetwork ?? false, allowPartial: f.allowPartial ?? false, progress: tapped(progressFor(process.stderr, f.quiet ?? false), o.heartbeat), signal: ac.signal,
    });
    process.stderr.write(formatSummary(report));
    if (f.json) process.stdout.write(`${JSON.stringify(report)}\n`);
    else process.stdout.write(`${report.snapshotId}\n`);
    if (report.totals.failed > 0) {
      process.stderr.write(`carebridge ingest: ${report.totals.failed} file(s) failed: ${report.errors.map((e) => e.url).join(', ')}\n`);
      process.exitCode = 1;
    } else if (report.totals.partial > 0 && !f.allowPartial) {
      // A payer host's bad night must not pass for success (issue 37): the prices are kept, but
      // the run says it is incomplete unless the data engineer accepts it.
      process.stderr.write(`carebridge ingest: ${report.totals.partial} file(s) partial, ${report.totals.unresolvedReferences} remote provider reference(s) unresolved: `
        + `${report.files.filter((x) => x.status === 'partial').map((x) => x.url).join(', ')}; --resume fetches them again, --allow-partial accepts the snapshot as is\n`);
      process.exitCode = 5;
    }
  } catch (err) {
    if (err instanceof IngestAssemblyError) {
      process.stderr.write(`carebridge ingest: ${err.message}\n`);
      process.exitCode = 3;
    } else usageOr(err);
  } finally {
    process.off('SIGINT', onSig);
    process.off('SIGTERM', onSig);
  }
}

async function ingestTables(kind: 'nppes' | 'reference', make: () => TableSource[], f: { out?: string; base?: string; publish?: boolean; quiet?: boolean }, o: IngestCliOptions): Promise<void> {
  let sources: TableSource[];
  try {
    sources = make();
  } catch (err) {
    // Building the sources only checks the given files and options: any failure is the caller's.
    process.stderr.write(`carebridge ingest ${kind}: ${(err as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  try {
    // Under the watchdog: each table written is work (a stall is judged on CPU and tables).
    o.heartbeat?.event({ type: 'tables_started' });
    const r = await runTableIngest({
      kind, sources, out: rootFrom(f.out), base: f.base ?? null, publish: f.publish ?? false,
      onTable: f.quiet && !o.heartbeat ? undefined : (t, rows, s) => {
        o.heartbeat?.event({ type: 'table_loaded', table: t, rows });
        if (!f.quiet) process.stderr.write(`${t}: ${rows} rows in ${s.toFixed(1)} s\n`);
      },
    });
    const rejected = Object.entries(r.tables).filter(([, v]) => v.rejected > 0);
    for (const [t, v] of rejected) process.stderr.write(`  ${t}: ${v.rejected} rows rejected, e.g. ${v.rejectedExamples[0] ?? ''}\n`);
    for (const [k, w] of Object.entries(r.warnings)) process.stderr.write(`  warning ${k} x${w.count}: ${w.examples.map((e) => `${e.path} ${e.example}`).join('; ')}\n`);
    if (r.carried.length) process.stderr.write(`  carried over from the base snapshot: ${r.carried.join(', ')}\n`);
    process.stderr.write(`snapshot ${r.snapshotId} written in ${r.seconds.toFixed(1)} s${r.published ? ' (published)' : ''}: ${r.snapshotDir}\n`);
    process.stdout.write(`${r.snapshotId}\n`);
  } catch (err) {
    usageOr(err);
  }
}

/** Registers `carebridge ingest …`. */
export function registerIngest(program: Command, o: IngestCliOptions = {}): void {
  const ingest = program.command('ingest').description('Build a new pricing snapshot from source files');

  ingest.command('tic')
    .description('Transparency-in-Coverage files: tables of contents, in-network rates, allowed amounts (local paths or http(s) URLs; plain, .gz or .zip)')
    .option('--toc <src>', 'table of contents (repeatable)', collect, [])
    .option('--in-network <src>', 'in-network rates file (repeatable)', collect, [])
    .option('--allowed-amounts <src>', 'allowed-amounts file (repeatable)', collect, [])
    .option('--out <dir>', 'pricing root (default DATA_DIR/pricing)')
    .option('--resume', 'reuse the files an interrupted run of the same inputs completed; of a partial file, fetch only its unresolved remote provider references again')
    .option('--allow-partial', 'exit 0 (and with --publish, publish) even when remote provider references could not be fetched (partial files; exit 5 without it)')
    .option('--shard <i/n>', 'ingest only the files whose URL hashes to i mod n', parseShard)
    .option('--concurrency <n>', 'files in parallel (default 2)', parsePositiveInt)
    .option('--base <id>', 'carry NPPES/reference tables over from this snapshot (an id or "current")')
    .option('--publish', 'make the snapshot current when every file succeeded')
    .option('--memory-limit <size>', 'DuckDB memory limit (default 256MB; 128MB at most while files are parsed and while finalize only streams)')
    .option('--parser <name>', 'fast | reference (stream-json)')
    .option('--allow-private-network', 'fetch from loopback and private addresses too (an internal mirror): every URL of the run, the files\' own included; off by default (SSRF guard)')
    .option('--json', 'print the JSON report on stdout instead of the snapshot id')
    .option('--quiet', 'no progress output')
    .option('--stall-timeout <seconds>', `stop the run (exit 4) after this many seconds without progress, e.g. DuckDB or a read stuck; 0: never (default ${STALL_TIMEOUT_SECONDS})`, parseSeconds)
    .action((f: TicFlags) => ingestTic(f, o));

  ingest.command('nppes')
    .description('NPPES dissemination files (main CSV or the monthly ZIP bundle; other names, practice locations, endpoints, deactivations)')
    .requiredOption('--main <src>', 'npidata_pfile CSV, or the monthly bundle ZIP')
    .option('--other-names <src>', 'othername_pfile CSV')
    .option('--practice-locations <src>', 'pl_pfile CSV')
    .option('--endpoints <src>', 'endpoint_pfile CSV')
    .option('--deactivations <src>', 'NPPES deactivated NPI report (XLSX or CSV)')
    .option('--zip-centroids <src>', 'ZIP centroid CSV (default data/zip)')
    .option('--nucc <src>', 'NUCC taxonomy CSV')
    .option('--out <dir>', 'pricing root (default DATA_DIR/pricing)')
    .option('--base <id>', 'carry the other tables over from this snapshot (an id or "current")')
    .option('--publish', 'make the snapshot current')
    .option('--quiet', 'no per-table lines')
    .option('--stall-timeout <seconds>', `stop the run (exit 4) after this many seconds without CPU used or a table written; 0: never (default ${STALL_TIMEOUT_SECONDS})`, parseSeconds)
    .action((f: { main: string; otherNames?: string; practiceLocations?: string; endpoints?: string; deactivations?: string; zipCentroids?: string; nucc?: string; out?: string; base?: string; publish?: boolean; quiet?: boolean }) =>
      ingestTables('nppes', () => nppesTableSources({
        main: f.main, otherNames: f.otherNames, practiceLocations: f.practiceLocations, endpoints: f.endpoints,
        deactivations: f.deactivations, zipCentroids: f.zipCentroids, nucc: f.nucc,
      }), f, o));

  ingest.command('reference')
    .description('Medicare PFS (RVU, GPCI, locality, ZIP5, conversion factors), LEIE, opt-out, PECOS, PUF, ZIP centroids, service catalog and payers')
    .option('--medicare-dir <dir>', 'folder with the CMS PFS files (default data/medicare)')
    .option('--leie <src>', 'OIG LEIE UPDATED.csv')
    .option('--opt-out <src>', 'Medicare opt-out affidavits CSV')
    .option('--pecos-enrollment <src>', 'PECOS public provider enrollment extract')
    .option('--pecos-reassignment <src>', 'PECOS reassignment extract')
    .option('--puf <src>', 'Physician & Other Practitioners by Provider and Service CSV')
    .option('--puf-year <year>', 'PUF data year', (v) => Number(v))
    .option('--zip-centroids <src>', 'ZIP centroid CSV (default data/zip)')
    .option('--catalog-dir <dir>', 'service catalog folder (default data/catalog)')
    .option('--payers <file>', 'payers registry (default data/payers.json)')
    .option('--no-medicare', 'skip the Medicare fee-schedule tables')
    .option('--no-catalog', 'skip the service catalog and payers tables')
    .option('--out <dir>', 'pricing root (default DATA_DIR/pricing)')
    .option('--base <id>', 'carry the other tables over from this snapshot (an id or "current")')
    .option('--publish', 'make the snapshot current')
    .option('--quiet', 'no per-table lines')
    .option('--stall-timeout <seconds>', `stop the run (exit 4) after this many seconds without CPU used or a table written; 0: never (default ${STALL_TIMEOUT_SECONDS})`, parseSeconds)
    .action((f: { medicareDir?: string; leie?: string; optOut?: string; pecosEnrollment?: string; pecosReassignment?: string; puf?: string; pufYear?: number; zipCentroids?: string; catalogDir?: string; payers?: string; medicare: boolean; catalog: boolean; out?: string; base?: string; publish?: boolean; quiet?: boolean }) =>
      ingestTables('reference', () => [
        ...(f.medicare ? medicareTableSources({ dir: f.medicareDir }) : []),
        ...referenceTableSources({
          leie: f.leie, optOut: f.optOut, pecosEnrollment: f.pecosEnrollment, pecosReassignment: f.pecosReassignment,
          puf: f.puf, pufYear: f.pufYear, zipCentroids: f.zipCentroids,
        }),
        ...(f.catalog ? catalogTableSources({ dir: f.catalogDir, payersFile: f.payers }) : []),
      ], f, o));
}
