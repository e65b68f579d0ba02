/**
 * Idempotency keys under real concurrency (issue 39, item 1), on the throwaway PostgreSQL (the same
 * walk on PGlite is in care-jobs-api.int.test.ts) and at the store on both: concurrent creates with one key make one job (the others replay it or get 409 while
 * it runs); the key rules at the store: a retry while the first holds the key is 409, a request
 * whose lease ran out loses the key to the retry and its own job rolls back, keys past 24 hours
 * are deleted by the cleanup.
 */
import { describe, expect, it } from 'vitest';
import { migrate } from '../../engine/storage/migrate.ts';
import { completeKey, deleteExpiredKeys, reserveKey } from '../../engine/carejobs/care-job-idempotency.ts';
import { makeTestApp } from '../helpers/app.ts';
import { backends, useBackends } from '../storage/backends.ts';
import { careIdentity, concurrentCreates } from './carejobs-fixture.ts';
import type { Db } from '../../engine/ports/db.ts';

useBackends();

async function account(db: Db): Promise<string> {
  const id = `acct_${Math.random().toString(36).slice(2)}`;
  await db.query('INSERT INTO accounts (id, email, email_lower, password_hash) VALUES ($1, $2, $2, $3)', [id, `${id}@example.test`, 'x']);
  return id;
}

describe.each(backends)('idempotency keys at the store ($name)', (backend) => {
  it('409 while held, 422 for another body, takeover after the lease, cleanup after 24 h', async () => {
    const db = await backend.open();
    try {
      await migrate(db);
      const acct = await account(db);
      const t0 = new Date('2026-06-01T12:00:00Z');
      const first = await reserveKey(db, acct, 'k1', 'hash-a', t0);
      expect(first.kind).toBe('reserved');
      await expect(reserveKey(db, acct, 'k1', 'hash-a', new Date(t0.getTime() + 1000))).rejects.toMatchObject({ code: 'conflict', details: { code: 'idempotency_key_in_use' } });
      await expect(reserveKey(db, acct, 'k1', 'hash-b', new Date(t0.getTime() + 1000))).rejects.toMatchObject({ code: 'idempotency_key_reused' });
      // The first request died: after its 60 s lease a retry takes the key over; the dead one cannot finish.
      const retry = await reserveKey(db, acct, 'k1', 'hash-a', new Date(t0.getTime() + 61_000));
      expect(retry.kind).toBe('reserved');
      await expect(db.transaction((tx) => completeKey(tx, acct, 'k1', (first as { lockToken: string }).lockToken, 'cj_x', {}))).rejects.toMatchObject({ code: 'conflict' });
      expect(await deleteExpiredKeys(db, new Date(t0.getTime() + 23 * 3600_000))).toBe(0);
      expect(await deleteExpiredKeys(db, new Date(t0.getTime() + 24 * 3600_000))).toBe(1);
    } finally {
      await db.close();
    }
  });
});

const pg = backends.find((b) => b.name === 'postgres');
it.runIf(pg !== undefined)('PostgreSQL: eight concurrent creates with one key make one job', async () => {
  // The app on the file's throwaway cluster, through a pool of 4 connections: the requests really run at once.
  const db = await pg!.open();
  const identity = careIdentity();
  const t = await makeTestApp({ identity, db });
  try {
    const u = await identity.signUp(t.db);
    await concurrentCreates(t, u.token, u.userId);
  } finally {
    await t.close();
    await db.close();
  }
});
