/**
 * The parse helper (ingest/tic/offload.ts): a worker thread that reads and stages part of a large
 * file's records while the parse thread goes on with the rest, so one file's parse runs on two
 * cores (issue 3, item 9).
 *
 * - The parse thread captures a record's bytes (instead of reading it) when the helper's backlog
 *   is below BACKLOG_BYTES, and packs them into batches of BATCH_BYTES, which are transferred,
 *   not copied. Past the backlog it reads records itself, so neither thread waits for the other.
 * - The helper (parse-helper.worker.ts) reads each record as the parse thread would
 *   (TicAssembler.rateFromBytes / referenceFromBytes) into a TicStager of its own: ids from
 *   HELPER_ID_BASE up, its numbers into prices.1.parquet / group_npis.1.bin beside the file's
 *   own, its rows recorded and posted back after each batch, which the parse thread appends to the
 *   file's DuckDB staging tables (DuckDB stays on one thread: a DuckDB instance in a worker cost
 *   400 MiB more, schemas/README.md).
 * - It starts only once the parse is START_BYTES into the file, or at once when the source's size
 *   (a local file's, a Content-Length) says the parse will get that far: small files never pay for
 *   a worker.
 *   One runs at a time in a run (HelperTurn: files parsed side by side, `--concurrency`, take
 *   turns, first come, first served): a second one would only contend for the same two cores, with
 *   a heap of its own.
 *
 * The staged rows are the same as without the helper, up to ids and duplicates that finalize merges
 * by content (an item, price description or group staged by both threads). Warning examples are the
 * parse thread's first, then the helper's; the first error in the file is reported (offload.ts
 * firstError).
 */
import { Worker } from 'node:worker_threads';
import { TicParseError, type TicParseErrorReason } from '../tic/records.ts';
import type { OffloadStats, Offloader, RateHeader } from '../tic/offload.ts';
import type { TicFileWriter } from './tic-file-writer.ts';
import type { HelperStaged, RowValue } from './stage-rows.ts';
import type { StageTable } from './tic-stager.ts';
import type { WarningSummary } from '../report/warnings.ts';

/** Uncompressed bytes into a file before a helper starts (a worker costs ~0.2 s to start). */
export const START_BYTES = 32 * 1024 * 1024;
/** Bytes handed over and not yet staged above which the parse thread reads records itself. */
const BACKLOG_BYTES = 8 * 1024 * 1024;
/** Bytes of records per message. */
const BATCH_BYTES = 1024 * 1024;
/**
 * The helper's young generation. Without a limit its heap grew to ~200 MB; with 16 MB it stays
 * under ~100 MB at the same speed (10 M prices, measured 2026-11-22: peak RSS 900-955 -> 830-848
 * MiB). V8 does not give a worker's heap back to the OS when the worker ends, so it counts until
 * the process exits.
 */
const YOUNG_MB = 16;

/** Messages to the helper. */
export type ToHelper =
  | { type: 'batch'; bytes: Uint8Array; used: number; recs: Float64Array; headers: RateHeader[] }
  | { type: 'end' };
/** Messages from the helper. */
export type FromHelper =
  | { type: 'rows'; tables: Partial<Record<StageTable, RowValue[]>>; used: number; bytes: Uint8Array; prices: number }
  | { type: 'done'; stats: OffloadStats; staged: HelperStaged }
  | { type: 'error'; message: string; byteOffset: number; reason: TicParseErrorReason; warnings: WarningSummary }
  | { type: 'fatal'; message: string; warnings: WarningSummary };

/**
 * Record kinds in a batch's `recs` (REC_WORDS numbers a record: kind, start, end, header, file end,
 * nesting room (runs only)).
 */
export const REC_RATE = 0;
export const REC_REFERENCE = 1;
/** Runs of records (fast-parser.ts handRun): read and checked by ratesFromRun / referencesFromRun. */
export const REC_RATE_RUN = 2;
export const REC_REFERENCE_RUN = 3;
export const REC_WORDS = 6;

/** Overrides of the constants above (tests start at 0, with small batches and backlog). */
export interface ParseHelperTuning {
  startBytes?: number;
  batchBytes?: number;
  backlogBytes?: number;
  /** Runs of records found without reading them (offload.ts Offloader.rates); default on. */
  runs?: boolean;
}

