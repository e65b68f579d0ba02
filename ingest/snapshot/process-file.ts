/**
 * Ingests one TiC file into the staging directory: open (local or URL, plain/.gz/.zip), parse into
 * a TicFileWriter, resolve remote provider references, finish, and make the file durable by
 * renaming its directory into files/ after done.json is fsync'ed. A failure is recorded in
 * failed/<file_key>.json with the byte offset and reason; the caller carries on with other files.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import type { MemoryWindow } from './duck.ts';
import { parseTic } from '../tic/parse.ts';
import { TicParseError, type FileKind } from '../tic/records.ts';
import { SourceError } from '../sources/source-error.ts';
import type { ProgressSink } from '../progress/progress.ts';
import { WarningTally, type WarningSummary } from '../report/warnings.ts';
import { TicFileWriter, type TocFileRef } from './tic-file-writer.ts';
import { fileKey, isUrl } from './keys.ts';
import { writeFileAtomic, fsyncDir } from './fsutil.ts';
import { STAGED_LAYOUT_VERSION, type DoneMarker, type RemoteFetch, type StagedCounts } from './staged-layout.ts';
import { openInput } from './input.ts';
import { resolveRemote, type RemoteTuning } from './remote.ts';
import { refetchUnresolved } from './remote-resume.ts';
import { collectGarbage, collectIfLarge } from './gc.ts';
import { ParseHelper, type HelperTurn, type ParseHelperTuning } from './parse-helper.ts';

export interface FileOutcome {
  fileKey: string;
  src: string;
  kind: FileKind;
  /** partial: read whole, but remote provider references stayed unresolved (counts.unresolved_remote_references). */
  status: 'complete' | 'partial' | 'failed';
  skipped: boolean;
  bytes: number;
  uncompressedBytes: number;
  sha256: string | null;
  seconds: number;
  header: DoneMarker['header'];
  counts: StagedCounts | null;
  warnings: WarningSummary;
  error: string | null;
  reason: string | null;
  byteOffset: number | null;
  /** Files a table of contents lists (TOC files only). */
  tocFiles: TocFileRef[];
  /** Bytes of records the parse helper read (FileReport.parseHelperBytes). */
  helperBytes: number;
  /** Parsed a second time, without runs of records (FileReport.reparsed). */
  reparsed: boolean;
  /** Its remote provider references as last fetched (FileReport.remoteReferences). */
  remote: RemoteFetch | null;
}

export interface ProcessFileOptions {
  duck: DuckDBInstance;
  stagingDir: string;
  src: string;
  kind: FileKind;
  resume: boolean;
  progress: ProgressSink;
  signal?: AbortSignal;
  parser?: 'fast' | 'reference';
  /** Allow loopback/private URLs (tests with a local server); default false (SSRF guard). */
  allowPrivateNetwork?: boolean;
  /** The parse helper (parse-helper.ts): `false` never starts one; tests tune it. Default: on. */
  helper?: false | ParseHelperTuning;
  /** Shared by the files of a run, so that one helper runs at a time (parse-helper.ts HelperTurn). */
  helperTurn?: HelperTurn;
  /** DuckDB's limit, lowered while files are parsed: this file needs the full one for its finish(). */
  window?: MemoryWindow | null;
  /** How remote provider references are fetched (remote.ts). */
  remote?: RemoteTuning | undefined;
}

