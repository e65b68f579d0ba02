/**
 * Jobs survive a restart (issue 34, item 1; "Done means": a server killed during triage resumes
 * the job after restart). A child process sends two jobs and is killed (SIGKILL) while running one
 * of them; a new process on the same database then runs the queued job, and retries the one that
 * was cut off once its try expires. PGlite with a data directory; a throwaway PostgreSQL.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDb } from '../../engine/adapters/db.pg.ts';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import type { Job } from '../../engine/ports/jobs.ts';
import { realPostgresAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { testJobs, waitFor } from './platform-harness.ts';

let cluster: PgCluster | undefined;
const dirs: string[] = [];
beforeAll(async () => { if (realPostgresAvailable()) cluster = await startPgCluster(); });
afterAll(async () => {
  await cluster?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Target { name: string; where(): Promise<string>; open(where: string): Promise<Db> }
const targets: Target[] = [
  {
    name: 'pglite',
    where: async () => { const d = mkdtempSync(join(tmpdir(), 'cb-jobs-')); dirs.push(d); return join(d, 'pg'); },
    open: (dir) => openPgliteDb(dir),
  },
  ...(realPostgresAvailable() ? [{ name: 'postgres', where: () => cluster!.createDatabase(), open: (url: string) => openPgDb(url, 2) }] : []),
];

describe.each(targets)('jobs across restarts on $name', (target) => {
  it('after a process is killed mid-job, the next process runs its queued job and retries the cut-off one', async () => {
    const where = await target.where();
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'job-crash.child.ts'), where], { stdio: ['ignore', 'pipe', 'inherit'] });
    const started = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (l) => { if (l.startsWith('started ')) resolve(l); });
      child.on('exit', (code) => reject(new Error(`child exited (${code}) before its job started`)));
    });
    const [, crashId, tries, queuedId] = started.split(' ');
    expect(tries).toBe('0');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    const db = await target.open(where);
    try {
      const jobs = await testJobs(db, { schema: 'crash_jobs' });
      const seen: Job[] = [];
      await jobs.work('queued', async (job) => { seen.push(job); });
      await jobs.work('crash', async (job) => { seen.push(job); });
      await waitFor(() => seen.length >= 2, 30_000, 'both jobs after the restart');
      await jobs.stop();
      expect(seen.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
        { id: crashId, name: 'crash', data: { n: 1 }, retryCount: 1 },
        { id: queuedId, name: 'queued', data: { n: 2 }, retryCount: 0 },
      ]);
    } finally {
      await db.close();
    }
  });
});