export interface ParseHelperOptions extends ParseHelperTuning {
  /** Shared with the other files of the run; absent, this helper takes turns with no other. */
  turn?: HelperTurn;
  writer: TicFileWriter;
  src: string;
  /** The file's staging directory (partial/<file_key>), where the helper writes its Parquet. */
  dir: string;
}

/**
 * The worker runs its TypeScript through Node's own type stripping where Node has it on (the pinned
 * Node 24 does; the code base is erasable syntax only, tsconfig's erasableSyntaxOnly), else tsx.
 */
const workerUrl = new URL((process.features as { typescript?: unknown }).typescript ? './parse-helper.worker.ts' : './parse-helper.worker.mjs', import.meta.url);

/** Whose turn it is to run a helper: runIngest shares one among its files (see the module comment). */
export class HelperTurn {
  taken = false;
}

export class ParseHelper implements Offloader {
  private worker: Worker | null = null;
  private buf: Uint8Array;
  private used = 0;
  private recs: number[] = [];
  private headers: RateHeader[] = [];
  private lastHeader: RateHeader | null = null;
  private readonly spare: Uint8Array[] = [];
  private inflight = 0;
  private error: Error | null = null;
  private closed = false;
  private released = false;
  private finished: Promise<OffloadStats> | null = null;
  private settle: { resolve: (s: OffloadStats) => void; reject: (e: Error) => void } | null = null;
  private startBytes: number;
  private readonly batchBytes: number;
  private readonly backlogBytes: number;
  private readonly turn: HelperTurn;
  private readonly o: ParseHelperOptions;

  constructor(o: ParseHelperOptions) {
    this.o = o;
    this.turn = o.turn ?? new HelperTurn();
    this.startBytes = o.startBytes ?? START_BYTES;
    this.batchBytes = o.batchBytes ?? BATCH_BYTES;
    this.backlogBytes = o.backlogBytes ?? BACKLOG_BYTES;
    this.runBytes = o.runs === false ? 0 : this.batchBytes;
    this.buf = new Uint8Array(0);
  }

  /** Bytes of records handed over so far. */
  handed = 0;
  /** Runs of records handed over so far (a parse error after one is retried without: process-file.ts). */
  runs = 0;
  readonly runBytes: number;
  /** Prices the helper has staged so far (progress; its counts join the file's at the end). */
  prices = 0;
  /** The warnings the helper had counted when it failed (the file's report keeps them). */
  failedWarnings: WarningSummary | null = null;

  /**
   * The source's size in bytes, when known (a local file's, an HTTP Content-Length; compressed, so
   * at most the parse's length): a source of START_BYTES or more is parsed past START_BYTES for
   * sure, so its helper starts now, while the parse thread reads the first records, instead of
   * once the parse is START_BYTES in. Measured 2026-11-23 on the 1 GiB benchmark file: its first
   * second ran on 1.3-1.6 cores before (one parse thread, then the worker starting), 1.7-2.0 now.
   */
  expectBytes(size: number | null | undefined): void {
    if (size == null || size < this.startBytes || this.closed) return;
    this.startBytes = 0;
    if (this.worker === null && !this.turn.taken) this.start();
  }

  open(at: number): boolean {
    if (this.error) throw this.error;
    if (this.closed || at < this.startBytes) return false;
    if (this.worker === null) {
      if (this.turn.taken) return false;
      this.start();
    }
    return this.inflight + this.used < this.backlogBytes;
  }

  // A record larger than a batch is read by the parse thread: handing it over would cost a copy as
  // large as itself and a batch of its own (a record may be up to maxRecordBytes, 256 MiB).
  rate(h: RateHeader, bytes: Uint8Array, end: number): boolean {
    if (bytes.length > this.batchBytes) return false;
    this.room(bytes.length); // a new batch starts its own list of headers
    if (h !== this.lastHeader) {
      this.lastHeader = h;
      this.headers.push(h);
    }
    this.add(REC_RATE, bytes, end, this.headers.length - 1);
    return true;
  }

