/**
 * No media bytes without a message. Bytes go to the MediaStore before the transaction that writes
 * their message (an S3 upload or a file write must not run inside a database transaction), so a
 * transaction that then fails, or a process that dies between the two, would leave bytes nothing
 * references. A `media_pending_puts` row (migration 075) is committed before the bytes are
 * written and deleted in the message's own transaction: a failed request deletes the bytes and
 * the row at once, and the sweep (a pg-boss job, engine/media/media.workers.ts) deletes what a
 * crash left once it is older than any request could still be running.
 */
import type { Logger } from 'pino';
import type { Db } from '../ports/db.ts';
import type { MediaStore } from './media-store.ts';

/** A pending put this old belongs to no running request (a request lasts seconds; the upload URL 60 s). */
export const ORPHAN_AGE_MS = 15 * 60_000;

/** Keys a sweep handles at once (the next run takes the rest). */
const SWEEP_BATCH = 200;

/**
 * Stores `bytes` at `key`, then runs `write` in a transaction that also clears the pending put.
 * If the store or the transaction fails, the bytes are deleted (and the pending row with them)
 * before the error is rethrown; a delete that fails itself leaves the row for the sweep.
 */
export async function storeThenCommit(
  deps: { db: Db; store: MediaStore; now: Date },
  key: string, bytes: Buffer, contentType: string, write: (tx: Db) => Promise<void>,
): Promise<void> {
  await deps.db.query(
    `INSERT INTO media_pending_puts (storage_key, created_at) VALUES ($1, $2)
     ON CONFLICT (storage_key) DO UPDATE SET created_at = EXCLUDED.created_at`, [key, deps.now.toISOString()]);
  try {
    await deps.store.put(key, bytes, contentType);
    await deps.db.transaction(async (tx) => {
      await write(tx);
      await tx.query('DELETE FROM media_pending_puts WHERE storage_key = $1', [key]);
    });
  } catch (e) {
    await discard(deps.db, deps.store, key).catch(() => undefined);
    throw e;
  }
}

async function discard(db: Db, store: MediaStore, key: string): Promise<void> {
  await store.delete(key);
  await db.query('DELETE FROM media_pending_puts WHERE storage_key = $1', [key]);
}

/**
 * Deletes the bytes of pending puts older than ORPHAN_AGE_MS at `now`: their request failed
 * without cleaning up, or their process died before the commit. A key a stored media row names
 * (which cannot happen while the row is deleted with the message, but costs one read to be sure)
 * only loses its pending row. Returns how many orphans were deleted.
 */
export async function sweepOrphanedMedia(db: Db, store: MediaStore, now: Date, log?: Logger): Promise<number> {
  const { rows } = await db.query<{ storage_key: string; referenced: boolean }>(
    `SELECT p.storage_key, EXISTS (SELECT 1 FROM media_objects m WHERE m.storage_key = p.storage_key AND m.status = 'stored') AS referenced
     FROM media_pending_puts p WHERE p.created_at < $1 ORDER BY p.created_at LIMIT ${SWEEP_BATCH}`,
    [new Date(now.getTime() - ORPHAN_AGE_MS).toISOString()]);
  let deleted = 0;
  for (const r of rows) {
    try {
      if (r.referenced) await db.query('DELETE FROM media_pending_puts WHERE storage_key = $1', [r.storage_key]);
      else {
        await discard(db, store, r.storage_key);
        deleted++;
      }
    } catch (e) {
      // Left for the next run (the store may be briefly unreachable).
      log?.warn({ err: e, storageKey: r.storage_key }, 'orphaned media not deleted yet');
    }
  }
  return deleted;
}
