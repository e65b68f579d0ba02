/**
 * The 7-day lapse on the platform's real job queue (pg-boss on PGlite): the timer sent in the
 * authorising transaction fires and lapses the hold; a hold that came due while no process ran is
 * lapsed when the next process starts. The clock is a hand-moved one set 7 days back, so that the
 * queue's (real) time has reached the timer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { HOLD_LIFE_MS } from '../../engine/payments/payment-processor.ts';
import type { EmbeddedProcessor } from '../../engine/payments/adapters/embedded-processor.ts';
import { ledgerFor } from '../../engine/payments/payment-store.ts';
import { makeTestApp, ManualClock, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { waitFor } from '../platform/platform-harness.ts';

const card = { name: 'Ada Lovelace', number: '4242424242424242', exp: '12/34', csc: '123', postalCode: '94107' };
let db: Db | undefined;
let apps: TestApp[] = [];
afterEach(async () => {
  for (const a of apps) await a.close();
  apps = [];
  await db?.close();
  db = undefined;
});

async function start(clock: ManualClock): Promise<{ t: TestApp; p: EmbeddedProcessor }> {
  const t = await makeTestApp({ db, identity: fakeIdentity(), clock, jobs: { pollSeconds: 0.5, superviseSeconds: 1 }, visitPurpose: false });
  apps.push(t);
  return { t, p: t.services.ports.payments!.processor as EmbeddedProcessor };
}

async function authorise(p: EmbeddedProcessor, ref: string): Promise<string> {
  const s = await p.createHoldSession({ purpose: { kind: 'visit', ref, userId: 'acct_q' }, amountCents: 4900, currency: 'usd' });
  const state = await p.pageState(s.sessionId);
  if (state?.state !== 'open') throw new Error('not open');
  expect(await p.submit(s.sessionId, state.session.formToken, card)).toEqual({ result: 'approved' });
  return (await p.holdFor({ kind: 'visit', ref }))!.holdId;
}

describe('hold lapse on the real job queue', () => {
  it('the timer sent with the authorisation lapses the hold after 7 days; capture then fails', async () => {
    db = await openPgliteDb(undefined);
    const clock = new ManualClock(Date.now() - HOLD_LIFE_MS - 60_000);
    const { p } = await start(clock);
    const holdId = await authorise(p, 'q1');
    clock.advance(HOLD_LIFE_MS + 60_000);
    await waitFor(async () => (await p.getHold(holdId))?.status === 'lapsed', 30_000, 'the lapse job');
    await expect(p.capture(holdId)).rejects.toMatchObject({ code: 'conflict', details: { code: 'hold_lapsed' } });
    expect((await ledgerFor(db, { holdId })).map((e) => e.kind)).toEqual(['authorize', 'lapse']);
  });

  it('a hold that came due while no process ran is lapsed when the next one starts', async () => {
    db = await openPgliteDb(undefined);
    const clock = new ManualClock(Date.parse('2026-06-01T12:00:00Z'));
    const first = await start(clock);
    const holdId = await authorise(first.p, 'q2');
    await first.t.close();
    apps = [];
    clock.advance(HOLD_LIFE_MS);
    const second = await start(clock);
    expect((await second.p.getHold(holdId))?.status).toBe('lapsed');
  });
});
