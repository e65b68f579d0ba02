/**
 * Job pickup latency (issue 34, item 1; STYLE.md 10: a script, not a timed test): the time from a
 * send inside a transaction (with its outbox event) to the handler starting, for N jobs, on PGlite
 * and on a throwaway PostgreSQL (when initdb is on PATH; the worker there is a second pg-boss
 * instance with its own pool and listener, as another server process would be).
 *
 * Each case runs one sender at a time (the latency a lone triage job sees) and `--senders` at once
 * (a burst). The baseline, in the same run, is the same queue woken by polling alone (no NOTIFY,
 * poll every 0.5 s, pg-boss's minimum), on fewer jobs.
 *
 *   node test/bench/jobs.bench.ts [--jobs 1000] [--senders 32] [--baseline-jobs 100]
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { openPgDb } from '../../engine/adapters/db.pg.ts';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import { openPgBossJobs } from '../../engine/adapters/jobs.pgboss.ts';
import { createOutbox } from '../../engine/platform/outbox.ts';
import type { Db } from '../../engine/ports/db.ts';
import type { JobQueue } from '../../engine/ports/jobs.ts';
import { migrate } from '../../engine/storage/migrate.ts';
import { realPostgresAvailable, startPgCluster } from '../helpers/pg-cluster.ts';

const { values: args } = parseArgs({ options: {
  jobs: { type: 'string', default: '1000' },
  senders: { type: 'string', default: '32' },
  'baseline-jobs': { type: 'string', default: '100' },
} });
const N = Number(args.jobs);
const SENDERS = Number(args.senders);
const BASELINE_N = Number(args['baseline-jobs']);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

interface Result { case: string; jobs: number; p50: number; p95: number; p99: number; max: number }

let queueNo = 0;
/** Sends `n` jobs from `senders` concurrent senders through `sender`; `worker` runs them. Returns pickup latencies (ms). */
async function measure(db: Db, sender: JobQueue, worker: JobQueue, n: number, senders: number): Promise<number[]> {
  const name = `bench_${++queueNo}`;
  const outbox = createOutbox(db);
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  let done!: () => void;
  const all = new Promise<void>((r) => { done = r; });
  await worker.work<{ i: number }>(name, async (job) => {
    if (job.data.i < 0) return;
    latencies.push(performance.now() - sentAt.get(job.data.i)!);
    if (latencies.length === n) done();
  }, { concurrency: 4 });
  await sender.send(name, { i: -1 }); // the sender learns the queue outside the measurement
  let next = 0;
  await Promise.all(Array.from({ length: senders }, async () => {
    while (next < n) {
      const i = next++;
      sentAt.set(i, performance.now());
      await db.transaction(async (tx) => {
        await outbox.append(tx, { event: 'triage_started', userId: 'bench', consultationId: `c${i}`, message: 'Triage started.' });
        await sender.send(name, { i }, {}, tx);
      });
      // A lone sender spaces its sends (a job that finds the worker idle). A burst's senders yield to
      // the event loop between sends, as HTTP requests do: PGlite answers synchronously inside its
      // promises, so a tight loop of transactions would starve every timer and socket of the process.
      await (senders === 1 ? new Promise((r) => setTimeout(r, 2)) : new Promise((r) => setImmediate(r)));
    }
  }));
  await all;
  return latencies;
}

function row(name: string, lat: number[]): Result {
  return { case: name, jobs: lat.length, p50: +pct(lat, 50).toFixed(1), p95: +pct(lat, 95).toFixed(1), p99: +pct(lat, 99).toFixed(1), max: +Math.max(...lat).toFixed(1) };
}

async function onPglite(results: Result[]): Promise<void> {
  const db = await openPgliteDb(undefined);
  await migrate(db);
  const jobs = await openPgBossJobs({ db, schema: 'bench_jobs' });
  results.push(row('PGlite, 1 sender', await measure(db, jobs, jobs, N, 1)));
  results.push(row(`PGlite, ${SENDERS} senders`, await measure(db, jobs, jobs, N, SENDERS)));
  await jobs.stop();
  const polling = await openPgBossJobs({ db, schema: 'bench_jobs_poll', wakeOnSend: false, pollSeconds: 0.5 });
  results.push(row('PGlite, 1 sender, baseline: polling only (0.5 s)', await measure(db, polling, polling, BASELINE_N, 1)));
  await polling.stop();
  await db.close();
}

async function onPostgres(results: Result[]): Promise<void> {
  const cluster = await startPgCluster();
  try {
    const url = await cluster.createDatabase();
    const a = await openPgDb(url, 10);
    const b = await openPgDb(url, 10);
    await migrate(a);
    const sender = await openPgBossJobs({ db: a, schema: 'bench_jobs' });
    const worker = await openPgBossJobs({ db: b, schema: 'bench_jobs' });
    results.push(row('PostgreSQL, 1 sender, worker in another instance', await measure(a, sender, worker, N, 1)));
    results.push(row(`PostgreSQL, ${SENDERS} senders, worker in another instance`, await measure(a, sender, worker, N, SENDERS)));
    await Promise.all([sender.stop(), worker.stop()]);
    const pollA = await openPgBossJobs({ db: a, schema: 'bench_jobs_poll', wakeOnSend: false, pollSeconds: 0.5 });
    const pollB = await openPgBossJobs({ db: b, schema: 'bench_jobs_poll', wakeOnSend: false, pollSeconds: 0.5 });
    results.push(row('PostgreSQL, 1 sender, baseline: polling only (0.5 s)', await measure(a, pollA, pollB, BASELINE_N, 1)));
    await Promise.all([pollA.stop(), pollB.stop()]);
    await a.close();
    await b.close();
  } finally {
    await cluster.stop();
  }
}

const results: Result[] = [];
console.log(`job pickup latency (send in a transaction -> handler start), ${cpus().length} cores, node ${process.version}`);
await onPglite(results);
if (realPostgresAvailable()) await onPostgres(results);
else console.log('(no initdb on PATH: PostgreSQL skipped)');
console.table(results);
for (const kind of ['PGlite', 'PostgreSQL']) {
  const fast = results.find((r) => r.case === `${kind}, 1 sender` || r.case === `${kind}, 1 sender, worker in another instance`);
  const base = results.find((r) => r.case.startsWith(`${kind}, 1 sender, baseline`));
  if (fast && base) console.log(`${kind}: p50 ${fast.p50} ms vs ${base.p50} ms polling (${(base.p50 / fast.p50).toFixed(0)}x)`);
}
