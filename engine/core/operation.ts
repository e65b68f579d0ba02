import type { z } from 'zod';
import type { HandlerContext } from './context.ts';

/** MCP tool annotations (MCP spec, ToolAnnotations). All four are always declared. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export type AuthMode = 'none' | 'optional' | 'required';

export interface RestBinding {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Fastify-style path, e.g. `/api/profile/patient` or `/api/consultations/:id`. */
  path: string;
  /** Which host serves it. Default: main. */
  surface?: 'main' | 'pricing';
  /** A JSON body limit above the app's 1 MiB for this route alone (media sent as base64). */
  bodyLimitBytes?: number;
}

/**
 * One operation, declared once (issue 2, item 5). REST routes, MCP tools, OpenAPI and the server
 * card are all generated from these declarations; the handler knows nothing of the transports.
 *
 * For REST, input is assembled from path params, query string and JSON body (merged, in that
 * order of precedence: path > body > query) and validated with `input`.
 */
export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** snake_case; used as the MCP tool name. */
  name: string;
  title?: string;
  /** What it does and when an agent should call it (shown to agents). */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  auth: AuthMode;
  /** REST bindings; an operation may be served at several paths (e.g. both pricing hosts). */
  rest?: RestBinding[];
  /**
   * Headers sent with every REST response of this operation, success or error: e.g. `Deprecation`
   * (RFC 9745) and `Sunset` (RFC 8594) on a deprecated route. OpenAPI marks an operation that
   * sends `Deprecation` as deprecated. Static values only; a handler never sets headers.
   */
  restHeaders?: Readonly<Record<string, string>>;
  /**
   * Request headers that REST reads into input fields (header name in lower case -> field), e.g.
   * `Idempotency-Key` -> `idempotencyKey`. A header and a body field with different values is a 400.
   */
  restHeaderInputs?: Readonly<Record<string, string>>;
  /** Omit from MCP (REST-only operation). */
  mcp?: boolean;
  /**
   * Error body shape on REST (service-spec.md, Errors): `standard` {error, reason, needsAuth, …};
   * `pricing-public` {error, message, field, retryAfterSeconds}; `pricing-main` {error, agentInstructions}.
   * MCP always carries the same body REST would send, as `isError` content.
   */
  errorShape?: 'standard' | 'pricing-public' | 'pricing-main';
  /** Anonymous per-IP limit (service-spec.md, Limits). Callers with a valid bearer are not counted. */
  rateLimit?: { bucket: string; anonymousPerMinute: number };
  /**
   * The MCP text content beside `structuredContent`. Default: the result as JSON (MCP spec, tools:
   * structured content SHOULD also be serialised as text). An operation with a large result gives
   * a short summary instead, so a tool result does not carry the answer twice.
   */
  mcpText?: (output: z.output<O>) => string;
  handler: (input: z.output<I>, ctx: HandlerContext) => Promise<z.input<O>>;
}

/** Identity helper that keeps the generic types tied together at the declaration site. */
export function defineOperation<I extends z.ZodType, O extends z.ZodType>(op: Operation<I, O>): Operation<I, O> {
  return op;
}

// Operations are heterogeneous; the registry only needs the erased shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- erased generic for the registry
export type AnyOperation = Operation<any, any>;
