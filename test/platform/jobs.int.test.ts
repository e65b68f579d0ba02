/**
 * The durable job queue (engine/adapters/jobs.pgboss.ts) on PGlite and on a throwaway PostgreSQL:
 * transactional send, retry on throw, retry after an expired try, timers, singletons, cancel,
 * graceful drain (issue 34, item 1). The restart tests live in jobs-restart.int.test.ts.
 * The tests wait on retries, expiries and timers, so they run concurrently: one database per
 * backend, a pg-boss schema and queue names of their own per test.
 */
import { afterAll, beforeAll, describe, it, type TestContext } from 'vitest';
import type { Db } from '../../engine/ports/db.ts';
import type { Job, JobQueue } from '../../engine/ports/jobs.ts';
import { backends, useBackends } from '../storage/backends.ts';
import { deferred, freshDb, jobState, testJobs, waitFor } from './platform-harness.ts';

useBackends();

describe.concurrent.each(backends)('JobQueue on $name', (backend) => {
  let db: Db;
  beforeAll(async () => { db = await freshDb(backend); });
  afterAll(async () => { await db.close(); });

  async function setup(ctx: TestContext, opts: Parameters<typeof testJobs>[1] = {}): Promise<{ db: Db; jobs: JobQueue & { schema: string } }> {
    const jobs = await testJobs(db, opts);
    ctx.onTestFinished(() => jobs.stop());
    return { db, jobs };
  }

  it('a send inside a transaction that rolls back leaves no job; one that commits runs', async (ctx) => {
    const { expect } = ctx;
    const { db, jobs } = await setup(ctx);
    const seen: Job<{ n: number }>[] = [];
    await jobs.work<{ n: number }>('tx-test', async (job) => { seen.push(job); });
    await expect(db.transaction(async (tx) => {
      await jobs.send('tx-test', { n: 1 }, {}, tx);
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    const id = await db.transaction((tx) => jobs.send('tx-test', { n: 2 }, {}, tx));
    expect(id).toEqual(expect.any(String));
    await waitFor(() => seen.length > 0, 15_000, 'the committed job');
    expect(seen.map((j) => j.data.n)).toEqual([2]);
    expect(seen[0]).toMatchObject({ id, name: 'tx-test', retryCount: 0 });
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${jobs.schema}.job WHERE name = 'tx-test'`);
    expect(rows[0]!.n).toBe(1);
  });

  it('a backlog drains job after job without waiting for the poll', async (ctx) => {
    const { expect } = ctx;
    // A 60 s poll: if each worker slept between jobs, 12 jobs on 2 slots would take minutes.
    const { jobs } = await setup(ctx, { pollSeconds: 60, queues: ['backlog'] });
    for (let i = 0; i < 12; i++) await jobs.send('backlog', { i });
    const done: number[] = [];
    await jobs.work<{ i: number }>('backlog', async (job) => { done.push(job.data.i); });
    await waitFor(() => done.length === 12, 20_000, 'the backlog');
    expect(done.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('a handler that throws is retried (with backoff) up to retryLimit: a later success completes the job, else it fails', async (ctx) => {
    const { expect } = ctx;
    const { db, jobs } = await setup(ctx);
    const tries = new Map<string, number[]>();
    await jobs.work<{ failures: number }>('flaky', async (job) => {
      tries.set(job.id, [...(tries.get(job.id) ?? []), job.retryCount]);
      if (job.retryCount < job.data.failures) throw new Error(`try ${job.retryCount} fails`);
    });
    const recovers = (await jobs.send('flaky', { failures: 1 }, { retryDelaySeconds: 1 }))!;
    const givesUp = (await jobs.send('flaky', { failures: 9 }, { retryLimit: 1, retryDelaySeconds: 1 }))!;
    await waitFor(async () => (await jobState(db, jobs.schema, recovers)) === 'completed'
      && (await jobState(db, jobs.schema, givesUp)) === 'failed', 20_000, 'completion and failure');
    expect(tries.get(recovers)).toEqual([0, 1]);
    expect(tries.get(givesUp)).toEqual([0, 1]);
  });

  it('a try that outlives expireInSeconds (its worker died) is retried', async (ctx) => {
    const { expect } = ctx;
    const { db, jobs } = await setup(ctx);
    const tries: number[] = [];
    const hang = deferred();
    ctx.onTestFinished(() => hang.resolve());
    await jobs.work('hangs', async (job) => {
      tries.push(job.retryCount);
      if (job.retryCount === 0) await hang.promise; // the first try never finishes, as if its process died
    });
    const id = (await jobs.send('hangs', {}, { expireInSeconds: 1, retryDelaySeconds: 1 }))!;
    await waitFor(async () => (await jobState(db, jobs.schema, id)) === 'completed', 30_000, 'the retry to complete');
    expect(tries).toEqual([0, 1]);
  });

  it('startAfter delays a job (a timer)', async (ctx) => {
    const { expect } = ctx;
    const { jobs } = await setup(ctx);
    const startAfter = new Date(Date.now() + 1500);
    let ranAt: number | undefined;
    await jobs.work('timer', async () => { ranAt = Date.now(); });
    await jobs.send('timer', {}, { startAfter });
    await waitFor(() => ranAt !== undefined, 20_000, 'the timer');
    expect(ranAt!).toBeGreaterThanOrEqual(startAfter.getTime());
  });

  it('singletonKey: a second send while one is queued is a no-op; after it ran, the key is free again', async (ctx) => {
    const { expect } = ctx;
    const { db, jobs } = await setup(ctx);
    const later = new Date(Date.now() + 60_000);
    const first = await jobs.send('single', {}, { singletonKey: 'conv-1', startAfter: later });
    expect(first).toEqual(expect.any(String));
    expect(await jobs.send('single', {}, { singletonKey: 'conv-1' })).toBeNull();
    expect(await db.transaction((tx) => jobs.send('single', {}, { singletonKey: 'conv-1' }, tx))).toBeNull();
    // Other keys and keyless sends are independent.
    expect(await jobs.send('single', {}, { singletonKey: 'conv-2', startAfter: later })).toEqual(expect.any(String));
    expect(await jobs.send('single', {}, { startAfter: later })).toEqual(expect.any(String));
    expect(await jobs.send('single', {}, { startAfter: later })).toEqual(expect.any(String));
    await jobs.cancel('single', first!);
    const again = await jobs.send('single', {}, { singletonKey: 'conv-1' });
    expect(again).toEqual(expect.any(String));
    expect(again).not.toBe(first);
  });

  it('cancel stops a queued timer; cancelling an unknown or finished job is a no-op', async (ctx) => {
    const { expect } = ctx;
    const { db, jobs } = await setup(ctx);
    const ran: string[] = [];
    await jobs.work('cancel-me', async (job) => { ran.push(job.id); });
    const timer = (await jobs.send('cancel-me', {}, { startAfter: new Date(Date.now() + 60_000) }))!;
    await jobs.cancel('cancel-me', timer);
    expect(await jobState(db, jobs.schema, timer)).toBe('cancelled');
    const now = (await jobs.send('cancel-me', {}))!;
    await waitFor(() => ran.includes(now), 15_000, 'the job');
    await waitFor(async () => (await jobState(db, jobs.schema, now)) === 'completed', 15_000, 'completion');
    await jobs.cancel('cancel-me', now);
    expect(await jobState(db, jobs.schema, now)).toBe('completed');
    await jobs.cancel('cancel-me', 'not-a-job-id');
    await jobs.cancel('no-such-queue', '00000000-0000-4000-8000-000000000000');
    expect(ran).toEqual([now]);
  });

  it('stop() waits for running handlers (drain), and a stopped queue refuses sends', async (ctx) => {
    const { expect } = ctx;
    const jobs = await testJobs(db);
    const started = deferred();
    const release = deferred();
    let finished = false;
    await jobs.work('drain', async () => {
      started.resolve();
      await release.promise;
      finished = true;
    });
    await jobs.send('drain', {});
    await started.promise;
    const stopping = jobs.stop();
    setTimeout(() => release.resolve(), 200);
    await stopping;
    expect(finished).toBe(true);
    await expect(jobs.send('drain', {})).rejects.toThrow(/stopped/);
  });
});
