/**
 * runIngest: one TiC ingest run, a plain function the CLI and the tests call (STYLE.md 11).
 *
 * Tables of contents fan out to their files (each distinct file once, however many plans list it;
 * every plan -> file mapping recorded), `shard` keeps the files whose canonical URL hashes to i mod
 * n, files run with bounded concurrency, each staged durably on its own (staging/<id>/files), and
 * the finished files are assembled into a NEW snapshot under snapshots/<id>. CURRENT only changes
 * when `publish` is asked and every file succeeded (or later with `carebridge snapshot publish`).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { STAGING_DIR, snapshotDir } from '../schemas/snapshot-layout.ts';
import type { FileKind } from './tic/records.ts';
import { quietProgress, type ProgressSink } from './progress/progress.ts';
import { REPORT_SCHEMA_VERSION, type FileReport, type IngestReport } from './report/report.ts';
import { WarningTally } from './report/warnings.ts';
import { MemoryWindow, openDuck } from './snapshot/duck.ts';
import { canonicalSource, isUrl, shardOf } from './snapshot/keys.ts';
import { processFile, type FileOutcome } from './snapshot/process-file.ts';
import { assembleSnapshot, type SourceFileRow } from './snapshot/assemble.ts';
import { StagedDataError } from './snapshot/tic-finalize.ts';
import { currentId, newSnapshotId, publish as publishSnapshot, resolveId, RESUME_MAX_AGE_MS } from './snapshot/store.ts';
import { writeFileAtomic } from './snapshot/fsutil.ts';
import { HelperTurn, type ParseHelperTuning } from './snapshot/parse-helper.ts';
import { tuneHeapForIngest } from './snapshot/gc.ts';
import type { RemoteTuning } from './snapshot/remote.ts';

export interface IngestOptions {
  toc: string[];
  inNetwork: string[];
  allowedAmounts: string[];
  /** The pricing root (holds CURRENT, snapshots/, staging/). */
  out: string;
  resume?: boolean;
  shard?: { i: number; n: number } | null;
  concurrency?: number;
  publish?: boolean;
  progress?: ProgressSink;
  signal?: AbortSignal;
  /** Carry NPPES/reference tables over from this snapshot (`current` or an id). */
  base?: string | null;
  /** DuckDB memory_limit (default 256MB): the bound on the native side's memory. */
  memoryLimit?: string;
  /** DuckDB's memory_limit while files are parsed, each file's finish() aside (PARSE_MEMORY_LIMIT; at most memoryLimit). */
  parseMemoryLimit?: string;
  parser?: 'fast' | 'reference';
  /** Allow loopback/private URLs (tests with a local server); default false (SSRF guard on). */
  allowPrivateNetwork?: boolean;
  /** The parse helper of large files (parse-helper.ts): `false` turns it off; tests tune it. */
  helper?: false | ParseHelperTuning;
  /** Publish (with `publish`) even when files are partial (remote references unresolved). */
  allowPartial?: boolean;
  /** How remote provider references are fetched (remote-refs.ts ResolveOptions; tests shorten the timeouts). */
  remote?: RemoteTuning;
}

/** A caller mistake (no input, bad shard, missing local file): the CLI exits 2 with this line. */
export class IngestUsageError extends Error {
  override name = 'IngestUsageError';
}

/**
 * Every file was read and staged, but building the snapshot from them failed (e.g. DuckDB out of
 * memory): the staging directory stays, and `--resume` with the same inputs goes straight to the
 * assembly.
 */
export class IngestAssemblyError extends Error {
  override name = 'IngestAssemblyError';
  readonly snapshotId: string;
  readonly stagedFiles: number;
  readonly failedFiles: number;
  readonly reason: string;

