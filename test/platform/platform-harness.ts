/**
 * Shared set-up for the platform tests (jobs, outbox, bus): a fresh database per test on each
 * backend (test/storage/backends.ts), migrated, with a job queue tuned for a fast suite (short
 * polls, a supervisor every second) and its own pg-boss schema (the PGlite instance is shared).
 */
import type { Db } from '../../engine/ports/db.ts';
import type { JobQueue } from '../../engine/ports/jobs.ts';
import { migrate } from '../../engine/storage/migrate.ts';
import { openPgBossJobs, type PgBossJobsOptions } from '../../engine/adapters/jobs.pgboss.ts';
import type { Backend } from '../storage/backends.ts';

let schemas = 0;

/** A fresh migrated database on `backend`. */
export async function freshDb(backend: Backend): Promise<Db> {
  const db = await backend.open();
  await migrate(db);
  return db;
}

/** A job queue on `db` with test timings; `schema` lets two queues share one database. */
export async function testJobs(db: Db, opts: Partial<PgBossJobsOptions> = {}): Promise<JobQueue & { schema: string }> {
  const schema = opts.schema ?? `jobs_t${process.pid}_${++schemas}`;
  const jobs = await openPgBossJobs({ db, pollSeconds: 0.5, superviseSeconds: 1, stopTimeoutMs: 5_000, ...opts, schema });
  return Object.assign(jobs, { schema });
}

/** The pg-boss state of job `id` (created, retry, active, completed, cancelled, failed), or null. */
export async function jobState(db: Db, schema: string, id: string): Promise<string | null> {
  const { rows } = await db.query<{ state: string }>(`SELECT state::text AS state FROM ${schema}.job WHERE id = $1`, [id]);
  return rows[0]?.state ?? null;
}

/** Resolves once `cond()` holds; rejects after `ms` (a failure guard, not a timing assertion). */
export async function waitFor(cond: () => boolean | Promise<boolean>, ms = 15_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A promise with its resolve, for handlers a test holds open. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}
