/**
 * Socket and request timeouts (issue 38, item 1). Without them a client that sends headers and
 * then stalls its body holds a socket (and its parser state) for as long as it likes; Fastify's
 * default requestTimeout of 0 even switches off Node's own 300 s limit.
 *
 * Why these values (every request body here is JSON under 1 MiB, most under 4 KiB):
 * - headers within 10 s, the whole request within 30 s: a real client sends a request in
 *   milliseconds; 30 s still admits a full 1 MiB body at 35 KB/s.
 * - Node checks both every 5 s (its default is 30 s), so a stalled request is closed, with a 408,
 *   at most requestMs + checkIntervalMs = 35 s after it started (headers: 15 s).
 * - an idle socket (no bytes either way) is closed after 120 s: a backstop above any handler's
 *   run time (this timer also runs while a handler works, so it must stay well above it).
 * - keep-alive 72 s between requests: above the 60 s idle timeout of common load balancers, so
 *   the proxy, not this server, closes an idle connection first (no 502 from a race).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { AppError, ERROR_REGISTRY, toErrorBody } from '../engine/core/errors.ts';

export interface HttpTimeouts {
  /** The whole request (headers and body) must arrive within this (Node `requestTimeout`). */
  requestMs: number;
  /** The headers must arrive within this (Node `headersTimeout`); at most requestMs. */
  headersMs: number;
  /** How often Node checks the two limits above (`connectionsCheckingInterval`). */
  checkIntervalMs: number;
  /** A socket with no traffic either way is destroyed after this (Fastify `connectionTimeout`). */
  idleMs: number;
  /** How long an idle keep-alive connection waits for its next request (`keepAliveTimeout`). */
  keepAliveMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: Readonly<HttpTimeouts> = Object.freeze({
  requestMs: 30_000,
  headersMs: 10_000,
  checkIntervalMs: 5_000,
  idleMs: 120_000,
  keepAliveMs: 72_000,
});

/** The Fastify (and underlying http.Server) options for `t`. */
export function timeoutOptions(t: HttpTimeouts): Pick<FastifyServerOptions, 'requestTimeout' | 'connectionTimeout' | 'keepAliveTimeout'> & { http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } } {
  return {
    // Fastify copies requestTimeout onto the server after creating it; `http` is passed to
    // http.createServer, the only place connectionsCheckingInterval can be set.
    requestTimeout: t.requestMs,
    connectionTimeout: t.idleMs,
    keepAliveTimeout: t.keepAliveMs,
    http: { headersTimeout: Math.min(t.headersMs, t.requestMs), requestTimeout: t.requestMs, connectionsCheckingInterval: t.checkIntervalMs },
  };
}

/** What Node hands the server's clientError event (an error from the parser or a timeout). */
type ClientError = Error & { code?: string };

/**
 * The server's `clientError` handler (errors before or outside a route: a request or header
 * timeout, a malformed request line). Fastify's default logs them at trace and answers with its
 * own body; here they are an info line naming the code, and the spec's error body.
 */
export function clientErrorHandler(log: Logger): (err: ClientError, socket: Socket) => void {
  return (err, socket) => {
    // A reset connection has nothing to answer (Node's documented clientError behaviour).
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    // The client closed its side mid-request (a dropped upload): nobody to answer, and a request
    // that had started logs its own request_aborted line from the route.
    if (err.code === 'HPE_INVALID_EOF_STATE') {
      log.debug({ code: 'request_aborted', cause: err.code, remote: socket.remoteAddress }, ERROR_REGISTRY.request_aborted.reason);
      socket.destroy();
      return;
    }
    const appErr = err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new AppError('request_timeout')
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('invalid_request', 'The request headers are too large.')
        : new AppError('invalid_request', 'The request could not be parsed as HTTP/1.1.');
    const status = ERROR_REGISTRY[appErr.code].status;
    const finalStatus = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : status;
    log.info({ code: appErr.code, status: finalStatus, cause: err.code, remote: socket.remoteAddress }, appErr.reason);
    if (socket.writable) {
      const body = JSON.stringify(toErrorBody(appErr));
      socket.write(`HTTP/1.1 ${finalStatus} ${STATUS_CODES[finalStatus] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n`
        + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    }
    socket.destroy();
  };
}
