/**
 * MCP over real HTTP with the official SDK client (issue 2, tests): list tools, call
 * check_account_status and compare with REST, a failing tool carries the REST error body, no
 * token gives 401 + WWW-Authenticate before any MCP handling, and a foreign Origin is refused.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allOperations } from '../../engine/operations.ts';
import { toolOperations } from '../../api/mcp/mcp.tools.ts';
import { signUpUser, startListeningApp, type ListeningApp } from './platform-fixture.ts';

let env: ListeningApp;
let token: string;

beforeAll(async () => {
  env = await startListeningApp();
  ({ token } = await signUpUser(env, 'mcp-user@example.test'));
});
afterAll(async () => { await env.close(); });

async function connect(bearer: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${env.baseUrl}/`), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  const client = new Client({ name: 'carebridge-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function jsonText(result: unknown): unknown {
  const content = (result as { content: { type: string; text: string }[] }).content;
  expect(content[0]?.type).toBe('text');
  return JSON.parse(content[0]!.text);
}

describe('MCP endpoint', () => {
  it('lists every tool from the operation list, with schemas and all four annotations', async () => {
    const client = await connect(token);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'carebridge', version: '1.0.0' });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(toolOperations(allOperations()).map((o) => o.name).sort());
      const status = tools.find((t) => t.name === 'check_account_status')!;
      expect(status.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      expect(status.outputSchema).toMatchObject({ type: 'object' });
      const patch = tools.find((t) => t.name === 'update_patient')!;
      // The listed input schema is the operation's own (strict: no additional properties).
      expect(patch.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(Object.keys(patch.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['patientId', 'relationship', 'birthDate', 'state']));
    } finally {
      await client.close();
    }
  });

  it('check_account_status over MCP equals GET /api/account/status over REST with the same token', async () => {
    const client = await connect(token);
    try {
      const result = await client.callTool({ name: 'check_account_status', arguments: {} });
      expect(result.isError).toBeFalsy();
      const rest = await fetch(`${env.baseUrl}/api/account/status`, { headers: { authorization: `Bearer ${token}` } });
      expect(rest.status).toBe(200);
      const restBody = await rest.json();
      expect(result.structuredContent).toEqual(restBody);
      expect(jsonText(result)).toEqual(restBody);
      expect(restBody).toMatchObject({ signedIn: true, email: 'mcp-user@example.test', onboardingComplete: false, nextStep: 'accept_terms' });
    } finally {
      await client.close();
    }
  });

  it('a failing tool returns isError content carrying the same JSON body REST sends', async () => {
    const client = await connect(token);
    try {
      const args = { birthDate: '2999-01-01', favouriteColour: 'blue' };
      const result = await client.callTool({ name: 'update_patient', arguments: args });
      expect(result.isError).toBe(true);
      const rest = await fetch(`${env.baseUrl}/api/profile/patient`, {
        method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(args),
      });
      expect(rest.status).toBe(400);
      expect(jsonText(result)).toEqual(await rest.json());
      expect(jsonText(result)).toMatchObject({ error: 'invalid_request', field: 'favouriteColour' });

      const future = await client.callTool({ name: 'update_patient', arguments: { birthDate: '2999-01-01' } });
      expect(jsonText(future)).toMatchObject({ error: 'invalid_request', field: 'birthDate', needsAuth: false });
    } finally {
      await client.close();
    }
  });

  it('a tool call changes state seen by REST (accept_terms then GET /api/profile)', async () => {
    const client = await connect(token);
    try {
      const profile = await (await fetch(`${env.baseUrl}/api/profile`, { headers: { authorization: `Bearer ${token}` } })).json() as { onboarding: { currentTermsVersion: string; currentPrivacyVersion: string } };
      const r = await client.callTool({ name: 'accept_terms', arguments: { termsVersion: profile.onboarding.currentTermsVersion, privacyVersion: profile.onboarding.currentPrivacyVersion } });
      expect(r.isError).toBeFalsy();
      const after = await (await fetch(`${env.baseUrl}/api/profile`, { headers: { authorization: `Bearer ${token}` } })).json() as { onboarding: { complete: boolean } };
      expect(after.onboarding.complete).toBe(true);
      const status = await client.callTool({ name: 'check_account_status', arguments: {} });
      expect(status.structuredContent).toMatchObject({ onboardingComplete: true, nextStep: 'ready', missing: [] });
    } finally {
      await client.close();
    }
  });

  it('without a token: 401 with WWW-Authenticate (RFC 9728) before MCP handling; the SDK client fails to connect', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const r = await fetch(`${env.baseUrl}/`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(init) });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource[^"]*"$/);
    expect(await r.json()).toMatchObject({ error: 'not_authenticated', needsAuth: true });

    const bad = await fetch(`${env.baseUrl}/`, { method: 'POST', headers: { authorization: 'Bearer forged', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(init) });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const client = new Client({ name: 'anon', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${env.baseUrl}/`)))).rejects.toThrow();
  });

  it('refuses a foreign Origin (DNS rebinding) and allows the service\'s own', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const evil = await fetch(`${env.baseUrl}/`, { method: 'POST', headers: { ...headers, origin: 'http://evil.example' }, body: JSON.stringify(init) });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ error: 'forbidden_origin' });
    const own = await fetch(`${env.baseUrl}/`, { method: 'POST', headers: { ...headers, origin: env.baseUrl }, body: JSON.stringify(init) });
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBe(env.baseUrl);
    const preflight = await fetch(`${env.baseUrl}/`, { method: 'OPTIONS', headers: { origin: env.baseUrl, 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect((await fetch(`${env.baseUrl}/`, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } })).status).toBe(403);
  });

  it('stateless: GET and DELETE are 405; malformed JSON-RPC bodies are 4xx', async () => {
    const h = { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream' };
    expect((await fetch(`${env.baseUrl}/`, { method: 'GET', headers: { ...h, accept: 'text/event-stream' } })).status).toBe(405);
    expect((await fetch(`${env.baseUrl}/`, { method: 'DELETE', headers: h })).status).toBe(405);
    const broken = await fetch(`${env.baseUrl}/`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: '{"jsonrpc":' });
    expect(broken.status).toBe(400);
    const notRpc = await fetch(`${env.baseUrl}/`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: '{"hello":1}' });
    expect(notRpc.status).toBeGreaterThanOrEqual(400);
    expect(notRpc.status).toBeLessThan(500);
  });
});
