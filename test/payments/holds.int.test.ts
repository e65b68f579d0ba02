/**
 * The embedded processor's holds on the real tables, on PGlite and on the throwaway PostgreSQL:
 * authorisation with the purpose's handler in the same transaction, capture and release
 * idempotent, one capture under concurrency, lapse at 7 days on a hand-moved clock, saved cards,
 * and only brand + last four ever stored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../engine/ports/db.ts';
import { migrate } from '../../engine/storage/migrate.ts';
import { AppError } from '../../engine/core/errors.ts';
import { HOLD_LIFE_MS, LAPSE_JOB, PurposeRegistry, type Hold } from '../../engine/payments/payment-processor.ts';
import { createEmbeddedProcessor, type EmbeddedProcessor } from '../../engine/payments/adapters/embedded-processor.ts';
import { startLapseWorker } from '../../engine/payments/holds.ts';
import { ledgerFor } from '../../engine/payments/payment-store.ts';
import { ManualClock } from '../helpers/app.ts';
import { backends, useBackends } from '../storage/backends.ts';
import { ManualJobQueue } from './payments-fixture.ts';

useBackends();

const card = (number: string) => ({ name: 'Ada Lovelace', number, exp: '12/34', csc: '123', postalCode: '94107' });
const visit = (ref: string) => ({ kind: 'visit' as const, ref, userId: 'acct_pat' });

describe.each(backends)('payment holds on $name', (backend) => {
  const open: Db[] = [];
  afterEach(async () => {
    for (const d of open.splice(0)) await d.close();
  });

  async function setup(opts: { onAuthorized?: (tx: Db, hold: Hold) => Promise<void> } = {}) {
    const db = await backend.open();
    open.push(db);
    await migrate(db);
    await db.exec('CREATE TABLE visit_state (ref text PRIMARY KEY, status text NOT NULL)');
    const clock = new ManualClock();
    const jobs = new ManualJobQueue();
    const purposes = new PurposeRegistry();
    const seen: Hold[] = [];
    purposes.register('visit', {
      onAuthorized: opts.onAuthorized ?? (async (tx, hold) => {
        seen.push(hold);
        await tx.query(`INSERT INTO visit_state (ref, status) VALUES ($1, 'MATCHING') ON CONFLICT (ref) DO UPDATE SET status = 'MATCHING'`, [hold.purpose.ref]);
      }),
      onLapsed: async (tx, hold) => { await tx.query(`UPDATE visit_state SET status = 'LAPSED' WHERE ref = $1`, [hold.purpose.ref]); },
    });
    const p = createEmbeddedProcessor({ db, clock, jobs, purposes, baseUrl: 'http://127.0.0.1:8787' });
    await startLapseWorker({ db, clock, jobs, purposes, processor: 'embedded' });
    return { db, clock, jobs, p, seen };
  }

  async function pay(p: EmbeddedProcessor, ref: string, number = '4242424242424242') {
    const s = await p.createHoldSession({ purpose: visit(ref), amountCents: 4900, currency: 'usd' });
    const state = await p.pageState(s.sessionId);
    if (state?.state !== 'open') throw new Error('session not open');
    return { s, r: await p.submit(s.sessionId, state.session.formToken, card(number)) };
  }

  it('authorises on the hosted page: the hold, its ledger row, the lapse timer and the purpose handler in one transaction', async () => {
    const { db, p, jobs, seen } = await setup();
    const { s, r } = await pay(p, 'conv1');
    expect(r).toEqual({ result: 'approved' });
    const hold = (await p.holdFor({ kind: 'visit', ref: 'conv1' }))!;
    expect(hold).toMatchObject({ status: 'authorized', amountCents: 4900, currency: 'usd', brand: 'visa', last4: '4242' });
    expect(seen.map((h) => h.holdId)).toEqual([hold.holdId]);
    expect((await db.query('SELECT status FROM visit_state WHERE ref = $1', ['conv1'])).rows).toEqual([{ status: 'MATCHING' }]);
    expect(jobs.sent).toEqual([expect.objectContaining({ name: LAPSE_JOB, data: { holdId: hold.holdId }, inTx: true })]);
    expect(jobs.sent[0]!.opts.startAfter!.getTime()).toBe(hold.authorizedAt.getTime() + HOLD_LIFE_MS);
    expect((await ledgerFor(db, { holdId: hold.holdId })).map((e) => [e.kind, e.amountCents, e.last4])).toEqual([['authorize', 4900, '4242']]);
    // Paying the same link again, or a second link of the same visit, never holds twice.
    const again = await p.submit(s.sessionId, 'x', card('4242424242424242'));
    expect(again.result).toBe('not_open');
    expect((await pay(p, 'conv1')).r).toEqual({ result: 'approved' });
    expect((await db.query(`SELECT count(*)::int AS n FROM payment_holds WHERE purpose_ref = 'conv1'`)).rows[0]!.n).toBe(1);
  });

  it('a purpose handler that refuses rolls the whole authorisation back; the page can be retried', async () => {
    let refuse = true;
    const { db, p } = await setup({
      onAuthorized: async () => { if (refuse) throw new AppError('no_payment_gate'); },
    });
    const s = await p.createHoldSession({ purpose: visit('conv2'), amountCents: 4900, currency: 'usd' });
    const token = ((await p.pageState(s.sessionId)) as { session: { formToken: string } }).session.formToken;
    await expect(p.submit(s.sessionId, token, card('4242424242424242'))).rejects.toMatchObject({ code: 'no_payment_gate' });
    expect((await db.query('SELECT count(*)::int AS n FROM payment_holds')).rows[0]!.n).toBe(0);
    expect((await db.query('SELECT count(*)::int AS n FROM payment_ledger')).rows[0]!.n).toBe(0);
    expect((await p.pageState(s.sessionId))?.state).toBe('open');
    refuse = false;
    expect(await p.submit(s.sessionId, token, card('4242424242424242'))).toEqual({ result: 'approved' });
  });

  it('declines record a failure in the ledger and leave the session open for another card', async () => {
    const { db, p } = await setup();
    const { s, r } = await pay(p, 'conv3', '4000000000000002');
    expect(r).toMatchObject({ result: 'declined', code: 'card_declined', holdFailed: true });
    const r2 = await p.submit(s.sessionId, ((await p.pageState(s.sessionId)) as { session: { formToken: string } }).session.formToken, card('4000000000009995'));
    expect(r2).toMatchObject({ result: 'declined', code: 'insufficient_funds', holdFailed: true });
    expect((await ledgerFor(db, { sessionId: s.sessionId })).map((e) => [e.kind, e.detail, e.last4])).toEqual([
      ['failure', 'card_declined', '0002'], ['failure', 'insufficient_funds', '9995'],
    ]);
    expect((await p.pageState(s.sessionId))?.state).toBe('open');
    expect(await p.holdFor({ kind: 'visit', ref: 'conv3' })).toBeNull();
  });

  it('capture and release are idempotent; a captured hold cannot be released nor a released one captured', async () => {
    const { db, p } = await setup();
    await pay(p, 'c1');
    await pay(p, 'c2');
    const h1 = (await p.holdFor({ kind: 'visit', ref: 'c1' }))!;
    const h2 = (await p.holdFor({ kind: 'visit', ref: 'c2' }))!;
    expect((await p.capture(h1.holdId)).status).toBe('captured');
    expect((await p.capture(h1.holdId)).status).toBe('captured');
    await expect(p.release(h1.holdId)).rejects.toMatchObject({ code: 'conflict', details: { code: 'hold_captured' } });
    expect((await p.release(h2.holdId)).status).toBe('released');
    expect((await p.release(h2.holdId)).status).toBe('released');
    await expect(p.capture(h2.holdId)).rejects.toMatchObject({ code: 'conflict', details: { code: 'hold_released' } });
    await expect(p.capture('hold_nope')).rejects.toMatchObject({ code: 'not_found' });
    const kinds = async (id: string) => (await ledgerFor(db, { holdId: id })).map((e) => e.kind);
    expect(await kinds(h1.holdId)).toEqual(['authorize', 'capture']);
    expect(await kinds(h2.holdId)).toEqual(['authorize', 'release']);
  });

  it('two concurrent captures (two connections) capture once: one ledger row', async () => {
    const { db, p, clock, jobs } = await setup();
    await pay(p, 'race');
    const hold = (await p.holdFor({ kind: 'visit', ref: 'race' }))!;
    const sibling = await backend.openSibling(db);
    if (sibling !== db) open.push(sibling);
    const p2 = createEmbeddedProcessor({ db: sibling, clock, jobs, purposes: new PurposeRegistry(), baseUrl: 'http://x' });
    const results = await Promise.all([p.capture(hold.holdId), p2.capture(hold.holdId), p.capture(hold.holdId), p2.capture(hold.holdId)]);
    expect(results.map((h) => h.status)).toEqual(['captured', 'captured', 'captured', 'captured']);
    expect((await ledgerFor(db, { holdId: hold.holdId })).filter((e) => e.kind === 'capture')).toHaveLength(1);
  });

  it('lapses at 7 days by the timer; capture after the lapse fails clearly; the purpose hears of it', async () => {
    const { db, p, clock, jobs } = await setup();
    await pay(p, 'old');
    const hold = (await p.holdFor({ kind: 'visit', ref: 'old' }))!;
    clock.advance(HOLD_LIFE_MS - 1000);
    expect(await jobs.runDue(clock.now())).toBe(0);
    expect((await p.getHold(hold.holdId))!.status).toBe('authorized');
    clock.advance(1000);
    expect(await jobs.runDue(clock.now())).toBe(1);
    expect((await p.getHold(hold.holdId))!).toMatchObject({ status: 'lapsed', lapsedAt: clock.now() });
    await expect(p.capture(hold.holdId)).rejects.toMatchObject({ code: 'conflict', details: { code: 'hold_lapsed' } });
    expect((await p.release(hold.holdId)).status).toBe('lapsed');
    expect((await db.query('SELECT status FROM visit_state WHERE ref = $1', ['old'])).rows).toEqual([{ status: 'LAPSED' }]);
    expect((await ledgerFor(db, { holdId: hold.holdId })).map((e) => e.kind)).toEqual(['authorize', 'lapse']);
  });

  it('capture past the lapse time fails even when the timer has not run (a process without a queue)', async () => {
    const { p, clock } = await setup();
    await pay(p, 'late');
    const hold = (await p.holdFor({ kind: 'visit', ref: 'late' }))!;
    clock.advance(HOLD_LIFE_MS);
    await expect(p.capture(hold.holdId)).rejects.toMatchObject({ code: 'conflict', details: { code: 'hold_lapsed' } });
    expect((await p.getHold(hold.holdId))!.status).toBe('lapsed');
  });

  it('a saved card places holds without a page; 0341 saves but declines; none saved is payment_hold_failed', async () => {
    const { db, p, clock } = await setup();
    await expect(p.placeHoldWithSavedCard({ purpose: visit('s1'), amountCents: 4900, currency: 'usd' }))
      .rejects.toMatchObject({ code: 'payment_hold_failed', details: { code: 'no_saved_card' } });
    const setupSession = await p.createSetupSession({ userId: 'acct_pat' });
    const token = ((await p.pageState(setupSession.sessionId)) as { session: { formToken: string } }).session.formToken;
    expect(await p.submit(setupSession.sessionId, token, card('5555555555554444'))).toEqual({ result: 'approved' });
    expect(await p.savedCard('acct_pat')).toMatchObject({ brand: 'mastercard', last4: '4444', expMonth: 12, expYear: 2034 });
    const hold = await p.placeHoldWithSavedCard({ purpose: visit('s1'), amountCents: 4900, currency: 'usd' });
    expect(hold).toMatchObject({ status: 'authorized', last4: '4444' });
    expect((await p.placeHoldWithSavedCard({ purpose: visit('s1'), amountCents: 4900, currency: 'usd' })).holdId).toBe(hold.holdId);
    clock.advance(60_000); // the newer card is the one used
    const s2 = await p.createSetupSession({ userId: 'acct_pat' });
    const t2 = ((await p.pageState(s2.sessionId)) as { session: { formToken: string } }).session.formToken;
    expect(await p.submit(s2.sessionId, t2, card('4000000000000341'))).toEqual({ result: 'approved' });
    await expect(p.placeHoldWithSavedCard({ purpose: visit('s2'), amountCents: 4900, currency: 'usd' }))
      .rejects.toMatchObject({ code: 'payment_hold_failed', details: { code: 'card_declined' } });
    expect((await ledgerFor(db, { userId: 'acct_pat' })).map((e) => e.kind)).toEqual(['card_saved', 'authorize', 'card_saved', 'failure']);
  });

  it('stores only brand and last four: no full number or CVC anywhere in the payment tables', async () => {
    const { db, p } = await setup();
    await pay(p, 'pci', '4242424242424242');
    await pay(p, 'pci2', '4000000000000002');
    const dump = JSON.stringify((await db.query(`SELECT
      (SELECT json_agg(s) FROM payment_sessions s) AS s, (SELECT json_agg(h) FROM payment_holds h) AS h,
      (SELECT json_agg(l) FROM payment_ledger l) AS l, (SELECT json_agg(m) FROM payment_methods m) AS m`)).rows);
    expect(dump).toContain('4242');
    expect(dump).not.toMatch(/424242424242|400000000000|"123"/);
  });

  it('a link expires after about 30 minutes; attempts are capped; amounts under 50 cents are refused', async () => {
    const { p, clock } = await setup();
    for (const amountCents of [0, 49, 12.5]) {
      await expect(p.createHoldSession({ purpose: visit('bad'), amountCents, currency: 'usd' })).rejects.toThrow(/invalid hold amount/);
    }
    const s = await p.createHoldSession({ purpose: visit('exp'), amountCents: 4900, currency: 'usd' });
    expect(s.expiresAt.getTime() - clock.now().getTime()).toBe(30 * 60_000);
    clock.advance(30 * 60_000);
    expect((await p.pageState(s.sessionId))?.state).toBe('expired');
    const s2 = await p.createHoldSession({ purpose: visit('cap'), amountCents: 4900, currency: 'usd' });
    const token = ((await p.pageState(s2.sessionId)) as { session: { formToken: string } }).session.formToken;
    for (let i = 0; i < 10; i++) await p.submit(s2.sessionId, token, card('4000000000000002'));
    expect((await p.pageState(s2.sessionId))?.state).toBe('expired');
    expect((await p.submit(s2.sessionId, token, card('4242424242424242'))).result).toBe('not_open');
  });
});
