/**
 * The MCP endpoint at `/` on the main host (issue 2, item 6; MCP 2025-11-25, Streamable HTTP):
 * stateless (no session id; a fresh server and transport per request), JSON responses, Origin
 * validated against DNS rebinding, and the same bearer check as REST before any MCP handling.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from 'pino';
import { AppError } from '../../engine/core/errors.ts';
import type { AppServices } from '../rest/services.ts';
import { acceptedAudiences, resolveCaller } from '../rest/auth.ts';
import { sendError } from '../rest/http-errors.ts';
import { safeErr } from '../logging.ts';
import { buildMcpServer, toolOperations } from './mcp.tools.ts';
import { checkMcpBody } from './mcp-messages.ts';
import { BODY_LIMIT_BYTES, readLimited } from '../rest/body-parsers.ts';

/**
 * The arguments of a tools/call as the client sent them (JSON.parse keeps a `__proto__` key as an
 * own key; the SDK's own parse drops it), so the tool refuses it as REST does (api/rest/invoke.ts).
 */
function toolArguments(message: unknown): unknown {
  if (typeof message !== 'object' || message === null) return undefined;
  const m = message as { method?: unknown; params?: { arguments?: unknown } };
  return m.method === 'tools/call' && typeof m.params === 'object' && m.params !== null ? m.params.arguments : undefined;
}

/** Origins allowed to call MCP from a browser: the service's own and MCP_ALLOWED_ORIGINS. */
export function allowedOrigins(svc: AppServices): Set<string> {
  return new Set([svc.config.baseUrl, svc.config.pricingUrl, ...svc.config.mcpAllowedOrigins]);
}

function checkOrigin(req: FastifyRequest, allowed: Set<string>): void {
  const origin = req.headers.origin;
  // Absent Origin: not a browser (or same-origin navigation), nothing to rebind (MCP transport security).
  if (origin === undefined) return;
  if (!allowed.has(origin)) throw new AppError('forbidden_origin', `Origin ${origin.slice(0, 100)} is not allowed to call this MCP endpoint.`);
}

/**
 * CORS for browser-based MCP clients from allowed origins (the Origin check above still applies):
 * the headers the MCP transport uses may be sent, and WWW-Authenticate may be read so the client
 * can start the OAuth flow.
 */
function corsHeaders(req: FastifyRequest, allowed: Set<string>): Record<string, string> {
  const origin = req.headers.origin;
  if (origin === undefined || !allowed.has(origin)) return {};
  return {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-expose-headers': 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version',
  };
}

async function handle(svc: AppServices, allowed: Set<string>, toolNames: ReadonlySet<string>, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  try {
    checkOrigin(req, allowed);
    for (const [k, v] of Object.entries(corsHeaders(req, allowed))) {
      void reply.header(k, v);
      // Hijacked responses are written by the SDK on the raw response: set them there too.
      reply.raw.setHeader(k, v);
    }
    const caller = await resolveCaller(svc.identity, 'required', req.headers.authorization, req.ip, acceptedAudiences('main', svc.config));
    if (req.method !== 'POST') {
      // Stateless server: no standalone SSE stream (GET) and no session to end (DELETE).
      void reply.header('allow', 'POST');
      return reply.code(405).send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this stateless MCP endpoint accepts POST only.' }, id: null });
    }
    // A JSON body arrives as text (see registerMcpRoutes); any other content type is left for the
    // SDK, which refuses it with 415 before reading.
    let body: unknown;
    if (typeof req.body === 'string' || isJson(req)) {
      const checked = checkMcpBody(typeof req.body === 'string' ? req.body : undefined, toolNames);
      if ('refusal' in checked) {
        req.log.info({ code: checked.refusal.body.error.code }, 'MCP message refused');
        return reply.code(checked.refusal.status).type('application/json').send(checked.refusal.body);
      }
      body = checked.message;
    }
    const log = req.log as unknown as Logger;
    const server = buildMcpServer(svc, { caller, requestId: req.id, log, rawArguments: toolArguments(body) });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    // From here the SDK owns the raw response; Fastify's own completion log is skipped for hijacked
    // replies, so log it here (status and time only, never the JSON-RPC payload).
    reply.hijack();
    const started = process.hrtime.bigint();
    reply.raw.once('finish', () => {
      log.info({ res: { statusCode: reply.raw.statusCode }, responseTime: Number(process.hrtime.bigint() - started) / 1e6 }, 'request completed');
    });
    try {
      await transport.handleRequest(req.raw, reply.raw, body);
    } catch (e) {
      log.error({ err: safeErr(e), requestId: req.id }, 'MCP request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: `Internal error (request ${req.id})` }, id: null }));
      }
    }
    return undefined;
  } catch (e) {
    return sendError(req, reply, e);
  }
}

function isJson(req: FastifyRequest): boolean {
  return /^application\/([a-z0-9.-]+\+)?json\s*(;|$)/i.test(req.headers['content-type'] ?? '');
}

export function registerMcpRoutes(app: FastifyInstance, svc: AppServices): void {
  const allowed = allowedOrigins(svc);
  const toolNames = new Set(toolOperations(svc.ops).map((op) => op.name));
  const h = (req: FastifyRequest, reply: FastifyReply) => handle(svc, allowed, toolNames, req, reply);
  // The MCP routes read a JSON body as text (same size limit): parsing it here would turn bad
  // JSON into the REST error body before the handler could answer JSON-RPC -32700.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(/^application\/([a-z0-9.-]+\+)?json(\s*;.*)?$/i, async (_req: FastifyRequest, payload: IncomingMessage) =>
      (await readLimited(payload, BODY_LIMIT_BYTES)).toString('utf8'));
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    registerScoped(scope, allowed, h);
  });
}

function registerScoped(app: FastifyInstance, allowed: Set<string>, h: (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>): void {
  app.post('/', h);
  app.get('/', async (req, reply) => {
    // A person opening the service in a browser gets the agent docs rather than a 401.
    if (!req.headers.authorization && (req.headers.accept ?? '').includes('text/html')) return reply.redirect('/docs/agents', 302);
    return h(req, reply);
  });
  app.delete('/', h);
  app.options('/', async (req, reply) => {
    try {
      checkOrigin(req, allowed);
    } catch (e) {
      return sendError(req, reply, e);
    }
    return reply.code(204).headers({
      ...corsHeaders(req, allowed),
      'access-control-allow-methods': 'POST, GET, DELETE',
      'access-control-allow-headers': 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
      'access-control-max-age': '600',
    }).send();
  });
}
