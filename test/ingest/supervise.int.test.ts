/**
 * The stall watchdog of `carebridge ingest tic` (cli/supervise.ts) with real processes: a child
 * stuck in DuckDB is stopped (exit 4) and gone; a child that makes progress is left alone; the CLI's
 * ingest under a short watchdog runs to its end, is stopped when frozen (SIGSTOP) and resumes; its
 * ingest process ends with the watchdog's. `ingest reference` (and so nppes, the same path) too.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STALLED_EXIT, supervise } from '../../cli/supervise.ts';
import { generateInNetwork } from '../../ingest/gen/in-network-gen.ts';

const REPO = join(import.meta.dirname, '..', '..');
const FIXTURE = join(REPO, 'test/fixtures/stall/stuck-duckdb.ts');
let tmp: string;
let input: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'cb-supervise-'));
  input = join(tmp, 'in.json.gz');
  // Large enough that an ingest lasts longer than a short watchdog's window (about 4 s here).
  await generateInNetwork(input, { sizeMb: 12, seed: 5, remoteFrac: 0, gzip: true, gzipLevel: 1 });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function mkfifo(name: string): string {
  const p = join(tmp, name);
  expect(spawnSync('mkfifo', [p]).status).toBe(0);
  return p;
}

describe('supervise', () => {
  test('a child stuck in a DuckDB statement is killed and named as stalled (exit 4)', async () => {
    const fifo = mkfifo('never-written');
    let out = '';
    let pid = 0;
    const code = await supervise({
      execPath: process.execPath, execArgv: ['--import', 'tsx'], script: FIXTURE, args: [fifo], env: process.env,
      stallMs: 2_000, command: 'ingest tic', checkMs: 100, out: { write: (s: string) => { out += s; } }, onChild: (p) => { pid = p; },
    });
    expect(code).toBe(STALLED_EXIT);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
    expect(out).toContain('"type":"run_failed"');
    expect(out).toMatch(/no progress for \d+ s while assembling the snapshot \(0\.\d CPU-seconds in that time/);
    // The child's heartbeats came (its phase is named), so the stall was judged on them.
  });

  test('a child that told its exit code and then hangs is stopped with that code', async () => {
    let out = '';
    const code = await supervise({
      execPath: process.execPath, execArgv: ['--import', 'tsx'], script: FIXTURE, args: [mkfifo('after'), 'after'], env: process.env,
      stallMs: 2_000, command: 'ingest tic', checkMs: 100, out: { write: (s: string) => { out += s; } },
    });
    expect(code).toBe(5);
    expect(out).toMatch(/had finished \(exit code 5\) but did not exit within \d+ s: stopped/);
  });

  test('the same child, its pipe written, ends on its own with its exit code', async () => {
    const fifo = mkfifo('written');
    const child = supervise({
      execPath: process.execPath, execArgv: ['--import', 'tsx'], script: FIXTURE, args: [fifo], env: process.env,
      stallMs: 60_000, command: 'ingest tic', checkMs: 100, out: { write: () => undefined },
    });
    const w = await open(fifo, 'w'); // waits for the child's DuckDB to open it
    await w.write('n\n1\n2\n3\n');
    await w.close();
    expect(await child).toBe(0);
  });
});

describe('carebridge ingest tic under the watchdog', () => {
  const cli = (args: string[]) => spawn(process.execPath, [join(REPO, 'cli/bin.mjs'), 'ingest', 'tic', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const ended = (c: ReturnType<typeof cli>): Promise<number | null> => new Promise((r) => c.on('close', r));
  /** The ingest process: the watchdog's child that runs the CLI (not tsx's esbuild service). */
  const ingestPid = (parent: number): number => {
    const pids = spawnSync('pgrep', ['-P', String(parent), '-f', 'cli/bin.mjs'], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean).map(Number);
    expect(pids).toHaveLength(1);
    return pids[0]!;
  };

  test('runs to its end under a 3 s watchdog, as without one (a busy ingest is never taken for a stalled one)', async () => {
    const root = join(tmp, 'normal');
    const c = cli(['--stall-timeout', '3', '--out', root, '--in-network', input]);
    let stderr = '';
    c.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    expect(await ended(c)).toBe(0);
    expect(stderr).toContain('"type":"run_done"');
    expect(stderr).not.toContain('stalled');
  });

  test('a frozen ingest is stopped (exit 4, the stall in the log), then --resume ends the run', async () => {
    const root = join(tmp, 'frozen');
    const c = cli(['--stall-timeout', '2', '--out', root, '--in-network', input]);
    let stderr = '';
    const lines = createInterface({ input: c.stderr });
    let frozen = 0;
    lines.on('line', (l) => {
      stderr += `${l}\n`;
      // Frozen mid-file: no CPU, no heartbeat (SIGKILL still ends a stopped process).
      if (frozen === 0 && l.includes('"type":"file_progress"')) { frozen = ingestPid(c.pid!); process.kill(frozen, 'SIGSTOP'); }
    });
    expect(await ended(c)).toBe(STALLED_EXIT);
    expect(frozen).toBeGreaterThan(0);
    expect(alive(frozen)).toBe(false);
    const failed = stderr.split('\n').filter((l) => l.includes('"type":"run_failed"')).map((l) => JSON.parse(l) as { stage: string; error: string; snapshotId: string });
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ stage: 'files' });
    expect(failed[0]!.error).toMatch(/^stalled: no progress for \d+ s while reading files/);
    expect(stderr).toMatch(/carebridge ingest: no progress .*--resume/);

    const r = cli(['--resume', '--out', root, '--in-network', input]);
    const done = new Promise<string>((resolve) => { let s = ''; r.stderr.on('data', (d: Buffer) => { s += d.toString(); }); r.on('close', () => resolve(s)); });
    expect(await ended(r)).toBe(0);
    const log = await done;
    const run = log.split('\n').filter((l) => l.includes('"type":"run_done"')).map((l) => JSON.parse(l) as { snapshotId: string });
    expect(run).toHaveLength(1);
    expect(run[0]!.snapshotId).toBe(failed[0]!.snapshotId); // the same staged run, resumed
  });

  test('the ingest process ends with the watchdog (killed), and a SIGTERM to the watchdog reaches it', async () => {
    const orphan = join(tmp, 'orphan');
    const c = cli(['--out', orphan, '--in-network', input]);
    const child = await new Promise<number>((resolve) => {
      createInterface({ input: c.stderr }).on('line', (l) => { if (l.includes('"type":"file_started"')) resolve(ingestPid(c.pid!)); });
    });
    c.kill('SIGKILL');
    await ended(c);
    await expect.poll(() => alive(child), { timeout: 10_000, interval: 50 }).toBe(false);
    // Killed, not run to its end on its own.
    expect(existsSync(join(orphan, 'snapshots')) ? readdirSync(join(orphan, 'snapshots')) : []).toEqual([]);

    const t = cli(['--out', join(tmp, 'term'), '--in-network', input]);
    let stderr = '';
    const started = new Promise<void>((resolve) => {
      createInterface({ input: t.stderr }).on('line', (l) => { stderr += `${l}\n`; if (l.includes('"type":"file_started"')) resolve(); });
    });
    await started;
    const inner = ingestPid(t.pid!);
    t.kill('SIGTERM');
    expect(await ended(t)).toBe(1);
    expect(alive(inner)).toBe(false);
    expect(stderr).toContain('"type":"run_failed"');
    expect(stderr).toContain('interrupted');
  });
});

