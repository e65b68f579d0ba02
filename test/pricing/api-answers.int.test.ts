/**
 * Answers an agent relays as they are (issue 37, items 6-9 and 12), on the demo snapshot:
 * no plan means network status unknown, never "in network" because some payer lists the provider;
 * a payer whose files are not loaded is told apart from "not found"; enrollment data not loaded is
 * unknown, not false; the README's example answer stays under 8 KB with the catalogue sent only
 * where it is needed; the office visit wording and the plurals hold everywhere words are built.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { NetworkStatusResponseSchema, PayersResponseSchema, type NetworkStatusResponse } from '../../engine/pricing/pricing.schema.ts';
import { SHIPPED_CATALOG_FILE } from '../../ingest/reference/catalog.ts';
import { openDemoPricing, pricingApp, type DemoPricing, type PricingTestApp } from './api-demo-app.ts';

let d: DemoPricing;
let t: PricingTestApp;
let n = 0;

beforeAll(async () => {
  d = await openDemoPricing();
  t = await pricingApp(d.ports);
}, 120_000);
afterAll(async () => {
  await t.close();
  d.close();
});

async function post(body: unknown): Promise<{ raw: string; r: NetworkStatusResponse }> {
  n += 1;
  const res = await t.app.inject({ method: 'POST', url: '/api/pricing.v1/network-status', remoteAddress: `10.37.${n}.1`, payload: body as never });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return { raw: res.body, r: NetworkStatusResponseSchema.parse(JSON.parse(res.body)) };
}

/** The request of the README's `curl` example (the Guides summary; docs/pricing.md has the same), as written there. */
function readmeExample(): unknown {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
  const m = /pricing\.v1\/network-status[^\n]*\n?\s*-d '([^']+)'/.exec(readme);
  if (!m) throw new Error('README has no network-status curl example');
  return JSON.parse(m[1]!) as unknown;
}

const CLINIC = { providerName: 'Poppyfield Family Medicine', zip: '94103', code: '99213' };

describe('item 6: no plan resolved', () => {
  test('network status against the user’s plan is unknown: inNetwork null, and the notes say so', async () => {
    const { r } = await post(CLINIC);
    expect(r.plan.matchTier).toBe('none');
    expect(r.matches.length).toBeGreaterThan(0);
    for (const m of r.matches) {
      expect(m.inNetwork).toBeNull();
      expect(m.networkStatus).toBe('plan_unknown');
      expect(m.note).toMatch(/unknown/);
      expect(m.note).not.toMatch(/in network per the insurer/);
    }
    expect(r.organizations.every((o) => o.inNetwork === null)).toBe(true);
    expect(r.networkNote).toMatch(/unknown/);
    expect(r.networkNote).not.toMatch(/negotiated rate in no specific plan/);
    expect(r.plan.basis).toMatch(/unknown/);
    expect(r.plan.dataAvailable).toBeNull();
    expect(r.needsMoreInfo.map((a) => a.field)).toContain('payerName');
  });
});

