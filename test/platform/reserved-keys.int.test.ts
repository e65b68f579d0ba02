/**
 * One rule for unknown parameters on every operation route (the care-fixes brief, item 3): the
 * input schemas are strict, so a query parameter, body field or MCP argument an operation does
 * not define is a 400 naming it (bad-input.test.ts covers an ordinary unknown name). `__proto__`,
 * `constructor` and `prototype` get the same 400 at any depth and on both transports, never
 * reaching an object as keys: `?__proto__=x` on the prescriptions routes (and every other GET) was
 * dropped silently, as were `params.__proto__` in a body and a top-level `__proto__` MCP argument.
 * Iterates allOperations(), so routes added later are covered.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allOperations } from '../../engine/operations.ts';
import type { RestBinding } from '../../engine/core/operation.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';

const RESERVED = ['__proto__', 'constructor', 'prototype'] as const;
const routes = allOperations().flatMap((op) => (op.rest ?? []).map((b) => ({ b, label: `${b.method} ${b.path} (${op.name})` })));
const hasBody = (b: RestBinding) => b.method !== 'GET' && b.method !== 'DELETE';
const url = (b: RestBinding, query = '') => b.path.replace(/:([A-Za-z0-9_]+)/g, 'x') + query;

let t: TestApp;
let token: string;
let auth: Record<string, string>;
beforeAll(async () => {
  const identity = fakeIdentity();
  t = await makeTestApp({ identity, listen: true });
  token = (await identity.signUp(t.db)).token;
  auth = { authorization: `Bearer ${token}` };
});
afterAll(async () => { await t?.close(); });

/** A 400 whose body names `field` (the pricing hosts' bodies without a `field` say invalid_request). */
function expectRefused(r: { statusCode: number; body: string }, field: string, label: string): void {
  expect(r.statusCode, `${label}: ${r.body}`).toBe(400);
  const body = JSON.parse(r.body) as Record<string, unknown>;
  if ('field' in body) expect(body.field, `${label}: ${r.body}`).toBe(field);
  else expect(body.error, `${label}: ${r.body}`).toBe('invalid_request');
}

it('covers the prescriptions routes', () => {
  const paths = routes.map((r) => r.b.path);
  for (const p of ['/api/prescriptions', '/api/prescriptions/:id', '/api/pharmacies', '/api/care-jobs/:jobId']) expect(paths).toContain(p);
});

describe.each(routes)('$label', ({ b, label }) => {
  it.each(RESERVED)('refuses ?%s=x naming it', async (name) => {
    const r = await t.app.inject({ method: b.method, url: url(b, `?${name}=x`), headers: auth, ...(hasBody(b) ? { payload: {} } : {}) });
    expectRefused(r, name, `${label} ?${name}`);
  });
});

describe('in a JSON body and in MCP arguments', () => {
  const json = () => ({ ...auth, 'content-type': 'application/json' });
  it('a top-level or nested __proto__ in a body is refused naming its path', async () => {
    const office = '{"providerName":"X","city":"Oakland","state":"CA"}';
    const cases: [string, string][] = [
      [`{"__proto__":{"jobType":"book_appointment"},"params":{"provider":${office}}}`, '__proto__'],
      [`{"jobType":"book_appointment","params":{"__proto__":{"provider":${office}}}}`, 'params.__proto__'],
      [`{"jobType":"book_appointment","params":{"provider":${office},"constructor":{"prototype":1}}}`, 'params.constructor'],
    ];
    for (const [payload, field] of cases) {
      expectRefused(await t.app.inject({ method: 'POST', url: '/api/care-jobs', headers: json(), payload }), field, payload);
    }
    expect((await t.db.query('SELECT 1 FROM care_jobs')).rows).toHaveLength(0);
  });

  it('MCP tools answer isError with the same body as REST', async () => {
    const mcp = new McpClient({ name: 'reserved-keys-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      const calls: [string, string, string][] = [
        ['get_prescriptions', '{"__proto__":{"limit":1}}', '__proto__'],
        ['get_prescriptions', '{"constructor":"x"}', 'constructor'],
        ['search_pharmacies', '{"zip":"94103","prototype":"x"}', 'prototype'],
        ['create_care_job', '{"jobType":"book_appointment","params":{"__proto__":{"provider":{"providerName":"X","city":"Oakland","state":"CA"}}}}', 'params.__proto__'],
      ];
      for (const [name, args, field] of calls) {
        // JSON.parse keeps `__proto__` as an own key, as a client's JSON does.
        const r = await mcp.callTool({ name, arguments: JSON.parse(args) as Record<string, unknown> });
        expect(r.isError, `${name} ${args}`).toBe(true);
        const text = (r.content as { type: string; text: string }[])[0]!.text;
        expect(JSON.parse(text), `${name} ${args}`).toMatchObject({ error: 'invalid_request', code: 'unknown_field', field });
      }
      // An ordinary call still works through the same path.
      const ok = await mcp.callTool({ name: 'get_prescriptions', arguments: { limit: 5 } });
      expect(ok.isError).toBeFalsy();
      expect(ok.structuredContent).toMatchObject({ prescriptionOrders: [] });
    } finally {
      await mcp.close();
    }
  });
});
