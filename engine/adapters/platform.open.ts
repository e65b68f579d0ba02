import type { Logger } from 'pino';
import type { Config } from '../core/config.ts';
import type { NotificationBus } from '../ports/bus.ts';
import type { Db } from '../ports/db.ts';
import type { JobQueue } from '../ports/jobs.ts';
import type { Outbox } from '../ports/outbox.ts';
import { createBus } from '../platform/bus.ts';
import { createOutbox } from '../platform/outbox.ts';
import { openPgBossJobs, type PgBossJobsOptions } from './jobs.pgboss.ts';

/** The care platform's ports, open on one database. */
export interface Platform {
  jobs: JobQueue;
  outbox: Outbox;
  bus: NotificationBus;
  /** Stops the job queue first (drains running handlers, which may still publish), then the bus. Idempotent. */
  close(): Promise<void>;
}

export interface OpenPlatformOptions {
  config: Pick<Config, 'databaseUrl'>;
  /** The migrated app database (a root handle from db.pglite.ts or db.pg.ts); not closed by close(). */
  db: Db;
  log: Logger;
  /** Job queue tuning (tests shorten polls and the supervisor). */
  jobs?: Partial<Omit<PgBossJobsOptions, 'db' | 'log'>>;
}

/**
 * Opens the jobs, outbox and notification bus on the app's database (issue 34, item 1): PGlite
 * or PostgreSQL alike, whichever `db` is. pg-boss installs or upgrades its own schema (`pgboss`).
 */
export async function openPlatform(o: OpenPlatformOptions): Promise<Platform> {
  const bus = createBus(o.db);
  let jobs: JobQueue;
  try {
    jobs = await openPgBossJobs({ db: o.db, log: o.log, ...o.jobs });
  } catch (e) {
    await bus.close();
    throw e;
  }
  const outbox = createOutbox(o.db, bus);
  let closing: Promise<void> | undefined;
  return {
    jobs,
    outbox,
    bus,
    close: () => (closing ??= (async () => {
      try {
        await jobs.stop();
      } finally {
        await bus.close();
      }
    })()),
  };
}