function localStat(src: string): { size: number; mtimeMs: number } | null {
  if (isUrl(src)) return null;
  try {
    const s = statSync(src);
    return { size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return null;
  }
}

/** A finished file from an earlier (killed) run of the same ingest, if still valid. */
function reusable(dir: string, src: string): (DoneMarker & { tocFiles?: TocFileRef[] }) | null {
  const f = join(dir, 'done.json');
  if (!existsSync(f)) return null;
  const m = JSON.parse(readFileSync(f, 'utf8')) as DoneMarker & { tocFiles?: TocFileRef[] };
  if (m.layout !== STAGED_LAYOUT_VERSION) return null; // staged by another version of the writer
  const st = localStat(src);
  if (st && (st.size !== m.size || st.mtimeMs !== m.mtimeMs)) return null; // the local file changed
  // A staged file gone or cut short since (a full disk, a hand in the directory): read it again.
  // Finalize reads each table through a glob, and would otherwise drop the file's rows unseen.
  for (const [name, size] of Object.entries(m.staged ?? {})) {
    const got = localStat(join(dir, name));
    if (!got || got.size !== size) return null;
  }
  return m;
}

/** Every staged file of a finished file's directory with its size (done.json `staged`). */
function stagedSizes(dir: string): Record<string, number> {
  return Object.fromEntries(readdirSync(dir).filter((f) => f !== 'done.json').sort().map((f) => [f, statSync(join(dir, f)).size]));
}

/** A file read whole is partial while remote references of it stay unresolved. */
const statusOf = (c: StagedCounts): 'complete' | 'partial' => ((c.unresolved_remote_references ?? 0) > 0 ? 'partial' : 'complete');

const rowsOf = (c: StagedCounts): number => c.prices + c.allowed_amounts + c.provider_references + c.plans + c.bundles;

/** Uncompressed bytes parsed between two looks at the JS heap's size (see onBytes below). */
const GC_CHECK_BYTES = 16 * 1024 * 1024;
/** Uncompressed bytes parsed since the last collection above which finish() is preceded by one. */
const GC_BEFORE_FINISH_BYTES = 16 * 1024 * 1024;

/**
 * Fetches a partial file's unresolved remote references again and, when some answered, patches its
 * staged tables and done.json (a new marker: sizes, counts). Null (read the file again) when the
 * patch failed midway.
 */
async function refetch(o: ProcessFileOptions, dir: string, m: DoneMarker & { tocFiles?: TocFileRef[] }): Promise<(DoneMarker & { tocFiles?: TocFileRef[] }) | null> {
  const started = performance.now();
  o.progress.event({ type: 'file_started', fileKey: m.fileKey, url: o.src, kind: m.kind, totalBytes: null });
  try {
    const next = await refetchUnresolved(dir, m, { duck: o.duck, signal: o.signal, allowPrivateNetwork: o.allowPrivateNetwork, parser: o.parser, tuning: o.remote });
    if (next.remote) o.progress.event({ type: 'remote_references', fileKey: m.fileKey, url: o.src, ...next.remote });
    if (next.counts === m.counts) return { ...m, remote: next.remote ?? null };
    const marker = { ...next, seconds: m.seconds + (performance.now() - started) / 1000, staged: stagedSizes(dir) };
    writeFileAtomic(join(dir, 'done.json'), JSON.stringify(marker));
    fsyncDir(dir);
    return marker;
  } catch (err) {
    if (o.signal?.aborted) throw err;
    // The staged tables may be half patched: done.json's sizes no longer match, so read it again.
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

/** Processes one file; never throws for a bad file (returns status 'failed'). */
export async function processFile(o: ProcessFileOptions): Promise<FileOutcome> {
  const fk = fileKey(o.src);
  const finalDir = join(o.stagingDir, 'files', fk);
  const base = { fileKey: fk, src: o.src, kind: o.kind };
  if (o.resume) {
    let m = reusable(finalDir, o.src);
    // A partial file: only its unresolved remote references are fetched again (remote-resume.ts).
    if (m && statusOf(m.counts) === 'partial') m = await refetch(o, finalDir, m);
    if (m) {
      o.progress.event({ type: 'file_done', fileKey: fk, url: o.src, bytes: m.bytes, uncompressedBytes: m.uncompressedBytes, rows: rowsOf(m.counts), seconds: 0, skipped: true });
      return {
        ...base, kind: m.kind as FileKind, status: statusOf(m.counts), skipped: true, bytes: m.bytes, uncompressedBytes: m.uncompressedBytes, sha256: m.sha256,
        seconds: m.seconds, header: m.header, counts: m.counts, warnings: m.warnings as WarningSummary, error: null, reason: null, byteOffset: null,
        tocFiles: m.tocFiles ?? [], helperBytes: m.helperBytes ?? 0, reparsed: m.reparsed ?? false, remote: m.remote ?? null,
      };
    }
  }
  rmSync(finalDir, { recursive: true, force: true });
  const started = performance.now();
  o.progress.event({ type: 'file_started', fileKey: fk, url: o.src, kind: o.kind, totalBytes: localStat(o.src)?.size ?? null });
  // Runs of records handed to the parse helper unread (parse-helper.ts) are checked after the parse
  // thread has gone past them: a parse error once one was handed over may come from a wrong guess
  // at a run's end, so the file is parsed again without runs, which reports a real error exactly.
  return await attempt(o, fk, started, true) ?? (await attempt(o, fk, started, false))!;
}

/** One parse of the file; null: failed after runs were handed over (retry without). */
async function attempt(o: ProcessFileOptions, fk: string, started: number, runs: boolean): Promise<FileOutcome | null> {
  const finalDir = join(o.stagingDir, 'files', fk);
  const failedFile = join(o.stagingDir, 'failed', `${fk}.json`);
  const base = { fileKey: fk, src: o.src, kind: o.kind };
  const partial = join(o.stagingDir, 'partial', fk);
  rmSync(partial, { recursive: true, force: true });
  const st = localStat(o.src);
  const tocFiles: TocFileRef[] = [];
  let writer: TicFileWriter | null = null;
  let helper: ParseHelper | null = null;
  let input: Awaited<ReturnType<typeof openInput>> | null = null;
  let unc = 0;
  try {
    // Each listed file once (the first time it is listed; run-ingest.ts keeps that one too): a large
    // table of contents lists the same few thousand files millions of times, and done.json keeps them.
    const listed = new Set<string>();
    const onTocFile = (f: TocFileRef): void => {
      if (listed.has(f.location)) return;
      listed.add(f.location);
      tocFiles.push(f);
    };
    writer = await TicFileWriter.create(o.duck, { src: o.src, dir: partial, onTocFile });
    const w = writer;
    if (o.helper !== false && o.parser !== 'reference') {
      helper = new ParseHelper({ ...o.helper, runs: runs && o.helper?.runs !== false, turn: o.helperTurn, writer: w, src: o.src, dir: partial });
    }
    input = await openInput(o.src, { signal: o.signal, allowPrivateNetwork: o.allowPrivateNetwork });
    const opened = input;
    // Only where records go to the helper: in-network files (rates, references) and reference files.
    if (o.kind === 'in-network' || o.kind === 'provider-reference') helper?.expectBytes(opened.totalBytes ?? st?.size);
    let lastTick = 0;
    let lastGc = 0;
    let lastCheck = 0;
    const stats = await parseTic(opened.stream, w, {
      kindHint: o.kind, signal: o.signal, parser: o.parser, offload: helper,
      onBytes: (n) => {
        unc = n;
        // The parse's garbage must not pile up on top of DuckDB's memory: a full collection when
        // the heap holds more than GC_HEAP_BYTES (gc.ts), looked at every GC_CHECK_BYTES parsed.
        if (n - lastCheck >= GC_CHECK_BYTES) {
          lastCheck = n;
          if (collectIfLarge()) lastGc = n;
        }
        const now = performance.now();
        if (now - lastTick < 250) return;
        lastTick = now;
        o.progress.event({ type: 'file_progress', fileKey: fk, url: o.src, bytes: opened.bytesRead(), uncompressedBytes: n, rows: w.counts.prices + (helper?.prices ?? 0) + w.counts.allowed_amounts, totalBytes: opened.totalBytes ?? st?.size ?? null });
      },
    });
    unc = stats.bytes;
    const tRemote = performance.now();
    const fetched = await resolveRemote(w, { signal: o.signal, allowPrivateNetwork: o.allowPrivateNetwork, parser: o.parser, tuning: o.remote });
    const remote = fetched ? { ...fetched, seconds: (performance.now() - tRemote) / 1000 } : null;
    if (remote) o.progress.event({ type: 'remote_references', fileKey: fk, url: o.src, ...remote });
    // The parse's garbage goes before DuckDB's heavy phase (gc.ts), when there is much of it: a
    // full collection costs ~45 ms, which 100 files of 190 KB paid as 4.8 of their 12.5 s.
    if (unc - lastGc >= GC_BEFORE_FINISH_BYTES) collectGarbage();
    // finish()'s statements (joins, DISTINCTs, COPYs) at DuckDB's full limit.
    const needed = o.window?.need(fk);
    let res: Awaited<ReturnType<TicFileWriter['finish']>>;
    try {
      await needed;
      res = await w.finish();
    } finally {
      await o.window?.release(fk);
    }
    const seconds = (performance.now() - started) / 1000;
    const helperBytes = helper?.handed ?? 0;
    const marker: DoneMarker & { tocFiles: TocFileRef[] } = {
      layout: STAGED_LAYOUT_VERSION, fileKey: fk, src: o.src, size: st?.size ?? null, mtimeMs: st?.mtimeMs ?? null, bytes: opened.bytesRead(), uncompressedBytes: unc,
      sha256: opened.sha256(), kind: stats.kind, header: res.header, counts: res.counts, warnings: res.warnings, seconds,
      finishedAt: new Date().toISOString(), tocFiles, helperBytes, reparsed: !runs, staged: stagedSizes(partial), remote,
    };
    // done.json last, then one rename: the file is complete in files/ or absent.
    writeFileAtomic(join(partial, 'done.json'), JSON.stringify(marker));
    mkdirSync(join(o.stagingDir, 'files'), { recursive: true });
    renameSync(partial, finalDir);
    fsyncDir(join(o.stagingDir, 'files'));
    rmSync(failedFile, { force: true });
    o.progress.event({ type: 'file_done', fileKey: fk, url: o.src, bytes: marker.bytes, uncompressedBytes: unc, rows: rowsOf(res.counts), seconds, skipped: false });
    return {
      ...base, kind: stats.kind, status: statusOf(res.counts), skipped: false, bytes: marker.bytes, uncompressedBytes: unc, sha256: marker.sha256, seconds,
      header: res.header, counts: res.counts, warnings: res.warnings, error: null, reason: null, byteOffset: null, tocFiles, helperBytes, reparsed: !runs, remote,
    };
  } catch (err) {
    if (runs && (helper?.runs ?? 0) > 0 && err instanceof TicParseError) {
      o.progress.event({ type: 'file_reparse', fileKey: fk, url: o.src, error: err.message, byteOffset: err.byteOffset });
      await helper?.close();
      await writer?.drop().catch(() => undefined);
      input?.close();
      rmSync(partial, { recursive: true, force: true });
      return null;
    }
    const e = err as Error & { byteOffset?: number; reason?: string; code?: string };
    const byteOffset = err instanceof TicParseError ? err.byteOffset : err instanceof SourceError ? err.byteOffset : null;
    const reason = err instanceof TicParseError ? err.reason : (e.reason ?? e.code ?? 'error');
    const message = e.message || String(err);
    // The warnings counted up to the failure, the helper's too when it failed (else they are in the writer's).
    const tally = new WarningTally();
    tally.merge(writer?.warnings() ?? {});
    if (helper?.failedWarnings) tally.merge(helper.failedWarnings);
    const warnings = tally.entries;
    await helper?.close(); // before its files are removed with partial/
    await writer?.drop().catch(() => undefined);
    input?.close();
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(join(o.stagingDir, 'failed'), { recursive: true });
    writeFileAtomic(failedFile, JSON.stringify({ src: o.src, error: message, reason, byteOffset }));
    o.progress.event({ type: 'file_failed', fileKey: fk, url: o.src, error: message, byteOffset });
    return {
      ...base, status: 'failed', skipped: false, bytes: input?.bytesRead() ?? 0, uncompressedBytes: unc, sha256: null,
      seconds: (performance.now() - started) / 1000, header: null, counts: null, warnings, error: message, reason, byteOffset, tocFiles: [],
      helperBytes: helper?.handed ?? 0, reparsed: !runs, remote: null,
    };
  }
}
