/**
 * The MCP server card at GET /.well-known/mcp.json (service-spec.md, Discovery), generated from
 * the same operation list as the tools, so the card can never list a tool the server lacks.
 */
import type { Config } from '../../engine/core/config.ts';
import type { AnyOperation } from '../../engine/core/operation.ts';
import { MCP_CAPABILITIES, SERVER_VERSION, toolOperations } from '../mcp/mcp.tools.ts';

export const SERVICE_DESCRIPTION = 'Healthcare access for AI agents acting for a user: free price transparency under the user\'s plan from insurers\' published rate files, account and family profile, with care and records to follow. MCP and REST share the same handlers and OAuth 2.1 sign-in.';

export function buildServerCard(ops: AnyOperation[], config: Config): Record<string, unknown> {
  return {
    name: 'carebridge',
    version: SERVER_VERSION,
    description: SERVICE_DESCRIPTION,
    publisher: { name: 'carebridge', url: config.baseUrl },
    // Exactly what initialize announces: tools only (no resources or prompts are served).
    capabilities: MCP_CAPABILITIES,
    tools: toolOperations(ops).map((op) => ({
      name: op.name,
      description: op.description,
      annotations: {
        readOnlyHint: op.annotations.readOnlyHint,
        destructiveHint: op.annotations.destructiveHint,
        idempotentHint: op.annotations.idempotentHint,
        openWorldHint: op.annotations.openWorldHint,
      },
    })),
    transport: { type: 'streamable-http', url: `${config.baseUrl}/` },
    authentication: { type: 'oauth2', metadata_url: `${config.baseUrl}/.well-known/oauth-authorization-server` },
    categories: ['healthcare', 'price-transparency', 'insurance'],
    documentation: { agents: `${config.baseUrl}/docs/agents`, llms: `${config.baseUrl}/llms.txt` },
  };
}
