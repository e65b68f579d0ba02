/**
 * /api/subscription* (issue 35, item 2): payment status and pay-per-use options, the card-setup
 * link (REST and the MCP tool create_payment_setup over real HTTP), and the deprecated activate
 * and DELETE with Deprecation and Sunset headers.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { CARD, formBody, formTokenOf } from './payments-fixture.ts';

let db: Db;
let t: TestApp;
let auth: Record<string, string>;
let token: string;

beforeAll(async () => {
  db = await openPgliteDb(undefined);
  const identity = fakeIdentity();
  t = await makeTestApp({ db, identity, listen: true, env: { VISIT_PRICE_CENTS: '3500' } });
  token = (await identity.signUp(db)).token;
  auth = { authorization: `Bearer ${token}` };
});
afterAll(async () => {
  await t.close();
  await db.close();
});

describe('/api/subscription', () => {
  it('GET reports pay-per-use with the configured visit price; after card setup, the saved card', async () => {
    const before = await t.app.inject({ method: 'GET', url: '/api/subscription', headers: auth });
    expect(before.statusCode).toBe(200);
    expect(before.json()).toMatchObject({
      billingMode: 'pay_per_use', paymentStatus: 'NO_CARD', processor: 'embedded', savedCard: null,
      payPerUse: { visitPriceCents: 3500, visitPrice: 35, currency: 'usd', holdLifeDays: 7 },
    });
    const setup = await t.app.inject({ method: 'POST', url: '/api/subscription/setup', headers: auth });
    expect(setup.statusCode).toBe(200);
    const s = setup.json<{ setupUrl: string; sessionId: string; expiresInSeconds: number }>();
    expect(s.setupUrl).toBe(`${t.baseUrl}/pay/${s.sessionId}`);
    expect(s.expiresInSeconds).toBe(1800);
    const path = new URL(s.setupUrl).pathname;
    const page = await t.app.inject({ method: 'GET', url: path });
    expect(page.body).toContain('Save a card');
    const saved = await t.app.inject({
      method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: formBody({ ...CARD, formToken: formTokenOf(page.body), ccNumber: '4242424242424242' }),
    });
    expect(saved.statusCode).toBe(303);
    expect((await t.app.inject({ method: 'GET', url: path })).body).toContain('Card saved');
    expect((await t.app.inject({ method: 'GET', url: '/api/subscription', headers: auth })).json()).toMatchObject({
      paymentStatus: 'CARD_ON_FILE', savedCard: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 },
    });
  });

  it('needs a bearer token', async () => {
    for (const [method, url] of [['GET', '/api/subscription'], ['POST', '/api/subscription/setup'], ['POST', '/api/subscription/activate'], ['DELETE', '/api/subscription']] as const) {
      const res = await t.app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('deprecated activate and DELETE answer with Deprecation and Sunset headers and change nothing', async () => {
    const act = await t.app.inject({ method: 'POST', url: '/api/subscription/activate', headers: auth });
    expect(act.statusCode).toBe(200);
    expect(act.json()).toEqual({ success: true, billingMode: 'pay_per_use', paymentStatus: 'CARD_ON_FILE' });
    expect(act.headers.deprecation).toBe('@1767225600');
    expect(act.headers.sunset).toBe('Sat, 01 Jan 2028 00:00:00 GMT');
    const del = await t.app.inject({ method: 'DELETE', url: '/api/subscription', headers: auth });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ success: true, billingMode: 'pay_per_use', cancelled: false });
    expect(del.headers.deprecation).toBe('@1767225600');
    expect(del.headers.sunset).toBeDefined();
    // The headers also mark the error answers of a deprecated route; live routes carry none.
    expect((await t.app.inject({ method: 'DELETE', url: '/api/subscription' })).headers.deprecation).toBe('@1767225600');
    expect((await t.app.inject({ method: 'GET', url: '/api/subscription', headers: auth })).headers.deprecation).toBeUndefined();
    const openapi = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json<{ paths: Record<string, Record<string, { deprecated?: boolean }>> }>();
    expect(openapi.paths['/api/subscription']?.delete?.deprecated).toBe(true);
    expect(openapi.paths['/api/subscription/activate']?.post?.deprecated).toBe(true);
    expect(openapi.paths['/api/subscription']?.get?.deprecated).toBeUndefined();
  });

  it('MCP create_payment_setup returns a working setup link (real client over HTTP)', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/`), { requestInit: { headers: auth } });
    const client = new Client({ name: 'payments-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name)).toEqual(expect.arrayContaining(['create_payment_setup', 'get_subscription']));
      expect(tools.map((x) => x.name)).not.toContain('activate_subscription');
      const r = await client.callTool({ name: 'create_payment_setup', arguments: {} });
      const body = JSON.parse((r.content as { text: string }[])[0]!.text) as { setupUrl: string };
      const page = await fetch(body.setupUrl);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('autocomplete="cc-number"');
    } finally {
      await client.close();
    }
  });
});
