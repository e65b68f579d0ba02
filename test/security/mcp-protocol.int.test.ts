/**
 * MCP protocol errors and self-description (issue 38, item 7): malformed JSON is -32700, a batch
 * is -32600, arguments that are not an object and unknown tools are -32602 with a readable
 * message, while wrong argument VALUES stay isError tool results carrying the REST body (MCP
 * 2025-11-25, SEP-1303); the server card's capabilities are initialize's; RFC 9728 metadata lists
 * offline_access; tool schemas are portable JSON Schema 2020-12.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { allOperations } from '../../engine/operations.ts';
import { toolOperations } from '../../api/mcp/mcp.tools.ts';
import { protectedResourceMetadata } from '../../api/identity/discovery.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

type Json = Record<string, unknown>;

let db: Db;
let t: TestApp;
let token: string;

beforeAll(async () => {
  db = await openPgliteDb(undefined);
  const identity = fakeIdentity();
  t = await makeTestApp({ db, identity });
  ({ token } = await identity.signUp(db));
});
afterAll(async () => {
  await t?.close();
  await db?.close();
});

async function post(payload: string, bearer = token): Promise<{ status: number; body: Json }> {
  const r = await t.app.inject({
    method: 'POST', url: '/', payload,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  });
  return { status: r.statusCode, body: r.json<Json>() };
}

const rpc = (method: string, params?: unknown, id: number | undefined = 1) => JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, ...(params === undefined ? {} : { params }) });
const initialize = rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });

describe('JSON-RPC errors', () => {
  it('malformed JSON is -32700 Parse error (HTTP 400), after the bearer check', async () => {
    for (const payload of ['{"jsonrpc":', 'not json', '']) {
      const r = await post(payload);
      expect(r.status, payload).toBe(400);
      expect(r.body, payload).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringContaining('not valid JSON') } });
    }
    expect((await post('{"jsonrpc":', 'A'.repeat(43))).status).toBe(401);
  });

  it('a batch is -32600 Invalid Request: the 2025-11-25 transport takes one message per POST', async () => {
    const r = await post(`[${rpc('tools/list')},${rpc('tools/list', undefined, 2)}]`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('batches are not supported') } });
    expect((await post('42')).body).toMatchObject({ error: { code: -32600 } });
  });

  it('arguments that are not an object, a missing name and an unknown tool are -32602 with a readable message', async () => {
    for (const [params, text] of [
      [{ name: 'update_patient', arguments: 'x' }, 'params.arguments must be a JSON object'],
      [{ name: 'update_patient', arguments: [1] }, 'not an array'],
      [{ arguments: {} }, 'params.name must be the name of a tool'],
      [{ name: 'no_such_tool', arguments: {} }, 'unknown tool "no_such_tool"'],
      ['x', 'tools/call needs params'],
    ] as const) {
      const r = await post(rpc('tools/call', params, 9));
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: expect.stringContaining(text) } });
      expect(String((r.body.error as Json).message)).not.toContain('"code"'); // no raw zod issue dump
    }
  });

  it('wrong argument values are an isError result with the REST error body (SEP-1303), naming the field', async () => {
    const r = await post(rpc('tools/call', { name: 'update_patient', arguments: { birthDate: 5 } }));
    const result = r.body.result as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    // A wrong-typed value is invalid, not "required" (it was sent).
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ error: 'invalid_request', field: 'birthDate', code: 'invalid_value' });
  });
});

describe('what the server says about itself', () => {
  it('the server card announces the capabilities initialize does: tools only, same listChanged', async () => {
    const init = await post(initialize);
    const caps = (init.body.result as Json).capabilities as Json;
    const card = (await t.app.inject({ method: 'GET', url: '/.well-known/mcp.json' })).json<Json>();
    expect(card.capabilities).toEqual(caps);
    expect(Object.keys(caps)).toEqual(['tools']);
  });

  it('RFC 9728 metadata lists offline_access among scopes_supported', () => {
    // The document GET /.well-known/oauth-protected-resource serves (test/identity/discovery.int.test.ts
    // reads it over HTTP).
    const body = protectedResourceMetadata({ baseUrl: t.baseUrl, pricingUrl: t.baseUrl, issuer: t.baseUrl }, t.baseUrl);
    expect(body.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'offline_access']));
  });

  it('tools/list schemas are portable JSON Schema 2020-12: no draft-07 spelling, no type arrays, no empty subschemas', async () => {
    const r = await post(rpc('tools/list'));
    const tools = (r.body.result as { tools: { name: string; inputSchema: Json; outputSchema?: Json }[] }).tools;
    expect(tools.map((x) => x.name).sort()).toEqual(toolOperations(allOperations()).map((o) => o.name).sort());
    const problems: string[] = [];
    const walk = (node: unknown, path: string, key?: string): void => {
      if (typeof node === 'boolean') {
        if (!['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems'].includes(key ?? '')) problems.push(`${path}: bare boolean schema`);
        return;
      }
      if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
      const o = node as Json;
      if ('$schema' in o && o.$schema !== 'https://json-schema.org/draft/2020-12/schema') problems.push(`${path}: $schema ${String(o.$schema)}`);
      if ('definitions' in o) problems.push(`${path}: draft-07 definitions`);
      if (Array.isArray(o.type)) problems.push(`${path}: type array`);
      if (Array.isArray(o.items)) problems.push(`${path}: array-form items`);
      if (Object.keys(o).filter((k) => k !== 'description' && k !== 'title').length === 0 && key !== 'not') problems.push(`${path}: empty schema`);
      for (const [k, v] of Object.entries(o)) {
        if (['properties', '$defs', 'patternProperties', 'dependentSchemas'].includes(k) && v && typeof v === 'object') {
          for (const [name, s] of Object.entries(v as Json)) walk(s, `${path}.${k}.${name}`);
        } else if (['enum', 'const', 'default', 'examples', 'required'].includes(k)) {
          continue;
        } else if (Array.isArray(v)) {
          v.forEach((s, i) => walk(s, `${path}.${k}[${i}]`, k));
        } else if (typeof v === 'object' || typeof v === 'boolean') {
          walk(v, `${path}.${k}`, k);
        }
      }
    };
    for (const tool of tools) {
      walk(tool.inputSchema, `${tool.name}.inputSchema`);
      if (tool.outputSchema) walk(tool.outputSchema, `${tool.name}.outputSchema`);
    }
    expect(problems).toEqual([]);
    const patch = tools.find((x) => x.name === 'update_patient')!;
    expect(patch.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(tools.filter((x) => x.outputSchema).length).toBeGreaterThan(0);
  });
});
