import type { Db } from './db.ts';

/** A job handed to a worker. `data` is the JSON the sender passed; parse it with the job's zod schema. */
export interface Job<T = unknown> {
  id: string;
  name: string;
  data: T;
  /** 0 on the first try; the queue retries a handler that throws, up to the send's `retryLimit`. */
  retryCount: number;
}

export interface SendOptions {
  /** Run no earlier than this (a timer: payment-link lapse, care-job expiry, matching time-out). */
  startAfter?: Date;
  /** At most one queued-or-active job per (name, key): a second send with the key is a no-op returning null. */
  singletonKey?: string;
  /** Retries after a failure (default 2), with exponential backoff from `retryDelaySeconds` (default 1). */
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** Give up on a running try after this long (default 60). */
  expireInSeconds?: number;
}

/**
 * Durable job queue and timers on the transactional database (PGlite or PostgreSQL; adapter:
 * engine/adapters/jobs.pgboss.ts). Jobs survive a restart: a job whose worker died is retried
 * once its try expires. Handlers must therefore be idempotent (a job can run more than once).
 */
export interface JobQueue {
  /**
   * Enqueues `name` with `data`. With `tx`, the job is written inside that transaction, so it exists
   * if and only if the caller's change commits (the outbox rule). Returns the job id, or null when
   * a singleton with the same key is already queued.
   */
  send(name: string, data: object, opts?: SendOptions, tx?: Db): Promise<string | null>;
  /** Registers the worker for `name` (one per name per process). Resolves once polling started. */
  work<T = unknown>(name: string, handler: (job: Job<T>) => Promise<void>, opts?: { concurrency?: number }): Promise<void>;
  /** Cancels a queued job (a timer no longer needed); no-op when it already ran or is unknown. */
  cancel(name: string, id: string): Promise<void>;
  /** Stops fetching and waits for running handlers (graceful drain). */
  stop(): Promise<void>;
}
