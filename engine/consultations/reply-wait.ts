/**
 * Waiting for the next reply (service-spec.md: `waitForReply`, about 55 s; MCP `wait_for_reply`).
 * A waiter subscribes to its conversation's bus topic BEFORE it reads (so a change between the
 * read and the wait still wakes it), then re-reads the database on every notification: the
 * notification is only a hint, so a reply written by any process on the same database wakes it.
 */
import type { Db } from '../ports/db.ts';
import type { NotificationBus } from '../ports/bus.ts';
import type { ConversationStatus } from './consultation-status.ts';
import { conversationTopic, loadConversation, messagesAfter, type ConversationRow, type MessageRow } from './consultation-store.ts';
import { repliesOf } from './consultation-view.ts';

export interface WaitOutcome {
  conv: ConversationRow;
  /** Replies newer than the wait's starting point (oldest first). */
  replies: MessageRow[];
  /** Every message newer than the starting point (replies and the patient's own). */
  newer: MessageRow[];
  timedOut: boolean;
}

/** A subscription opened before the caller's own write, so that nothing between write and wait is missed. */
export interface Waiter {
  /** Waits until a reply newer than `afterSeq` exists or the status differs from `baseStatus`, or `timeoutMs` passes. */
  wait(afterSeq: number, baseStatus: ConversationStatus, timeoutMs: number): Promise<WaitOutcome>;
  close(): Promise<void>;
}

export async function openWaiter(db: Db, bus: NotificationBus, conversationId: string): Promise<Waiter> {
  let wake: (() => void) | null = null;
  let pending = false;
  const unsubscribe = await bus.subscribe(conversationTopic(conversationId), () => {
    pending = true;
    wake?.();
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    wake?.();
    await unsubscribe();
  };
  return {
    close,
    async wait(afterSeq, baseStatus, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        pending = false;
        const conv = await loadConversation(db, conversationId);
        if (!conv) throw new Error(`conversation ${conversationId} vanished while waited on`);
        const newer = await messagesAfter(db, conversationId, afterSeq);
        const replies = repliesOf(newer);
        if (replies.length || conv.status !== baseStatus) return { conv, replies, newer, timedOut: false };
        const left = deadline - Date.now();
        if (left <= 0 || closed) return { conv, replies, newer, timedOut: true };
        if (pending) continue; // a notification arrived while we read: read again at once
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, left);
          function done() {
            clearTimeout(timer);
            wake = null;
            resolve();
          }
          wake = done;
        });
      }
    },
  };
}
