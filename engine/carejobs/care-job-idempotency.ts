/**
 * Idempotency keys of POST /api/care-jobs (issue 39, item 1), on Stripe's rules and the IETF
 * draft (draft-ietf-httpapi-idempotency-key-header): a key is bound to the SHA-256 of the
 * canonical request; the same key and body replay the first response; another body is 422; a
 * retry while the first request still holds the key is 409; keys are kept 24 hours.
 *
 * Two steps, so a concurrent retry sees "running" (409) rather than waiting on a row lock: a short
 * transaction reserves the key (state running, with a lease); the job is then inserted in the
 * transaction that also marks the key done, and only by the holder of the reservation
 * (`lock_token`), so two concurrent creates make one job. A request that died holding the key
 * loses it when the lease ends, and the next retry takes over.
 */
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import type { Db } from '../ports/db.ts';
import { IDEMPOTENCY_LIFE_MS, IDEMPOTENCY_LOCK_MS } from './care-job-status.ts';

/** JSON with object keys sorted, so the same body in another key order hashes alike. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The request's fingerprint: the validated body without the key itself. */
export function requestHash(body: Record<string, unknown>): string {
  const { idempotencyKey: _k, ...rest } = body;
  return createHash('sha256').update(canonical(rest)).digest('hex');
}

export type Reservation = { kind: 'reserved'; lockToken: string } | { kind: 'replay'; response: unknown };

interface KeyRow { request_hash: string; state: string; locked_until: string | Date | null; expires_at: string | Date; response: unknown }

/** Reserves `key` for this request, or answers with the replay, 422 or 409. */
export async function reserveKey(db: Db, accountId: string, key: string, hash: string, now: Date): Promise<Reservation> {
  const lockToken = randomBytes(16).toString('hex');
  const lockedUntil = new Date(now.getTime() + IDEMPOTENCY_LOCK_MS).toISOString();
  const expiresAt = new Date(now.getTime() + IDEMPOTENCY_LIFE_MS).toISOString();
  return db.transaction(async (tx) => {
    const ins = await tx.query(
      `INSERT INTO care_job_idempotency (account_id, key, request_hash, state, lock_token, locked_until, created_at, expires_at)
       VALUES ($1, $2, $3, 'running', $4, $5, $6, $7) ON CONFLICT (account_id, key) DO NOTHING`,
      [accountId, key, hash, lockToken, lockedUntil, now.toISOString(), expiresAt]);
    if (ins.rowCount === 1) return { kind: 'reserved', lockToken } as const;
    const { rows } = await tx.query<KeyRow & Record<string, unknown>>(
      'SELECT request_hash, state, locked_until, expires_at, response FROM care_job_idempotency WHERE account_id = $1 AND key = $2 FOR UPDATE', [accountId, key]);
    const row = rows[0];
    const expired = !row || new Date(row.expires_at) <= now;
    const stale = row?.state === 'running' && row.locked_until !== null && new Date(row.locked_until) <= now;
    if (row && !expired && row.request_hash !== hash) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body. Use a new key for a different request.', { field: 'idempotencyKey' });
    }
    if (row && !expired && row.state === 'done') return { kind: 'replay', response: row.response } as const;
    if (row && !expired && !stale) {
      throw new AppError('conflict', 'A request with this Idempotency-Key is still being processed; retry in a moment with the same key.', {
        code: 'idempotency_key_in_use', field: 'idempotencyKey', headers: { 'retry-after': '1' },
      });
    }
    // Expired (kept past 24 h) or abandoned by a request that died: this request takes it over.
    await tx.query(
      `UPDATE care_job_idempotency SET request_hash = $3, state = 'running', lock_token = $4, locked_until = $5, job_id = NULL, response = NULL,
         created_at = CASE WHEN expires_at <= $6 THEN $6 ELSE created_at END, expires_at = CASE WHEN expires_at <= $6 THEN $7 ELSE expires_at END
       WHERE account_id = $1 AND key = $2`,
      [accountId, key, hash, lockToken, lockedUntil, now.toISOString(), expiresAt]);
    return { kind: 'reserved', lockToken } as const;
  });
}

/**
 * Marks the key done with the job created in `tx` (the same transaction). Throws 409 when this
 * request no longer holds the key (its lease ran out and a retry took it over): `tx` then rolls
 * back, job included, so still only one job exists.
 */
export async function completeKey(tx: Db, accountId: string, key: string, lockToken: string, jobId: string, response: unknown): Promise<void> {
  const r = await tx.query(
    `UPDATE care_job_idempotency SET state = 'done', job_id = $4, response = $5::jsonb, lock_token = NULL, locked_until = NULL
     WHERE account_id = $1 AND key = $2 AND state = 'running' AND lock_token = $3`,
    [accountId, key, lockToken, jobId, JSON.stringify(response)]);
  if (r.rowCount !== 1) {
    throw new AppError('conflict', 'Another request with this Idempotency-Key took it over; retry with the same key to get its result.', { code: 'idempotency_key_in_use', field: 'idempotencyKey' });
  }
}

/** Frees a reservation whose request failed (nothing was created), so a retry can run. */
export async function releaseKey(db: Db, accountId: string, key: string, lockToken: string): Promise<void> {
  await db.query(`DELETE FROM care_job_idempotency WHERE account_id = $1 AND key = $2 AND state = 'running' AND lock_token = $3`, [accountId, key, lockToken]);
}

/** Deletes keys older than 24 hours (the cleanup job); returns how many. */
export async function deleteExpiredKeys(db: Db, now: Date): Promise<number> {
  const r = await db.query('DELETE FROM care_job_idempotency WHERE expires_at <= $1', [now.toISOString()]);
  return r.rowCount;
}
