/**
 * The outbox (engine/platform/outbox.ts) and the notification bus (engine/platform/bus.ts) on PGlite
 * and on a throwaway PostgreSQL: an event exists exactly when its transaction commits, its wake-up
 * is delivered on commit only, and on PostgreSQL a subscriber on another pool (another process)
 * wakes (issue 34, items 1 and 5).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../engine/ports/db.ts';
import type { NotificationBus } from '../../engine/ports/bus.ts';
import { createBus, channelFor, MAX_PAYLOAD_BYTES } from '../../engine/platform/bus.ts';
import { createOutbox, conversationTopic, userTopic, OutboxNotificationSchema } from '../../engine/platform/outbox.ts';
import { waitForEvents } from '../../engine/platform/wait-for-events.ts';
import { backends, useBackends } from '../storage/backends.ts';
import { freshDb, testJobs, waitFor } from './platform-harness.ts';

useBackends();

describe.each(backends)('outbox and bus on $name', (backend) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const f of cleanup.reverse()) await f();
    cleanup.length = 0;
  });

  async function open(): Promise<{ db: Db; bus: NotificationBus }> {
    const db = await freshDb(backend);
    const bus = createBus(db);
    cleanup.push(() => db.close(), () => bus.close());
    return { db, bus };
  }

  /** "Another process": a second pool on the same PostgreSQL; on PGlite the same instance. */
  async function sibling(db: Db): Promise<{ db: Db; bus: NotificationBus }> {
    const other = await backend.openSibling(db);
    const bus = createBus(other);
    cleanup.push(async () => { if (other !== db) await other.close(); }, () => bus.close());
    return { db: other, bus };
  }

  it('append in a transaction that rolls back leaves no event, no job and no wake-up; a commit leaves all three', async () => {
    const { db, bus } = await open();
    const outbox = createOutbox(db, bus);
    const jobs = await testJobs(db);
    cleanup.push(() => jobs.stop());
    const ran: string[] = [];
    await jobs.work<{ consultationId: string }>('triage-test', async (job) => { ran.push(job.data.consultationId); });
    const reader = await sibling(db);
    const woken: string[] = [];
    await reader.bus.subscribe(conversationTopic('c1'), (p) => woken.push(p));
    const event = { event: 'triage_started', userId: 'u1', consultationId: 'c1', status: 'TRIAGING', message: 'Triage started.' } as const;

    await expect(db.transaction(async (tx) => {
      await outbox.append(tx, event);
      await jobs.send('triage-test', { consultationId: 'c1' }, {}, tx);
      throw new Error('the state change failed');
    })).rejects.toThrow('the state change failed');
    const stored = await db.transaction(async (tx) => {
      const e = await outbox.append(tx, { ...event, data: { messageId: 'm1' } });
      await jobs.send('triage-test', { consultationId: 'c1' }, {}, tx);
      return e;
    });

    await waitFor(() => woken.length > 0 && ran.length > 0, 15_000, 'the wake-up and the job');
    const events = await outbox.list({ consultationId: 'c1' });
    expect(events).toEqual([stored]);
    expect(stored).toMatchObject({ event: 'triage_started', userId: 'u1', consultationId: 'c1', status: 'TRIAGING', message: 'Triage started.', data: { messageId: 'm1' } });
    expect(stored.eventId).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(stored.seq).toMatch(/^\d+$/);
    expect(ran).toEqual(['c1']);
    // Exactly one wake-up: the rolled-back transaction's was never delivered.
    await new Promise((r) => setTimeout(r, 200));
    expect(woken.map((p) => OutboxNotificationSchema.parse(JSON.parse(p)))).toEqual([{ seq: stored.seq, event: 'triage_started', status: 'TRIAGING' }]);
  });

  it('an event wakes a subscriber on its conversation and its user, on another connection (another process)', async () => {
    const { db, bus } = await open();
    const outbox = createOutbox(db, bus);
    const reader = await sibling(db);
    const conv: string[] = [];
    const user: string[] = [];
    const otherConv: string[] = [];
    await reader.bus.subscribe(conversationTopic('c2'), (p) => conv.push(p));
    await reader.bus.subscribe(userTopic('u2'), (p) => user.push(p));
    await reader.bus.subscribe(conversationTopic('c3'), (p) => otherConv.push(p));
    const e = await db.transaction((tx) => outbox.append(tx, { event: 'status_changed', userId: 'u2', consultationId: 'c2', status: 'PAYMENT_REQUIRED', message: 'Payment is needed.' }));
    await waitFor(() => conv.length === 1 && user.length === 1, 15_000, 'both wake-ups');
    expect(JSON.parse(conv[0]!)).toEqual({ seq: e.seq, event: 'status_changed', status: 'PAYMENT_REQUIRED' });
    expect(otherConv).toEqual([]);
  });

  it('waitForEvents: a waiter in another process returns the matching event once it commits; time-out and abort return []', async () => {
    const { db, bus } = await open();
    const outbox = createOutbox(db, bus);
    const reader = await sibling(db);
    const readerPorts = { outbox: createOutbox(reader.db, reader.bus), bus: reader.bus };
    const append = (event: string) => db.transaction((tx) => outbox.append(tx, { event, userId: 'u-wait', consultationId: 'c-wait', message: event }));
    await append('triage_started'); // before the wait: not returned
    // No poll within the time-out: only the bus can wake it.
    const waiting = waitForEvents(readerPorts, { consultationId: 'c-wait', match: (e) => e.event === 'triage_reply', timeoutMs: 20_000, pollMs: 60_000 });
    await new Promise((r) => setTimeout(r, 100));
    await append('status_changed'); // after, but not a match
    const reply = await append('triage_reply');
    expect(await waiting).toEqual([reply]);
    expect(await waitForEvents(readerPorts, { consultationId: 'c-wait', timeoutMs: 300 })).toEqual([]);
    const ac = new AbortController();
    const aborted = waitForEvents(readerPorts, { userId: 'u-wait', timeoutMs: 20_000, signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    expect(await aborted).toEqual([]);
  });

  it('publish outside a transaction is delivered at once; unsubscribe stops delivery; many local subscribers share one LISTEN', async () => {
    const { bus } = await open();
    const a: string[] = [];
    const b: string[] = [];
    const offA = await bus.subscribe('topic:x', (p) => a.push(p));
    const offB = await bus.subscribe('topic:x', (p) => b.push(p));
    await bus.publish('topic:x', 'one');
    await waitFor(() => a.length === 1 && b.length === 1, 15_000, 'delivery');
    await offA();
    await bus.publish('topic:x', 'two');
    await waitFor(() => b.length === 2, 15_000, 'second delivery');
    expect(a).toEqual(['one']);
    expect(b).toEqual(['one', 'two']);
    await offB();
    await offB(); // idempotent
  });

  it('a publish in a rolled-back transaction is never delivered', async () => {
    const { db, bus } = await open();
    const got: string[] = [];
    await bus.subscribe('topic:rb', (p) => got.push(p));
    await expect(db.transaction(async (tx) => {
      await bus.publish('topic:rb', 'rolled back', tx);
      throw new Error('no');
    })).rejects.toThrow('no');
    await db.transaction((tx) => bus.publish('topic:rb', 'committed', tx));
    await waitFor(() => got.length > 0, 15_000, 'the committed notification');
    await new Promise((r) => setTimeout(r, 200));
    expect(got).toEqual(['committed']);
  });

  it.runIf(backend.name === 'postgres')('after the listening connection is killed, it reconnects, re-LISTENs and tells subscribers to re-read', async () => {
    const { db, bus } = await open();
    const reader = await sibling(db);
    const got: string[] = [];
    await reader.bus.subscribe('topic:reconnect', (p) => got.push(p));
    const { rows } = await db.query<{ n: number }>(
      "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'carebridge-listen' AND datname = current_database()");
    expect(rows[0]!.n).toBeGreaterThan(0);
    await waitFor(() => got.includes(''), 15_000, 'the re-read wake-up after reconnecting');
    await bus.publish('topic:reconnect', 'after');
    await waitFor(() => got.includes('after'), 15_000, 'a notification on the new connection');
  });

  it('refuses payloads over the limit and events that carry message content', async () => {
    const { db, bus } = await open();
    await expect(bus.publish('topic:big', 'x'.repeat(MAX_PAYLOAD_BYTES + 1))).rejects.toThrow(/1000 bytes/);
    const outbox = createOutbox(db, bus);
    await expect(db.transaction((tx) => outbox.append(tx, { event: 'triage_reply', userId: 'u', message: 'Reply.', data: { text: 'my chest hurts' } })))
      .rejects.toThrow(/message content/);
    expect(await outbox.list({})).toEqual([]);
  });

  it('lists by user and by conversation, paging by seq', async () => {
    const { db } = await open();
    const outbox = createOutbox(db); // no bus: writes only
    const seqs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const e = await db.transaction((tx) => outbox.append(tx, { event: 'status_changed', userId: i % 2 ? 'odd' : 'even', consultationId: `c${i % 2}`, message: `m${i}` }));
      seqs.push(e.seq);
    }
    expect((await outbox.list({ userId: 'even' })).map((e) => e.message)).toEqual(['m0', 'm2', 'm4']);
    expect((await outbox.list({ consultationId: 'c1' })).map((e) => e.message)).toEqual(['m1', 'm3']);
    expect((await outbox.list({ afterSeq: seqs[1], limit: 2 })).map((e) => e.message)).toEqual(['m2', 'm3']);
    expect((await outbox.list({ userId: 'even', afterSeq: seqs[2] })).map((e) => e.message)).toEqual(['m4']);
  });
});

describe('bus channel names', () => {
  it('are plain identifiers under 63 bytes whatever the topic', () => {
    for (const t of ['conv:abc', 'user:"; DROP TABLE x; --', 'x'.repeat(500), 'Ünïcödé topic']) {
      expect(channelFor(t)).toMatch(/^cb_[0-9a-f]{40}$/);
    }
    expect(channelFor('a')).not.toBe(channelFor('b'));
    expect(() => channelFor('')).toThrow();
  });
});
