import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SCOPES } from './provider-config.ts';

export interface ProtectedResourceInput {
  baseUrl: string;
  pricingUrl: string;
  issuer: string;
}

/**
 * RFC 9728 protected-resource metadata. `resource` is the origin the request came to (the main
 * host, or the pricing host when it has its own origin); the path-suffixed form
 * `/.well-known/oauth-protected-resource/<path>` names `<origin>/<path>` (RFC 9728 §3.1).
 * scopes_supported lists every scope a client may request for this resource, offline_access
 * included (issue 38, item 7): an MCP client builds its authorization request from this list, and
 * without offline_access it would not ask for the refresh token it needs to stay connected.
 */
export function protectedResourceMetadata(input: ProtectedResourceInput, origin: string, suffix = ''): Record<string, unknown> {
  return {
    resource: `${origin}${suffix}`,
    authorization_servers: [input.issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: [...SCOPES],
    resource_name: 'carebridge',
    resource_documentation: `${input.baseUrl}/docs/agents`,
  };
}

/** Registers GET /.well-known/oauth-protected-resource (and its path-suffixed variant). */
export function registerProtectedResourceRoutes(app: FastifyInstance, input: ProtectedResourceInput): void {
  const pricingHost = new URL(input.pricingUrl).host;
  const originOf = (req: FastifyRequest) => (input.pricingUrl !== input.baseUrl && req.host === pricingHost ? input.pricingUrl : input.baseUrl);
  const headers = {
    'cache-control': 'public, max-age=3600',
    // Browser-based MCP clients read this cross-origin (it is public metadata).
    'access-control-allow-origin': '*',
  };
  app.get('/.well-known/oauth-protected-resource', async (req, reply) =>
    reply.headers(headers).send(protectedResourceMetadata(input, originOf(req))));
  app.get('/.well-known/oauth-protected-resource/*', async (req: FastifyRequest<{ Params: { '*': string } }>, reply) => {
    const suffix = req.params['*'];
    // Only plain path segments: the resource identifier must not carry a query or fragment.
    if (!/^[A-Za-z0-9._~\-/]*$/.test(suffix)) return reply.code(404).send({ error: 'not_found', reason: 'No such resource.', needsAuth: false });
    return reply.headers(headers).send(protectedResourceMetadata(input, originOf(req), suffix ? `/${suffix}` : ''));
  });
}
