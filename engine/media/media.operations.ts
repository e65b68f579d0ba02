/**
 * Media operations (issue 39, item 3; service-spec.md, Conversations: POST and GET …/media), served
 * as REST routes and MCP tools from these declarations, and the provider's read of the same media
 * (the clinician console shows it; issue 35, item 4). One user never reaches another's media: the
 * conversation is looked up on the caller's account (404 otherwise), and a provider only on a
 * conversation offered to them or in their visit, as provider_get_visit.
 */
import type { HandlerContext } from '../core/context.ts';
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import { AppError } from '../core/errors.ts';
import { requireAccount } from '../profile/onboarding.ts';
import { newId, requireConversation } from '../consultations/consultation-store.ts';
import { carePorts } from '../consultations/send-message.ts';
import { requireProvider } from '../visits/provider-store.ts';
import { storageKey, type MediaPorts } from './media-store.ts';
import { storeThenCommit } from './media-orphans.ts';
import { decodeBase64, inspectMedia, normaliseContentType } from './media-content.ts';
import { fetchMedia } from './media-fetch.ts';
import { refuseIfEmergency, writeMediaMessage } from './media-message.ts';
import { findStored, insertStored, type MediaRow } from './media-records.ts';
import { cleanFileName, defaultFileName } from './media-names.ts';
import { createUpload } from './media-upload.ts';
import {
  ACCEPTED_TYPES, GetMediaInputSchema, MEDIA_BODY_LIMIT_BYTES, MEDIA_LIMIT_TEXT, MediaUrlOutputSchema, READ_URL_SECONDS, SendMediaInputSchema,
  SendMediaOutputSchema, UPLOAD_URL_SECONDS, type MediaUrlOutput,
} from './media.schema.ts';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** The media ports; absent on the pricing-only host. */
export function mediaPorts(ctx: HandlerContext): MediaPorts {
  if (!ctx.ports.media) throw new AppError('not_ready', 'Media is not served by this process.');
  return ctx.ports.media;
}

function typeNotAccepted(ct: string): AppError {
  return new AppError('media_not_accepted', `contentType ${ct} is not accepted: send an image, a video or a PDF (${Object.keys(ACCEPTED_TYPES).join(', ')}).`, {
    field: 'contentType', code: 'type_not_allowed',
  });
}

export const sendMedia = defineOperation({
  name: 'send_media',
  title: 'Send a photo, video or PDF',
  description: `Send the patient's photo, video or PDF into the conversation. Give contentType and either data (base64, at most ${MEDIA_LIMIT_TEXT} decoded) or url (a public https URL the service downloads). With neither, you get a single-use uploadUrl valid ${UPLOAD_URL_SECONDS} s: PUT the raw file to it; the message appears as messageId once the upload is accepted. The content is checked: it must be an image, a video or a PDF and match contentType. The message is the newest: pass messageId as lastSeenMessageId on your next send.`,
  input: SendMediaInputSchema,
  output: SendMediaOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/consultations/:conversationId/media', bodyLimitBytes: MEDIA_BODY_LIMIT_BYTES }],
  mcpText: (o) => (o.sent ? `Sent ${o.mediaType} ${o.messageId}.` : `Upload URL for ${o.messageId} (valid ${o.expiresIn} s): ${o.uploadUrl}`),
  handler: async (input, ctx) => {
    const { account } = await requireAccount(ctx);
    const { platform } = carePorts(ctx);
    const media = mediaPorts(ctx);
    const contentType = normaliseContentType(input.contentType);
    const kind = ACCEPTED_TYPES[contentType];
    if (!kind) throw typeNotAccepted(contentType);
    if (input.mediaType !== undefined && input.mediaType !== kind) {
      throw new AppError('media_not_accepted', `mediaType is ${input.mediaType}, but contentType ${contentType} is a ${kind}.`, { field: 'mediaType', code: 'media_type_mismatch' });
    }
    const fileName = input.fileName !== undefined ? cleanFileName(input.fileName) : null;
    // Checked before any download or upload URL: a missing or emergency conversation takes nothing.
    const conv = await requireConversation(ctx.ports.db, account.id, input.conversationId);
    refuseIfEmergency(conv.status);

    if (input.data === undefined && input.url === undefined) {
      const up = await createUpload(ctx.ports, ctx.urls.baseUrl, { conversationId: conv.id, accountId: account.id, contentType, mediaType: kind, fileName });
      return {
        sent: false, messageId: up.messageId, contentType, mediaType: kind, uploadUrl: up.uploadUrl, uploadRef: up.uploadRef, expiresIn: up.expiresIn,
        instructions: `PUT the file's raw bytes (at most ${MEDIA_LIMIT_TEXT}) to uploadUrl within ${up.expiresIn} seconds. The URL works once; the file must be ${contentType}.`,
        agentInstructions: [
          'Upload with one HTTP PUT to uploadUrl (no Authorization header needed); a 200 answer means the message was sent.',
          'If the URL expired or was used, ask for a new one with the same call.',
        ],
      };
    }
    const field = input.data !== undefined ? 'data' : 'url';
    const bytes = input.data !== undefined ? decodeBase64(input.data) : await fetchMedia(input.url!, media.guard);
    const info = await inspectMedia(bytes, contentType, field, input.mediaType);
    const messageId = newId('msg');
    const key = storageKey(conv.id, messageId);
    const at = ctx.ports.clock.now();
    // Bytes first, then the message; a failed transaction takes the bytes with it (media-orphans.ts).
    await storeThenCommit({ db: ctx.ports.db, store: media.store, now: at }, key, bytes, info.contentType, (tx) => writeMediaMessage(tx, platform, {
      messageId, conversationId: conv.id, accountId: account.id, mediaType: info.mediaType, contentType: info.contentType, fileName, byteSize: info.byteSize, at,
    }, (tx) => insertStored(tx, { ...info, messageId, conversationId: conv.id, accountId: account.id, fileName, storageKey: key, at })));
    return {
      sent: true, mediaSent: info.mediaType, messageId, contentType: info.contentType, mediaType: info.mediaType, byteSize: info.byteSize,
      instructions: `The ${info.mediaType} was sent to the conversation as message ${messageId}.`,
      agentInstructions: ['Pass messageId as lastSeenMessageId on your next send_message.', 'Read it back with get_media_url (a signed URL valid a few minutes).'],
    };
  },
});

