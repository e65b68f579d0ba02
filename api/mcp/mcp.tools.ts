/**
 * MCP tools generated from the operation list (issue 2, items 5-6), with `McpServer.registerTool`.
 *
 * Input validation is ours, not the SDK's: the SDK would answer a bad argument with a plain text
 * message, while the contract says a tool failure carries the same JSON error body REST sends. So
 * each tool is registered with a permissive object schema whose JSON Schema (what tools/list shows)
 * is exactly the operation's input schema, attached as zod metadata; the handler then validates
 * with the real schema and maps failures to the REST body.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Caller } from '../../engine/core/context.ts';
import type { AnyOperation } from '../../engine/core/operation.ts';
import type { Logger } from 'pino';
import type { AppServices } from '../rest/services.ts';
import { invokeOperation } from '../rest/invoke.ts';
import { shapeErrorBody, statusOf, toAppError } from '../rest/error-body.ts';
import { safeErr } from '../logging.ts';
import { checkRate } from '../rest/rate-limit.ts';

/** The version in the server card and in MCP serverInfo (service-spec.md, Versioning). */
export const SERVER_VERSION = '1.0.0';

const listedSchemas = new WeakMap<AnyOperation, z.ZodType>();

/** A schema that accepts any object but describes itself (tools/list) as the op's input schema. */
function listedInputSchema(op: AnyOperation): z.ZodType {
  let s = listedSchemas.get(op);
  if (!s) {
    const js = z.toJSONSchema(op.input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete js.$schema;
    s = z.looseObject({}).meta(js);
    listedSchemas.set(op, s);
  }
  return s;
}

/**
 * Whether the output schema can be advertised: an object schema that JSON Schema can express (the
 * SDK converts it without an escape hatch, and one failing conversion would break tools/list).
 */
function advertisableOutput(s: z.ZodType): boolean {
  if ((s as unknown as { _zod?: { def?: { type?: string } } })._zod?.def?.type !== 'object') return false;
  try {
    z.toJSONSchema(s, { target: 'draft-7', io: 'output' });
    return true;
  } catch {
    return false;
  }
}

/** Operations offered as tools: every op not marked `mcp: false`. */
export function toolOperations(ops: AnyOperation[]): AnyOperation[] {
  return ops.filter((op) => op.mcp !== false);
}

export interface ToolCallInfo {
  caller: Caller;
  requestId: string;
  log: Logger;
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
      inputSchema: listedInputSchema(op) as z.ZodObject,
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
        const out = await invokeOperation(op, args ?? {}, ctx, svc.checkOutput);
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
  return server;
}
