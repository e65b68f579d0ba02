import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../rest/services.ts';
import { buildServerCard } from './server-card.ts';
import { agentsDoc, legalDoc, llmsTxt } from './docs.ts';
import { buildOpenApi } from '../openapi/openapi.ts';
import { PRIVACY_PATH, TERMS_PATH } from '../../engine/profile/terms.ts';

/** Public discovery documents (service-spec.md, Discovery: no authentication), built once. */
export function registerDiscoveryRoutes(app: FastifyInstance, svc: AppServices): void {
  const card = buildServerCard(svc.ops, svc.config);
  const openapi = buildOpenApi(svc.ops, svc.config);
  const llms = llmsTxt(svc.ops, svc.config);
  const agents = agentsDoc(svc.ops, svc.config);
  const cache = 'public, max-age=300';
  app.get('/.well-known/mcp.json', async (_req, reply) => reply.header('cache-control', cache).send(card));
  app.get('/api/openapi.json', async (_req, reply) => reply.header('cache-control', cache).send(openapi));
  app.get('/llms.txt', async (_req, reply) => reply.header('cache-control', cache).type('text/plain; charset=utf-8').send(llms));
  app.get('/docs/agents', async (_req, reply) => reply.header('cache-control', cache).type('text/markdown; charset=utf-8').send(agents));
  app.get(TERMS_PATH, async (_req, reply) => reply.header('cache-control', cache).type('text/markdown; charset=utf-8').send(legalDoc('terms')));
  app.get(PRIVACY_PATH, async (_req, reply) => reply.header('cache-control', cache).type('text/markdown; charset=utf-8').send(legalDoc('privacy')));
}
