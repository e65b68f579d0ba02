/**
 * Request body parsing for the whole app. JSON only (service-spec.md: bodies are JSON), at most
 * BODY_LIMIT_BYTES. Paths under /oauth/ are left UNREAD: oidc-provider reads the raw stream itself
 * (client registration posts JSON, the token endpoint form data), and H2's interaction pages
 * register their own urlencoded parser in their encapsulated scope.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../engine/core/errors.ts';

/** 1 MiB: far above any operation's body (the largest, network-status, is well under 4 KiB). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

function isOauthPath(req: FastifyRequest): boolean {
  return req.url.startsWith('/oauth/') || req.url === '/oauth';
}

/** Reads a request body, refusing it (413) past `limit` bytes. */
export async function readLimited(stream: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(stream.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new AppError('payload_too_large', `The request body is larger than ${limit} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) throw new AppError('payload_too_large', `The request body is larger than ${limit} bytes.`);
    chunks.push(b);
  }
  return Buffer.concat(chunks, size);
}

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parseJson = async (req: FastifyRequest, payload: IncomingMessage) => {
    if (isOauthPath(req)) return undefined;
    // A route may raise its own limit (RestBinding.bodyLimitBytes: media sent as base64).
    const buf = await readLimited(payload, req.routeOptions.bodyLimit ?? BODY_LIMIT_BYTES);
    if (buf.length === 0) return undefined; // an empty body is the same as no body
    try {
      return JSON.parse(buf.toString('utf8')) as unknown;
    } catch {
      throw new AppError('invalid_json', 'The request body is not valid JSON.');
    }
  };
  // application/json and the +json family (merge-patch+json, …), with or without parameters
  // (`; charset=utf-8`): Fastify tests a RegExp against the whole header value.
  app.addContentTypeParser('application/json', parseJson);
  app.addContentTypeParser(/^application\/[a-z0-9.-]+\+json(\s*;.*)?$/i, parseJson);
  // Any other content type: pass through untouched for /oauth/*, 415 elsewhere.
  app.addContentTypeParser('*', async (req: FastifyRequest) => {
    if (isOauthPath(req)) return undefined;
    throw new AppError('unsupported_media_type', 'The request body must be application/json.');
  });
}