  constructor(snapshotId: string, stagedFiles: number, failedFiles: number, reason: string, options?: ErrorOptions & { reread?: string }) {
    const memory = /out of memory|could not allocate|failed to (pin|allocate)/i.test(reason) ? ' (with a higher --memory-limit)' : '';
    const again = [...(options?.reread ? [options.reread] : []), ...(failedFiles > 0 ? [`the ${failedFiles} failed file(s)`] : [])];
    const retry = again.length > 0 ? `read ${again.join(' and ')} again and retry the assembly` : 'retry only the assembly';
    super(`assembling snapshot ${snapshotId} failed: ${reason}. Its ${stagedFiles} read file(s) stay staged: the same command with --resume will ${retry}${memory}`, options);
    this.snapshotId = snapshotId;
    this.stagedFiles = stagedFiles;
    this.failedFiles = failedFiles;
    this.reason = reason;
  }
}

/** An error's first line (DuckDB appends hints and links after it). */
function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
}

interface RunFile { src: string; kind: FileKind }

/** --resume reuses a staging dir only this young (see pickStaging). */

function inputsHash(o: IngestOptions): string {
  const canon = (xs: string[]): string[] => xs.map(canonicalSource).sort();
  return createHash('sha256').update(JSON.stringify({
    toc: canon(o.toc), in: canon(o.inNetwork), aa: canon(o.allowedAmounts), shard: o.shard ?? null,
  })).digest('hex').slice(0, 16);
}

function validate(o: IngestOptions): void {
  const all = [...o.toc, ...o.inNetwork, ...o.allowedAmounts];
  if (all.length === 0) throw new IngestUsageError('nothing to ingest: give --toc, --in-network or --allowed-amounts');
  for (const src of all) {
    if (isUrl(src)) continue;
    if (!existsSync(src)) throw new IngestUsageError(`no such file: ${src}`);
    if (!statSync(src).isFile()) throw new IngestUsageError(`not a file: ${src}`);
  }
  const s = o.shard;
  if (s && !(Number.isInteger(s.n) && s.n >= 1 && Number.isInteger(s.i) && s.i >= 0 && s.i < s.n)) {
    throw new IngestUsageError(`bad shard ${s.i}/${s.n}: expected i/n with 0 <= i < n`);
  }
  if (o.concurrency !== undefined && !(Number.isInteger(o.concurrency) && o.concurrency >= 1 && o.concurrency <= 64)) {
    throw new IngestUsageError(`bad concurrency ${o.concurrency}: expected an integer from 1 to 64`);
  }
}

/** The staging dir to use: with resume, the newest one holding the same inputs. */
function pickStaging(root: string, hash: string, resume: boolean): { id: string; dir: string; resumed: boolean } {
  const stagingRoot = join(root, STAGING_DIR);
  if (resume && existsSync(stagingRoot)) {
    // Only a recent run of the same inputs: a remote file under the same URL is republished by the
    // payer (monthly), and a day-old completed copy must not stand in for tonight's.
    const candidates = readdirSync(stagingRoot).filter((id) => {
      const f = join(stagingRoot, id, 'run.json');
      if (!existsSync(f)) return false;
      const run = JSON.parse(readFileSync(f, 'utf8')) as { inputs: string; startedAt: string };
      return run.inputs === hash && Date.now() - Date.parse(run.startedAt) < RESUME_MAX_AGE_MS;
    }).sort();
    const id = candidates.at(-1);
    if (id) return { id, dir: join(stagingRoot, id), resumed: true };
  }
  const id = newSnapshotId('tic');
  return { id, dir: join(stagingRoot, id), resumed: false };
}

function toFileReport(f: FileOutcome): FileReport {
  const h = f.header as { version?: string | null; reportingEntityName?: string | null } | null;
  return {
    fileKey: f.fileKey, url: f.src, kind: f.kind, status: f.status, skipped: f.skipped, version: h?.version ?? null,
    reportingEntityName: h?.reportingEntityName ?? null, bytes: f.bytes, uncompressedBytes: f.uncompressedBytes, sha256: f.sha256,
    seconds: f.seconds, mbPerSec: f.seconds > 0 ? f.uncompressedBytes / 1048576 / f.seconds : 0, parseHelperBytes: f.helperBytes, reparsed: f.reparsed, remoteReferences: f.remote,
    counts: f.counts as Record<string, number> | null, warnings: f.warnings, error: f.error, reason: f.reason, byteOffset: f.byteOffset,
  };
}

