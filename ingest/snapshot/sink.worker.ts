/**
 * A finalize writer's thread (sink-worker.ts): makes the Sink its kind names from the init
 * message, hands it each batch in order, acknowledges them, and posts its result at the end.
 * No DuckDB here.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { GroupSink, type GroupsInit } from './group-tables.ts';
import { RatesSink, type RatesInit } from './rates-write.ts';
import type { FromSink, Sink, SinkKind, ToSink } from './sink-worker.ts';

const port = parentPort!;
const { kind } = workerData as { kind: SinkKind };
let sink: Sink<unknown> | null = null;
let failed = false;
let queue = Promise.resolve();
const post = (m: FromSink, transfer?: ArrayBuffer[]): void => port.postMessage(m, transfer);

function make(init: unknown): Sink<unknown> {
  switch (kind) {
    case 'rates': return new RatesSink(init as RatesInit);
    case 'groups': return new GroupSink(init as GroupsInit);
  }
}

async function handle(m: ToSink): Promise<void> {
  if (failed && m.t !== 'abort') return;
  switch (m.t) {
    case 'init':
      sink = make(m.init);
      return;
    case 'add':
      if (!sink) throw new Error(`${kind} writer: a batch before init`);
      await sink.add(m.batch);
      if (m.ack) {
        // Handed back only when it has buffers to move (a batch of strings would be copied back for nothing).
        const give = sink.transferOf?.(m.batch) ?? [];
        post({ t: 'ack', batch: give.length > 0 ? m.batch : null }, give);
      }
      return;
    case 'end':
      if (!sink) throw new Error(`${kind} writer: ended before init`);
      post({ t: 'done', result: await sink.end() });
      port.close();
      return;
    case 'abort':
      await sink?.abort();
      post({ t: 'aborted' });
      port.close();
      return;
  }
}

port.on('message', (m: ToSink) => {
  queue = queue.then(() => handle(m)).catch(async (e: unknown) => {
    failed = true;
    await sink?.abort().catch(() => undefined);
    post({ t: 'error', message: (e as Error).message ?? String(e) });
  });
});
