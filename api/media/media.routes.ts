/**
 * The two media routes that are not operations (issue 39, item 3): the single-use upload URL a
 * caller PUTs a file's raw bytes to, and, with the files store, the signed URLs that serve the
 * files. Neither takes a bearer token: the URL itself is the credential (the upload token is
 * random and single-use; the file URL is HMAC-signed with an expiry).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Ports } from '../../engine/core/context.ts';
import { AppError } from '../../engine/core/errors.ts';
import { tooLarge } from '../../engine/media/media-content.ts';
import { contentDisposition } from '../../engine/media/media-names.ts';
import { parseRange } from '../../engine/media/media-range.ts';
import { ACCEPTED_TYPES, MEDIA_MAX_BYTES } from '../../engine/media/media.schema.ts';
import { completeUpload, UPLOAD_PATH } from '../../engine/media/media-upload.ts';
import { FileMediaStore, MEDIA_FILES_PATH, type SignedParams } from '../../engine/media/adapters/media-store.files.ts';
import { sendError } from '../rest/http-errors.ts';

/** Reads an upload body, refusing it past the media limit with the limit named (413). */
async function readUpload(stream: IncomingMessage): Promise<Buffer> {
  const declared = Number(stream.headers['content-length']);
  if (Number.isFinite(declared) && declared > MEDIA_MAX_BYTES) throw tooLarge('body', declared);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MEDIA_MAX_BYTES) throw tooLarge('body');
    chunks.push(b);
  }
  return Buffer.concat(chunks, size);
}

/** A stricter policy for served files: nothing runs, even if a browser were to render one as a document. */
const FILE_CSP = "default-src 'none'; sandbox";

export async function registerMediaRoutes(app: FastifyInstance, ports: Ports): Promise<void> {
  const media = ports.media;
  const { outbox, bus } = ports;
  if (!media || !outbox || !bus) return;

  await app.register(async (scope) => {
    // The upload body is the raw file, whatever Content-Type the client sends (or none).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', async (_req: FastifyRequest, payload: IncomingMessage) => readUpload(payload));

    scope.put<{ Params: { token: string } }>(`${UPLOAD_PATH}/:token`, async (req, reply) => {
      try {
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const done = await completeUpload(ports, { outbox, bus }, media, req.params.token, body);
        return reply.code(200).header('cache-control', 'no-store').send({ sent: true, mediaSent: done.mediaType, ...done });
      } catch (e) {
        return sendError(req, reply, e);
      }
    });
  });

  const store = media.store;
  if (!(store instanceof FileMediaStore)) return;
  app.get<{ Params: { conv: string; msg: string }; Querystring: Partial<SignedParams> }>(`${MEDIA_FILES_PATH}/:conv/:msg`, async (req, reply) => {
    const q = req.query ?? {};
    const one = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const params: Partial<SignedParams> = { exp: one(q.exp), ct: one(q.ct), d: one(q.d), n: one(q.n), sig: one(q.sig) };
    const opened = await store.open(`${req.params.conv}/${req.params.msg}`, params, ports.clock.now());
    if (!opened.ok) {
      const err = opened.why === 'not_found'
        ? new AppError('not_found', 'No such media file.')
        : new AppError('forbidden', opened.why === 'expired'
          ? 'This media URL has expired; ask for a new one (GET /api/consultations/{id}/media/{messageId}).'
          : 'This media URL is not valid (its signature does not match).', { code: opened.why });
      return sendError(req, reply, err);
    }
    // One byte range when asked (a video scrubbed, a download resumed): engine/media/media-range.ts.
    const range = parseRange(one(req.headers.range), opened.size, one(req.headers['if-range']), opened.etag);
    if (range.kind === 'unsatisfiable') {
      return sendError(req, reply, new AppError('range_not_satisfiable', `The range ${one(req.headers.range)} is not satisfiable: the file is ${opened.size} bytes.`, {
        field: 'Range', code: 'range_not_satisfiable', extra: { size: opened.size }, headers: { 'content-range': `bytes */${opened.size}`, 'accept-ranges': 'bytes' },
      }));
    }
    // Signed by us, so the type is one we stored; checked again so a key leak cannot serve HTML.
    const type = ACCEPTED_TYPES[opened.contentType] ? opened.contentType : 'application/octet-stream';
    const part = range.kind === 'part' ? range : null;
    reply.code(part ? 206 : 200).headers({
      'content-type': type,
      'content-length': String(part ? part.end - part.start + 1 : opened.size),
      'content-disposition': contentDisposition(opened.disposition, opened.fileName),
      'accept-ranges': 'bytes',
      etag: opened.etag,
      'x-content-type-options': 'nosniff',
      'content-security-policy': FILE_CSP,
      'cache-control': 'private, no-store',
    });
    if (part) reply.header('content-range', `bytes ${part.start}-${part.end}/${opened.size}`);
    return reply.send(opened.read(part ?? undefined));
  });
}