function sourceRow(f: FileOutcome): SourceFileRow {
  const h = f.header as { lastUpdatedOn?: string | null; version?: string | null; reportingEntityName?: string | null; reportingEntityType?: string | null } | null;
  return {
    file_key: f.fileKey, url: f.src, file_type: f.kind, bytes: f.bytes, uncompressed_bytes: f.uncompressedBytes, sha256: f.sha256,
    last_updated_on: h?.lastUpdatedOn ?? null, version: h?.version ?? null, reporting_entity_name: h?.reportingEntityName ?? null,
    reporting_entity_type: h?.reportingEntityType ?? null, status: f.status === 'failed' ? 'failed' : 'complete',
    error: f.error ? `${f.error}${f.reason ? ` [${f.reason}]` : ''}` : null,
    unresolved_references: f.counts ? f.counts.unresolved_remote_references ?? 0 : null,
  };
}

/** Runs one ingest and returns its report (also written to the snapshot's report.json). */
export async function runIngest(o: IngestOptions): Promise<IngestReport> {
  validate(o);
  const release = tuneHeapForIngest();
  try {
    return await ingest(o);
  } finally {
    release();
  }
}

async function ingest(o: IngestOptions): Promise<IngestReport> {
  const started = new Date();
  const t0 = performance.now();
  const progress = o.progress ?? quietProgress;
  const root = o.out;
  mkdirSync(root, { recursive: true });
  const baseDir = o.base ? snapshotDir(root, resolveId(root, o.base)) : null;
  const hash = inputsHash(o);
  const staging = pickStaging(root, hash, o.resume ?? false);
  mkdirSync(staging.dir, { recursive: true });
  rmSync(join(staging.dir, 'partial'), { recursive: true, force: true });
  rmSync(join(staging.dir, 'out'), { recursive: true, force: true });
  rmSync(join(staging.dir, 'tmp'), { recursive: true, force: true });
  if (!staging.resumed) {
    writeFileAtomic(join(staging.dir, 'run.json'), JSON.stringify({ inputs: hash, options: { toc: o.toc, inNetwork: o.inNetwork, allowedAmounts: o.allowedAmounts, shard: o.shard ?? null }, startedAt: started.toISOString() }));
  }
  const memoryLimit = o.memoryLimit ?? '256MB';
  const duck = await openDuck({ tempDir: join(staging.dir, 'tmp'), file: join(staging.dir, 'tmp', 'stage.duckdb'), memoryLimit });
  const limit = pLimit(o.concurrency ?? 2);
  const outcomes: FileOutcome[] = [];
  const helperTurn = new HelperTurn();
  // While files are parsed DuckDB only takes appended rows, whose blocks it may spill: a lower
  // limit, the full one for each file's finish() (MemoryWindow, PARSE_MEMORY_LIMIT).
  const control = await duck.connect();
  const window = new MemoryWindow(control, o.parseMemoryLimit ?? PARSE_MEMORY_LIMIT, memoryLimit);
  const run = (f: RunFile): Promise<FileOutcome> => processFile({
    duck, stagingDir: staging.dir, src: f.src, kind: f.kind, resume: staging.resumed, progress, signal: o.signal, parser: o.parser,
    allowPrivateNetwork: o.allowPrivateNetwork, helper: o.helper, helperTurn, window, remote: o.remote,
  });
  try {
    await window.release('files'); // no file needs memory yet
    // 1. Tables of contents (every shard reads them: plans and plan_files are small, merge dedups).
    const tocs = await Promise.all(o.toc.map((src) => limit(() => run({ src, kind: 'table-of-contents' }))));
    outcomes.push(...tocs);
    // 2. Fan out: each distinct file once, in a deterministic order.
    const files = new Map<string, RunFile>();
    const add = (src: string, kind: FileKind): void => {
      const c = canonicalSource(src);
      if (!files.has(c)) files.set(c, { src: isUrl(src) ? c : src, kind });
    };
    for (const t of tocs) for (const f of t.tocFiles) add(f.location, f.fileType);
    for (const src of o.inNetwork) add(src, 'in-network');
    for (const src of o.allowedAmounts) add(src, 'allowed-amounts');
    const selected = [...files.entries()].filter(([c]) => !o.shard || shardOf(c, o.shard.n) === o.shard.i).map(([, f]) => f);
    const localBytes = selected.every((f) => !isUrl(f.src) && existsSync(f.src)) ? selected.reduce((n, f) => n + statSync(f.src).size, 0) : null;
    progress.event({ type: 'run_started', snapshotId: staging.id, files: tocs.length + selected.length, totalBytes: localBytes, resumed: staging.resumed });
    // 3. Files with bounded concurrency; a failure never stops the others.
    outcomes.push(...await Promise.all(selected.map((f) => limit(() => run(f)))));
    if (o.signal?.aborted) {
      progress.event({ type: 'run_failed', snapshotId: staging.id, stage: 'files', error: 'interrupted' });
      throw new Error('ingest aborted');
    }
    // 4. Assemble the snapshot from every complete file, at the full limit. The staging's id is the
    // snapshot's, but a published snapshot is never rewritten: a resumed run whose earlier snapshot
    // was published (a partial one, with --allow-partial) assembles a new one.
    if (currentId(root) === staging.id) staging.id = newSnapshotId('tic');
    await window.need('assemble');
    const tFinal = performance.now();
    const report = buildReport(o, staging, started, outcomes, root);
    progress.event({ type: 'assemble_started', snapshotId: staging.id, files: report.totals.complete });
    // Each table's seconds as finalize records them, also as a progress event.
    const timings = new Proxy<Record<string, number>>({}, {
      set(target, table: string, seconds: number) {
        target[table] = seconds;
        progress.event({ type: 'table_done', snapshotId: staging.id, table, seconds });
        return true;
      },
    });
    const { dir, manifest } = await assembleSnapshot(duck, {
      root, id: staging.id, timings, workDir: join(staging.dir, 'out'), ticFilesDir: join(staging.dir, 'files'),
      sourceFiles: outcomes.map(sourceRow), families: ['tic'], baseDir, report,
      dataVintage: vintage(outcomes), sources: { tic: { files: outcomes.length, failed: report.totals.failed, inputs: { toc: o.toc, inNetwork: o.inNetwork, allowedAmounts: o.allowedAmounts }, shard: o.shard ?? null } },
    }).catch((err: unknown) => {
      // The files are staged for good: say so, and how to retry only the assembly.
      const reason = firstLine(err);
      progress.event({ type: 'run_failed', snapshotId: staging.id, stage: 'assemble', error: reason });
      throw new IngestAssemblyError(staging.id, report.totals.complete, report.totals.failed, reason, { cause: err, reread: err instanceof StagedDataError ? err.src : undefined });
    });
    report.tables = Object.fromEntries(Object.entries(manifest.tables).map(([k, v]) => [k, v.rows]));
    report.snapshotDir = dir;
    report.totals.finalizeSeconds = (performance.now() - tFinal) / 1000;
    report.finalizeTimings = timings;
    finishTotals(report, t0);
    if (o.publish) {
      if (report.totals.failed > 0) report.publishNote = `${report.totals.failed} file(s) failed; fix or drop them, then run \`carebridge snapshot publish ${staging.id}\``;
      else if (report.totals.partial > 0 && !o.allowPartial) {
        report.publishNote = `${report.totals.partial} file(s) partial (${report.totals.unresolvedReferences} remote provider reference(s) unresolved); `
          + `run again with --resume to fetch them, or with --allow-partial to publish as is`;
      } else { publishSnapshot(root, staging.id); report.published = true; }
    }
    writeFileAtomic(join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    // Keep the staging dir when files failed or are partial, so --resume retries only those (and,
    // of a partial file, only its unresolved remote references).
    if (report.totals.failed === 0 && report.totals.partial === 0) rmSync(staging.dir, { recursive: true, force: true });
    progress.event({ type: 'run_done', snapshotId: staging.id, complete: report.totals.complete, failed: report.totals.failed, seconds: report.seconds, uncompressedBytes: report.totals.uncompressedBytes });
    return report;
  } finally {
    progress.close();
    control.closeSync();
    duck.closeSync();
    rmSync(join(staging.dir, 'tmp'), { recursive: true, force: true });
  }
}

/**
 * DuckDB's memory_limit while files are parsed: its memory then holds the staged rows' blocks of
 * the files being parsed, cached up to the limit (a 20 GiB file's parse filled the 256 MB), which
 * it can as well spill and read back at finish(). Measured 2026-11-23: see schemas/README.md item 45.
 */
const PARSE_MEMORY_LIMIT = '128MB';

function vintage(outcomes: FileOutcome[]): string {
  const dates = outcomes.map((f) => (f.header as { lastUpdatedOn?: string | null } | null)?.lastUpdatedOn).filter((d): d is string => !!d).sort();
  return dates.length ? `TiC ${dates[0]}${dates.length > 1 && dates.at(-1) !== dates[0] ? ` to ${dates.at(-1)}` : ''}` : 'TiC (no last_updated_on)';
}

function buildReport(o: IngestOptions, staging: { id: string; resumed: boolean }, started: Date, outcomes: FileOutcome[], root: string): IngestReport {
  const warnings = new WarningTally();
  const versions: Record<string, number> = {};
  for (const f of outcomes) {
    warnings.merge(f.warnings, f.src);
    const v = (f.header as { version?: string | null } | null)?.version;
    if (f.status === 'complete') versions[v ?? '(none)'] = (versions[v ?? '(none)'] ?? 0) + 1;
  }
  const failed = outcomes.filter((f) => f.status === 'failed');
  const partial = outcomes.filter((f) => f.status === 'partial');
  const sum = (k: 'unresolved_remote_references' | 'unresolved_prices'): number => partial.reduce((n, f) => n + (f.counts?.[k] ?? 0), 0);
  return {
    reportSchemaVersion: REPORT_SCHEMA_VERSION, snapshotId: staging.id, snapshotDir: null, root, startedAt: started.toISOString(),
    finishedAt: '', seconds: 0, resumed: staging.resumed, shard: o.shard ?? null, published: false, publishNote: null, finalizeTimings: {},
    totals: {
      files: outcomes.length, complete: outcomes.length - failed.length, partial: partial.length,
      unresolvedReferences: sum('unresolved_remote_references'), unresolvedPrices: sum('unresolved_prices'), failed: failed.length, skipped: outcomes.filter((f) => f.skipped).length,
      bytes: outcomes.reduce((n, f) => n + f.bytes, 0), uncompressedBytes: outcomes.reduce((n, f) => n + f.uncompressedBytes, 0), mbPerSec: 0, finalizeSeconds: 0,
    },
    schemaVersions: versions, tables: {}, warnings: warnings.entries,
    errors: failed.map((f) => ({ url: f.src, fileKey: f.fileKey, error: f.error ?? 'failed', reason: f.reason, byteOffset: f.byteOffset })),
    files: outcomes.map(toFileReport),
  };
}

function finishTotals(r: IngestReport, t0: number): void {
  r.seconds = (performance.now() - t0) / 1000;
  r.finishedAt = new Date().toISOString();
  // Files reused by --resume were not read in this run: they do not count towards its speed.
  const readNow = r.files.filter((f) => !f.skipped).reduce((n, f) => n + f.uncompressedBytes, 0);
  r.totals.mbPerSec = r.seconds > 0 ? readNow / 1048576 / r.seconds : 0;
}
