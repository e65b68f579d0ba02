/**
 * One function per transport turns an error into the spec's body (STYLE.md 5; service-spec.md,
 * Errors). REST sends it with the registry's status; MCP sends the same body as `isError` content.
 */
import type { FastifyError } from 'fastify';
import { z } from 'zod';
import { AppError, ERROR_REGISTRY, isAppError, toErrorBody } from '../../engine/core/errors.ts';
import type { Operation } from '../../engine/core/operation.ts';

export type ErrorShape = NonNullable<Operation['errorShape']>;

/** Hints for `agentInstructions` (pricing-main shape): what an agent should do about each code. */
const AGENT_HINT: Partial<Record<string, string>> = {
  not_authenticated: 'Ask the user to sign in or sign up through the OAuth flow, then retry with the new bearer token.',
  invalid_request: 'Fix the named field and retry; do not guess values the user did not give.',
  invalid_json: 'Send a valid JSON object as the request body.',
  rate_limited: 'Wait retryAfterSeconds before retrying.',
  not_found: 'Check the identifier; take patientId values from GET /api/profile.',
  unknown_code: 'Use a catalog code: network-status without code, or with include: ["supportedServices"], lists them in supportedServices.',
  unsupported_media_type: 'Send the body as JSON with content-type: application/json.',
  payload_too_large: 'Send a smaller body: the pricing requests are a few hundred bytes.',
  route_not_found: 'Check the path: the pricing routes are POST /api/pricing/network-status and POST /api/pricing/provider-evidence.',
  method_not_allowed: 'Use the method the Allow header names.',
  headers_too_large: 'Send fewer or shorter headers.',
  pricing_data_unavailable: 'Tell the user pricing data is not available yet and retry later.',
  internal_error: 'Retry once; if it fails again, tell the user the service had a problem.',
};

/** Shapes an AppError for the operation's declared error shape. */
export function shapeErrorBody(err: AppError, shape: ErrorShape = 'standard'): Record<string, unknown> {
  const std = toErrorBody(err);
  switch (shape) {
    case 'standard':
      return std;
    case 'pricing-public': {
      // service-spec.md, Errors: `error`, `message`, `field`, `retryAfterSeconds` (only on 429).
      const body: Record<string, unknown> = {
        ...(err.details.extra ?? {}),
        error: err.code,
        message: err.reason,
        field: err.details.field ?? null,
      };
      if (err.code !== 'rate_limited') delete body.retryAfterSeconds;
      if (err.code === 'not_authenticated') body.needsAuth = true;
      return body;
    }
    case 'pricing-main': {
      const instructions = [err.reason];
      const hint = AGENT_HINT[err.code];
      if (hint) instructions.push(hint);
      const body: Record<string, unknown> = {
        ...(err.details.extra ?? {}),
        error: err.code,
        agentInstructions: instructions,
        message: err.reason,
      };
      if (err.details.field !== undefined) body.field = err.details.field;
      if (err.code === 'not_authenticated') body.needsAuth = true;
      return body;
    }
  }
}

function pathOf(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** The value at `path` in `input` (undefined when absent). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/**
 * A zod failure as a 400 naming the first field at fault (unknown fields by name). With the
 * `input` that failed, a wrong-typed value is told apart from a missing one (zod 4 issues do not
 * carry the input); without it, zod's own "received undefined" says so.
 */
export function validationError(error: z.ZodError, input?: unknown): AppError {
  // An unknown field is reported first: a misspelt name also explains a "missing" required field.
  const issue = error.issues.find((i) => i.code === 'unrecognized_keys') ?? error.issues[0];
  if (!issue) return new AppError('invalid_request');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const field = pathOf([...issue.path, key]);
    return new AppError('invalid_request', `Unknown field "${field}".`, { field, code: 'unknown_field' });
  }
  const field = pathOf(issue.path);
  const missing = input !== undefined ? valueAt(input, issue.path) === undefined : /received undefined$/.test(issue.message);
  if (issue.code === 'invalid_type' && missing) {
    return new AppError('invalid_request', `${field || 'body'} is required.`, { field: field || undefined, code: 'missing_field' });
  }
  const reason = field ? `${field}: ${issue.message}` : issue.message;
  return new AppError('invalid_request', reason, { field: field || undefined, code: 'invalid_value' });
}

/**
 * Maps anything thrown while serving a request to an AppError. Fastify's own caller-mistake
 * errors (bad JSON, wrong content type, body too large) keep their 4xx meaning; everything
 * unknown becomes internal_error (the caller never sees its message).
 */
export function toAppError(e: unknown): AppError {
  if (isAppError(e)) return e;
  if (e instanceof z.ZodError) return validationError(e);
  const fe = e as Partial<FastifyError> & { type?: string };
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', 'Content-Length does not match the body.');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new AppError('invalid_request', 'The request URL is not valid.');
    // The client closed the connection while its body was being read (Node's "aborted"), or the
    // request timeout cut it off: a caller's 4xx, not a server failure (issue 38, item 1).
    case 'ECONNRESET':
    case 'ECONNABORTED':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return new AppError('request_aborted');
    case undefined:
    default:
      break;
  }
  // Raw-body errors from Node's parser (e.g. aborted uploads) carry a 4xx statusCode.
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 413) return new AppError('payload_too_large');
    if (fe.statusCode === 415) return new AppError('unsupported_media_type');
    return new AppError('invalid_request', 'The request could not be read.');
  }
  return new AppError('internal_error');
}

export function statusOf(err: AppError): number {
  return ERROR_REGISTRY[err.code].status;
}
