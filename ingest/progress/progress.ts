/**
 * Ingest progress (issue 3, item 7). runIngest emits events; a sink renders them:
 * - TtyProgress: bars per running file and overall (bytes, MB/s, rows, ETA) on stderr, redrawn at
 *   most 10 times a second;
 * - JsonLinesProgress: one JSON line per event for a nightly job's logs (file_progress throttled
 *   to one line per file every few seconds);
 * - quietProgress: nothing.
 */
export type ProgressEvent =
  | { type: 'run_started'; snapshotId: string; files: number; totalBytes: number | null; resumed: boolean }
  | { type: 'file_started'; fileKey: string; url: string; kind: string; totalBytes: number | null }
  | { type: 'file_progress'; fileKey: string; url: string; bytes: number; uncompressedBytes: number; rows: number; totalBytes: number | null }
  | { type: 'file_done'; fileKey: string; url: string; bytes: number; uncompressedBytes: number; rows: number; seconds: number; skipped: boolean }
  | { type: 'file_failed'; fileKey: string; url: string; error: string; byteOffset: number | null }
  /** The file is parsed again from its start, without runs of records (process-file.ts): why. */
  | { type: 'file_reparse'; fileKey: string; url: string; error: string; byteOffset: number | null }
  /** A file's remote provider references fetched (after its parse, or again by --resume). */
  | { type: 'remote_references'; fileKey: string; url: string; urls: number; resolvedRefs: number; unresolvedRefs: number; hostsFailed: number; seconds: number }
  /** Every file is read: the snapshot's tables are built from the staged files (minutes on a large run). */
  | { type: 'assemble_started'; snapshotId: string; files: number }
  /** One table (or a pair written together) of the snapshot is written: its seconds. */
  | { type: 'table_done'; snapshotId: string; table: string; seconds: number }
  | { type: 'run_done'; snapshotId: string; complete: number; failed: number; seconds: number; uncompressedBytes: number }
  /** The run stopped before a snapshot was written (the staged files are kept for --resume). */
  | { type: 'run_failed'; snapshotId: string; stage: 'files' | 'assemble'; error: string };

export interface ProgressSink {
  event(e: ProgressEvent): void;
  /** Stops timers and leaves the terminal clean. */
  close(): void;
}

export const quietProgress: ProgressSink = { event() {}, close() {} };

interface Writable { write(s: string): unknown }

/** One JSON line per event; file_progress at most once per `everyMs` per file. */
export class JsonLinesProgress implements ProgressSink {
  private readonly last = new Map<string, number>();
  private readonly out: Writable;
  private readonly everyMs: number;
  private readonly now: () => number;

  constructor(out: Writable, everyMs = 5000, now = (): number => Date.now()) {
    this.out = out;
    this.everyMs = everyMs;
    this.now = now;
  }

  event(e: ProgressEvent): void {
    if (e.type === 'file_progress') {
      const t = this.now();
      if (t - (this.last.get(e.fileKey) ?? 0) < this.everyMs) return;
      this.last.set(e.fileKey, t);
    }
    this.out.write(`${JSON.stringify({ ts: new Date(this.now()).toISOString(), ...e })}\n`);
  }

  close(): void {}
}

const MB = 1024 * 1024;
const fmtMB = (b: number): string => (b >= 1024 * MB ? `${(b / 1024 / MB).toFixed(2)} GiB` : `${(b / MB).toFixed(1)} MiB`);
const fmtSec = (s: number): string => (!Number.isFinite(s) || s < 0 ? '--:--' : `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`);

function bar(frac: number, width = 16): string {
  const f = Math.max(0, Math.min(1, frac));
  const n = Math.round(f * width);
  return `[${'#'.repeat(n)}${'.'.repeat(width - n)}]`;
}

interface Running { url: string; start: number; bytes: number; unc: number; rows: number; total: number | null }

/** Progress bars on a terminal (stderr). */
export class TtyProgress implements ProgressSink {
  private readonly running = new Map<string, Running>();
  private lines = 0;
  private timer: NodeJS.Timeout | null = null;
  private dirty = false;
  private runStart = Date.now();
  private totalBytes: number | null = null;
  private doneBytes = 0;
  private doneUnc = 0;
  private doneRows = 0;
  private files = 0;
  private finished = 0;
  private failed = 0;
  /** While the snapshot is assembled: since when, and the tables written so far. */
  private assembling: { start: number; tables: number } | null = null;

  private readonly out: Writable & { columns?: number };

  constructor(out: Writable & { columns?: number }) {
    this.out = out;
  }

