import { randomUUID } from 'node:crypto';
import { PgBoss, fromPglite, type ConstructorOptions, type Db as IDatabase } from 'pg-boss';
import type { Logger } from 'pino';
import type { Db } from '../ports/db.ts';
import type { Job, JobQueue, SendOptions } from '../ports/jobs.ts';
import { pgConnectionString } from './db.pg.ts';
import { pgliteInstance } from './db.pglite.ts';

export interface PgBossJobsOptions {
  /** The app's database: pg-boss shares PGlite's one connection, or opens its own small pool on PostgreSQL. */
  db: Db;
  log?: Logger;
  /** The schema pg-boss owns (default `pgboss`). */
  schema?: string;
  /**
   * Backstop poll, seconds (default 1, minimum 0.5). A send wakes the workers at once through
   * NOTIFY; polling is what finds timers (`startAfter`) and retries as they fall due.
   */
  pollSeconds?: number;
  /**
   * How often expired tries are failed and retried (default 10 s; tests use 1). pg-boss expires a
   * queue's tries in its monitor pass, which runs at most every monitorIntervalSeconds (its default
   * is 60 s): both are set from this, so a try whose process died is retried within about
   * expireInSeconds + this.
   */
  superviseSeconds?: number;
  /** How long stop() waits for running handlers (default 30 s). */
  stopTimeoutMs?: number;
  /** Wake workers through NOTIFY on send (default true); false = polling only (the benchmark's baseline). */
  wakeOnSend?: boolean;
  /** Queues to create at start (a transactional send on PGlite needs its queue to exist already). */
  queues?: readonly string[];
}

const DEFAULTS = { retryLimit: 2, retryDelaySeconds: 1, expireInSeconds: 60 } as const;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A caller's transaction as a pg-boss connection: its statements are single and parameterized. */
function txDatabase(tx: Db): IDatabase {
  return { executeSql: async (text, values) => ({ rows: (await tx.query(text, values ?? [])).rows }) };
}

/**
 * JobQueue on pg-boss 12 (engine/ports/jobs.ts), on PGlite through pg-boss's own PGlite adapter
 * (one connection, shared) or on PostgreSQL through a pool of its own.
 *
 * - Wake on send: every queue is created with `notify`, so the job insert carries a `pg_notify`
 *   in the sender's transaction; with `useListenNotify` every process's workers fetch at once on
 *   commit (pickup in milliseconds, docs/performance-log.md) and polling is the backstop.
 * - `singletonKey`: queues use pg-boss's `exclusive` policy (one created/retry/active job per key).
 *   A send without a key gets a random one, so only keyed sends ever collide.
 * - A job whose worker died stays `active` until its try expires; the supervisor then retries it.
 */
export async function openPgBossJobs(o: PgBossJobsOptions): Promise<JobQueue> {
  const pollSeconds = Math.max(0.5, o.pollSeconds ?? 1);
  const pglite = pgliteInstance(o.db);
  const url = pglite ? undefined : pgConnectionString(o.db);
  if (!pglite && !url) throw new Error('openPgBossJobs: db must be a root Db from db.pglite.ts or db.pg.ts');
  const common: ConstructorOptions = {
    schema: o.schema ?? 'pgboss',
    useListenNotify: o.wakeOnSend ?? true,
    schedule: false,
    superviseIntervalSeconds: o.superviseSeconds ?? 10,
    monitorIntervalSeconds: o.superviseSeconds ?? 10,
    persistWarnings: false,
  };
  const boss = new PgBoss(pglite
    // PGlite has one connection: no instance-registry heartbeats competing with requests for it.
    ? { ...common, db: fromPglite(pglite), backend: 'pglite', registerInstance: false }
    : { ...common, connectionString: url!, max: 4, application_name: 'carebridge-jobs' });
  boss.on('error', (err) => o.log?.error({ err }, 'job queue error'));
  boss.on('warning', (w) => o.log?.warn({ warning: w }, 'job queue warning'));
  await boss.start();

  const known = new Set((await boss.getQueues()).map((q) => q.name));
  const creating = new Map<string, Promise<void>>();
  const createQueue = async (name: string) => {
    await boss.createQueue(name, {
      policy: 'exclusive', notify: o.wakeOnSend ?? true, retryLimit: DEFAULTS.retryLimit, retryDelay: DEFAULTS.retryDelaySeconds,
      retryBackoff: true, expireInSeconds: DEFAULTS.expireInSeconds,
    });
    // Loads the new queue into pg-boss's queue cache now: a later send inside a PGlite transaction
    // must not need a query outside it (that would wait on the transaction's own connection).
    await boss.cancel(name, randomUUID());
    known.add(name);
  };
  // Concurrent first sends to a new queue create it once.
  const ensureQueue = async (name: string) => {
    if (known.has(name)) return;
    let p = creating.get(name);
    if (!p) {
      p = createQueue(name).finally(() => creating.delete(name));
      creating.set(name, p);
    }
    await p;
  };
  for (const q of o.queues ?? []) await ensureQueue(q);
  const stopped = { value: false };

  return {
    async send(name: string, data: object, opts: SendOptions = {}, tx?: Db) {
      if (stopped.value) throw new Error('the job queue is stopped');
      if (!known.has(name) && tx && pglite) {
        throw new Error(`job queue ${name} does not exist yet: register its worker (or list it in queues) at start-up before sending to it inside a transaction`);
      }
      await ensureQueue(name);
      const id = await boss.send(name, data, {
        singletonKey: opts.singletonKey !== undefined ? `k:${opts.singletonKey}` : `r:${randomUUID()}`,
        retryLimit: opts.retryLimit ?? DEFAULTS.retryLimit,
        retryDelay: opts.retryDelaySeconds ?? DEFAULTS.retryDelaySeconds,
        retryBackoff: true,
        expireInSeconds: opts.expireInSeconds ?? DEFAULTS.expireInSeconds,
        ...(opts.startAfter ? { startAfter: opts.startAfter } : {}),
        ...(tx ? { db: txDatabase(tx) } : {}),
      });
      return id ?? null;
    },

    async work<T>(name: string, handler: (job: Job<T>) => Promise<void>, opts: { concurrency?: number } = {}) {
      await ensureQueue(name);
      // One pg-boss worker per slot, each knowing its own id: after a job it asks for an immediate
      // fetch (notifyWorker). pg-boss otherwise sleeps the poll interval after every job at batch
      // size 1, so a backlog would drain at one job per slot per poll (measured: 4 jobs/s).
      for (let i = 0; i < Math.max(1, opts.concurrency ?? 2); i++) {
        const self: { id?: string } = {};
        self.id = await boss.work<T>(name, {
          batchSize: 1, localConcurrency: 1, pollingIntervalSeconds: pollSeconds, notifyPollingIntervalSeconds: pollSeconds,
        }, async ([job]) => {
          try {
            if (job) await handler({ id: job.id, name: job.name, data: job.data, retryCount: job.retryCount });
          } finally {
            if (self.id) boss.notifyWorker(self.id);
          }
        });
      }
    },

    async cancel(name: string, id: string) {
      if (!UUID_RE.test(id) || !known.has(name)) return;
      await boss.cancel(name, id);
    },

    async stop() {
      stopped.value = true;
      await boss.stop({ graceful: true, close: true, timeout: o.stopTimeoutMs ?? 30_000 });
    },
  };
}
