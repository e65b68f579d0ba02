/**
 * The parse helper's worker (parse-helper.ts): reads the records the parse thread hands over, as the
 * parse thread would, into a stager of its own, and posts the staged rows back after each batch.
 * No DuckDB here.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { TicAssembler } from '../tic/assembler.ts';
import { TicParseError } from '../tic/records.ts';
import { STAGE_TABLES } from './staged-layout.ts';
import { TicStager, type StageTable } from './tic-stager.ts';
import { RowRecorder, type HelperStaged, type RowValue } from './stage-rows.ts';
import { REC_RATE, REC_RATE_RUN, REC_REFERENCE, REC_WORDS, type FromHelper, type ToHelper } from './parse-helper.ts';
import { collectIfLarge } from './gc.ts';

/** Batch bytes between two looks at the heap's size (gc.ts collectIfLarge, as on the parse thread). */
const GC_CHECK_BYTES = 16 * 1024 * 1024;

class HelperStager extends TicStager {
  private readonly recorders: Map<StageTable, RowRecorder>;

  constructor(src: string, dir: string, recorders: Map<StageTable, RowRecorder>) {
    super({ src, dir }, (name) => recorders.get(name)!, true);
    this.recorders = recorders;
  }

  /** The rows recorded since the last call, by table. */
  takeRows(): Partial<Record<StageTable, RowValue[]>> {
    const out: Partial<Record<StageTable, RowValue[]>> = {};
    for (const [name, r] of this.recorders) {
      const v = r.take();
      if (v) out[name] = v;
    }
    return out;
  }

  async close(): Promise<HelperStaged> {
    await this.prices.close();
    this.groupNpis.close();
    return { counts: this.counts, warnings: this.tally.entries, remote: this.remote, pricesPath: this.prices.path };
  }

  async abort(): Promise<void> {
    this.groupNpis.abort();
    await this.prices.abort();
  }
}

const port = parentPort!;
const { src, dir } = workerData as { src: string; dir: string };
const recorders = new Map<StageTable, RowRecorder>(Object.keys(STAGE_TABLES).map((t) => [t as StageTable, new RowRecorder()]));
const stager = new HelperStager(src, dir, recorders);
let at = 0;
const asm = new TicAssembler(stager, { at: () => at });
const setAt = (offset: number): void => { at = offset; };
let failed = false;
let sinceGc = 0;
const post = (m: FromHelper, transfer?: ArrayBuffer[]): void => port.postMessage(m, transfer);

function fail(e: unknown): void {
  failed = true;
  if (e instanceof TicParseError) {
    const suffix = ` at byte ${e.byteOffset}`;
    const message = e.message.endsWith(suffix) ? e.message.slice(0, -suffix.length) : e.message;
    post({ type: 'error', message, byteOffset: e.byteOffset, reason: e.reason, warnings: stager.warnings() });
  } else post({ type: 'fatal', message: (e as Error).message || String(e), warnings: stager.warnings() });
  void stager.abort();
}

/**
 * Messages are queued and handled one per turn of the event loop. A MessagePort delivers up to
 * 1,000 waiting messages in one go, and the parse thread keeps some waiting; handled in one go they
 * kept this thread from its event loop, where V8 runs its garbage collector's tasks, and the heap
 * grew (1 GiB file, measured 2026-11-22: peak RSS 815-916 MiB against 743-754 queued).
 */
const queue: ToHelper[] = [];
port.on('message', (m: ToHelper) => {
  queue.push(m);
  if (queue.length === 1) setImmediate(next);
});

function next(): void {
  const m = queue.shift();
  if (m === undefined) return;
  handle(m);
  if (queue.length > 0) setImmediate(next);
}

function handle(m: ToHelper): void {
  if (m.type === 'batch') {
    if (!failed) {
      try {
        const { bytes, recs, headers } = m;
        for (let k = 0; k < recs.length; k += REC_WORDS) {
          at = recs[k + 4]!;
          const b = bytes.subarray(recs[k + 1], recs[k + 2]);
          const kind = recs[k]!;
          if (kind === REC_RATE) asm.rateFromBytes(headers[recs[k + 3]!]!, b);
          else if (kind === REC_REFERENCE) asm.referenceFromBytes(b);
          else if (kind === REC_RATE_RUN) asm.ratesFromRun(headers[recs[k + 3]!]!, b, at - b.length, recs[k + 5]!, setAt);
          else asm.referencesFromRun(b, at - b.length, recs[k + 5]!, setAt);
        }
      } catch (e) {
        fail(e);
      }
    }
    post({ type: 'rows', tables: failed ? {} : stager.takeRows(), used: m.used, bytes: m.bytes, prices: stager.counts.prices }, [m.bytes.buffer as ArrayBuffer]);
    sinceGc += m.used;
    if (sinceGc >= GC_CHECK_BYTES) { sinceGc = 0; collectIfLarge(); }
    return;
  }
  if (failed) return;
  stager.close().then(
    (staged) => {
      const s = asm.stats;
      post({ type: 'done', stats: { rates: s.rates, prices: s.prices, providerReferences: s.providerReferences, warnings: s.warnings }, staged });
    },
    (e: unknown) => fail(e),
  );
}
