/**
 * `carebridge serve --pricing-only`: only the pricing host's routes (plus health and discovery);
 * no MCP endpoint, no main-host /api routes, no OAuth pages.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { allOperations } from '../../engine/operations.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';

let db: Db;
let t: TestApp;
beforeAll(async () => {
  db = await openPgliteDb(undefined);
  t = await makeTestApp({ db, identity: fakeIdentity(), pricingOnly: true });
});
afterAll(async () => {
  await t.close();
  await db.close();
});

it('serves the pricing-surface routes and nothing of the main host', async () => {
  const pricingRoutes = allOperations().flatMap((op) => (op.rest ?? []).filter((b) => b.surface === 'pricing'));
  for (const b of pricingRoutes) {
    const r = await t.app.inject({ method: b.method, url: b.path, ...(b.method === 'GET' ? {} : { payload: {} }) });
    expect(r.json<{ error?: string }>().error, `${b.method} ${b.path}`).not.toBe('route_not_found');
  }
  for (const [method, url] of [['GET', '/api/profile'], ['POST', '/'], ['GET', '/api/account/status'], ['GET', '/oauth/authorize']] as const) {
    const r = await t.app.inject({ method, url, headers: { authorization: 'Bearer x' } });
    expect(r.statusCode, `${method} ${url}`).toBe(404);
  }
  expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
});

it('opens no job queue, outbox or notification bus (the care platform is the main host\'s)', () => {
  expect(t.services.ports.jobs).toBeUndefined();
  expect(t.services.ports.outbox).toBeUndefined();
  expect(t.services.ports.bus).toBeUndefined();
});
