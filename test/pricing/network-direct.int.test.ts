/**
 * The network lookups' fast paths (issue 37 item 13: the in-memory NPI -> groups index and the
 * direct rates read, engine/pricing/adapters/group-members.duckdb.ts and rates.duckdb.ts) answer
 * exactly as the general SQL over the snapshot's views did: on the demo snapshot, the same
 * network-status bodies byte for byte for a sample of its providers, codes and plans, and the
 * same port results.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createPricingPorts } from '../../engine/pricing/adapters/pricing-ports.ts';
import { membersInMemory } from '../../engine/pricing/adapters/group-members.duckdb.ts';
import { directRates } from '../../engine/pricing/adapters/rates.duckdb.ts';
import type { PricingPorts } from '../../engine/pricing/ports.ts';
import type { CodeRef } from '../../engine/pricing/network-status.ports.ts';
import { DEMO_NETWORK, DEMO_REQUEST, openDemoPricing, pricingApp, type DemoPricing, type PricingTestApp } from './api-demo-app.ts';

let d: DemoPricing;
let plain: PricingPorts;
let fast: PricingTestApp;
let slow: PricingTestApp;
let codes: string[];
let pairs: { npi: number; code: string }[];

beforeAll(async () => {
  d = await openDemoPricing();
  plain = await createPricingPorts(d.snapshotDb, { plainSql: true });
  await Promise.all([d.ports.warmed, plain.warmed]);
  [fast, slow] = await Promise.all([pricingApp(d.ports), pricingApp(plain)]);
  codes = (await d.snapshotDb.query<{ c: string }>('SELECT billing_code AS c FROM rates WHERE billing_code IN (SELECT code FROM service_catalog) GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 4')).map((r) => r.c);
  // Providers with a published rate for a catalog code, and the code: every ninth pair in a fixed order.
  pairs = (await d.snapshotDb.query<{ npi: number; code: string }>(`SELECT npi, code FROM (SELECT DISTINCT m.npi, r.billing_code AS code
      FROM rates r JOIN group_sets s ON s.set_ref = r.set_ref JOIN group_members m ON m.group_key = s.group_key WHERE r.billing_code IN (SELECT code FROM service_catalog)) ORDER BY hash(npi, code) LIMIT 200`)).filter((_, i) => i % 9 === 0);
}, 120_000);
afterAll(async () => {
  await Promise.all([fast?.close(), slow?.close()]);
  d?.close();
});

test('the demo snapshot takes the fast paths (else this file compares a path with itself)', () => {
  expect(membersInMemory(d.snapshotDb)).toBe(true);
  expect(directRates(d.snapshotDb)).toBe(true);
  expect(codes.length).toBeGreaterThan(0);
});

test('network-status answers are byte for byte those of the general SQL paths', async () => {
  const npis = DEMO_NETWORK.providers.map((p) => String(p.npi)).filter((_, i) => i % Math.max(1, Math.floor(DEMO_NETWORK.providers.length / 24)) === 0);
  const plans = [{ payerName: DEMO_REQUEST.planHints.payerName }, {}];
  const bodies: unknown[] = [DEMO_REQUEST, { ...DEMO_REQUEST, planHints: {} }];
  npis.forEach((npi, i) => bodies.push({ npi, code: codes[i % codes.length], planHints: plans[i % plans.length] }));
  pairs.forEach((p, i) => bodies.push({ npi: String(p.npi), code: p.code, planHints: plans[i % plans.length] }));
  let n = 0;
  let priced = 0;
  for (const body of bodies) {
    n += 1;
    const [a, b] = await Promise.all([fast, slow].map((t) => t.app.inject({ method: 'POST', url: '/api/pricing.v1/network-status', remoteAddress: `10.13.${n}.1`, payload: body as never })));
    expect(a!.statusCode, a!.body.slice(0, 300)).toBe(200);
    expect(a!.body).toBe(b!.body);
    if (/"rate":\d|"rateRange":\{"min":\d/.test(a!.body)) priced++;
  }
  // Many answers carry a rate or a range, so the rates lookup was compared, not only empty lists.
  expect(priced).toBeGreaterThan(10);
});

test('the port results are the same rows: groups of every demo NPI, rates of their groups for the busiest codes', async () => {
  const npis = DEMO_NETWORK.providers.map((p) => p.npi);
  const [fm, sm] = await Promise.all([d.ports.network!.groupsForNpis(npis), plain.network!.groupsForNpis(npis)]);
  const key = (r: object): string => JSON.stringify(r);
  expect(fm.map(key).sort()).toEqual(sm.map(key).sort());
  expect(fm.length).toBeGreaterThan(0);
  const groups = [...new Set(fm.map((r) => r.group_key))];
  let rows = 0;
  for (const c of codes) {
    const code: CodeRef = { types: ['CPT', 'HCPCS'], code: c };
    const [fr, sr] = await Promise.all([d.ports.network!.rates(code, groups), plain.network!.rates(code, groups)]);
    expect(fr.map(key).sort()).toEqual(sr.map(key).sort());
    rows += fr.length;
  }
  expect(rows).toBeGreaterThan(0);
});
