import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import { IngestAssemblyError, runIngest } from '../../ingest/run-ingest.ts';
import type { ProgressEvent } from '../../ingest/progress/progress.ts';
import { generateInNetwork } from '../../ingest/gen/in-network-gen.ts';
import { currentId, listSnapshots, prune, pruneStaging, publish, SnapshotStoreError } from '../../ingest/snapshot/store.ts';
import { mergeSnapshots } from '../../ingest/snapshot/merge.ts';
import { fileKey } from '../../ingest/snapshot/keys.ts';
import { STAGED_LAYOUT_VERSION } from '../../ingest/snapshot/staged-layout.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';

const REPO = join(import.meta.dirname, '../..');
const tmp = mkdtempSync(join(tmpdir(), 'ingest-resume-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const inputs: string[] = [];
/** An uninterrupted single run over `inputs` (built once, compared with resumed and merged runs). */
let cleanDir: Promise<string> | null = null;
const clean = (): Promise<string> => (cleanDir ??= runIngest({ toc: [], inNetwork: inputs, allowedAmounts: [], out: join(tmp, 'clean') }).then((r) => r.snapshotDir!));

/** Every TiC table's rows, sorted, as JSON: what "the same result" means (not timing, not ids). */
async function contents(dir: string): Promise<Record<string, string>> {
  const db = await SnapshotDb.openDir(dir);
  try {
    const out: Record<string, string> = {};
    for (const t of ['rates', 'group_sets', 'provider_groups', 'group_members', 'group_files', 'bundles', 'allowed_amounts', 'plans', 'plan_files']) {
      out[t] = JSON.stringify(await db.query(`SELECT * FROM ${t} ORDER BY ALL`));
    }
    out.source_files = JSON.stringify(await db.query('SELECT file_key, url, file_type, bytes, uncompressed_bytes, sha256, status FROM source_files ORDER BY ALL'));
    return out;
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  mkdirSync(join(tmp, 'in'), { recursive: true });
  for (let i = 0; i < 3; i++) {
    const p = join(tmp, 'in', `file-${i}.json.gz`);
    await generateInNetwork(p, { sizeMb: i === 2 ? 1 : 0.3, seed: 100 + i, remoteFrac: 0, gzip: true, gzipLevel: 1 });
    inputs.push(p);
  }
});

describe('broken files', () => {
  test('are marked failed with reason and offset; other files continue; CLI exits 1 naming them', async () => {
    const good = inputs[0]!;
    const gz = readFileSync(good);
    const truncated = join(tmp, 'in', 'truncated.json.gz');
    writeFileSync(truncated, gz.subarray(0, Math.floor(gz.length / 2)));
    const invalid = join(tmp, 'in', 'invalid.json');
    writeFileSync(invalid, '{"reporting_entity_name":"x","in_network":[{"billing_code": 12,,}]}');
    const huge = join(tmp, 'in', 'huge.json.gz');
    writeFileSync(huge, gzipSync(`{"reporting_entity_name":"${'A'.repeat(20 * 1024 * 1024)}","in_network":[]}`));
    const report = await runIngest({ toc: [], inNetwork: [good, truncated, invalid, huge], allowedAmounts: [], out: join(tmp, 'broken') });
    expect(report.totals).toMatchObject({ complete: 1, failed: 3 });
    expect(report.errors.map((e) => e.url).sort()).toEqual([huge, invalid, truncated].sort());
    const inv = report.errors.find((e) => e.url === invalid)!;
    expect(inv.byteOffset).toBeGreaterThan(0);
    expect(report.errors.find((e) => e.url === huge)!.reason).toBe('too_long');
    const trunc = report.errors.find((e) => e.url === truncated)!;
    expect(trunc.reason).toBe('truncated_gzip');
    expect(trunc.byteOffset).toBeGreaterThan(0); // how far the uncompressed stream got
    expect(report.tables.rates).toBeGreaterThan(0); // the good file is in the snapshot
    expect(currentId(join(tmp, 'broken'))).toBeNull(); // never published implicitly

    // --resume reuses the good file, unless a different version of the writer staged it.
    const staged = join(tmp, 'broken', 'staging', report.snapshotId, 'files', fileKey(good), 'done.json');
    const marker = JSON.parse(readFileSync(staged, 'utf8')) as Record<string, unknown>;
    expect(marker.layout).toBe(STAGED_LAYOUT_VERSION);
    delete marker.layout; // as session 1's writer wrote it
    writeFileSync(staged, JSON.stringify(marker));
    const again = await runIngest({ toc: [], inNetwork: [good, truncated, invalid, huge], allowedAmounts: [], out: join(tmp, 'broken'), resume: true });
    expect(again.resumed).toBe(true);
    expect(again.totals).toMatchObject({ complete: 1, failed: 3, skipped: 0 });
    expect(again.tables.rates).toBe(report.tables.rates);

    const child = spawn(process.execPath, [join(REPO, 'cli/bin.mjs'), 'ingest', 'tic', '--quiet', '--out', join(tmp, 'broken-cli'), '--in-network', good, '--in-network', invalid], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(1);
    expect(stderr).toContain(`failed: ${invalid}`);
  });
});

describe('kill -9 during an ingest, then --resume', () => {
  test('the published snapshot never changes; the resumed result equals an uninterrupted run', async () => {
    const root = join(tmp, 'killed');
    // A published snapshot to protect.
    const first = await runIngest({ toc: [], inNetwork: [inputs[0]!], allowedAmounts: [], out: root, publish: true });
    const currentBefore = readFileSync(join(root, 'CURRENT'), 'utf8');
    expect(currentBefore.trim()).toBe(first.snapshotId);

    // The ingest process itself (without the stall watchdog's parent: see supervise.int.test.ts).
    const args = [join(REPO, 'cli/bin.mjs'), 'ingest', 'tic', '--stall-timeout', '0', '--out', root, '--concurrency', '1', ...inputs.flatMap((p) => ['--in-network', p])];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = createInterface({ input: child.stderr });
    const killed = new Promise<void>((resolve) => {
      lines.on('line', (l) => {
        if (l.includes('"type":"file_done"')) { child.kill('SIGKILL'); resolve(); }
      });
    });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, sig) => r(sig)));
    await killed;
    expect(await exited).toBe('SIGKILL');
    expect(readFileSync(join(root, 'CURRENT'), 'utf8')).toBe(currentBefore);
    expect(listSnapshots(root).map((s) => s.id)).toEqual([first.snapshotId]);

    const resumed = await runIngest({ toc: [], inNetwork: inputs, allowedAmounts: [], out: root, resume: true, concurrency: 1 });
    expect(resumed.resumed).toBe(true);
    expect(resumed.totals.skipped).toBeGreaterThanOrEqual(1);
    expect(resumed.totals.failed).toBe(0);
    expect(readFileSync(join(root, 'CURRENT'), 'utf8')).toBe(currentBefore);

    expect(await contents(resumed.snapshotDir!)).toEqual(await contents(await clean()));
    expect(existsSync(join(root, 'staging', resumed.snapshotId))).toBe(false); // cleaned after success
  });
});

