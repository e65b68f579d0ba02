import { createHash } from 'node:crypto';
import type { NotificationBus } from '../ports/bus.ts';
import type { Db } from '../ports/db.ts';

/** A notification is a hint, never data (ports/bus.ts); PostgreSQL itself allows 8,000 bytes. */
export const MAX_PAYLOAD_BYTES = 1000;
const MAX_TOPIC_CHARS = 500;

/**
 * The LISTEN channel of a topic. Topics carry ids (`conv:<id>`, `user:<id>`) that are neither
 * identifiers nor bounded; a hash makes every channel a plain lower-case name under PostgreSQL's
 * 63-byte limit, so no topic text ever reaches the SQL (LISTEN takes no parameters).
 */
export function channelFor(topic: string): string {
  if (!topic || topic.length > MAX_TOPIC_CHARS) throw new Error(`bus topic must be 1-${MAX_TOPIC_CHARS} characters`);
  return `cb_${createHash('sha256').update(topic).digest('hex').slice(0, 40)}`;
}

type Fn = (payload: string) => void;

/**
 * NotificationBus over the Db port's LISTEN/NOTIFY: PGlite's embedded listen, or PostgreSQL's
 * dedicated listener connection (engine/adapters/pg-listener.ts), whichever `db` is. One LISTEN per
 * channel per process, fanned out here to every local subscriber. `publish` is `pg_notify` on the
 * given transaction, so PostgreSQL delivers it on commit only and never for a rollback.
 * After the PostgreSQL listener reconnects, each subscriber is called once with `''`: notifications
 * sent meanwhile are lost, so a woken reader must re-read (it always should).
 */
export function createBus(db: Db): NotificationBus {
  const listen = db.listen?.bind(db);
  if (!listen) throw new Error(`the ${db.kind} database adapter offers no listen`);
  const channels = new Map<string, { fns: Set<Fn>; ready: Promise<() => Promise<void>> }>();
  let closed = false;

  const dispatch = (channel: string) => (payload: string) => {
    for (const fn of [...(channels.get(channel)?.fns ?? [])]) {
      try {
        fn(payload);
      } catch {
        // One subscriber's bug must not starve the others of their wake-up.
      }
    }
  };

  return {
    async publish(topic, payload, tx) {
      if (Buffer.byteLength(payload, 'utf8') > MAX_PAYLOAD_BYTES) {
        throw new Error(`bus payload over ${MAX_PAYLOAD_BYTES} bytes on ${topic}: send ids, not data`);
      }
      await (tx ?? db).query('SELECT pg_notify($1, $2)', [channelFor(topic), payload]);
    },

    async subscribe(topic, fn) {
      if (closed) throw new Error('the notification bus is closed');
      const channel = channelFor(topic);
      let entry = channels.get(channel);
      if (!entry) {
        const fns = new Set<Fn>();
        const ready = listen(channel, dispatch(channel), () => dispatch(channel)(''));
        entry = { fns, ready };
        channels.set(channel, entry);
        ready.catch(() => { if (channels.get(channel) === entry) channels.delete(channel); });
      }
      entry.fns.add(fn);
      try {
        await entry.ready;
      } catch (e) {
        entry.fns.delete(fn);
        throw e;
      }
      const mine = entry;
      let done = false;
      return async () => {
        if (done) return;
        done = true;
        mine.fns.delete(fn);
        if (mine.fns.size || channels.get(channel) !== mine) return;
        channels.delete(channel);
        await (await mine.ready)();
      };
    },

    async close() {
      closed = true;
      const all = [...channels.values()];
      channels.clear();
      await Promise.all(all.map(async (c) => (await c.ready.catch(() => async () => undefined))()));
    },
  };
}
