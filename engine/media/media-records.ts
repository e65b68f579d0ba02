/**
 * SQL of the media area over the Db port (migration 050_media.sql): one `media_objects` row per
 * media message, and the single-use claim of an upload URL.
 */
import type { Db } from '../ports/db.ts';
import type { MediaType } from './media.schema.ts';

export interface MediaRow {
  messageId: string;
  conversationId: string;
  accountId: string;
  status: 'pending' | 'used' | 'failed' | 'stored';
  mediaType: MediaType;
  contentType: string;
  fileName: string | null;
  byteSize: number | null;
  storageKey: string | null;
  uploadExpiresAt: Date | null;
}

const COLS = 'message_id, conversation_id, account_id, status, media_type, content_type, file_name, byte_size, storage_key, upload_expires_at';

function toRow(r: Record<string, unknown>): MediaRow {
  return {
    messageId: r.message_id as string,
    conversationId: r.conversation_id as string,
    accountId: r.account_id as string,
    status: r.status as MediaRow['status'],
    mediaType: r.media_type as MediaType,
    contentType: r.content_type as string,
    fileName: (r.file_name as string | null) ?? null,
    byteSize: r.byte_size === null || r.byte_size === undefined ? null : Number(r.byte_size),
    storageKey: (r.storage_key as string | null) ?? null,
    uploadExpiresAt: r.upload_expires_at ? new Date(r.upload_expires_at as string) : null,
  };
}

/** What a media item is and whose it is: shared by a stored item, a pending upload and its message. */
export interface MediaIdentity {
  messageId: string;
  conversationId: string;
  accountId: string;
  mediaType: MediaType;
  contentType: string;
  fileName: string | null;
  at: Date;
}

export interface StoredMedia extends MediaIdentity {
  byteSize: number;
  sha256: string;
  storageKey: string;
}

/** A media row for bytes already in the store (data, url), written in the message's transaction. */
export async function insertStored(tx: Db, m: StoredMedia): Promise<void> {
  await tx.query(
    `INSERT INTO media_objects (message_id, conversation_id, account_id, status, media_type, content_type, file_name, byte_size, sha256, storage_key, created_at, stored_at)
     VALUES ($1, $2, $3, 'stored', $4, $5, $6, $7, $8, $9, $10, $10)`,
    [m.messageId, m.conversationId, m.accountId, m.mediaType, m.contentType, m.fileName, m.byteSize, m.sha256, m.storageKey, m.at.toISOString()]);
}

export interface PendingUpload extends MediaIdentity {
  uploadRef: string;
  tokenHash: string;
  expiresAt: Date;
}

export async function insertPending(db: Db, p: PendingUpload): Promise<void> {
  await db.query(
    `INSERT INTO media_objects (message_id, conversation_id, account_id, status, media_type, content_type, file_name, upload_ref, upload_token_hash, upload_expires_at, created_at)
     VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7, $8, $9, $10)`,
    [p.messageId, p.conversationId, p.accountId, p.mediaType, p.contentType, p.fileName, p.uploadRef, p.tokenHash, p.expiresAt.toISOString(), p.at.toISOString()]);
}

export type Claim = { ok: true; row: MediaRow } | { ok: false; why: 'unknown' | 'used' | 'expired' };

/**
 * Claims an upload URL: `pending` and unexpired becomes `used` in one conditional UPDATE, so of two
 * concurrent PUTs exactly one wins. The loser (and any later PUT) learns why it lost.
 */
export async function claimUpload(db: Db, tokenHash: string, now: Date): Promise<Claim> {
  const { rows } = await db.query(
    `UPDATE media_objects SET status = 'used' WHERE upload_token_hash = $1 AND status = 'pending' AND upload_expires_at > $2 RETURNING ${COLS}`,
    [tokenHash, now.toISOString()]);
  if (rows[0]) return { ok: true, row: toRow(rows[0]) };
  const seen = await db.query(`SELECT ${COLS} FROM media_objects WHERE upload_token_hash = $1`, [tokenHash]);
  const r = seen.rows[0] ? toRow(seen.rows[0]) : null;
  if (!r) return { ok: false, why: 'unknown' };
  return { ok: false, why: r.status === 'pending' ? 'expired' : 'used' };
}

export async function markFailed(db: Db, messageId: string): Promise<void> {
  await db.query(`UPDATE media_objects SET status = 'failed' WHERE message_id = $1 AND status = 'used'`, [messageId]);
}

/** Completes a claimed upload with what the bytes turned out to be. */
export async function markStored(tx: Db, messageId: string, m: { contentType: string; mediaType: MediaType; byteSize: number; sha256: string; storageKey: string; at: Date }): Promise<void> {
  await tx.query(
    `UPDATE media_objects SET status = 'stored', content_type = $2, media_type = $3, byte_size = $4, sha256 = $5, storage_key = $6, stored_at = $7
     WHERE message_id = $1 AND status = 'used'`,
    [messageId, m.contentType, m.mediaType, m.byteSize, m.sha256, m.storageKey, m.at.toISOString()]);
}

/** A stored media object of a conversation, or null. */
export async function findStored(db: Db, conversationId: string, messageId: string): Promise<MediaRow | null> {
  const { rows } = await db.query(`SELECT ${COLS} FROM media_objects WHERE conversation_id = $1 AND message_id = $2 AND status = 'stored'`, [conversationId, messageId]);
  return rows[0] ? toRow(rows[0]) : null;
}