describe('kill -9 at other moments of an ingest, then --resume', () => {
  // The moment is the first progress line of that kind: mid-parse of the first file (nothing staged
  // as done yet), between the files' phase and the assembly, and inside the assembly (its first
  // table written, the snapshot directory not yet in place).
  test.each([
    ['the first file_progress', '"type":"file_progress"'],
    ['assemble_started', '"type":"assemble_started"'],
    ['the first table_done', '"type":"table_done"'],
  ])('at %s: the published snapshot never changes; the resumed result equals an uninterrupted run', async (_name, marker) => {
    const root = join(tmp, `killed-at-${marker.replace(/\W+/g, '')}`);
    const first = await runIngest({ toc: [], inNetwork: [inputs[0]!], allowedAmounts: [], out: root, publish: true });
    const currentBefore = readFileSync(join(root, 'CURRENT'), 'utf8');

    const args = [join(REPO, 'cli/bin.mjs'), 'ingest', 'tic', '--stall-timeout', '0', '--out', root, '--concurrency', '1', ...inputs.flatMap((p) => ['--in-network', p])];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = createInterface({ input: child.stderr });
    let seen = false;
    lines.on('line', (l) => {
      if (!seen && l.includes(marker)) { seen = true; child.kill('SIGKILL'); }
    });
    const sig = await new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, s) => r(s)));
    expect(seen).toBe(true);
    expect(sig).toBe('SIGKILL');
    expect(readFileSync(join(root, 'CURRENT'), 'utf8')).toBe(currentBefore);
    expect(listSnapshots(root).map((s) => s.id)).toEqual([first.snapshotId]);

    const resumed = await runIngest({ toc: [], inNetwork: inputs, allowedAmounts: [], out: root, resume: true, concurrency: 1 });
    expect(resumed.resumed).toBe(true);
    expect(resumed.totals.failed).toBe(0);
    // Killed after the files' phase, every file was staged as done: none is read again.
    if (marker !== '"type":"file_progress"') expect(resumed.totals.skipped).toBe(inputs.length);
    expect(readFileSync(join(root, 'CURRENT'), 'utf8')).toBe(currentBefore);
    expect(await contents(resumed.snapshotDir!)).toEqual(await contents(await clean()));
    expect(listSnapshots(root).map((s) => s.id).sort()).toEqual([first.snapshotId, resumed.snapshotId].sort());
    expect(existsSync(join(root, 'staging', resumed.snapshotId))).toBe(false);
  });
});

