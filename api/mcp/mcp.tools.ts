/**
 * MCP tools generated from the operation list (issue 2, items 5-6), with `McpServer.registerTool`.
 *
 * Input validation is ours, not the SDK's: the SDK would answer a bad argument with a plain text
 * message, while the contract says a tool failure carries the same JSON error body REST sends. So
 * each tool is registered with a permissive object schema and the handler validates with the
 * operation's own schema, mapping failures to the REST body as an `isError` result: MCP
 * 2025-11-25 (SEP-1303) makes argument validation errors tool execution errors, so the model sees
 * them and can correct itself. Requests that fail the protocol's own shape (arguments that are
 * not an object, an unknown tool) are JSON-RPC -32602 errors, refused in mcp-messages.ts.
 *
 * tools/list is answered here too, not by the SDK, whose zod conversion writes draft-07: each
 * tool's schemas are the operation's own, in JSON Schema 2020-12 (tool-schemas.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Caller } from '../../engine/core/context.ts';
import type { AnyOperation } from '../../engine/core/operation.ts';
import type { Logger } from 'pino';
import type { AppServices } from '../rest/services.ts';
import { invokeOperation } from '../rest/invoke.ts';
import { shapeErrorBody, statusOf, toAppError } from '../rest/error-body.ts';
import { safeErr } from '../logging.ts';
import { checkRate } from '../rest/rate-limit.ts';
import { toolJsonSchema } from './tool-schemas.ts';

/** The version in the server card and in MCP serverInfo (service-spec.md, Versioning). */
export const SERVER_VERSION = '1.0.0';

/**
 * What `initialize` announces and the server card repeats (one constant, so they cannot differ).
 * `listChanged: false`: the tool list is fixed at start-up, and a stateless server has no session
 * to send notifications/tools/list_changed on anyway.
 */
export const MCP_CAPABILITIES = { tools: { listChanged: false } } as const;

/** Accepts any arguments object: the operation's schema validates inside the handler. */
const ANY_ARGUMENTS = z.looseObject({});

/**
 * Whether the output schema can be advertised: an object schema that JSON Schema can express
 * without an escape hatch (one failing conversion would break tools/list).
 */
function advertisableOutput(s: z.ZodType): boolean {
  if ((s as unknown as { _zod?: { def?: { type?: string } } })._zod?.def?.type !== 'object') return false;
  try {
    z.toJSONSchema(s, { target: 'draft-2020-12', io: 'output' });
    return true;
  } catch {
    return false;
  }
}

const listings = new WeakMap<AnyOperation, Tool>();

/** One tool as tools/list shows it (computed once per operation). */
export function toolListing(op: AnyOperation): Tool {
  let t = listings.get(op);
  if (!t) {
    t = {
      name: op.name,
      title: op.title,
      description: op.description,
      inputSchema: toolJsonSchema(op.input, 'input') as Tool['inputSchema'],
      ...(advertisableOutput(op.output) ? { outputSchema: toolJsonSchema(op.output, 'output') as Tool['outputSchema'] } : {}),
      annotations: { title: op.title, ...op.annotations },
    };
    listings.set(op, t);
  }
  return t;
}

/** Operations offered as tools: every op not marked `mcp: false`. */
export function toolOperations(ops: AnyOperation[]): AnyOperation[] {
  return ops.filter((op) => op.mcp !== false);
}

export interface ToolCallInfo {
  caller: Caller;
  requestId: string;
  log: Logger;
  /** The tools/call's arguments as sent (before the SDK's parse), when the route had them. */
  rawArguments?: unknown;
}

/** A fresh MCP server for one request (stateless: any instance can serve any request). */
export function buildMcpServer(svc: AppServices, info: ToolCallInfo): McpServer {
  const server = new McpServer(
    { name: 'carebridge', version: SERVER_VERSION },
    { instructions: 'Healthcare pricing and care for AI agents. Call check_account_status first; see /docs/agents on this host.' },
  );
  for (const op of toolOperations(svc.ops)) {
    server.registerTool(op.name, {
      title: op.title,
      description: op.description,
      inputSchema: ANY_ARGUMENTS,
      ...(advertisableOutput(op.output) ? { outputSchema: op.output as z.ZodObject } : {}),
      annotations: { title: op.title, ...op.annotations },
    }, async (args: unknown): Promise<CallToolResult> => {
      const ctx = {
        caller: info.caller,
        ports: svc.ports,
        log: info.log.child({ tool: op.name }),
        requestId: info.requestId,
        surface: 'main' as const,
        urls: { baseUrl: svc.config.baseUrl, pricingUrl: svc.config.pricingUrl },
      };
      try {
        checkRate(svc.limiter, op, info.caller, svc.userPerMinute);
        // One message per request (stateless), so the raw arguments are this call's.
        const out = await invokeOperation(op, info.rawArguments ?? args ?? {}, ctx, svc.checkOutput);
        // The answer once: structuredContent, with a short summary as text where the op gives one.
        const text = op.mcpText ? op.mcpText(out) : JSON.stringify(out);
        return { content: [{ type: 'text', text }], structuredContent: out as Record<string, unknown> };
      } catch (e) {
        const err = toAppError(e);
        const body = shapeErrorBody(err, op.errorShape ?? 'standard');
        if (statusOf(err) >= 500) {
          ctx.log.error({ err: safeErr(e), requestId: info.requestId, code: err.code }, 'tool failed');
          body.requestId = info.requestId;
        }
        return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
      }
    });
  }
  // After registerTool (which announces listChanged: true and installs the SDK's tools/list).
  server.server.registerCapabilities(MCP_CAPABILITIES);
  const tools = toolOperations(svc.ops);
  server.server.removeRequestHandler('tools/list');
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(toolListing) }));
  return server;
}
