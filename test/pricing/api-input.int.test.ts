/**
 * Bad input on the pricing API (issue 4, item 10; service-spec.md, Errors): every caller mistake is
 * a 400 naming the field, in the host's error shape, never a 5xx. Plus the operator condition "no
 * snapshot published" (503 pricing_data_unavailable) and patientId ownership on the main host.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sqlProfileStore } from '../../engine/profile/profile-store.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { createPricingPorts } from '../../engine/pricing/adapters/pricing-ports.ts';
import { DEMO_REQUEST, openDemoPricing, pricingApp, type DemoPricing, type PricingTestApp } from './api-demo-app.ts';

let d: DemoPricing;
let t: PricingTestApp;
let ipSeq = 0;

// One app for the file (each request gets its own client IP, so no case sees another's rate
// limit); building an app per case costs seconds on these shared 2-core machines.
beforeAll(async () => {
  d = await openDemoPricing();
  t = await pricingApp(d.ports);
}, 120_000);
afterAll(async () => {
  await t.close();
  d.close();
});

/** A new client IP per request, so the anonymous rate limit never interferes with these cases. */
function ip(): string {
  ipSeq += 1;
  return `10.1.${Math.floor(ipSeq / 250) % 250}.${(ipSeq % 250) + 1}`;
}

async function post(url: string, payload: unknown, headers: Record<string, string> = {}) {
  const r = await t.app.inject({ method: 'POST', url, payload: payload as never, headers: { 'content-type': 'application/json', ...headers }, remoteAddress: ip() });
  return { status: r.statusCode, body: JSON.parse(r.body) as Record<string, unknown>, headers: r.headers };
}

const NS = '/api/pricing.v1/network-status';
const PE = '/api/pricing.v1/provider-evidence';
const POPPY = DEMO_REQUEST.providerName;

/** [case, body, field named in the 400] for the public network-status route. */
const NETWORK_STATUS_CASES: [string, unknown, string][] = [
  ['unknown code', { providerName: POPPY, code: '00000' }, 'code'],
  ['code with punctuation', { providerName: POPPY, code: '99-213' }, 'code'],
  ['malformed NPI (short)', { npi: '12345' }, 'npi'],
  ['malformed NPI (letters)', { npi: '155500007X' }, 'npi'],
  ['NPI as a number', { npi: 1555000078 }, 'npi'],
  ['latitude without longitude', { providerName: POPPY, latitude: 37.77 }, 'longitude'],
  ['longitude without latitude', { providerName: POPPY, longitude: -122.41 }, 'latitude'],
  ['latitude out of range', { providerName: POPPY, latitude: 200, longitude: 0 }, 'latitude'],
  ['limit 0', { providerName: POPPY, limit: 0 }, 'limit'],
  ['limit 1000', { providerName: POPPY, limit: 1000 }, 'limit'],
  ['limit as a string', { providerName: POPPY, limit: '5' }, 'limit'],
  ['limit not an integer', { providerName: POPPY, limit: 2.5 }, 'limit'],
  ['providerName as a number', { providerName: 42 }, 'providerName'],
  ['bad ZIP', { providerName: POPPY, zip: '9410' }, 'zip'],
  ['planHints as a string', { providerName: POPPY, planHints: 'Golden Poppy' }, 'planHints'],
  ['planHints.unavailable as a string', { providerName: POPPY, planHints: { unavailable: 'yes' } }, 'planHints.unavailable'],
  ['unknown field', { providerName: POPPY, clinic: 'x' }, 'clinic'],
  ['unknown planHints field', { providerName: POPPY, planHints: { payer: 'Golden Poppy' } }, 'planHints.payer'],
];

describe('public host: 400 with field, pricing-public shape', () => {
  test.each(NETWORK_STATUS_CASES)('network-status: %s', async (_name, body, field) => {
    const r = await post(NS, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ field, error: expect.any(String), message: expect.any(String) });
    expect(r.body).not.toHaveProperty('retryAfterSeconds');
  });

  test('an empty body names what is missing', async () => {
    for (const payload of [{}, undefined]) {
      const r = await t.app.inject({ method: 'POST', url: NS, ...(payload ? { payload } : {}), remoteAddress: ip() });
      expect(r.statusCode).toBe(400);
      const b = JSON.parse(r.body) as { field: unknown; message: unknown };
      expect(typeof b.field).toBe('string');
      expect(String(b.field).length).toBeGreaterThan(0);
      expect(typeof b.message).toBe('string');
    }
  });

  test('a body that is not a JSON object is a 400, not a crash', async () => {
    for (const payload of ['{"providerName": ', '[1,2]', '"Poppyfield"', 'null']) {
      const r = await t.app.inject({ method: 'POST', url: NS, payload, headers: { 'content-type': 'application/json' }, remoteAddress: ip() });
      expect(r.statusCode, payload).toBe(400);
      expect(JSON.parse(r.body)).toHaveProperty('error');
    }
  });

  test.each([
    ['missing npi', {}, 'npi'],
    ['malformed npi', { npi: 'abc' }, 'npi'],
    ['unknown code', { npi: '1234567893', code: 'ZZZZZ' }, 'code'],
    ['unknown field', { npi: '1234567893', name: 'x' }, 'name'],
  ])('provider-evidence: %s', async (_name, body, field) => {
    const r = await post(PE, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ field, error: expect.any(String), message: expect.any(String) });
  });

  test('no 5xx for any of a few hundred malformed bodies', async () => {
    const values: unknown[] = [null, true, 0, -1, 1e309, '', ' ', 'x'.repeat(300), [], {}, ['a'], { a: 1 }, '1555000078', 1555000078, '99213', 37.7];
    const keys = ['providerName', 'npi', 'code', 'limit', 'latitude', 'longitude', 'zip', 'planHints', 'patientId', 'extra'];
    let n = 0;
    for (const k of keys) {
      for (const v of values) {
        const r = await post(n % 2 ? NS : PE, { [k]: v, ...(k === 'npi' ? {} : { providerName: POPPY }) });
        expect(r.status, `${k}=${JSON.stringify(v)}`).toBeLessThan(500);
        n++;
      }
    }
    expect(n).toBe(keys.length * values.length);
  }, 60_000);
});