  event(e: ProgressEvent): void {
    switch (e.type) {
      case 'run_started':
        this.runStart = Date.now(); this.totalBytes = e.totalBytes; this.files = e.files;
        this.timer = setInterval(() => this.draw(), 100); // <= 10 redraws a second
        this.timer.unref();
        break;
      case 'file_started':
        this.running.set(e.fileKey, { url: e.url, start: Date.now(), bytes: 0, unc: 0, rows: 0, total: e.totalBytes });
        break;
      case 'file_progress': {
        const r = this.running.get(e.fileKey);
        // A download's size is known once its response came (Content-Length), after file_started.
        if (r) { r.bytes = e.bytes; r.unc = e.uncompressedBytes; r.rows = e.rows; r.total ??= e.totalBytes; }
        break;
      }
      case 'file_done':
        this.running.delete(e.fileKey);
        this.finished++; this.doneBytes += e.bytes; this.doneUnc += e.uncompressedBytes; this.doneRows += e.rows;
        this.log(`${e.skipped ? 'skipped (already complete)' : 'done'} ${e.url} ${fmtMB(e.uncompressedBytes)} ${e.rows} rows ${e.seconds.toFixed(1)} s`);
        break;
      case 'file_failed':
        this.running.delete(e.fileKey);
        this.failed++;
        this.log(`FAILED ${e.url}: ${e.error}`);
        break;
      case 'file_reparse': {
        const r = this.running.get(e.fileKey);
        if (r) { r.bytes = 0; r.unc = 0; r.rows = 0; }
        this.log(`parsing again without runs (after: ${e.error}) ${e.url}`);
        break;
      }
      case 'remote_references':
        this.log(`remote provider references of ${e.url}: ${e.urls} URL(s), ${e.resolvedRefs} resolved, ${e.unresolvedRefs} unresolved${e.hostsFailed ? ` (${e.hostsFailed} host(s) unreachable)` : ''} in ${e.seconds.toFixed(1)} s`);
        break;
      case 'assemble_started':
        this.assembling = { start: Date.now(), tables: 0 };
        this.log(`assembling snapshot ${e.snapshotId} from ${e.files} file(s)`);
        break;
      case 'table_done':
        if (this.assembling) this.assembling.tables++;
        this.log(`  ${e.table} written in ${e.seconds.toFixed(1)} s`);
        break;
      case 'run_done':
        this.draw();
        this.close();
        break;
      case 'run_failed':
        this.draw();
        this.close();
        this.log(`FAILED while ${e.stage === 'assemble' ? 'assembling' : 'reading files for'} snapshot ${e.snapshotId}: ${e.error}`);
        break;
    }
    this.dirty = true;
  }

  private log(line: string): void {
    this.clear();
    this.out.write(`${line}\n`);
    this.dirty = true;
  }

  private clear(): void {
    if (this.lines > 0) this.out.write(`\x1b[${this.lines}A\x1b[0J`);
    this.lines = 0;
  }

  private draw(): void {
    if (!this.dirty && !this.assembling) return; // assembling: the elapsed time moves on
    this.dirty = false;
    // A terminal that reports no width (0: a pty never sized, as under `script`) is taken as 100.
    const width = Math.max(60, this.out.columns || 100);
    const now = Date.now();
    const rows: string[] = [];
    let runBytes = this.doneBytes;
    let runUnc = this.doneUnc;
    let runRows = this.doneRows;
    for (const r of this.running.values()) {
      runBytes += r.bytes; runUnc += r.unc; runRows += r.rows;
      const secs = (now - r.start) / 1000;
      const rate = r.unc / MB / Math.max(secs, 0.001);
      const frac = r.total ? r.bytes / r.total : 0;
      const eta = r.total && r.bytes > 0 ? (secs * (r.total - r.bytes)) / r.bytes : NaN;
      // Figures first, the file name in whatever width is left (cut from the left: the end of a
      // URL tells files apart).
      const head = `${bar(frac)} ${fmtMB(r.unc)} ${rate.toFixed(1)} MB/s ${r.rows} rows ETA ${fmtSec(eta)} `;
      const room = Math.max(10, width - 1 - head.length);
      rows.push(`${head}${r.url.length > room ? `…${r.url.slice(-(room - 1))}` : r.url}`);
    }
    const secs = (now - this.runStart) / 1000;
    const frac = this.totalBytes ? runBytes / this.totalBytes : this.files ? this.finished / this.files : 0;
    const eta = this.totalBytes && runBytes > 0 ? (secs * (this.totalBytes - runBytes)) / runBytes : NaN;
    rows.push(`${bar(frac)} ${fmtMB(runUnc)} ${(runUnc / MB / Math.max(secs, 0.001)).toFixed(1)} MB/s ${runRows} rows ETA ${fmtSec(eta)} | ${this.finished + this.failed}/${this.files} files, ${this.failed} failed`.slice(0, width - 1));
    // Assembling has no byte count to show: what it has written and for how long.
    if (this.assembling) rows.push(`assembling: ${this.assembling.tables} table(s) written, ${fmtSec((now - this.assembling.start) / 1000)} elapsed`);
    this.clear();
    this.out.write(`${rows.join('\n')}\n`);
    this.lines = rows.length;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** The sink the CLI uses: bars on a TTY, JSON lines otherwise, nothing with --quiet. */
export function progressFor(stream: Writable & { isTTY?: boolean; columns?: number }, quiet: boolean): ProgressSink {
  if (quiet) return quietProgress;
  return stream.isTTY ? new TtyProgress(stream) : new JsonLinesProgress(stream);
}
