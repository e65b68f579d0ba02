/**
 * What both processors share: recording an authorisation (with the purpose's handler and the lapse
 * timer in the same transaction), capture, release and lapse, each at most once whatever races,
 * and a ledger row for every movement and every failure. The processor adapters call these after
 * (never inside) their network calls (STYLE.md, Care: never call out inside a transaction).
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import type { Db } from '../ports/db.ts';
import type { Clock } from '../ports/clock.ts';
import type { JobQueue } from '../ports/jobs.ts';
import {
  HOLD_LIFE_MS, LAPSE_JOB, type Hold, type HoldStatus, type PaymentPurpose, type ProcessorKind, type PurposeRegistry,
} from './payment-processor.ts';
import * as store from './payment-store.ts';

export interface HoldDeps {
  db: Db;
  clock: Clock;
  /** The lapse timer; without it (a process with no queue) capture still refuses a lapsed hold. */
  jobs?: JobQueue | undefined;
  purposes: PurposeRegistry;
  processor: ProcessorKind;
}

/** Refuses an amount no processor takes (Stripe's minimum charge in USD is 50 cents); a wiring bug, not the caller's. */
export function checkAmount(amountCents: number, mode: 'hold' | 'setup'): void {
  if (!Number.isSafeInteger(amountCents) || (mode === 'hold' ? amountCents < 50 : amountCents !== 0)) {
    throw new Error(`invalid ${mode} amount ${amountCents} cents`);
  }
}

/** A random id with a readable prefix; 144 bits, unguessable. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(18).toString('base64url')}`;
}

export interface CardFacts {
  brand: string;
  last4: string;
}

/**
 * Records an authorisation: the hold, its ledger row, the lapse timer and the purpose's
 * onAuthorized, in one transaction. Idempotent per purpose: when the purpose already has a live
 * hold (a second link paid, a webhook redelivered) that hold is returned and nothing is added.
 * `sessionId` (hosted page) is marked completed in the same transaction.
 */
export async function recordAuthorization(
  deps: HoldDeps,
  a: { purpose: PaymentPurpose; amountCents: number; currency: string; card: CardFacts; sessionId: string | null; externalRef: string | null },
): Promise<{ hold: Hold; created: boolean }> {
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    if (a.sessionId) {
      // Lock the session: completions of one session (a double submit, a redelivered webhook) queue here.
      const session = await store.getSession(tx, a.sessionId, true);
      if (session?.status === 'completed' && session.holdId) return { hold: await mustGet(tx, session.holdId), created: false };
    }
    // One live hold per purpose: lock by purpose (advisory, transaction-scoped) so two sessions of
    // one visit completing together see each other.
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`payments:${a.purpose.kind}:${a.purpose.ref}`]);
    const existing = await store.holdForPurpose(tx, a.purpose.kind, a.purpose.ref);
    if (existing?.status === 'authorized') {
      if (a.sessionId) await store.completeSession(tx, a.sessionId, existing.holdId, now);
      return { hold: existing, created: false };
    }
    const hold: Hold = {
      holdId: newId('hold'), processor: deps.processor, purpose: a.purpose, amountCents: a.amountCents, currency: a.currency,
      status: 'authorized', brand: a.card.brand, last4: a.card.last4, authorizedAt: now, lapsesAt: new Date(now.getTime() + HOLD_LIFE_MS),
      capturedAt: null, releasedAt: null, lapsedAt: null,
    };
    await store.insertHold(tx, { ...hold, sessionId: a.sessionId, externalRef: a.externalRef });
    await store.appendLedger(tx, {
      kind: 'authorize', userId: a.purpose.userId, holdId: hold.holdId, sessionId: a.sessionId, amountCents: a.amountCents,
      currency: a.currency, brand: a.card.brand, last4: a.card.last4, detail: a.externalRef, at: now,
    });
    if (a.sessionId) await store.completeSession(tx, a.sessionId, hold.holdId, now);
    await deps.jobs?.send(LAPSE_JOB, { holdId: hold.holdId }, { startAfter: hold.lapsesAt, singletonKey: hold.holdId, retryLimit: 8, retryDelaySeconds: 5 }, tx);
    const handlers = deps.purposes.get(a.purpose.kind);
    if (handlers) await handlers.onAuthorized(tx, hold);
    return { hold, created: true };
  });
}

/** Records a failed attempt (declined, insufficient funds, bad CVC, …) in the ledger. */
export async function recordFailure(
  db: Db,
  f: { userId: string; sessionId: string | null; amountCents: number; currency: string; code: string; card?: Partial<CardFacts>; at: Date },
): Promise<void> {
  await store.appendLedger(db, {
    kind: 'failure', userId: f.userId, sessionId: f.sessionId, amountCents: f.amountCents, currency: f.currency,
    brand: f.card?.brand ?? null, last4: f.card?.last4 ?? null, detail: f.code, at: f.at,
  });
}

/**
 * Records a card saved by a setup session (the method, its ledger row, the session completed), once:
 * a second completion of the same session (double submit, redelivered webhook) adds nothing.
 */