describe('item 7: a payer with no files loaded is not "not found"', () => {
  test('Aetna, whose files the demo does not hold: unknown in the match, the basis and the ask', async () => {
    const { r } = await post({ ...CLINIC, planHints: { payerName: 'Aetna' } });
    expect(r.plan).toMatchObject({ payer: 'aetna', dataAvailable: false });
    expect(r.plan.basis).toMatch(/not loaded/);
    for (const m of r.matches) {
      expect(m.inNetwork).toBeNull();
      expect(m.networkStatus).toBe('payer_data_not_loaded');
      expect(m.note).toMatch(/not loaded/);
      expect(m.note).not.toMatch(/^Not found/);
      expect(m.rateNote).toMatch(/not loaded/);
    }
    const ask = r.needsMoreInfo.find((a) => a.field === 'payerName');
    expect(ask?.ask).toMatch(/no published in-network files for Aetna/);
    expect(ask?.options).toContain('Golden Poppy Health Plan (synthetic demo)');
  });

  test('a payer whose files are loaded and do not list the provider: not_found, inNetwork false', async () => {
    const { r } = await post({ providerName: 'Sierra Vista Medical Group', code: '99213', planHints: { payerName: 'Golden Poppy', employerName: 'Redwood Robotics' } });
    expect(r.plan.dataAvailable).toBe(true);
    expect(r.matches[0]).toMatchObject({ inNetwork: false, networkStatus: 'not_found' });
  });

  test('GET /payers says which payers the snapshot holds files for', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/pricing.v1/payers', remoteAddress: '10.37.0.7' });
    expect(res.statusCode).toBe(200);
    const { payers } = PayersResponseSchema.parse(JSON.parse(res.body));
    const aetna = payers.find((p) => p.key === 'aetna')!;
    expect(aetna).toMatchObject({ dataAvailable: false, files: 0, plans: 0, lastUpdatedOn: null });
    const poppy = payers.find((p) => p.key === 'golden-poppy-demo')!;
    expect(poppy.dataAvailable).toBe(true);
    expect(poppy.files).toBeGreaterThan(0);
    expect(poppy.plans).toBeGreaterThan(0);
    expect(poppy.lastUpdatedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe('item 8: enrollment data not loaded', () => {
  test('medicareStatus.enrolled is null and the notes say the data is not loaded', async () => {
    const { r } = await post({ ...CLINIC, planHints: { payerName: 'Original Medicare' } });
    const m = r.matches[0]!;
    expect(m.medicareStatus?.enrolled).toBeNull();
    expect(m.medicareStatus?.basis).toMatch(/not loaded/);
    expect(m.note).toMatch(/enrollment data is not loaded/);
    expect(m.note).not.toMatch(/not found in the Medicare enrollment records/);
  });
});

describe('item 9: answer size', () => {
  test('the README example answers in under 8 KB, without the catalogue or the fixed definitions', async () => {
    const { raw, r } = await post(readmeExample());
    expect(r.matches[0]?.inNetwork).toBe(true);
    expect(Buffer.byteLength(raw)).toBeLessThan(8 * 1024);
    expect(r.supportedServices).toEqual([]);
    expect(r.billingEvidenceDefinitions).toEqual({});
    expect(r.methodology).toMatch(/include/);
  });

  test('the catalogue where it is needed: no code, an unpriced code, or on request', async () => {
    const catalogue = (JSON.parse(readFileSync(SHIPPED_CATALOG_FILE, 'utf8')) as { services: unknown[] }).services.length;
    expect((await post({ providerName: 'Poppyfield Family Medicine', zip: '94103' })).r.supportedServices).toHaveLength(catalogue);
    const unpriced = await post({ ...CLINIC, code: '01960' });
    expect(unpriced.r.needsMoreInfo.some((a) => a.field === 'code')).toBe(true);
    expect(unpriced.r.supportedServices).toHaveLength(catalogue);
    const asked = await post({ ...CLINIC, include: ['supportedServices', 'definitions'] });
    expect(asked.r.supportedServices).toHaveLength(catalogue);
    expect(Object.keys(asked.r.billingEvidenceDefinitions).length).toBeGreaterThan(5);
    expect(asked.r.methodology.length).toBeGreaterThan(500);
  });
});

describe('item 12: wording', () => {
  const OFFICE: Record<string, number> = { 99202: 15, 99203: 30, 99204: 45, 99205: 60, 99212: 10, 99213: 20, 99214: 30, 99215: 40 };
  test('office visit levels by decision making or total time, the same in each code’s name and in related codes', () => {
    const rows = (JSON.parse(readFileSync(SHIPPED_CATALOG_FILE, 'utf8')) as { services: { code: string; name: string; related_codes: string[]; related_when: string[] }[] }).services;
    for (const [code, min] of Object.entries(OFFICE)) {
      const row = rows.find((x) => x.code === code)!;
      expect(row.name, code).toMatch(new RegExp(`decisions or ${min}\\+ minutes$`));
      expect(row.name, code).not.toMatch(/typically/);
    }
    for (const row of rows) {
      row.related_codes.forEach((c, i) => {
        const min = OFFICE[c];
        const when = row.related_when[i]!;
        // A related entry either gives the level (its minutes start at the code's threshold) or says new/established.
        if (min !== undefined && /minutes/.test(when)) expect(when, `${row.code} -> ${c}`).toMatch(new RegExp(`\\b${min}(\\+|-\\d+) minutes`));
      });
    }
  });

  test('counts and nouns agree in every sentence of the answers', async () => {
    const bodies = await Promise.all([
      post(readmeExample()), post(CLINIC), post({ ...CLINIC, planHints: { payerName: 'Aetna' } }),
      post({ ...CLINIC, planHints: { payerName: 'Golden Poppy' } }), post({ providerName: 'Sunrise Family Clinic', code: '99213', planHints: { payerName: 'Golden Poppy' } }),
    ]);
    // "<count> [adjectives] <noun>": the noun's number must follow the count. A noun used as a
    // modifier ("2 published rate rows") is read through to the noun it modifies.
    const noun = String.raw`(?:(?:published|in-network|comparable|billing) )*(?:(?:rate) )?(file|plan|payer|row|rate|entit(?:y|ies)|match)(s|es)?\b`;
    const counted = new RegExp(String.raw`\b(\d+) (?:of [^.;:()]*? )?` + noun, 'g');
    for (const { raw } of bodies) {
      for (const m of raw.matchAll(counted)) {
        const one = m[1] === '1' && !/ of /.test(m[0]);
        const plural = m[3] !== undefined || m[2] === 'entities';
        expect(plural, m[0]).toBe(!one);
      }
    }
  });
});
