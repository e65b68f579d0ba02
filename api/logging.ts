/**
 * Structured logs (issue 2, item 11): pino, one line per event, request ids on every line, and
 * nothing secret or clinical in them. Fastify never logs bodies; the request serializer below
 * drops the query string (it can carry identifiers) and headers, and redaction is a second guard
 * for anything a handler logs by mistake.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import pino, { type Logger, type LoggerOptions } from 'pino';
import type { Config } from '../engine/core/config.ts';

/** Paths pino censors wherever they appear (one level of nesting under any key, plus headers). */
export const REDACT_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]',
  'headers.authorization', 'headers.cookie',
  'authorization', 'cookie', 'password', 'token', 'accessToken', 'refreshToken', 'access_token', 'refresh_token',
  'id_token', 'code_verifier', 'client_secret', 'webhookToken',
  '*.authorization', '*.cookie', '*.password', '*.token', '*.accessToken', '*.refreshToken', '*.access_token',
  '*.refresh_token', '*.id_token', '*.code_verifier', '*.client_secret', '*.webhookToken',
  'body', '*.body', 'demographics', '*.demographics',
];

function pathOnly(url: string | undefined): string {
  if (!url) return '';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

function isSafe(e: unknown): e is Record<string, unknown> {
  return typeof e === 'object' && e !== null && Object.getPrototypeOf(e) === Object.prototype
    && typeof (e as { type?: unknown }).type === 'string' && typeof (e as { message?: unknown }).message === 'string';
}

/** An error as a log field without driver extras (pg's `detail` can quote row values). */
export function safeErr(e: unknown): Record<string, unknown> {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return { type: e.name, message: e.message.slice(0, 500), code: typeof code === 'string' ? code : undefined, stack: e.stack };
  }
  // Already made safe by a caller: pino's `err` serializer runs it a second time.
  if (isSafe(e)) return e;
  return { type: typeof e, message: String(e).slice(0, 200) };
}

export function loggerOptions(config: Pick<Config, 'logLevel'>): LoggerOptions {
  return {
    level: config.logLevel,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      err: safeErr,
      req: (req: { method?: string; url?: string; ip?: string; id?: string }) => ({ method: req.method, path: pathOnly(req.url), ip: req.ip }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
  };
}

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  return destination ? pino(loggerOptions(config), destination) : pino(loggerOptions(config));
}

/** Request ids: a caller's well-formed X-Request-Id is kept (for tracing across hops), else a UUID. */
export function genReqId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && /^[A-Za-z0-9._:-]{8,64}$/.test(given)) return given;
  return randomUUID();
}