/** A signed URL for a stored media row. */
async function signedUrl(ctx: HandlerContext, row: MediaRow, fileName: string | undefined): Promise<MediaUrlOutput> {
  const name = fileName !== undefined ? cleanFileName(fileName) : row.fileName ?? defaultFileName(row.messageId, row.contentType);
  const url = await mediaPorts(ctx).store.readUrl(row.storageKey!, {
    contentType: row.contentType,
    // Images and video are shown in place; a PDF is downloaded, never rendered in our origin.
    disposition: row.mediaType === 'file' ? 'attachment' : 'inline',
    fileName: name, expiresInSeconds: READ_URL_SECONDS, now: ctx.ports.clock.now(),
  });
  return { url, expiresIn: READ_URL_SECONDS, messageId: row.messageId, mediaType: row.mediaType, contentType: row.contentType, byteSize: row.byteSize ?? 0 };
}

function noMedia(): AppError {
  return new AppError('not_found', 'No media message with this id in this conversation (an upload not completed has none).', { field: 'messageId' });
}

export const getMediaUrl = defineOperation({
  name: 'get_media_url',
  title: 'A signed URL to view media',
  description: `A signed URL (valid ${READ_URL_SECONDS} s, no Authorization needed) to view or download a media message of the conversation (type photo, video or file). Images and video open in place; a PDF downloads.`,
  input: GetMediaInputSchema,
  output: MediaUrlOutputSchema,
  annotations: READ,
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/consultations/:conversationId/media/:messageId' }],
  handler: async (input, ctx) => {
    const { account } = await requireAccount(ctx);
    const conv = await requireConversation(ctx.ports.db, account.id, input.conversationId);
    const row = await findStored(ctx.ports.db, conv.id, input.messageId);
    if (!row || (input.mediaType !== undefined && input.mediaType !== row.mediaType)) throw noMedia();
    return signedUrl(ctx, row, input.fileName);
  },
});

export const providerMediaUrl = defineOperation({
  name: 'provider_media_url',
  title: 'A signed URL to view a patient\'s media (provider)',
  description: 'As get_media_url, for a provider on a conversation offered to them or in their visit.',
  input: GetMediaInputSchema,
  output: MediaUrlOutputSchema,
  annotations: READ,
  auth: 'required',
  mcp: false,
  rest: [{ method: 'GET', path: '/api/provider/visits/:conversationId/media/:messageId' }],
  handler: async (input, ctx) => {
    const p = await requireProvider(ctx);
    // The rule of provider_get_visit: offered to this provider, or a visit of theirs (404 otherwise: no probing).
    const { rows } = await ctx.ports.db.query(
      `SELECT 1 FROM visit_offers WHERE conversation_id = $1 AND provider_id = $2
       UNION ALL SELECT 1 FROM conversation_visits WHERE conversation_id = $1 AND provider_id = $2 LIMIT 1`, [input.conversationId, p.accountId]);
    if (!rows.length) throw new AppError('not_found', 'No conversation with this id.', { field: 'conversationId' });
    const row = await findStored(ctx.ports.db, input.conversationId, input.messageId);
    if (!row || (input.mediaType !== undefined && input.mediaType !== row.mediaType)) throw noMedia();
    return signedUrl(ctx, row, input.fileName);
  },
});

export const mediaOperations: AnyOperation[] = [sendMedia, getMediaUrl, providerMediaUrl];
