/**
 * A media message in its conversation (service-spec.md, Message: types `photo`, `video`, `file`):
 * the message and its media row written in one transaction, under the conversation's lock. A
 * media message is the patient's (sender `user`); it joins the current request without starting
 * triage (triage reads text only) and without moving the status. An EMERGENCY conversation takes
 * nothing more, as with text.
 */
import { AppError } from '../core/errors.ts';
import type { Db } from '../ports/db.ts';
import type { PlatformWrite } from '../consultations/consultation-store.ts';
import { insertMessage, markSeen, requireConversation, touch } from '../consultations/consultation-store.ts';
import { EMERGENCY_ADVICE } from '../consultations/consultation-view.ts';
import type { MediaIdentity } from './media-records.ts';
import type { MediaType } from './media.schema.ts';

/** The message's `content`: plain words for a list preview and for a reader without the file. */
export function mediaContent(mediaType: MediaType, contentType: string, byteSize: number, fileName: string | null): string {
  const kb = Math.max(1, Math.round(byteSize / 1024));
  const what = mediaType === 'photo' ? 'Photo' : mediaType === 'video' ? 'Video' : 'File';
  return `${what}${fileName ? ` "${fileName}"` : ''} (${contentType}, ${kb} KB)`;
}

/** Refuses media in a conversation that can take none (the same words as a refused text send). */
export function refuseIfEmergency(status: string): void {
  if (status === 'EMERGENCY') {
    throw new AppError('conversation_emergency', EMERGENCY_ADVICE, { extra: { status } });
  }
}

export interface MediaMessage extends MediaIdentity {
  byteSize: number;
}

/**
 * Writes the media message inside `tx` (with `media` for the media row written beside it) and
 * marks it seen by its sender: the agent holds its messageId, the newest for the read-first gate.
 */
export async function writeMediaMessage(tx: Db, platform: PlatformWrite, m: MediaMessage, media: (tx: Db, requestSeq: number) => Promise<void>): Promise<void> {
  const conv = await requireConversation(tx, m.accountId, m.conversationId, true);
  refuseIfEmergency(conv.status);
  const row = await insertMessage(tx, {
    id: m.messageId, conversationId: conv.id, requestSeq: conv.requestSeq, sender: 'user', senderId: m.accountId,
    type: m.mediaType, content: mediaContent(m.mediaType, m.contentType, m.byteSize, m.fileName), fileName: m.fileName, at: m.at,
  });
  await media(tx, conv.requestSeq);
  await markSeen(tx, conv.id, row.seq);
  // A waiter ends on a reply or a status move, not on the patient's own message: no wake-up.
  await touch(tx, platform, conv.id, m.at, { notify: false });
}
