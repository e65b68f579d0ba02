/**
 * The ingest report (issue 3, item 6): JSON per run and per file (report.json in the snapshot)
 * and a human summary for stderr.
 */
import type { WarningSummary } from './warnings.ts';

export const REPORT_SCHEMA_VERSION = 1;

export interface FileReport {
  fileKey: string;
  url: string;
  kind: string;
  /**
   * partial: read whole, but remote provider references stayed unresolved (their prices are kept
   * with an unresolved group set; counts.unresolved_remote_references, unresolved_prices).
   */
  status: 'complete' | 'partial' | 'failed';
  /** True when --resume found the file already complete and did not read it again. */
  skipped: boolean;
  /** TiC schema version declared by the file (`version`), null when absent. */
  version: string | null;
  reportingEntityName: string | null;
  bytes: number;
  uncompressedBytes: number;
  sha256: string | null;
  seconds: number;
  /** Uncompressed MiB per second. */
  mbPerSec: number;
  /**
   * Uncompressed bytes of records read by the parse helper, a second thread that large files get
   * (ingest/snapshot/parse-helper.ts); 0 when the parse thread read the whole file.
   */
  parseHelperBytes: number;
  /**
   * Parsed twice: the first parse failed after handing the parse helper a run of records found
   * without reading them (a wrong guess at where the run ended, or broken JSON inside it), so the
   * file was parsed again without runs; what is reported is that second parse.
   */
  reparsed: boolean;
  /**
   * Its remote provider references as last fetched: distinct URLs, references resolved and not,
   * hosts whose circuit opened, seconds (null: none).
   */
  remoteReferences: { urls: number; fetched: number; resolvedRefs: number; unresolvedRefs: number; hostsFailed: number; seconds: number } | null;
  counts: Record<string, number> | null;
  warnings: WarningSummary;
  error: string | null;
  reason: string | null;
  byteOffset: number | null;
}

export interface IngestReport {
  reportSchemaVersion: number;
  snapshotId: string;
  snapshotDir: string | null;
  root: string;
  startedAt: string;
  finishedAt: string;
  seconds: number;
  resumed: boolean;
  shard: { i: number; n: number } | null;
  published: boolean;
  /** Why the snapshot was not published when --publish was asked. */
  publishNote: string | null;
  totals: {
    files: number;
    /** Files read whole (partial ones included). */
    complete: number;
    /** Files read whole whose remote provider references did not all resolve. */
    partial: number;
    /** Remote provider references left unresolved, over every file. */
    unresolvedReferences: number;
    /** Prices kept with an unresolved group set, over every file (staged rows, before de-duplication). */
    unresolvedPrices: number;
    failed: number;
    skipped: number;
    bytes: number;
    uncompressedBytes: number;
    /** Uncompressed MiB/s over the whole run (parse + stage + finalize). */
    mbPerSec: number;
    /** Seconds spent assembling the snapshot tables after the last file. */
    finalizeSeconds: number;
  };
  /** Schema versions seen, with file counts. */
  /** Seconds spent writing each TiC table in the finalize step. */
  finalizeTimings: Record<string, number>;
  schemaVersions: Record<string, number>;
  tables: Record<string, number>;
  warnings: WarningSummary;
  errors: { url: string; fileKey: string; error: string; reason: string | null; byteOffset: number | null }[];
  files: FileReport[];
}

const MiB = 1024 * 1024;
const mb = (b: number): string => `${(b / MiB).toFixed(1)} MiB`;

/** The human summary printed on stderr at the end of an ingest. */
export function formatSummary(r: IngestReport): string {
  const t = r.totals;
  const lines: string[] = [];
  lines.push(`ingest ${r.snapshotId}: ${t.complete}/${t.files} files complete, ${t.failed} failed${t.partial ? ` (${t.partial} of them partial)` : ''}${t.skipped ? `, ${t.skipped} reused from an earlier run` : ''}`);
  if (t.partial) {
    lines.push(`  PARTIAL: ${t.unresolvedReferences} remote provider reference(s) could not be fetched; their ${t.unresolvedPrices} price(s) are kept as published rates whose providers the file did not name`
      + ` (group_sets.unresolved_location). \`ingest tic --resume\` with the same inputs fetches only those again.`);
    for (const f of r.files.filter((x) => x.status === 'partial')) lines.push(`  partial ${f.url}: ${f.counts?.unresolved_remote_references ?? 0} unresolved reference(s), ${f.counts?.unresolved_prices ?? 0} price(s) kept`);
  }
  // Files reused by --resume were not read by this run: what it read is said apart from the total.
  const reused = r.files.filter((f) => f.skipped);
  const readNow = (k: 'bytes' | 'uncompressedBytes'): number => t[k] - reused.reduce((n, f) => n + f[k], 0);
  lines.push(`  read ${mb(readNow('bytes'))} (${mb(readNow('uncompressedBytes'))} uncompressed) in ${r.seconds.toFixed(1)} s = ${t.mbPerSec.toFixed(1)} MiB/s uncompressed (finalize ${t.finalizeSeconds.toFixed(1)} s)`
    + (reused.length ? `; with the ${reused.length} reused, ${mb(t.bytes)} (${mb(t.uncompressedBytes)} uncompressed) in all` : ''));
  const versions = Object.entries(r.schemaVersions).map(([v, n]) => `${v} x${n}`).join(', ');
  if (versions) lines.push(`  schema versions: ${versions}`);
  const tables = Object.entries(r.tables).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ');
  lines.push(`  rows: ${tables || 'none'}`);
  const warnings = Object.entries(r.warnings).sort((a, b) => b[1].count - a[1].count);
  if (warnings.length) {
    lines.push('  warnings:');
    for (const [kind, w] of warnings) {
      const ex = w.examples.map((e) => `${e.path}${e.example ? ` = ${e.example}` : ''}${e.file ? ` (${e.file})` : ''}`).join('; ');
      lines.push(`    ${kind} x${w.count}${ex ? `: ${ex}` : ''}`);
    }
  }
  const twice = r.files.filter((f) => f.reparsed).length;
  if (twice) lines.push(`  ${twice} file${twice > 1 ? 's' : ''} parsed twice (a run of records handed to the second parse thread did not check out; the second parse is reported)`);
  // An error that names its file first (a source's errors do) is not prefixed with it again.
  for (const e of r.errors) lines.push(`  FAILED ${e.url}: ${e.error.startsWith(`${e.url}: `) ? e.error.slice(e.url.length + 2) : e.error}`);
  if (r.snapshotDir) lines.push(`  snapshot: ${r.snapshotDir}${r.published ? ' (published)' : ''}`);
  if (r.publishNote) lines.push(`  not published: ${r.publishNote}`);
  return `${lines.join('\n')}\n`;
}