describe('an assembly that fails', () => {
  test('names the snapshot and --resume; the read files stay staged; the CLI exits 3; --resume reads a file whose staged data was cut short again', async () => {
    const root = join(tmp, 'assembly-failed');
    // Once every file is read, one staged Parquet file is overwritten with zeros, its size kept
    // (as a bad disk would): the assembly cannot read it.
    let items = '';
    const seen: ProgressEvent[] = [];
    const progress = {
      event(e: ProgressEvent) {
        seen.push(e);
        if (e.type === 'assemble_started') {
          items = join(root, 'staging', e.snapshotId, 'files', fileKey(inputs[1]!), 'items.parquet');
          writeFileSync(items, Buffer.alloc(readFileSync(items).length));
        }
      },
      close() {},
    };
    const err = await runIngest({ toc: [], inNetwork: inputs, allowedAmounts: [], out: root, progress }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(IngestAssemblyError);
    const id = (err as IngestAssemblyError).snapshotId;
    expect((err as Error).message).toMatch(new RegExp(`^assembling snapshot ${id} failed: .*items\\.parquet.*\\. Its 3 read file\\(s\\) stay staged: the same command with --resume will retry only the assembly$`));
    expect((err as Error).message).not.toContain('\n'); // DuckDB's hints are left out
    const types = seen.map((e) => e.type);
    expect(types.filter((t) => t === 'file_done')).toHaveLength(inputs.length);
    expect(types.indexOf('assemble_started')).toBeGreaterThan(types.lastIndexOf('file_done'));
    expect(seen.at(-1)).toMatchObject({ type: 'run_failed', snapshotId: id, stage: 'assemble', error: expect.stringContaining('items.parquet') });
    expect(listSnapshots(root)).toEqual([]);
    expect(readdirSync(join(root, 'staging', id, 'files'))).toHaveLength(inputs.length);

    // The CLI: one line, exit code 3; --resume trusts the staged files of the size recorded, reads
    // nothing again, and fails the same way.
    const child = spawn(process.execPath, [join(REPO, 'cli/bin.mjs'), 'ingest', 'tic', '--out', root, '--resume', ...inputs.flatMap((p) => ['--in-network', p])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    expect(await new Promise<number | null>((r) => child.on('close', r))).toBe(3);
    const events = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type: string; skipped?: boolean });
    expect(events.filter((e) => e.type === 'file_done').map((e) => e.skipped)).toEqual(inputs.map(() => true));
    expect(events.filter((e) => e.type === 'run_failed')).toHaveLength(1);
    expect(stderr).toContain(`carebridge ingest: assembling snapshot ${id} failed: `);

    // Cut short, the file's staged data no longer has the size done.json recorded: --resume reads
    // that file again, the others not, and assembles what an uninterrupted run writes.
    writeFileSync(items, readFileSync(items).subarray(0, 100));
    seen.length = 0;
    const resumed = await runIngest({ toc: [], inNetwork: inputs, allowedAmounts: [], out: root, resume: true, progress: { event: (e) => seen.push(e), close() {} } });
    expect(resumed.snapshotId).toBe(id);
    expect(resumed.totals).toMatchObject({ complete: inputs.length, skipped: inputs.length - 1, failed: 0 });
    expect(seen.filter((e) => e.type === 'file_started').map((e) => (e as { url: string }).url)).toEqual([inputs[1]]);
    expect(await contents(resumed.snapshotDir!)).toEqual(await contents(await clean()));
    // Each table is announced as it is written, between the assembly's start and the run's end.
    const tables = seen.flatMap((e) => (e.type === 'table_done' ? [e.table] : []));
    expect(tables).toEqual(expect.arrayContaining(['rates', 'provider_groups', 'group_sets', 'group_files', 'plans']));
    expect(seen.findIndex((e) => e.type === 'table_done')).toBeGreaterThan(seen.findIndex((e) => e.type === 'assemble_started'));
    expect(seen.at(-1)?.type).toBe('run_done');
  });
});

describe('staged data that goes missing before the assembly', () => {
  test('is named, not passed over; --resume reads its file again', async () => {
    const root = join(tmp, 'staged-gone');
    let items = '';
    const progress = {
      event(e: ProgressEvent) {
        if (e.type !== 'assemble_started') return;
        items = join(root, 'staging', e.snapshotId, 'files', fileKey(inputs[2]!), 'items.parquet');
        rmSync(items);
      },
      close() {},
    };
    const err = await runIngest({ toc: [], inNetwork: inputs, allowedAmounts: [], out: root, progress }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(IngestAssemblyError);
    expect((err as Error).message).toContain(`failed: staged file ${items} (of ${inputs[2]}) is gone. Its 3 read file(s) stay staged: the same command with --resume will read ${inputs[2]} again and retry the assembly`);
    const resumed = await runIngest({ toc: [], inNetwork: inputs, allowedAmounts: [], out: root, resume: true });
    expect(resumed.totals).toMatchObject({ complete: inputs.length, skipped: inputs.length - 1, failed: 0 });
    expect(await contents(resumed.snapshotDir!)).toEqual(await contents(await clean()));
  });
});

describe('an interrupted run', () => {
  test('stops with run_failed in its log, no snapshot, and --resume finishes it', async () => {
    const root = join(tmp, 'interrupted');
    const ac = new AbortController();
    const seen: ProgressEvent[] = [];
    const progress = { event(e: ProgressEvent) { seen.push(e); if (e.type === 'file_done') ac.abort(new Error('interrupted')); }, close() {} };
    await expect(runIngest({ toc: [], inNetwork: inputs, allowedAmounts: [], out: root, concurrency: 1, signal: ac.signal, progress })).rejects.toThrow('ingest aborted');
    expect(seen.at(-1)).toMatchObject({ type: 'run_failed', stage: 'files', error: 'interrupted' });
    expect(seen.some((e) => e.type === 'assemble_started')).toBe(false);
    expect(listSnapshots(root)).toEqual([]);
    const resumed = await runIngest({ toc: [], inNetwork: inputs, allowedAmounts: [], out: root, resume: true });
    expect(resumed.totals).toMatchObject({ failed: 0 });
    expect(resumed.totals.skipped).toBeGreaterThanOrEqual(1);
    expect(await contents(resumed.snapshotDir!)).toEqual(await contents(await clean()));
  });
});

describe('publish, prune, merge', () => {
  test('publish is atomic and refuses what is not a complete snapshot; prune keeps the current one', async () => {
    const root = join(tmp, 'store');
    const a = await runIngest({ toc: [], inNetwork: [inputs[0]!], allowedAmounts: [], out: root });
    const b = await runIngest({ toc: [], inNetwork: [inputs[1]!], allowedAmounts: [], out: root });
    expect(currentId(root)).toBeNull();
    publish(root, a.snapshotId);
    expect(readFileSync(join(root, 'CURRENT'), 'utf8')).toBe(`${a.snapshotId}\n`);
    expect(readdirSync(root).filter((f) => f.includes('.tmp'))).toEqual([]);
    expect(() => publish(root, 'no-such-snapshot')).toThrow(SnapshotStoreError);
    mkdirSync(join(root, 'snapshots', 'half'), { recursive: true }); // a directory without manifest
    expect(() => publish(root, 'half')).toThrow(SnapshotStoreError);
    expect(currentId(root)).toBe(a.snapshotId);
    // a is older than b and current: prune --keep 1 keeps both the newest and the current.
    expect(prune(root, 1)).toEqual([]);
    publish(root, b.snapshotId);
    expect(prune(root, 1)).toEqual([a.snapshotId]);
    expect(listSnapshots(root).map((s) => s.id)).toEqual([b.snapshotId]);
  });

  test('prune removes staging of abandoned ingests, never a resumable or running one', () => {
    const root = join(tmp, 'staging-prune');
    const now = Date.now();
    const stage = (id: string, startedAt: number, touchedAt: number): void => {
      const dir = join(root, 'staging', id);
      mkdirSync(join(dir, 'files'), { recursive: true });
      writeFileSync(join(dir, 'run.json'), JSON.stringify({ inputs: 'x', startedAt: new Date(startedAt).toISOString() }));
      const t = new Date(touchedAt);
      for (const p of [join(dir, 'files'), join(dir, 'run.json'), dir]) utimesSync(p, t, t);
    };
    const h = 3600 * 1000;
    stage('abandoned', now - 30 * h, now - 29 * h);
    stage('resumable', now - 2 * h, now - 2 * h); // --resume may still pick it up
    stage('long-running', now - 25 * h, now - 60 * 1000); // started long ago, still writing
    expect(pruneStaging(root, now)).toEqual(['abandoned']);
    expect(readdirSync(join(root, 'staging')).sort()).toEqual(['long-running', 'resumable']);
  });

  test('merging two shards equals a single run (the library call, and the CLI under a short stall watchdog)', async () => {
    const all = inputs;
    const s0 = await runIngest({ toc: [], inNetwork: all, allowedAmounts: [], out: join(tmp, 'shard0'), shard: { i: 0, n: 2 } });
    const s1 = await runIngest({ toc: [], inNetwork: all, allowedAmounts: [], out: join(tmp, 'shard1'), shard: { i: 1, n: 2 } });
    expect(s0.totals.files + s1.totals.files).toBe(all.length);
    const merged = await mergeSnapshots([s0.snapshotDir!, s1.snapshotDir!], join(tmp, 'merged'));
    const expected = await contents(await clean());
    expect(await contents(merged.dir)).toEqual(expected);
    // The plans and plan_files in ranges of plan keys, one plan each: the same tables.
    const ranged = await mergeSnapshots([s0.snapshotDir!, s1.snapshotDir!], join(tmp, 'merged-ranged'), undefined, { plansPerRange: 1 });
    expect(readdirSync(join(ranged.dir, 'plans')).length).toBeGreaterThan(1);
    expect(await contents(ranged.dir)).toEqual(expected);

    const out = join(tmp, 'merged-cli');
    const child = spawn(process.execPath, [join(REPO, 'cli/bin.mjs'), 'snapshot', 'merge', s0.snapshotDir!, s1.snapshotDir!, '--out', out, '--stall-timeout', '3'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    expect(await new Promise<number | null>((r) => child.on('close', r))).toBe(0);
    expect(await contents(join(out, 'snapshots', stdout.trim()))).toEqual(expected);
  });
});
