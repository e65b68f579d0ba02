/**
 * OpenAPI 3.1 document generated from the operation declarations (issue 2, item 5): the same zod
 * schemas that validate requests (zod 4 `z.toJSONSchema`, draft 2020-12 = OpenAPI 3.1's dialect).
 */
import { z } from 'zod';
import type { Config } from '../../engine/core/config.ts';
import type { AnyOperation, RestBinding } from '../../engine/core/operation.ts';
import { ERROR_REGISTRY } from '../../engine/core/errors.ts';
import { SERVER_VERSION } from '../mcp/mcp.tools.ts';
import { DEFAULT_USER_PER_MINUTE } from '../rest/rate-limit.ts';

type Json = Record<string, unknown>;

function schemaOf(s: z.ZodType, io: 'input' | 'output'): Json {
  const js = z.toJSONSchema(s, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete js.$schema;
  return js;
}

const StandardError: Json = {
  type: 'object',
  required: ['error', 'reason', 'needsAuth'],
  properties: {
    error: { type: 'string', description: 'Error code (see x-error-codes).' },
    reason: { type: 'string', description: 'Human-readable explanation.' },
    needsAuth: { type: 'boolean', description: 'True when the user must sign up or sign in (not_authenticated).' },
    message: { type: 'string' },
    field: { type: 'string', description: 'The request field at fault, as a dotted path.' },
    code: { type: 'string', description: 'Detailed code, e.g. unknown_field, missing_field.' },
    requestId: { type: 'string', description: 'On 5xx: quote it when reporting the problem.' },
  },
};
const PricingPublicError: Json = {
  type: 'object',
  required: ['error', 'message', 'field'],
  properties: {
    error: { type: 'string' }, message: { type: 'string' }, field: { type: ['string', 'null'] },
    retryAfterSeconds: { type: 'integer', description: 'On 429 only.' },
  },
};
const PricingMainError: Json = {
  type: 'object',
  required: ['error', 'agentInstructions'],
  properties: { error: { type: 'string' }, agentInstructions: { type: 'array', items: { type: 'string' } }, message: { type: 'string' }, field: { type: 'string' } },
};
const ERROR_REF = {
  standard: '#/components/schemas/Error',
  'pricing-public': '#/components/schemas/PricingPublicError',
  'pricing-main': '#/components/schemas/PricingMainError',
} as const;

function errorResponses(op: AnyOperation, b: RestBinding): Json {
  const ref = { $ref: ERROR_REF[op.errorShape ?? 'standard'] };
  const res = (description: string, headers?: Json) => ({ description, content: { 'application/json': { schema: ref } }, ...(headers ? { headers } : {}) });
  const out: Json = {
    400: res('Invalid request: malformed JSON, unknown field, wrong type or value (the body names the field).'),
    413: res('Request body over 1 MiB.'),
    415: res('Body is not application/json.'),
    500: res('Unexpected failure; the body carries requestId.'),
  };
  if (op.auth !== 'none') {
    out[401] = res('Missing or invalid bearer token.', {
      'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer resource_metadata="…" (RFC 9728)' },
    });
  }
  const limits = [
    ...(op.rateLimit ? [`anonymous: ${op.rateLimit.anonymousPerMinute} requests per minute per IP`] : []),
    ...(op.auth !== 'none' ? [`signed in: ${DEFAULT_USER_PER_MINUTE} requests per minute per user`] : []),
  ];
  if (limits.length) out[429] = res(`Rate limited (${limits.join('; ')}); retry after Retry-After seconds.`, { 'Retry-After': { schema: { type: 'integer' } } });
  if (b.path.includes(':') || op.name.includes('patient')) out[404] = res('Not found (or not yours).');
  return out;
}

function openapiPath(p: string): string {
  return p.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function operationObject(op: AnyOperation, b: RestBinding, config: Config, multi: boolean): Json {
  const input = schemaOf(op.input, 'input') as { properties?: Record<string, Json>; required?: string[] };
  const pathParams = [...b.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  const parameters: Json[] = pathParams.map((name) => ({ name, in: 'path', required: true, schema: input.properties?.[name] ?? { type: 'string' } }));
  const o: Json = {
    operationId: multi ? `${op.name}_${b.surface ?? 'main'}` : op.name,
    summary: op.title ?? op.name,
    description: op.description,
    ...(op.restHeaders && Object.keys(op.restHeaders).some((h) => h.toLowerCase() === 'deprecation') ? { deprecated: true } : {}),
    'x-mcp-tool': op.mcp === false ? undefined : op.name,
    'x-mcp-annotations': op.annotations,
    responses: {
      200: { description: 'Success', content: { 'application/json': { schema: schemaOf(op.output, 'output') } } },
      ...errorResponses(op, b),
    },
  };
  if (b.method === 'GET' || b.method === 'DELETE') {
    for (const [name, schema] of Object.entries(input.properties ?? {})) {
      if (pathParams.includes(name)) continue;
      parameters.push({ name, in: 'query', required: input.required?.includes(name) ?? false, schema });
    }
  } else {
    o.requestBody = { required: (input.required?.length ?? 0) > 0, content: { 'application/json': { schema: input } } };
  }
  for (const [header, field] of Object.entries(op.restHeaderInputs ?? {})) {
    parameters.push({ name: header.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase()), in: 'header', required: false, schema: input.properties?.[field] ?? { type: 'string' } });
  }
  if (parameters.length) o.parameters = parameters;
  const oauth = { oauth2: ['openid', 'profile', 'email'] };
  o.security = op.auth === 'required' ? [oauth, { bearer: [] }] : op.auth === 'optional' ? [{}, oauth, { bearer: [] }] : [];
  if ((b.surface ?? 'main') === 'pricing' && config.pricingUrl !== config.baseUrl) o.servers = [{ url: config.pricingUrl }];
  return o;
}

/** The OpenAPI 3.1 document for every REST binding of `ops`. */
export function buildOpenApi(ops: AnyOperation[], config: Config): Json {
  const paths: Record<string, Json> = {};
  for (const op of ops) {
    const bindings = op.rest ?? [];
    for (const b of bindings) {
      const p = (paths[openapiPath(b.path)] ??= {});
      p[b.method.toLowerCase()] = operationObject(op, b, config, bindings.length > 1);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'carebridge',
      version: SERVER_VERSION,
      description: 'Healthcare pricing and care service for AI agents. The same operations are MCP tools at POST / (streamable HTTP). Bodies are JSON objects of at most 1 MiB; unknown fields are rejected.',
    },
    servers: [{ url: config.baseUrl }],
    paths,
    components: {
      schemas: { Error: StandardError, PricingPublicError, PricingMainError },
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: 'OAuth 2.1 authorization code with PKCE (S256). Clients may register dynamically (RFC 7591).',
          flows: {
            authorizationCode: {
              authorizationUrl: `${config.baseUrl}/oauth/authorize`,
              tokenUrl: `${config.baseUrl}/oauth/token`,
              refreshUrl: `${config.baseUrl}/oauth/token`,
              scopes: { openid: 'Sign in', profile: 'Profile', email: 'Email address', offline_access: 'Refresh tokens' },
            },
          },
        },
        bearer: { type: 'http', scheme: 'bearer', description: 'An access token issued by this service\'s /oauth/token.' },
      },
    },
    'x-error-codes': Object.fromEntries(Object.entries(ERROR_REGISTRY).map(([k, v]) => [k, v.status])),
  };
}
