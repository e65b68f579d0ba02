/**
 * The JSON-RPC checks made before a POST body reaches the MCP SDK (issue 38, item 7), so that a
 * client gets the protocol's own error codes with a readable message:
 * - a body that is not JSON: -32700 Parse error (HTTP 400);
 * - a JSON-RPC batch (an array): -32600 Invalid Request (HTTP 400). Batching was removed in
 *   revision 2025-06-18; under 2025-11-25 a POST body is one request, notification or response;
 * - anything else that is not a JSON object: -32600;
 * - tools/call whose params do not satisfy CallToolRequest (arguments not an object, no name) or
 *   that names no tool of this server: -32602 Invalid params. (The SDK answers the first with
 *   -32603 and zod's raw issue list, the second with an isError result.) Errors in argument
 *   VALUES are not protocol errors: the tool answers them with isError (SEP-1303).
 */

type Id = string | number | null;

export interface JsonRpcRefusal {
  status: number;
  body: { jsonrpc: '2.0'; id: Id; error: { code: number; message: string } };
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

function refuse(status: number, id: Id, code: number, message: string): JsonRpcRefusal {
  return { status, body: { jsonrpc: '2.0', id, error: { code, message } } };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`;
}

/** The request's id when it has a usable one (string or number), else null. */
function idOf(msg: Record<string, unknown>): Id {
  return typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : null;
}

/**
 * Parses and checks one POST body. `raw` is the unparsed text (undefined: no body). Returns the
 * message to hand to the SDK, or the JSON-RPC error to send instead.
 */
export function checkMcpBody(raw: string | undefined, toolNames: ReadonlySet<string>): { message: unknown } | { refusal: JsonRpcRefusal } {
  let msg: unknown;
  try {
    if (raw === undefined || raw.trim() === '') throw new Error('empty');
    msg = JSON.parse(raw);
  } catch {
    return { refusal: refuse(400, null, PARSE_ERROR, 'Parse error: the request body is not valid JSON; send one JSON-RPC 2.0 message.') };
  }
  if (Array.isArray(msg)) {
    return { refusal: refuse(400, null, INVALID_REQUEST, 'Invalid Request: JSON-RPC batches are not supported (MCP 2025-11-25: a POST body is a single JSON-RPC request, notification or response); send the messages one per request.') };
  }
  if (!isRecord(msg)) {
    return { refusal: refuse(400, null, INVALID_REQUEST, `Invalid Request: the body must be a JSON-RPC message object, not ${kindOf(msg)}.`) };
  }
  if (msg.method !== 'tools/call' || msg.id === undefined) return { message: msg };
  const id = idOf(msg);
  const params = msg.params;
  if (!isRecord(params)) {
    return { refusal: refuse(200, id, INVALID_PARAMS, `Invalid params: tools/call needs params {"name": <tool>, "arguments": {…}}, got ${kindOf(params)}.`) };
  }
  if (typeof params.name !== 'string') {
    return { refusal: refuse(200, id, INVALID_PARAMS, 'Invalid params: params.name must be the name of a tool (a string); tools/list names them.') };
  }
  if (!toolNames.has(params.name)) {
    return { refusal: refuse(200, id, INVALID_PARAMS, `Invalid params: unknown tool "${params.name.slice(0, 100)}"; tools/list names the tools.`) };
  }
  if (params.arguments !== undefined && !isRecord(params.arguments)) {
    return { refusal: refuse(200, id, INVALID_PARAMS, `Invalid params: params.arguments must be a JSON object of the tool's arguments, not ${kindOf(params.arguments)}.`) };
  }
  return { message: msg };
}
