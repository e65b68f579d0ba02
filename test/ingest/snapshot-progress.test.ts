import { expect, test, vi } from 'vitest';
import { JsonLinesProgress, TtyProgress, progressFor, quietProgress } from '../../ingest/progress/progress.ts';
import { formatSummary, type IngestReport } from '../../ingest/report/report.ts';
import { WarningTally } from '../../ingest/report/warnings.ts';

const sinkOut = (): { lines: string[]; write(s: string): void } => {
  const lines: string[] = [];
  return { lines, write: (s: string) => { lines.push(s); } };
};

test('JSON lines: one per event, file_progress throttled per file', () => {
  let now = 0;
  const out = sinkOut();
  const p = new JsonLinesProgress(out, 5000, () => now);
  p.event({ type: 'file_started', fileKey: 'a', url: 'u', kind: 'in-network', totalBytes: 10 });
  for (let t = 0; t <= 12_000; t += 1000) {
    now = 5000 + t;
    p.event({ type: 'file_progress', fileKey: 'a', url: 'u', bytes: t, uncompressedBytes: t, rows: t, totalBytes: 10 });
  }
  p.event({ type: 'file_done', fileKey: 'a', url: 'u', bytes: 10, uncompressedBytes: 10, rows: 1, seconds: 1, skipped: false });
  const types = out.lines.map((l) => (JSON.parse(l) as { type: string }).type);
  expect(types).toEqual(['file_started', 'file_progress', 'file_progress', 'file_progress', 'file_done']);
});

test('a TTY gets bars, anything else JSON lines, --quiet nothing', () => {
  expect(progressFor({ isTTY: true, write() {} }, false)).toBeInstanceOf(TtyProgress);
  expect(progressFor({ isTTY: false, write() {} }, false)).toBeInstanceOf(JsonLinesProgress);
  expect(progressFor({ isTTY: true, write() {} }, true)).toBe(quietProgress);
});

test('TTY bars show bytes, MB/s, rows and ETA, and log finished files', () => {
  const out = sinkOut();
  const p = new TtyProgress(out);
  p.event({ type: 'run_started', snapshotId: 's', files: 2, totalBytes: null, resumed: false });
  p.event({ type: 'file_started', fileKey: 'a', url: '/data/a.json.gz', kind: 'in-network', totalBytes: 100 });
  p.event({ type: 'file_progress', fileKey: 'a', url: '/data/a.json.gz', bytes: 50, uncompressedBytes: 2 * 1024 * 1024, rows: 7, totalBytes: 100 });
  p.event({ type: 'file_reparse', fileKey: 'a', url: '/data/a.json.gz', error: 'a run of records ... at byte 7', byteOffset: 7 });
  p.event({ type: 'file_failed', fileKey: 'a', url: '/data/a.json.gz', error: 'invalid JSON at byte 9', byteOffset: 9 });
  p.event({ type: 'run_done', snapshotId: 's', complete: 0, failed: 1, seconds: 1, uncompressedBytes: 0 });
  const text = out.lines.join('');
  expect(text).toContain('parsing again without runs (after: a run of records ... at byte 7) /data/a.json.gz');
  expect(text).toContain('FAILED /data/a.json.gz: invalid JSON at byte 9');
  expect(text).toMatch(/1\/2 files, 1 failed/);
  expect(text).toMatch(/MB\/s/);
});