export async function recordCardSaved(
  deps: Pick<HoldDeps, 'db' | 'clock' | 'processor'>,
  s: { sessionId: string; card: { brand: string; last4: string; expMonth: number; expYear: number }; externalRef: string | null; declinesCharges?: boolean },
): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const session = await store.getSession(tx, s.sessionId, true);
    if (session?.status !== 'open' || session.mode !== 'setup') return false;
    const now = deps.clock.now();
    await store.insertMethod(tx, {
      paymentMethodId: newId('pm'), processor: deps.processor, userId: session.userId, ...s.card, externalRef: s.externalRef,
      declinesCharges: s.declinesCharges ?? false, createdAt: now,
    });
    await store.appendLedger(tx, {
      kind: 'card_saved', userId: session.userId, sessionId: s.sessionId, amountCents: 0, currency: session.currency,
      brand: s.card.brand, last4: s.card.last4, detail: s.externalRef, at: now,
    });
    await store.completeSession(tx, s.sessionId, null, now);
    return true;
  });
}

function refuse(hold: Hold, wanted: 'capture' | 'release'): never {
  const code = `hold_${hold.status}` as const;
  const what: Record<HoldStatus, string> = {
    authorized: 'is authorised', captured: 'was already captured', released: 'was released', lapsed: 'lapsed after 7 days uncaptured',
  };
  throw new AppError('conflict', `Cannot ${wanted} the hold: it ${what[hold.status]}.`, { code, extra: { holdId: hold.holdId, holdStatus: hold.status } });
}

async function mustGet(db: Db, holdId: string): Promise<Hold> {
  const h = await store.getHold(db, holdId);
  if (!h) throw new AppError('not_found', 'No such hold.', { field: 'holdId' });
  return h;
}

/**
 * Lapses a hold at or past its lapse time (the LAPSE_JOB handler; also run by capture when it
 * meets one). Idempotent; a hold not yet due or no longer authorised is returned unchanged.
 */
export async function lapseHold(deps: HoldDeps, holdId: string, force = false): Promise<Hold> {
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const lapsed = await store.transitionHold(tx, holdId, 'lapsed', now, force);
    if (!lapsed) return mustGet(tx, holdId);
    await store.appendLedger(tx, {
      kind: 'lapse', userId: lapsed.purpose.userId, holdId, amountCents: lapsed.amountCents, currency: lapsed.currency,
      brand: lapsed.brand, last4: lapsed.last4, at: now,
    });
    await deps.purposes.get(lapsed.purpose.kind)?.onLapsed?.(tx, lapsed);
    return lapsed;
  });
}

/**
 * Captures once. `remote` is the processor's own capture (Stripe: with an idempotency key, so two
 * racing callers make one capture there too); it runs before the guarded update, outside any
 * transaction. Of two concurrent captures one writes the ledger row; the other returns the same hold.
 */
export async function captureHold(deps: HoldDeps, holdId: string, remote?: (hold: Hold) => Promise<void>, force = false): Promise<Hold> {
  const hold = await mustGet(deps.db, holdId);
  if (hold.status === 'captured') return hold;
  if (!force && hold.status === 'authorized' && deps.clock.now() >= hold.lapsesAt) refuse(await lapseHold(deps, holdId), 'capture');
  if (hold.status !== 'authorized') refuse(hold, 'capture');
  await remote?.(hold);
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const done = await store.transitionHold(tx, holdId, 'captured', now, force);
    if (!done) {
      const again = await mustGet(tx, holdId);
      if (again.status === 'captured') return again;
      refuse(again, 'capture');
    }
    await store.appendLedger(tx, {
      kind: 'capture', userId: done.purpose.userId, holdId, amountCents: done.amountCents, currency: done.currency,
      brand: done.brand, last4: done.last4, at: now,
    });
    return done;
  });
}

/** Releases once; a released or lapsed hold is returned as it is, a captured one is a conflict. */
export async function releaseHold(deps: HoldDeps, holdId: string, remote?: (hold: Hold) => Promise<void>): Promise<Hold> {
  const hold = await mustGet(deps.db, holdId);
  if (hold.status === 'released' || hold.status === 'lapsed') return hold;
  if (hold.status === 'captured') refuse(hold, 'release');
  await remote?.(hold);
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const done = await store.transitionHold(tx, holdId, 'released', now);
    if (!done) {
      const again = await mustGet(tx, holdId);
      if (again.status === 'released' || again.status === 'lapsed') return again;
      refuse(again, 'release');
    }
    await store.appendLedger(tx, {
      kind: 'release', userId: done.purpose.userId, holdId, amountCents: done.amountCents, currency: done.currency,
      brand: done.brand, last4: done.last4, at: now,
    });
    return done;
  });
}

/** Registers the lapse worker and lapses whatever came due while no process ran. */
export async function startLapseWorker(deps: HoldDeps): Promise<void> {
  if (!deps.jobs) return;
  await deps.jobs.work<{ holdId?: unknown }>(LAPSE_JOB, async (job) => {
    if (typeof job.data.holdId !== 'string') return;
    const hold = await lapseHold(deps, job.data.holdId);
    // Run early (the queue's clock is the database's): fail, so the queue retries with backoff
    // (5 s doubling, 8 tries: about 20 minutes of clock skew); the start-up sweep and capture's own
    // check cover anything beyond.
    if (hold.status === 'authorized') throw new Error(`hold ${hold.holdId} is not due to lapse until ${hold.lapsesAt.toISOString()}`);
  });
  for (const id of await store.dueLapses(deps.db, deps.clock.now())) await lapseHold(deps, id);
}
