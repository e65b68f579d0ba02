/**
 * The pricing routes' edges (issue 37, items 10-11): which error body a path gets, even for errors
 * raised before any handler runs (malformed JSON, 415, 413, 404, 405, 431), and CORS on the public
 * pricing host.
 *
 * - /api/pricing.v1 and /api/pricing.v1/*: `{error, message, field, retryAfterSeconds?}`;
 *   /api/pricing/*: `{error, agentInstructions}` (service-spec.md, Errors); anything else: standard.
 * - CORS (Fetch standard, CORS protocol): the public pricing API is anonymous-friendly and carries
 *   no cookies, so any origin may call it without credentials (`Access-Control-Allow-Origin: *`,
 *   never `Allow-Credentials`); a bearer token may still be sent in `Authorization`. A preflight is
 *   answered 204. Every other path, /api/* on the main host included, sends no CORS header, so
 *   browsers keep it same-origin.
 */
import type { Config } from '../../engine/core/config.ts';
import { securityHeaders } from '../security-headers.ts';
import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';
import { AppError } from '../../engine/core/errors.ts';
import { shapeErrorBody, statusOf, type ErrorShape } from './error-body.ts';

const PUBLIC = /^\/api\/pricing\.v1(?:[/?#]|$)/;
const MAIN = /^\/api\/pricing(?:[/?#]|$)/;

/** The error body shape of the route a URL names. */
export function errorShapeForUrl(url: string): ErrorShape {
  if (PUBLIC.test(url)) return 'pricing-public';
  if (MAIN.test(url)) return 'pricing-main';
  return 'standard';
}

/** Whether the URL is on the public pricing API (the only CORS-open paths). */
export function isPublicPricingUrl(url: string): boolean {
  return PUBLIC.test(url);
}

/** Response headers every public pricing answer carries (errors and preflights included). */
export const PRICING_CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'x-request-id, x-ratelimit-limit, x-ratelimit-remaining, retry-after',
};

const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, authorization',
  'access-control-max-age': '600',
};

/** CORS for the public pricing paths: the headers on every answer, preflights answered 204. */
export function registerPricingCors(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    if (!isPublicPricingUrl(req.url)) return;
    void reply.headers(PRICING_CORS_HEADERS);
    if (req.method === 'OPTIONS') {
      void reply.headers(PREFLIGHT_HEADERS);
      void reply.header('allow', 'GET, POST, OPTIONS');
      await reply.code(204).send();
    }
  });
}

/** The request line's path from the bytes Node's parser had read (err.rawPacket), if readable. */
function pathOfRawPacket(raw: unknown): string {
  if (!Buffer.isBuffer(raw)) return '';
  const line = raw.subarray(0, Math.min(raw.length, 8192)).toString('latin1').split('\r\n', 1)[0] ?? '';
  return /^[A-Z]+ (\S+) HTTP\/\d/.exec(line)?.[1] ?? '';
}

/**
 * Fastify's `clientErrorHandler`: errors Node's HTTP parser raises before Fastify sees a request
 * (headers over the limit: 431; a request that did not arrive in time: 408; unparseable: 400),
 * answered with the body of the route the request line names.
 */
export function clientErrorHandlerFor(config: Pick<Config, 'baseUrl'>): (this: FastifyInstance, err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket) => void {
  // These answers bypass Fastify and its hooks: they carry the same security headers by hand.
  const security = Object.entries(securityHeaders(config)).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return function clientErrorHandler(this: FastifyInstance, err, socket) {
    answerClientError.call(this, err, socket, security);
  };
}

function answerClientError(this: FastifyInstance, err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket, security: string): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // The client closed its side mid-request (a dropped upload): nobody to answer, and a request
  // that had started logs its own request_aborted line from the route.
  if (err.code === 'HPE_INVALID_EOF_STATE') {
    this.log.debug({ code: 'request_aborted', cause: err.code, remote: socket.remoteAddress }, 'the client closed the connection mid-request');
    socket.destroy();
    return;
  }
  const appErr = err.code === 'HPE_HEADER_OVERFLOW'
    ? new AppError('headers_too_large', 'The request headers are larger than the server accepts (16 KiB in all); send fewer or shorter headers.')
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new AppError('request_timeout')
      : new AppError('invalid_request', 'The HTTP request could not be parsed.');
  const url = pathOfRawPacket(err.rawPacket);
  const status = statusOf(appErr);
  const body = JSON.stringify(shapeErrorBody(appErr, errorShapeForUrl(url)));
  const extra = isPublicPricingUrl(url) ? Object.entries(PRICING_CORS_HEADERS).map(([k, v]) => `${k}: ${v}\r\n`).join('') : '';
  this.log.info({ code: appErr.code, status }, 'client error');
  if (!socket.writable) return;
  socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\ncache-control: no-store\r\n${security}${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}