  reference(bytes: Uint8Array, end: number): boolean {
    if (bytes.length > this.batchBytes) return false;
    this.add(REC_REFERENCE, bytes, end, -1);
    return true;
  }

  rates(h: RateHeader, bytes: Uint8Array, end: number, room: number): boolean {
    if (bytes.length > this.runBytes) return false;
    this.room(bytes.length);
    if (h !== this.lastHeader) {
      this.lastHeader = h;
      this.headers.push(h);
    }
    this.add(REC_RATE_RUN, bytes, end, this.headers.length - 1, room);
    this.runs++;
    return true;
  }

  references(bytes: Uint8Array, end: number, room: number): boolean {
    if (bytes.length > this.runBytes) return false;
    this.add(REC_REFERENCE_RUN, bytes, end, -1, room);
    this.runs++;
    return true;
  }

  finish(): Promise<OffloadStats> {
    this.finished ??= this.end();
    return this.finished;
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    if (w) await w.terminate();
    this.release();
  }

  /** Lets another file start a helper (once this one's worker is gone). */
  private release(): void {
    if (this.worker !== null && !this.released) {
      this.released = true;
      this.turn.taken = false;
    }
  }

  private start(): void {
    this.turn.taken = true;
    this.worker = new Worker(workerUrl, { workerData: { src: this.o.src, dir: this.o.dir }, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } });
    this.worker.on('message', (m: FromHelper) => this.onMessage(m));
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => this.fail(new Error(`the parse helper stopped (exit code ${code})`)));
  }

  /** Makes room for `n` more bytes in the batch (posting it when full). */
  private room(n: number): void {
    if (this.used + n > this.buf.length) this.flush();
  }

  private add(kind: number, bytes: Uint8Array, end: number, header: number, room = 0): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.used);
    this.recs.push(kind, this.used, this.used + bytes.length, header, end, room);
    this.used += bytes.length;
    this.handed += bytes.length;
  }

  /** Posts the records gathered so far (if any) and takes a fresh batch buffer. */
  private flush(): void {
    if (this.recs.length > 0) {
      const msg: ToHelper = { type: 'batch', bytes: this.buf, used: this.used, recs: Float64Array.from(this.recs), headers: this.headers };
      this.worker!.postMessage(msg, [this.buf.buffer as ArrayBuffer]);
      this.inflight += this.used;
    }
    this.buf = this.spare.pop() ?? new Uint8Array(this.batchBytes);
    this.used = 0;
    this.recs = [];
    this.headers = [];
    this.lastHeader = null;
  }

  private async end(): Promise<OffloadStats> {
    if (this.worker === null) return { rates: 0, prices: 0, providerReferences: 0, warnings: {} as OffloadStats['warnings'] };
    if (this.error) throw this.error;
    const done = new Promise<OffloadStats>((resolve, reject) => { this.settle = { resolve, reject }; });
    this.flush();
    this.worker.postMessage({ type: 'end' } satisfies ToHelper);
    return done;
  }

  private onMessage(m: FromHelper): void {
    try {
      switch (m.type) {
        case 'rows':
          for (const [table, values] of Object.entries(m.tables)) this.o.writer.appendRecorded(table as StageTable, values);
          this.inflight -= m.used;
          this.prices = m.prices;
          if (m.bytes.length === this.batchBytes && this.spare.length < 2) this.spare.push(m.bytes);
          return;
        case 'done': {
          this.o.writer.absorb(m.staged);
          this.worker?.removeAllListeners('exit');
          // Its thread and heap are gone before the file's DuckDB work starts (finish()).
          const settle = this.settle;
          this.worker?.terminate().then(() => { this.release(); settle?.resolve(m.stats); }, (e: unknown) => settle?.reject(e as Error));
          return;
        }
        case 'error':
          this.failedWarnings = m.warnings;
          return this.fail(new TicParseError(m.message, m.byteOffset, m.reason));
        case 'fatal':
          this.failedWarnings = m.warnings;
          return this.fail(new Error(`parse helper: ${m.message}`));
      }
    } catch (err) {
      this.fail(err as Error);
    }
  }

  private fail(e: Error): void {
    this.error ??= e;
    this.worker?.removeAllListeners('exit');
    this.settle?.reject(this.error);
  }
}