test('TTY: a download whose size comes with its response (after file_started) gets its bar and ETA', () => {
  vi.useFakeTimers();
  try {
    const out = sinkOut();
    const p = new TtyProgress(out);
    const url = 'http://mirror.example/files/a.json.gz';
    p.event({ type: 'run_started', snapshotId: 's', files: 1, totalBytes: null, resumed: false });
    p.event({ type: 'file_started', fileKey: 'a', url, kind: 'in-network', totalBytes: null });
    vi.advanceTimersByTime(10_000);
    p.event({ type: 'file_progress', fileKey: 'a', url, bytes: 100, uncompressedBytes: 1_000_000, rows: 3, totalBytes: 400 });
    vi.advanceTimersByTime(100); // the next redraw
    const last = out.lines.join('').split('\n').filter((l) => l.endsWith(url)).at(-1)!;
    expect(last).toMatch(/^\S*\[####\.{12}\] /); // 100 of 400 bytes
    expect(last).toContain('ETA 0:30 '); // 10 s for a quarter
  } finally {
    vi.useRealTimers();
  }
});

test('TTY bars fit the terminal, and a terminal that reports no width gets whole lines', () => {
  const draw = (columns: number): string => {
    const out = Object.assign(sinkOut(), { columns });
    const p = new TtyProgress(out);
    p.event({ type: 'run_started', snapshotId: 's', files: 4, totalBytes: null, resumed: false });
    p.event({ type: 'file_done', fileKey: 'a', url: 'http://mirror.example/files/a.json.gz', bytes: 10, uncompressedBytes: 145_000_000, rows: 527_193, seconds: 1, skipped: false });
    p.event({ type: 'run_done', snapshotId: 's', complete: 4, failed: 0, seconds: 1, uncompressedBytes: 145_000_000 });
    return out.lines.join('');
  };
  const overall = (text: string): string => text.split('\n').find((l) => l.includes(' rows ETA '))!;
  expect(overall(draw(0))).toMatch(/ETA --:-- \| 1\/4 files, 0 failed$/);
  expect(overall(draw(72)).length).toBeLessThanOrEqual(71);
});

test('TTY: while the snapshot is assembled, each table written and how long it has run; a failed assembly says so', () => {
  vi.useFakeTimers();
  try {
    const out = sinkOut();
    const p = new TtyProgress(out);
    p.event({ type: 'run_started', snapshotId: 's', files: 1, totalBytes: null, resumed: false });
    p.event({ type: 'file_done', fileKey: 'a', url: '/data/a.json.gz', bytes: 10, uncompressedBytes: 100, rows: 5, seconds: 1, skipped: false });
    p.event({ type: 'assemble_started', snapshotId: 's', files: 1 });
    p.event({ type: 'table_done', snapshotId: 's', table: 'rates', seconds: 12.34 });
    vi.advanceTimersByTime(65_000); // no event for a minute: the elapsed time still moves
    const text = out.lines.join('');
    expect(text).toContain('assembling snapshot s from 1 file(s)');
    expect(text).toContain('  rates written in 12.3 s');
    expect(text).toContain('assembling: 1 table(s) written, 1:05 elapsed');
    p.event({ type: 'run_failed', snapshotId: 's', stage: 'assemble', error: 'Out of Memory Error: failed to pin block' });
    expect(out.lines.join('')).toContain('FAILED while assembling snapshot s: Out of Memory Error: failed to pin block');
  } finally {
    vi.useRealTimers();
  }
});

test('summary names every failed file and the top warnings with examples', () => {
  const w = new WarningTally();
  for (let i = 0; i < 5; i++) w.add('penny_rate', 'in_network[].negotiated_rates[].negotiated_prices[].negotiated_rate', '0.01');
  const r = {
    snapshotId: 'x', snapshotDir: '/p/snapshots/x', published: false, publishNote: null, seconds: 2, schemaVersions: { '1.0.0': 1 },
    totals: { files: 3, complete: 1, failed: 2, skipped: 0, bytes: 1048576, uncompressedBytes: 4 * 1048576, mbPerSec: 2, finalizeSeconds: 0.5 },
    tables: { rates: 10, plans: 0 }, warnings: w.entries,
    errors: [{ url: '/bad.json', fileKey: 'k', error: 'truncated gzip at byte 5', reason: 'truncated', byteOffset: 5 },
      { url: 'http://h/t.json.gz', fileKey: 'k2', error: 'http://h/t.json.gz: truncated gzip (unexpected end of file) after 9 compressed / 20 uncompressed bytes', reason: 'truncated', byteOffset: 20 }],
    files: [{ url: '/good.json', reparsed: true }, { url: '/bad.json', reparsed: false }, { url: 'http://h/t.json.gz', reparsed: false }],
  } as unknown as IngestReport;
  const s = formatSummary(r);
  expect(s).toContain('1 file parsed twice');
  expect(s).toContain('1/3 files complete, 2 failed');
  expect(s).toContain('penny_rate x5');
  expect(s.match(/= 0\.01/g)).toHaveLength(3);
  expect(s).toContain('FAILED /bad.json: truncated gzip at byte 5');
  // An error that begins with its file's name is not prefixed with it twice.
  expect(s).toContain('FAILED http://h/t.json.gz: truncated gzip (unexpected end of file) after 9 compressed / 20 uncompressed bytes\n');
  expect(s).toContain('rates 10');
  expect(s).toContain('read 1.0 MiB (4.0 MiB uncompressed) in 2.0 s = 2.0 MiB/s uncompressed (finalize 0.5 s)\n');
});

test('summary of a resumed run says what it read apart from the files it reused', () => {
  const MiB = 1048576;
  const r = {
    snapshotId: 'x', snapshotDir: '/p/snapshots/x', published: false, publishNote: null, seconds: 2, schemaVersions: {},
    totals: { files: 3, complete: 3, failed: 0, skipped: 2, bytes: 7 * MiB, uncompressedBytes: 28 * MiB, mbPerSec: 2, finalizeSeconds: 0.5 },
    tables: { rates: 10 }, warnings: {}, errors: [],
    files: [
      { url: '/a.json.gz', skipped: true, bytes: 2 * MiB, uncompressedBytes: 8 * MiB, reparsed: false },
      { url: '/b.json.gz', skipped: false, bytes: 1 * MiB, uncompressedBytes: 4 * MiB, reparsed: false },
      { url: '/c.json.gz', skipped: true, bytes: 4 * MiB, uncompressedBytes: 16 * MiB, reparsed: false },
    ],
  } as unknown as IngestReport;
  const s = formatSummary(r);
  expect(s).toContain('3/3 files complete, 0 failed, 2 reused from an earlier run');
  expect(s).toContain('read 1.0 MiB (4.0 MiB uncompressed) in 2.0 s = 2.0 MiB/s uncompressed (finalize 0.5 s); with the 2 reused, 7.0 MiB (28.0 MiB uncompressed) in all\n');
});
