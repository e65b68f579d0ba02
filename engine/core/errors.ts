/**
 * One registry of error codes (STYLE.md 5). A code is never reused for another meaning; its HTTP
 * status lives here and nowhere else. Transports turn an AppError into the spec's body
 * (service-spec.md, Errors): `{error, reason, needsAuth}` plus `code`, `message`, `field`.
 */
export const ERROR_REGISTRY = {
  // Generic caller mistakes
  invalid_request: { status: 400, reason: 'The request is not valid.' },
  invalid_json: { status: 400, reason: 'The request body is not valid JSON.' },
  unsupported_media_type: { status: 415, reason: 'The request body must be application/json.' },
  payload_too_large: { status: 413, reason: 'The request body is too large.' },
  not_found: { status: 404, reason: 'No such resource.' },
  route_not_found: { status: 404, reason: 'No such route.' },
  method_not_allowed: { status: 405, reason: 'Method not allowed on this route.' },
  headers_too_large: { status: 431, reason: 'The request headers are too large.' },
  conflict: { status: 409, reason: 'The request conflicts with the current state.' },
  rate_limited: { status: 429, reason: 'Too many requests; slow down.' },
  forbidden_origin: { status: 403, reason: 'Requests from this Origin are not allowed.' },
  // The connection, not the content (issue 38, item 1): a body the client stopped sending.
  request_aborted: { status: 400, reason: 'The client closed the connection before the request body was received in full.' },
  request_timeout: { status: 408, reason: 'The request was not received in full in time; send the whole request promptly.' },
  // Authentication (service-spec.md, Authentication)
  not_authenticated: { status: 401, reason: 'Sign up or sign in to continue.' },
  insufficient_scope: { status: 403, reason: 'The token lacks a required scope.' },
  forbidden: { status: 403, reason: 'Not allowed.' },
  // Domain codes from the spec's error table
  REGION_NOT_SUPPORTED: { status: 400, reason: 'The patient’s current region is not served.' },
  READ_REQUIRED: { status: 409, reason: 'Read the newest message before sending.' },
  PAYMENT_REQUIRED: { status: 402, reason: 'The conversation needs payment approval.' },
  payment_hold_failed: { status: 402, reason: 'The card was declined or has insufficient funds.' },
  no_payment_gate: { status: 409, reason: 'No payment is due for this conversation.' },
  summary_loading: { status: 202, reason: 'The consultation summary is still generating; retry shortly.' },
  MANAGED_EXTERNALLY: { status: 409, reason: 'Fulfilment is handled by the external pharmacy partner.' },
  JOB_TYPE_NOT_AVAILABLE: { status: 400, reason: 'This care job type is not available.' },
  // Care: conversations
  invalid_transition: { status: 409, reason: 'The conversation cannot make this move from its current status.' },
  conversation_emergency: { status: 409, reason: 'This conversation was flagged as an emergency and cannot continue: call 911 now.' },
  // Care: media (issue 39, item 3; service-spec.md, Limits)
  media_too_large: { status: 413, reason: 'The media is larger than 8 MB (8388608 bytes).' },
  media_not_accepted: { status: 415, reason: 'The media is not an image, a video or a PDF, or is not the contentType given.' },
  media_fetch_failed: { status: 422, reason: 'The media URL could not be fetched.' },
  upload_url_invalid: { status: 410, reason: 'This upload URL has expired or was already used; ask for a new one.' },
  range_not_satisfiable: { status: 416, reason: 'The requested byte range is not within the file.' },
  // Care jobs: an Idempotency-Key sent again with a different body (IETF idempotency-key draft: 422)
  idempotency_key_reused: { status: 422, reason: 'This Idempotency-Key was already used with a different request.' },
  // Pricing
  unknown_code: { status: 400, reason: 'The service code is not in the catalog.' },
  pricing_data_unavailable: { status: 503, reason: 'No pricing snapshot is published yet.' },
  // Server side
  upstream_unavailable: { status: 503, reason: 'A dependency is unavailable; retry later.' },
  not_ready: { status: 503, reason: 'The service is starting or shutting down.' },
  internal_error: { status: 500, reason: 'Something went wrong on our side.' },
} as const satisfies Record<string, { status: number; reason: string }>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;

export interface AppErrorDetails {
  /** The request field at fault, as a dotted path (`planHints.payerName`). */
  field?: string;
  /** A detailed sub-code (`code` in the spec's bodies). */
  code?: string;
  /** Extra caller-facing payload merged into the body (e.g. `regions`, `retryAfterSeconds`). */
  extra?: Record<string, unknown>;
  /** Headers the transport should set (e.g. `Retry-After`, `WWW-Authenticate`). */
  headers?: Record<string, string>;
}

/** The one error type handlers throw. `reason` is caller-facing and must never hold SQL or stacks. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly reason: string;
  readonly details: AppErrorDetails;

  constructor(code: ErrorCode, reason?: string, details: AppErrorDetails = {}) {
    super(reason ?? ERROR_REGISTRY[code].reason);
    this.name = 'AppError';
    this.code = code;
    this.reason = reason ?? ERROR_REGISTRY[code].reason;
    this.details = details;
  }

  get status(): number {
    return ERROR_REGISTRY[this.code].status;
  }
}

/** The spec's standard error body (service-spec.md, Errors). */
export interface ErrorBody {
  error: string;
  reason: string;
  needsAuth: boolean;
  message?: string;
  field?: string;
  code?: string;
  [extra: string]: unknown;
}

/** Turns an AppError into the standard body. Unknown errors must be mapped to internal_error first. */
export function toErrorBody(err: AppError): ErrorBody {
  const body: ErrorBody = {
    error: err.code,
    reason: err.reason,
    needsAuth: err.code === 'not_authenticated',
    message: err.reason,
  };
  if (err.details.field !== undefined) body.field = err.details.field;
  if (err.details.code !== undefined) body.code = err.details.code;
  if (err.details.extra) Object.assign(body, err.details.extra);
  return body;
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
