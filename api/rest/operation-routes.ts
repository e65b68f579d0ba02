/**
 * REST routes generated from the operation declarations (issue 2, item 5). Input = query, then
 * JSON body, then path params (later wins: path > body > query); validated by the op's zod schema.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AnyOperation, RestBinding } from '../../engine/core/operation.ts';
import type { HandlerContext } from '../../engine/core/context.ts';
import { AppError } from '../../engine/core/errors.ts';
import type { AppServices } from './services.ts';
import { invokeOperation } from './invoke.ts';
import { acceptedAudiences, resolveCaller } from './auth.ts';
import { coerceQuery } from './query-coercion.ts';
import { checkRate } from './rate-limit.ts';
import { sendError } from './http-errors.ts';

function assembleInput(op: AnyOperation, req: FastifyRequest): Record<string, unknown> {
  const body = req.body;
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw new AppError('invalid_request', 'The request body must be a JSON object.', { code: 'body_not_object' });
  }
  const input: Record<string, unknown> = {
    ...coerceQuery(op, (req.query ?? {}) as Record<string, unknown>),
    ...((body ?? {}) as Record<string, unknown>),
    ...((req.params ?? {}) as Record<string, unknown>),
  };
  for (const [header, field] of Object.entries(op.restHeaderInputs ?? {})) {
    const v = req.headers[header];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw new AppError('invalid_request', `Send the ${header} header once.`, { field });
    if (input[field] !== undefined && input[field] !== v) {
      throw new AppError('invalid_request', `The ${header} header and the body field ${field} differ; send one of them.`, { field });
    }
    input[field] = v;
  }
  return input;
}

/** Applies the rate limits (anonymous per-IP per op bucket; signed-in per user) and sets the headers. */
function enforceRateLimit(op: AnyOperation, ctx: HandlerContext, svc: AppServices, reply: FastifyReply): void {
  const r = checkRate(svc.limiter, op, ctx.caller, svc.userPerMinute);
  if (!r) return;
  void reply.header('x-ratelimit-limit', String(r.limit));
  void reply.header('x-ratelimit-remaining', String(r.remaining));
}

/** Builds the handler context for one HTTP request. */
export function contextFor(req: FastifyRequest, svc: AppServices, caller: HandlerContext['caller'], surface: 'main' | 'pricing'): HandlerContext {
  return {
    caller,
    ports: svc.ports,
    // Fastify's request logger is a pino child (buildApp passes a pino loggerInstance).
    log: req.log as unknown as Logger,
    requestId: req.id,
    surface,
    urls: { baseUrl: svc.config.baseUrl, pricingUrl: svc.config.pricingUrl },
  };
}

function route(app: FastifyInstance, svc: AppServices, op: AnyOperation, binding: RestBinding): void {
  const surface = binding.surface ?? 'main';
  app.route({
    method: binding.method,
    url: binding.path,
    ...(binding.bodyLimitBytes ? { bodyLimit: binding.bodyLimitBytes } : {}),
    handler: async (req, reply) => {
      if (op.restHeaders) void reply.headers(op.restHeaders);
      try {
        const caller = await resolveCaller(svc.identity, op.auth, req.headers.authorization, req.ip, acceptedAudiences(surface, svc.config));
        const ctx = contextFor(req, svc, caller, surface);
        enforceRateLimit(op, ctx, svc, reply);
        const out = await invokeOperation(op, assembleInput(op, req), ctx, svc.checkOutput);
        void reply.header('cache-control', 'no-store');
        return reply.code(200).send(out);
      } catch (e) {
        return sendError(req, reply, e, op.errorShape ?? 'standard');
      }
    },
  });
}

/** Registers every REST binding of every operation (optionally only one surface, for --pricing-only). */
export function registerOperationRoutes(app: FastifyInstance, svc: AppServices, only?: 'main' | 'pricing'): RestBinding[] {
  const bound: RestBinding[] = [];
  for (const op of svc.ops) {
    for (const b of op.rest ?? []) {
      if (only && (b.surface ?? 'main') !== only) continue;
      route(app, svc, op, b);
      bound.push(b);
    }
  }
  return bound;
}
