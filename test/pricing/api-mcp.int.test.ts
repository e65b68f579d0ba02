/**
 * The pricing operations as MCP tools through the one handler core ("Done means": "the same
 * through MCP"): a real MCP SDK client over HTTP on port 0, with an access token from the real
 * OAuth flow, calls check_network_status and gets exactly what REST returns for the same token.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { NetworkStatusResponseSchema } from '../../engine/pricing/pricing.schema.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { obtainTokens } from '../helpers/oauth-flow.ts';
import { DEMO_REQUEST, demoNpi, openDemoPricing, type DemoPricing } from './api-demo-app.ts';

let d: DemoPricing;
let t: TestApp;
let token: string;
let client: Client;

beforeAll(async () => {
  d = await openDemoPricing();
  t = await makeTestApp({ pricing: d.ports, listen: true });
  token = (await obtainTokens(t.baseUrl, { email: 'pricing-mcp@example.com', password: 'correct horse battery staple' })).accessToken;
  client = new Client({ name: 'pricing-mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  }));
}, 120_000);

afterAll(async () => {
  await client.close().catch(() => undefined);
  await t.close();
  d.close();
});

test('the pricing tools are listed with read-only annotations and consumer rules in their descriptions', async () => {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((x) => [x.name, x]));
  for (const name of ['check_network_status', 'get_provider_evidence', 'list_payers']) {
    const tool = byName.get(name);
    expect(tool, name).toBeDefined();
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  }
  const ns = byName.get('check_network_status')!;
  expect(ns.description).toMatch(/plan\.basis/);
  expect(ns.description).toMatch(/needsMoreInfo/);
  expect(ns.description).toMatch(/never a hard out-of-network verdict/);
  expect(Object.keys(ns.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['providerName', 'npi', 'code', 'planHints', 'patientId']));
  // The public-host variants are REST-only: one tool per question for agents.
  expect(byName.has('pricing_network_status')).toBe(false);
});

test('check_network_status over MCP equals POST /api/pricing/network-status over REST', async () => {
  const res = await client.callTool({ name: 'check_network_status', arguments: { ...DEMO_REQUEST } });
  expect(res.isError).toBeFalsy();
  const viaMcp = NetworkStatusResponseSchema.parse(res.structuredContent);
  const rest = await fetch(`${t.baseUrl}/api/pricing/network-status`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(DEMO_REQUEST),
  });
  expect(rest.status).toBe(200);
  const viaRest = NetworkStatusResponseSchema.parse(await rest.json());
  expect(viaMcp).toEqual(viaRest);
  expect(viaMcp.matches[0]?.inNetwork).toBe(true);
  expect(viaMcp.plan.basis).toMatch(/synthetic/i);
});

test('the tool result carries the answer once: structuredContent, and a short summary as text (issue 37, item 9)', async () => {
  const res = await client.callTool({ name: 'check_network_status', arguments: { ...DEMO_REQUEST } });
  const structured = JSON.stringify(res.structuredContent);
  const text = (res.content as { type: string; text: string }[]).map((c) => c.text).join('');
  expect(() => JSON.parse(text) as unknown).toThrow();
  expect(text.length).toBeLessThan(structured.length / 2);
  expect(text).toMatch(/structuredContent/);
  expect(text).toMatch(/POPPYFIELD FAMILY MEDICINE/);
  expect(text).toMatch(/Disclaimer:/);
  // The whole result, both parts, stays under 12 KB (it was ~140 KB: the catalogue, twice).
  expect(Buffer.byteLength(JSON.stringify(res))).toBeLessThan(12 * 1024);
});

test('a caller mistake over MCP is an isError result with the same body REST sends', async () => {
  const res = await client.callTool({ name: 'check_network_status', arguments: { providerName: 'Poppyfield', limit: 1000 } });
  expect(res.isError).toBe(true);
  const content = res.content as { type: string; text: string }[];
  const body = JSON.parse(content[0]!.text) as Record<string, unknown>;
  expect(body).toMatchObject({ error: 'invalid_request', field: 'limit', agentInstructions: expect.any(Array) });
});

test('get_provider_evidence and list_payers answer over MCP', async () => {
  const ev = await client.callTool({ name: 'get_provider_evidence', arguments: { npi: demoNpi('POPPYFIELD FAMILY MEDICINE'), code: '99213' } });
  expect(ev.isError).toBeFalsy();
  expect((ev.structuredContent as { provider: { name: string } }).provider.name).toBe('POPPYFIELD FAMILY MEDICINE');
  const payers = await client.callTool({ name: 'list_payers', arguments: {} });
  expect((payers.structuredContent as { payers: { key: string }[] }).payers.map((p) => p.key)).toContain('golden-poppy-demo');
});
