/**
 * A server stopped between the approval and the match resumes (jobs are durable), and nobody
 * accepting by MATCHING_TIMEOUT_SECONDS releases the hold and returns the conversation to IDLE
 * with status_changed. Two apps on one PGlite database: the first runs no visit workers (it
 * dies before matching), the second picks the queued match job up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { registerConsultationWorkers } from '../../engine/consultations/consultation.workers.ts';
import { registerPaymentWorkers } from '../../engine/payments/payments.workers.ts';
import { HOLD_JOB, MATCH_JOB, MATCH_TIMEOUT_JOB } from '../../engine/visits/visits.ports.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { events, gatedConversation, ledger, payLink, provider, until } from './visit-fixture.ts';

let db: Db;
beforeAll(async () => { db = await openPgliteDb(undefined); });
afterAll(async () => { await db.close(); });

describe('matching across a restart, and its time-out', () => {
  it('a request approved on a server that stopped before matching is matched after restart, then times out to IDLE with the hold released', async () => {
    const identity = fakeIdentity();
    const jobs = { pollSeconds: 0.5, superviseSeconds: 1 };
    // First server: the approval commits the match job, but this server never runs it.
    const first: TestApp = await makeTestApp({
      db, identity, triage: scriptedTriage(), env: { CARE_REPLY_WAIT_SECONDS: '5' },
      workers: [registerConsultationWorkers, registerPaymentWorkers], jobs: { ...jobs, queues: [MATCH_JOB, MATCH_TIMEOUT_JOB, HOLD_JOB] },
    });
    const doctor = await provider(first, identity);
    const c = await gatedConversation(first, identity);
    const link = await c.api('POST', `/api/consultations/${c.id}/payment`);
    expect((await payLink(first, link.body.paymentUrl)).statusCode).toBe(303);
    expect((await c.api('GET', `/api/consultations/${c.id}`)).body.status).toBe('MATCHING');
    await first.close();
    expect((await db.query('SELECT count(*)::int AS n FROM visit_offers')).rows[0]!.n).toBe(0);

    // Second server, all workers, a 1-second matching window.
    const second = await makeTestApp({ db, identity, triage: scriptedTriage(), env: { MATCHING_TIMEOUT_SECONDS: '1' }, jobs });
    try {
      await until(async () => (await db.query<{ provider_id: string }>('SELECT provider_id FROM visit_offers WHERE conversation_id = $1', [c.id])).rows,
        (rows) => rows.some((r) => r.provider_id === doctor.accountId));
      await until(() => ledger(second, c.id), (l) => l.includes('release'));
      expect(await ledger(second, c.id)).toEqual(['authorize', 'release']);
      const { rows } = await db.query<{ status: string }>('SELECT status FROM conversations WHERE id = $1', [c.id]);
      expect(rows[0]!.status).toBe('IDLE');
      expect((await events(second, c.id)).slice(-2)).toEqual(['provider_matching', 'status_changed']);
    } finally {
      await second.close();
    }
  });
});