describe('carebridge ingest reference under the watchdog', () => {
  const cli = (args: string[]) => spawn(process.execPath, [join(REPO, 'cli/bin.mjs'), 'ingest', 'reference', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const run = (c: ReturnType<typeof cli>, onLine: (l: string) => void = () => {}): Promise<{ code: number | null; stdout: string; stderr: string }> => new Promise((resolve) => {
    let stdout = '', stderr = '';
    c.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    createInterface({ input: c.stderr }).on('line', (l) => { stderr += `${l}\n`; onLine(l); });
    c.on('close', (code) => resolve({ code, stdout, stderr }));
  });

  test('runs to its end under a 3 s watchdog; frozen after its first table it is stopped (exit 4), nothing published', async () => {
    const root = join(tmp, 'reference');
    const ok = await run(cli(['--stall-timeout', '3', '--out', root, '--publish']));
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(/^mpfs_rvu: \d+ rows in/m);
    expect(ok.stderr).not.toContain('stalled');
    const published = ok.stdout.trim();
    expect(published).toMatch(/-reference-/);

    const c = cli(['--stall-timeout', '2', '--out', root, '--publish']);
    let frozen = 0;
    const stopped = await run(c, (l) => {
      // Frozen after its first table (the rest take ~0.7 s more): no CPU, no heartbeat.
      if (frozen === 0 && / rows in /.test(l)) {
        const pids = spawnSync('pgrep', ['-P', String(c.pid), '-f', 'cli/bin.mjs'], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean).map(Number);
        expect(pids).toHaveLength(1);
        frozen = pids[0]!;
        process.kill(frozen, 'SIGSTOP');
      }
    });
    expect(stopped.code).toBe(STALLED_EXIT);
    expect(alive(frozen)).toBe(false);
    const failed = stopped.stderr.split('\n').filter((l) => l.includes('"type":"run_failed"')).map((l) => JSON.parse(l) as { error: string });
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error).toMatch(/^stalled: no progress for \d+ s while loading tables \(table \w+ written last\)/);
    expect(stopped.stderr).toMatch(/carebridge ingest: no progress .* Nothing was published .* run the same command again/);
    // The published snapshot is still the first run's.
    const list = JSON.parse(spawnSync(process.execPath, [join(REPO, 'cli/bin.mjs'), 'snapshot', 'list', '--root', root, '--json'], { encoding: 'utf8' }).stdout) as { id: string; current: boolean }[];
    expect(list.filter((x) => x.current).map((x) => x.id)).toEqual([published]);
  });
});
