/**
 * Contracts of the media operations (service-spec.md: Conversations, POST/GET …/media; Message;
 * Limits), one zod schema each for validation, OpenAPI and MCP (STYLE.md 2).
 */
import { z } from 'zod';

/** service-spec.md, Limits: "8 MB decoded (data); under 8 MB (url)". Read as 8 MiB. */
export const MEDIA_MAX_BYTES = 8 * 1024 * 1024;
/** Words for the limit in error messages. */
export const MEDIA_LIMIT_TEXT = `8 MB (${MEDIA_MAX_BYTES} bytes)`;
/** service-spec.md, Limits: presigned upload URL life "about 60 seconds". */
export const UPLOAD_URL_SECONDS = 60;
/** Life of a signed URL to view media (GET …/media/{messageId}). */
export const READ_URL_SECONDS = 300;
/**
 * The JSON body limit of POST …/media alone (the app's is 1 MiB): base64 of 8 MiB is 11,184,812
 * characters, plus the other fields. A decoded size past MEDIA_MAX_BYTES is refused by the handler
 * with the limit named; only a body past this is refused by the parser.
 */
export const MEDIA_BODY_LIMIT_BYTES = 12 * 1024 * 1024;

export const MEDIA_TYPES = ['photo', 'video', 'file'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/**
 * The content types accepted, as file-type names them after sniffing: images, video, PDF
 * (issue 39, item 3). SVG is left out on purpose: it is a document that can carry script.
 */
export const ACCEPTED_TYPES: Readonly<Record<string, MediaType>> = Object.freeze({
  'image/jpeg': 'photo', 'image/png': 'photo', 'image/gif': 'photo', 'image/webp': 'photo',
  'image/heic': 'photo', 'image/heif': 'photo', 'image/avif': 'photo', 'image/bmp': 'photo', 'image/tiff': 'photo',
  'video/mp4': 'video', 'video/quicktime': 'video', 'video/webm': 'video', 'video/3gpp': 'video', 'video/x-matroska': 'video',
  'application/pdf': 'file',
});

const ConversationId = z.string().trim().min(1).max(100).describe('The conversation id.');
const MessageId = z.string().trim().min(1).max(100).describe('The media message id (messageId from send_media, or a message of type photo, video or file).');
const ContentType = z.string().trim().toLowerCase().min(3).max(100)
  .regex(/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/, 'a MIME type such as image/jpeg, video/mp4 or application/pdf (no parameters)');

export const SendMediaInputSchema = z.strictObject({
  conversationId: ConversationId,
  contentType: ContentType.describe('MIME type of the file: an image (image/jpeg, image/png, image/heic, …), a video (video/mp4, video/quicktime, video/webm) or application/pdf. The bytes are checked against it.'),
  data: z.string().max(MEDIA_BODY_LIMIT_BYTES).optional()
    .describe(`The file's bytes in base64 (no data: prefix), at most ${MEDIA_LIMIT_TEXT} decoded. Over MCP the whole message is limited to 1 MiB: send larger files with url or the upload URL.`),
  url: z.string().trim().max(2048).optional()
    .describe('A public https URL the service downloads (no credentials; must not resolve to a private or reserved address; under 8 MB). Ignored when data is set.'),
  mediaType: z.enum(MEDIA_TYPES).optional().describe('photo, video or file; checked against the content when given (default: from the content type).'),
  fileName: z.string().trim().min(1).max(200).optional().describe('Original file name, shown with file attachments.'),
});

export const SendMediaOutputSchema = z.object({
  /** True when the media was delivered (data or url); false on the upload-URL fallback until the PUT. */
  sent: z.boolean(),
  mediaSent: z.enum(MEDIA_TYPES).optional(),
  messageId: z.string(),
  contentType: z.string(),
  mediaType: z.enum(MEDIA_TYPES),
  byteSize: z.number().int().optional(),
  uploadUrl: z.string().optional(),
  uploadRef: z.string().optional(),
  expiresIn: z.number().int().optional(),
  instructions: z.string(),
  agentInstructions: z.array(z.string()),
});
export type SendMediaOutput = z.input<typeof SendMediaOutputSchema>;

export const GetMediaInputSchema = z.strictObject({
  conversationId: ConversationId,
  messageId: MessageId,
  mediaType: z.enum(MEDIA_TYPES).optional().describe('photo, video or file; when given it must be the message\'s.'),
  fileName: z.string().trim().min(1).max(200).optional().describe('Download name for a file attachment (default: the name it was sent with).'),
});

export const MediaUrlOutputSchema = z.object({
  url: z.string(),
  expiresIn: z.number().int(),
  messageId: z.string(),
  mediaType: z.enum(MEDIA_TYPES),
  contentType: z.string(),
  byteSize: z.number().int(),
});
export type MediaUrlOutput = z.input<typeof MediaUrlOutputSchema>;
