/**
 * What a media file is, by its bytes (issue 39, item 3): base64 decoded strictly, the size held to
 * the limit, the type sniffed with file-type (magic numbers) and refused when it is not an image,
 * a video or a PDF, or does not match the declared `contentType`. A caller's label is never
 * trusted: the stored type is the sniffed one.
 */
import { createHash } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import { AppError } from '../core/errors.ts';
import { ACCEPTED_TYPES, MEDIA_LIMIT_TEXT, MEDIA_MAX_BYTES, type MediaType } from './media.schema.ts';

/** Names some clients use for the same type. */
const ALIASES: Readonly<Record<string, string>> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'video/x-m4v': 'video/mp4', 'image/x-png': 'image/png' };

export function normaliseContentType(ct: string): string {
  const t = ct.trim().toLowerCase();
  return ALIASES[t] ?? t;
}

export function tooLarge(field: string, size?: number): AppError {
  const got = size === undefined ? 'larger' : `${size} bytes`;
  return new AppError('media_too_large', `The media is ${got}; the limit is ${MEDIA_LIMIT_TEXT}. Send a smaller file.`, {
    field, code: 'media_too_large', extra: { limitBytes: MEDIA_MAX_BYTES },
  });
}

/** Decodes `data` (base64 or base64url, padded or not, no data: prefix); refuses bad text and too many bytes. */
export function decodeBase64(data: string): Buffer {
  if (/^data:/i.test(data)) {
    throw new AppError('invalid_request', 'data: send the base64 bytes alone, without a data: URL prefix.', { field: 'data', code: 'data_url_prefix' });
  }
  const s = data.replace(/=+$/, '');
  if (s.length % 4 === 1 || !/^[A-Za-z0-9+/_-]*$/.test(s)) {
    throw new AppError('invalid_request', 'data: not valid base64.', { field: 'data', code: 'invalid_base64' });
  }
  const size = Math.floor((s.length * 3) / 4);
  // Checked before decoding, so an oversized body is refused without allocating it.
  if (size > MEDIA_MAX_BYTES) throw tooLarge('data', size);
  if (size === 0) throw new AppError('invalid_request', 'data: the file is empty.', { field: 'data', code: 'empty' });
  return Buffer.from(s, 'base64');
}

export interface InspectedMedia {
  contentType: string;
  mediaType: MediaType;
  byteSize: number;
  sha256: string;
}

/**
 * Sniffs `bytes` and checks them against the declared `contentType` (and `mediaType` when given).
 * `field` names the input the bytes came from (data, url, or the upload body).
 */
export async function inspectMedia(bytes: Buffer, declared: string, field: string, mediaType?: MediaType): Promise<InspectedMedia> {
  if (bytes.length > MEDIA_MAX_BYTES) throw tooLarge(field, bytes.length);
  if (bytes.length === 0) throw new AppError('invalid_request', `${field}: the file is empty.`, { field, code: 'empty' });
  const want = normaliseContentType(declared);
  if (!ACCEPTED_TYPES[want]) {
    throw new AppError('media_not_accepted', `contentType ${want} is not accepted: send an image, a video or a PDF (${Object.keys(ACCEPTED_TYPES).join(', ')}).`, {
      field: 'contentType', code: 'type_not_allowed',
    });
  }
  const sniffed = await fileTypeFromBuffer(bytes);
  const got = sniffed ? normaliseContentType(sniffed.mime) : undefined;
  const kind = got ? ACCEPTED_TYPES[got] : undefined;
  if (!got || !kind) {
    throw new AppError('media_not_accepted', `The file's content is ${got ?? 'not a recognised format'}, not an image, a video or a PDF.`, {
      field, code: 'content_not_allowed', extra: { detectedType: got ?? null },
    });
  }
  if (got !== want) {
    throw new AppError('media_not_accepted', `The file's content is ${got}, but contentType says ${want}. Send the type the file really is.`, {
      field: 'contentType', code: 'content_type_mismatch', extra: { detectedType: got },
    });
  }
  if (mediaType !== undefined && mediaType !== kind) {
    throw new AppError('media_not_accepted', `mediaType is ${mediaType}, but the file is a ${kind} (${got}).`, { field: 'mediaType', code: 'media_type_mismatch', extra: { detectedType: got } });
  }
  return { contentType: got, mediaType: kind, byteSize: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}
