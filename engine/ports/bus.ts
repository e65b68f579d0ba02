import type { Db } from './db.ts';

/**
 * Cross-process wake-ups (PostgreSQL LISTEN/NOTIFY; PGlite's embedded listen). A notification is
 * a hint that something changed, never the data itself: a woken reader re-reads the database.
 * Published inside a transaction it is delivered only if that transaction commits.
 */
export interface NotificationBus {
  /** Notifies `topic` with a short payload (at most 1,000 bytes). With `tx`, on commit only. */
  publish(topic: string, payload: string, tx?: Db): Promise<void>;
  /** Calls `fn` for each notification on `topic` from any process on this database; returns an unsubscribe. */
  subscribe(topic: string, fn: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
