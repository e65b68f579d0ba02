/**
 * The upload-URL fallback (service-spec.md, POST …/media with neither data nor url): a single-use
 * URL valid about 60 s to which the caller PUTs the file. Only a hash of the URL's token is kept.
 * The PUT claims the URL first (one conditional UPDATE: a second or concurrent PUT is refused),
 * then checks the bytes, stores them and writes the media message under the pre-assigned id.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Ports } from '../core/context.ts';
import { AppError } from '../core/errors.ts';
import { newId, type PlatformWrite } from '../consultations/consultation-store.ts';
import type { MediaPorts } from './media-store.ts';
import { storageKey } from './media-store.ts';
import { storeThenCommit } from './media-orphans.ts';
import { inspectMedia } from './media-content.ts';
import { writeMediaMessage } from './media-message.ts';
import { claimUpload, insertPending, markFailed, markStored } from './media-records.ts';
import { UPLOAD_URL_SECONDS, type MediaType } from './media.schema.ts';

/** The path uploads are PUT to (api/media/media.routes.ts). */
export const UPLOAD_PATH = '/media/uploads';
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface NewUpload { messageId: string; uploadUrl: string; uploadRef: string; expiresIn: number }

/** Reserves a message id and a single-use upload URL for it. */
export async function createUpload(ports: Ports, baseUrl: string, u: { conversationId: string; accountId: string; contentType: string; mediaType: MediaType; fileName: string | null }): Promise<NewUpload> {
  const token = randomBytes(32).toString('base64url');
  const at = ports.clock.now();
  const messageId = newId('msg');
  const uploadRef = newId('upl');
  await insertPending(ports.db, {
    ...u, messageId, uploadRef, tokenHash: hashToken(token), expiresAt: new Date(at.getTime() + UPLOAD_URL_SECONDS * 1000), at,
  });
  return { messageId, uploadUrl: `${baseUrl}${UPLOAD_PATH}/${token}`, uploadRef, expiresIn: UPLOAD_URL_SECONDS };
}

export interface UploadDone { messageId: string; conversationId: string; mediaType: MediaType; contentType: string; byteSize: number }

const WHY: Record<'unknown' | 'used' | 'expired', string> = {
  unknown: 'This upload URL is not valid. Ask for a new one with POST /api/consultations/{id}/media (without data or url).',
  used: 'This upload URL was already used; each works once. Ask for a new one with POST /api/consultations/{id}/media.',
  expired: `This upload URL has expired (they are valid ${UPLOAD_URL_SECONDS} seconds). Ask for a new one with POST /api/consultations/{id}/media.`,
};

/** Completes the upload of `token` with `bytes`. */
export async function completeUpload(ports: Ports, platform: PlatformWrite, media: MediaPorts, token: string, bytes: Buffer): Promise<UploadDone> {
  if (!TOKEN_RE.test(token)) throw new AppError('upload_url_invalid', WHY.unknown, { code: 'unknown' });
  const claim = await claimUpload(ports.db, hashToken(token), ports.clock.now());
  if (!claim.ok) throw new AppError('upload_url_invalid', WHY[claim.why], { code: claim.why });
  const row = claim.row;
  try {
    const info = await inspectMedia(bytes, row.contentType, 'body', row.mediaType);
    const key = storageKey(row.conversationId, row.messageId);
    const at = ports.clock.now();
    await storeThenCommit({ db: ports.db, store: media.store, now: at }, key, bytes, info.contentType, (tx) => writeMediaMessage(tx, platform, {
      messageId: row.messageId, conversationId: row.conversationId, accountId: row.accountId, mediaType: info.mediaType,
      contentType: info.contentType, fileName: row.fileName, byteSize: info.byteSize, at,
    }, (tx) => markStored(tx, row.messageId, { ...info, storageKey: key, at })));
    return { messageId: row.messageId, conversationId: row.conversationId, mediaType: info.mediaType, contentType: info.contentType, byteSize: info.byteSize };
  } catch (e) {
    await markFailed(ports.db, row.messageId);
    throw e;
  }
}
