/**
 * Agent documentation generated from the operation list: /llms.txt (the llmstxt.org convention:
 * a Markdown summary with links) and /docs/agents (the full tool and route reference). Plain
 * text/Markdown so agents can read them without a browser.
 */
import { z } from 'zod';
import type { Config } from '../../engine/core/config.ts';
import type { AnyOperation } from '../../engine/core/operation.ts';
import { toolOperations } from '../mcp/mcp.tools.ts';
import { DEFAULT_USER_PER_MINUTE } from '../rest/rate-limit.ts';
import { SERVICE_DESCRIPTION } from './server-card.ts';
import { CURRENT_PRIVACY_VERSION, CURRENT_TERMS_VERSION } from '../../engine/profile/terms.ts';

function fields(op: AnyOperation): string[] {
  const js = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { type?: unknown; description?: string }>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([k, v]) => {
    const type = Array.isArray(v.type) ? v.type.join('|') : typeof v.type === 'string' ? v.type : 'object';
    const req = js.required?.includes(k) ? 'required' : 'optional';
    return `  - \`${k}\` (${type}, ${req})${v.description ? `: ${v.description}` : ''}`;
  });
}

function routes(op: AnyOperation, config: Config): string {
  return (op.rest ?? []).map((b) => `\`${b.method} ${(b.surface ?? 'main') === 'pricing' ? config.pricingUrl : config.baseUrl}${b.path}\``).join(', ');
}

export function llmsTxt(ops: AnyOperation[], config: Config): string {
  const lines = [
    '# carebridge', '', `> ${SERVICE_DESCRIPTION}`, '',
    `MCP (streamable HTTP): POST ${config.baseUrl}/ with \`Authorization: Bearer <token>\`. REST: ${config.baseUrl}/api/*. Sign-in: OAuth 2.1 with PKCE; metadata at ${config.baseUrl}/.well-known/oauth-authorization-server.`, '',
    '## Docs', '',
    `- [Agent guide and tool reference](${config.baseUrl}/docs/agents): every tool, its inputs, REST route and auth`,
    `- [OpenAPI 3.1](${config.baseUrl}/api/openapi.json): REST schemas`,
    `- [MCP server card](${config.baseUrl}/.well-known/mcp.json)`, '',
    '## Tools', '',
    ...toolOperations(ops).map((op) => `- ${op.name}: ${op.description.split('. ')[0]!.replace(/\.$/, '')}.`),
  ];
  return `${lines.join('\n')}\n`;
}

export function agentsDoc(ops: AnyOperation[], config: Config): string {
  const out = [
    '# carebridge for AI agents', '', SERVICE_DESCRIPTION, '',
    '## Connecting', '',
    `1. Call the MCP endpoint \`${config.baseUrl}/\` (streamable HTTP, stateless, JSON responses) or REST under \`${config.baseUrl}/api/\`.`,
    '2. Without a token you get HTTP 401 with `WWW-Authenticate: Bearer resource_metadata="…"`. Follow it (RFC 9728) to the authorization server, register a client dynamically (RFC 7591) and run the authorization-code flow with PKCE S256. Scopes: openid, profile, email, offline_access.',
    '3. Call `check_account_status`. If `nextStep` is `accept_terms`, show the user the terms and privacy notice and call `accept_terms` with the current versions once they agree.',
    `   Current versions: terms ${CURRENT_TERMS_VERSION}, privacy ${CURRENT_PRIVACY_VERSION}.`, '',
    '## Errors', '',
    'REST errors are JSON: `{error, reason, needsAuth}` plus `field` (the input at fault), `code` and `message` where useful. An MCP tool failure returns `isError: true` whose text content is the same JSON body. Unknown fields are rejected (400 naming the field). Bodies over 1 MiB get 413; non-JSON bodies 415. Rate limits: the anonymous per-IP limits listed per route, and ' + String(DEFAULT_USER_PER_MINUTE) + ' calls per minute per signed-in user; a 429 carries `retryAfterSeconds` and `Retry-After`.', '',
    '## Tools and routes', '',
  ];
  for (const op of ops) {
    const a = op.annotations;
    out.push(`### ${op.name}${op.mcp === false ? ' (REST only)' : ''}`, '', op.description, '',
      `- REST: ${routes(op, config) || 'none'}`,
      `- Auth: ${op.auth}${op.rateLimit ? `; anonymous limit ${op.rateLimit.anonymousPerMinute}/min per IP` : ''}`,
      `- Hints: readOnly=${a.readOnlyHint}, destructive=${a.destructiveHint}, idempotent=${a.idempotentHint}, openWorld=${a.openWorldHint}`,
      '- Input:', ...(fields(op).length ? fields(op) : ['  - (none)']), '');
  }
  return `${out.join('\n')}\n`;
}

/** The published terms and privacy notice; their versions are what accept_terms records. */
export function legalDoc(kind: 'terms' | 'privacy'): string {
  return kind === 'terms'
    ? `# carebridge terms of service (version ${CURRENT_TERMS_VERSION})\n\ncarebridge gives information about prices and coverage from insurers' published files and public data. It is not medical advice and not a guarantee of what a claim will cost. Estimates may be incomplete or out of date; confirm with the provider and the plan before receiving care.\n`
    : `# carebridge privacy notice (version ${CURRENT_PRIVACY_VERSION})\n\ncarebridge stores your account (email, password hash), the demographics you enter for yourself and your dependents, and the versions of these documents you accepted. Passwords and tokens are stored only as hashes. Health data is never written to logs and is not shared with third parties except to perform a service you request.\n`;
}