describe('main host: bearer required, pricing-main shape, patientId ownership', () => {
  test('no bearer: 401 with agentInstructions', async () => {
    const r = await post('/api/pricing/network-status', DEMO_REQUEST);
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: 'not_authenticated', agentInstructions: expect.any(Array) });
  });

  test('bad input: 400 with agentInstructions and field', async () => {
    const { token } = await t.identity.signUp(t.db);
    const auth = { authorization: `Bearer ${token}` };
    for (const [, body, field] of NETWORK_STATUS_CASES) {
      const r = await post('/api/pricing/network-status', body, auth);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: expect.any(String), agentInstructions: expect.any(Array), field });
    }
    const e = await post('/api/pricing/provider-evidence', { npi: '12' }, auth);
    expect(e.status).toBe(400);
    expect(e.body).toMatchObject({ field: 'npi', agentInstructions: expect.any(Array) });
  });

  test('patientId of another account is not found; the caller\'s own patient works', async () => {
    const me = await t.identity.signUp(t.db);
    const other = await t.identity.signUp(t.db);
    const store = sqlProfileStore(t.db);
    const mine = await store.ensureSelfPatient(me.userId);
    const theirs = await store.ensureSelfPatient(other.userId);
    const auth = { authorization: `Bearer ${me.token}` };
    const foreign = await post('/api/pricing/network-status', { ...DEMO_REQUEST, patientId: theirs.patientId }, auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: 'not_found', field: 'patientId', agentInstructions: expect.any(Array) });
    const unknown = await post('/api/pricing/provider-evidence', { npi: '1234567893', patientId: 'pat_nope' }, auth);
    expect(unknown.status).toBe(404);
    const own = await post('/api/pricing/network-status', { ...DEMO_REQUEST, patientId: mine.patientId }, auth);
    expect(own.status).toBe(200);
  });
});

describe('public host: patientId needs a bearer', () => {
  test('anonymous patientId is a 401 naming it; with a bearer it must be the caller\'s own', async () => {
    const anon = await post(NS, { ...DEMO_REQUEST, patientId: 'pat_x' });
    expect(anon.status).toBe(401);
    expect(anon.body).toMatchObject({ error: 'not_authenticated', field: 'patientId' });
    const me = await t.identity.signUp(t.db);
    const other = await t.identity.signUp(t.db);
    const store = sqlProfileStore(t.db);
    const mine = await store.ensureSelfPatient(me.userId);
    const theirs = await store.ensureSelfPatient(other.userId);
    const auth = { authorization: `Bearer ${me.token}` };
    expect((await post(NS, { ...DEMO_REQUEST, patientId: mine.patientId }, auth)).status).toBe(200);
    const foreign = await post(PE, { npi: '1234567893', patientId: theirs.patientId }, auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: 'not_found', field: 'patientId', message: expect.any(String) });
  });
});

describe('no published snapshot', () => {
  test('503 pricing_data_unavailable (an operator condition, not a caller mistake); the index still answers', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cb-pricing-empty-'));
    const sdb = await SnapshotDb.open(root);
    const app = await pricingApp(await createPricingPorts(sdb));
    try {
      const { token } = await app.identity.signUp(app.db);
      const cases: [string, string, unknown, Record<string, string>][] = [
        ['POST', NS, DEMO_REQUEST, {}],
        ['POST', PE, { npi: '1234567893' }, {}],
        ['GET', '/api/pricing.v1/payers', undefined, {}],
        ['POST', '/api/pricing/network-status', DEMO_REQUEST, { authorization: `Bearer ${token}` }],
      ];
      for (const [method, url, payload, headers] of cases) {
        const r = await app.app.inject({ method: method as 'GET' | 'POST', url, headers, remoteAddress: ip(), ...(payload ? { payload: payload as never } : {}) });
        expect(r.statusCode, url).toBe(503);
        const b = JSON.parse(r.body) as Record<string, unknown>;
        expect(b.error).toBe('pricing_data_unavailable');
        expect(JSON.stringify(b)).toMatch(/carebridge demo/);
      }
      const idx = await app.app.inject({ method: 'GET', url: '/api/pricing.v1', remoteAddress: ip() });
      expect(idx.statusCode).toBe(200);
      expect((JSON.parse(idx.body) as { dataVintage: unknown }).dataVintage).toBeNull();
    } finally {
      await app.close();
      sdb.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
