/**
 * Finalize's writers on worker threads: the JS thread streams rows out of DuckDB and posts them in
 * batches to a Sink on a worker, which turns them into Parquet files (parquet-write.ts). Two run
 * at once, the rates (rates-write.ts) and provider_groups + group_members (group-tables.ts): on
 * the JS thread they took turns, and each waited for DuckDB's chunks while the other ran (the
 * rates' 2,400 chunk fetches waited ~2.1 s in all, measured 2026-11-23; schemas/README.md item 33).
 *
 * SinkWorker is the JS thread's side: batches posted with `add` count against a bound until the
 * worker acknowledges them (handing back their buffers when they were transferred), so a slow
 * writer holds the reading back instead of the batches piling up in memory. The worker's side is
 * sink.worker.ts.
 */
import { Worker } from 'node:worker_threads';

/** The sinks a worker can run (sink.worker.ts makes them). */
export type SinkKind = 'rates' | 'groups';

/** The worker's side of one run: given batches in order, then ended (or aborted). */
export interface Sink<B> {
  add(batch: B): void | Promise<void>;
  end(): Promise<unknown>;
  abort(): Promise<void>;
  /** A batch's buffers to hand back with its acknowledgement (transferred, not copied). */
  transferOf?(batch: B): ArrayBuffer[];
}

export type ToSink = { t: 'init'; init: unknown } | { t: 'add'; batch: unknown; ack: boolean } | { t: 'end' } | { t: 'abort' };
export type FromSink = { t: 'ack'; batch: unknown } | { t: 'done'; result: unknown } | { t: 'error'; message: string } | { t: 'aborted' };

/**
 * The worker runs its TypeScript through Node's own type stripping where Node has it on (the
 * pinned Node 24 does), not tsx, whose loader cost each thread ~0.05 CPU-seconds more to start
 * (185 against 135 ms for a round trip, measured 2026-11-23): its modules use erasable syntax only
 * (no parameter properties, no enums) and load no DuckDB. An older Node goes through tsx.
 */
const workerUrl = new URL((process.features as { typescript?: unknown }).typescript ? './sink.worker.ts' : './sink.worker.mjs', import.meta.url);

/** Batches acknowledged-bound posted at once at most, by default. */
const IN_FLIGHT = 4;

export class SinkWorker<B, R> {
  private readonly worker: Worker;
  private failure: Error | null = null;
  private done: { resolve: (r: R) => void; reject: (e: Error) => void } | null = null;
  private readonly returned: B[] = [];
  private waiting: (() => void) | null = null;
  private inFlight = 0;
  private exited = false;

  readonly kind: SinkKind;
  private readonly maxInFlight: number;

  /** Starts the thread at once: it loads its modules while the caller prepares the first batch. */
  constructor(kind: SinkKind, maxInFlight = IN_FLIGHT) {
    this.kind = kind;
    this.maxInFlight = maxInFlight;
    this.worker = new Worker(workerUrl, { workerData: { kind }, execArgv: [] });
    this.worker.on('message', (m: FromSink) => this.onMessage(m));
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => {
      this.exited = true;
      this.fail(new Error(`the ${kind} writer's thread stopped (exit code ${code})`));
    });
  }

  private onMessage(m: FromSink): void {
    if (m.t === 'ack') {
      if (m.batch !== undefined && m.batch !== null) this.returned.push(m.batch as B);
      this.inFlight--;
      this.wake();
    } else if (m.t === 'done') {
      this.done?.resolve(m.result as R);
      this.done = null;
    } else if (m.t === 'error') {
      this.fail(new Error(m.message));
    }
  }

  private fail(e: Error): void {
    this.failure ??= e;
    this.done?.reject(this.failure);
    this.done = null;
    this.wake();
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = null;
    w?.();
  }

  private post(m: ToSink, transfer?: ArrayBuffer[]): void {
    if (this.failure) throw this.failure;
    this.worker.postMessage(m, transfer);
  }

  /** What the sink is made from (before any batch). */
  init(init: unknown): void {
    this.post({ t: 'init', init });
  }

  /**
   * Posts a batch (its `transfer` buffers moved, not copied). With `ack`, it counts against the
   * bound until the worker has taken it: resolves once fewer than the bound are on their way.
   */
  async add(batch: B, transfer?: ArrayBuffer[], ack = true): Promise<void> {
    this.post({ t: 'add', batch, ack }, transfer);
    if (!ack) return;
    this.inFlight++;
    while (this.inFlight >= this.maxInFlight && !this.failure) await new Promise<void>((resolve) => { this.waiting = resolve; });
    if (this.failure) throw this.failure;
  }

  /** A batch the worker handed back (its buffers, to fill again), if any. */
  reuse(): B | undefined {
    return this.returned.pop();
  }

  /** Ends the input: resolves with the sink's result once it has written everything. */
  async end(): Promise<R> {
    const result = new Promise<R>((resolve, reject) => { this.done = { resolve, reject }; });
    this.post({ t: 'end' });
    return await result;
  }

  /** Ends the thread: after end(), or else aborting the sink (its open files removed) first. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    if (this.failure) {
      await this.worker.terminate();
    } else {
      try { this.worker.postMessage({ t: 'abort' } satisfies ToSink); } catch { await this.worker.terminate(); }
    }
    await exited;
  }
}
