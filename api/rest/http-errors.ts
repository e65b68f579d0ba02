/**
 * The REST error handler (STYLE.md 5): one function turns anything thrown into the registry's
 * status and the spec's body. 5xx are logged with the request id, which the body also carries so
 * a user can quote it; the cause never reaches the client.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { shapeErrorBody, statusOf, toAppError, type ErrorShape } from './error-body.ts';
import { safeErr } from '../logging.ts';

export function sendError(req: FastifyRequest, reply: FastifyReply, e: unknown, shape: ErrorShape = 'standard'): FastifyReply {
  const err = toAppError(e);
  const status = statusOf(err);
  const body = shapeErrorBody(err, shape);
  if (status >= 500) {
    req.log.error({ err: safeErr(e), requestId: req.id, code: err.code }, 'request failed');
    body.requestId = req.id;
  } else {
    // The reason is our own text (field names, never field values): say why, not just "refused".
    req.log.info({ code: err.code, field: err.details.field, status, reason: err.reason }, 'request refused');
  }
  for (const [k, v] of Object.entries(err.details.headers ?? {})) void reply.header(k, v);
  void reply.header('cache-control', 'no-store');
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}
