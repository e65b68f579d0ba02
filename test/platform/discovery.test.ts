/**
 * Discovery and operations endpoints (issue 2, items 5 and 11): OpenAPI 3.1 and the MCP server
 * card generated from the operation list, the agent docs they reference, /healthz and /readyz.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { allOperations } from '../../engine/operations.ts';
import { toolOperations } from '../../api/mcp/mcp.tools.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';

let db: Db;
let t: TestApp;
beforeAll(async () => {
  db = await openPgliteDb(undefined);
  t = await makeTestApp({ db, identity: fakeIdentity(), env: { BASE_URL: 'https://care.example', PRICING_URL: 'https://pricing.example' } });
});
afterAll(async () => {
  await t.close();
  await db.close();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- free-form JSON documents under test

describe('OpenAPI 3.1', () => {
  it('has every REST binding, with schemas, security and error responses', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(r.statusCode).toBe(200);
    const doc = r.json<Json>();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.components.securitySchemes.oauth2.flows.authorizationCode).toMatchObject({
      authorizationUrl: 'https://care.example/oauth/authorize', tokenUrl: 'https://care.example/oauth/token',
    });
    for (const op of allOperations()) {
      for (const b of op.rest ?? []) {
        const path = b.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        const o = doc.paths[path]?.[b.method.toLowerCase()] as Json | undefined;
        expect(o, `${b.method} ${path}`).toBeDefined();
        expect(o!.responses['200'].content['application/json'].schema).toBeTypeOf('object');
        expect(o!.responses['400']).toBeDefined();
        if (op.auth === 'required') {
          expect(o!.responses['401']).toBeDefined();
          expect(o!.security).toEqual(expect.arrayContaining([{ bearer: [] }]));
        }
        if (op.auth === 'optional') expect(o!.security).toContainEqual({});
        if ((b.surface ?? 'main') === 'pricing') expect(o!.servers).toEqual([{ url: 'https://pricing.example' }]);
      }
    }
    const patch = doc.paths['/api/profile/patient'].patch as Json;
    expect(patch.requestBody.content['application/json'].schema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(doc.paths['/api/profile'].get.responses['200'].content['application/json'].schema.properties).toHaveProperty('patients');
  });
});

describe('MCP server card', () => {
  it('carries the spec\'s fields, version 1.0.0 and one entry per tool with all four annotations', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/.well-known/mcp.json' });
    expect(r.statusCode).toBe(200);
    const card = r.json<Json>();
    expect(card).toMatchObject({
      name: 'carebridge', version: '1.0.0', description: expect.any(String),
      publisher: { name: expect.any(String), url: 'https://care.example' },
      capabilities: { tools: { listChanged: false } },
      transport: { type: 'streamable-http', url: 'https://care.example/' },
      authentication: { type: 'oauth2', metadata_url: 'https://care.example/.well-known/oauth-authorization-server' },
      categories: expect.arrayContaining(['healthcare']),
      documentation: { agents: 'https://care.example/docs/agents', llms: 'https://care.example/llms.txt' },
    });
    const names = toolOperations(allOperations()).map((o) => o.name);
    expect(card.tools.map((x: Json) => x.name)).toEqual(names);
    for (const tool of card.tools as Json[]) {
      expect(tool.description, tool.name).toBeTruthy();
      for (const k of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) expect(typeof tool.annotations[k], `${tool.name}.${k}`).toBe('boolean');
    }
    expect(names).toEqual(expect.arrayContaining(['check_account_status', 'init_signup', 'get_profile', 'update_patient', 'accept_terms']));
  });

  it('the documentation it references is served and lists every tool', async () => {
    const llms = await t.app.inject({ method: 'GET', url: '/llms.txt' });
    const agents = await t.app.inject({ method: 'GET', url: '/docs/agents' });
    expect(llms.statusCode).toBe(200);
    expect(agents.statusCode).toBe(200);
    expect(llms.headers['content-type']).toMatch(/text\/plain/);
    for (const op of toolOperations(allOperations())) {
      expect(llms.body).toContain(op.name);
      expect(agents.body).toContain(`### ${op.name}`);
    }
    expect(agents.body).toContain('WWW-Authenticate');
    for (const path of ['/legal/terms', '/legal/privacy']) expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
  });

  it('init_signup returns the next step and the sign-up link on this origin', async () => {
    const identity = fakeIdentity();
    const other = await openPgliteDb(undefined);
    const t2 = await makeTestApp({ db: other, identity, env: { BASE_URL: 'https://care.example' } });
    try {
      const { token } = await identity.signUp(other);
      const r = await t2.app.inject({ method: 'POST', url: '/api/account/init-signup', headers: { authorization: `Bearer ${token}` } });
      expect(r.statusCode, r.body).toBe(200);
      const body = r.json<Json>();
      expect(body).toMatchObject({ signedIn: true, onboardingComplete: false, nextStep: 'accept_terms', signupUrl: 'https://care.example/oauth/signup' });
      expect(body.instructions.join(' ')).toContain('accept_terms');
    } finally {
      await t2.close();
      await other.close();
    }
  });
});

describe('health', () => {
  it('/healthz is 200 while the process lives; /readyz reports the database and schema', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready', database: 'pglite' });
  });

  it('/readyz is 503 JSON when migrations are missing or the database is gone', async () => {
    const other = await openPgliteDb(undefined);
    const t2 = await makeTestApp({ db: other, identity: fakeIdentity() });
    try {
      await other.exec('DELETE FROM schema_migrations');
      const pending = await t2.app.inject({ method: 'GET', url: '/readyz' });
      expect(pending.statusCode).toBe(503);
      expect(pending.json()).toMatchObject({ status: 'migrations_pending', error: 'not_ready' });
      await other.close();
      const gone = await t2.app.inject({ method: 'GET', url: '/readyz' });
      expect(gone.statusCode).toBe(503);
      expect(gone.json()).toMatchObject({ status: 'database_unavailable', error: 'not_ready' });
      expect((await t2.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await t2.close();
    }
  });
});
