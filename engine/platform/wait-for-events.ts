import type { NotificationBus } from '../ports/bus.ts';
import type { Outbox, StoredEvent } from '../ports/outbox.ts';
import { conversationTopic, userTopic } from './outbox.ts';

export interface WaitForEventsQuery {
  /** Wait on one conversation's events (its bus topic), or else on all of `userId`'s. */
  consultationId?: string;
  userId?: string;
  /** Only events after this seq (exclusive); default: from now, i.e. the newest at the call. */
  afterSeq?: string;
  /** Which events end the wait (default: any). */
  match?: (e: StoredEvent) => boolean;
  /** Give up after this long and return []. */
  timeoutMs: number;
  /** Ends the wait early with [] (the request went away, the server is closing). */
  signal?: AbortSignal;
  /** Re-read this often even without a wake-up, in case one was lost (default 5 s). */
  pollMs?: number;
}

/**
 * Waits until the outbox holds a matching event after `afterSeq`, woken by the bus (for
 * `waitForReply`: service-spec.md, Conversations). Subscribes before the first read, so an event
 * committed between the read and the wait still wakes it; a wake-up is only a reason to re-read.
 * Returns the matching events, oldest first, or [] on time-out or abort.
 */
export async function waitForEvents(deps: { outbox: Outbox; bus: NotificationBus }, q: WaitForEventsQuery): Promise<StoredEvent[]> {
  if (!q.consultationId && !q.userId) throw new Error('waitForEvents: consultationId or userId is required');
  const filter = q.consultationId ? { consultationId: q.consultationId } : { userId: q.userId! };
  const topic = q.consultationId ? conversationTopic(q.consultationId) : userTopic(q.userId!);
  let wake: () => void = () => undefined;
  let woken = false;
  const unsubscribe = await deps.bus.subscribe(topic, () => { woken = true; wake(); });
  const deadline = Date.now() + q.timeoutMs;
  const onAbort = () => wake();
  q.signal?.addEventListener('abort', onAbort);
  try {
    let after = q.afterSeq ?? await latestSeq(deps.outbox, filter);
    while (!q.signal?.aborted) {
      woken = false;
      for (;;) {
        const page = await deps.outbox.list({ ...filter, ...(after ? { afterSeq: after } : {}), limit: 100 });
        const hits = q.match ? page.filter(q.match) : page;
        if (hits.length) return hits;
        if (!page.length) break;
        after = page[page.length - 1]!.seq;
      }
      const left = deadline - Date.now();
      if (left <= 0) return [];
      if (woken) continue; // a wake-up came while reading: read again before sleeping
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, q.pollMs ?? 5_000));
        wake = () => { clearTimeout(timer); resolve(); };
      });
      wake = () => undefined;
    }
    return [];
  } finally {
    q.signal?.removeEventListener('abort', onAbort);
    await unsubscribe();
  }
}

/** The newest seq among `filter`'s events, or undefined when there are none. */
async function latestSeq(outbox: Outbox, filter: { consultationId?: string; userId?: string }): Promise<string | undefined> {
  let after: string | undefined;
  for (;;) {
    const page = await outbox.list({ ...filter, ...(after ? { afterSeq: after } : {}), limit: 1000 });
    if (!page.length) return after;
    after = page[page.length - 1]!.seq;
  }
}
