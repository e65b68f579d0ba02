/**
 * Every pricing response validates against its zod schema and carries every field the spec names
 * (service-spec.md, Pricing), and the demo snapshot's answers are complete and honest (issue 4,
 * "Done means"): the demo clinic + code + planHints is in network with a rate (or a range and its
 * ask), a Medicare anchor, a patient share, the disclaimer, and a basis that says synthetic. The
 * demo's named cases (ingest/demo/synthetic-network.ts) each show the behaviour they exist for.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  NetworkStatusResponseSchema, PayersResponseSchema, PricingIndexResponseSchema, ProviderEvidenceResponseSchema,
  type NetworkStatusResponse,
} from '../../engine/pricing/pricing.schema.ts';
import { DEMO_REQUEST, demoNpi, openDemoPricing, pricingApp, type DemoPricing, type PricingTestApp } from './api-demo-app.ts';

let d: DemoPricing;
let t: PricingTestApp;
let token: string;
let n = 0;

beforeAll(async () => {
  d = await openDemoPricing();
  t = await pricingApp(d.ports);
  token = (await t.identity.signUp(t.db)).token;
}, 120_000);
afterAll(async () => {
  await t.close();
  d.close();
});

async function inject(method: 'GET' | 'POST', url: string, payload?: unknown, auth = false) {
  n += 1;
  const r = await t.app.inject({
    method, url, remoteAddress: `10.9.${Math.floor(n / 200)}.${(n % 200) + 1}`,
    headers: auth ? { authorization: `Bearer ${token}` } : {}, ...(payload ? { payload: payload as never } : {}),
  });
  expect(r.statusCode, r.body.slice(0, 300)).toBe(200);
  return JSON.parse(r.body) as unknown;
}

async function networkStatus(body: Record<string, unknown>): Promise<NetworkStatusResponse> {
  return NetworkStatusResponseSchema.parse(await inject('POST', '/api/pricing.v1/network-status', body));
}

// Field lists exactly as service-spec.md, Pricing names them.
const TOP = ['service', 'supportedServices', 'location', 'matches', 'organizations', 'plan', 'medicare', 'rateFetchNote', 'networkNote',
  'billingEvidenceDefinitions', 'evidenceCardEligible', 'signalDefinitions', 'methodology', 'needsMoreInfo', 'disclaimer'];
const MATCH = ['npi', 'name', 'entityType', 'otherNames', 'employers', 'address', 'city', 'state', 'zip', 'latitude', 'longitude',
  'locationPrecision', 'distanceKm', 'facilityType', 'specialtyFit', 'specialtyFitNote', 'telehealthOnly', 'telehealthOnlyNote', 'taxonomy',
  'taxonomyDescription', 'subpart', 'parentOrganization', 'mailingState', 'deactivated', 'identityNote', 'attributionNote', 'identityCaution',
  'federalSiteNote', 'inNetwork', 'networkEvidence', 'note', 'otherPayers', 'matchNote', 'rate', 'rateRange', 'rateSampled', 'rateNote',
  'rangeNote', 'patientShare', 'medicareStatus', 'setting', 'typicalRate', 'rateAssessment', 'serviceEvidence', 'serviceAvailabilityNote',
  'billingOrg', 'multiEntity', 'billingOutlook', 'billingCandidates', 'billingCandidatesOmitted', 'billingNote', 'signals', 'medicareAnchor'];
const PLAN = ['payer', 'payerLabel', 'matchTier', 'basis', 'sponsor', 'planTypeNote', 'payerSource', 'coverageSelection', 'planVariants',
  'coverageNote', 'planHintsReceived'];
const SERVICE = ['code', 'name', 'category', 'appliesTo', 'priceNote', 'medicareNote', 'relatedCodes'];
const OUTLOOK = ['mode', 'ask', 'warning', 'partnership', 'leading', 'rate', 'basis', 'caution', 'nominated', 'brandLeadSuppressed'];
const CANDIDATE = ['billingOrg', 'tin', 'rate', 'rateRange', 'rateNote', 'setting', 'nMemberships', 'typicalRate', 'rateAssessment', 'evidence'];
const ORG = ['organization', 'entities', 'inNetwork', 'nearestKm', 'facilityTypes', 'npis'];
const ANCHOR = ['source', 'medicareAllowed', 'rateRatio', 'year', 'setting'];
const SHARE = ['afterDeductible', 'beforeDeductibleMet', 'limitingChargeMax', 'note'];
const MEDICARE = ['coverage', 'assumed', 'year', 'partBDeductible', 'coinsurancePct', 'limitingChargePct', 'medigap', 'note'];
const ASK = ['field', 'ask', 'why', 'how', 'options'];

function hasKeys(obj: unknown, keys: string[], what: string): void {
  expect(obj, what).toBeTypeOf('object');
  for (const k of keys) expect(Object.keys(obj as object), `${what}.${k}`).toContain(k);
}

/** Words an agent relays must be real sentences, not empty placeholders. */
function words(s: unknown, what: string): void {
  expect(typeof s, what).toBe('string');
  expect((s as string).trim().length, what).toBeGreaterThan(20);
}

describe('the demo answer ("Done means")', () => {
  test('demo clinic + code + employer: in network, exact rate, Medicare anchor, patient share, disclaimer, synthetic basis', async () => {
    const r = await networkStatus({ ...DEMO_REQUEST });
    hasKeys(r, TOP, 'response');
    hasKeys(r.service, SERVICE, 'service');
    expect(r.service?.code).toBe('99213');
    expect(r.supportedServices).toEqual([]); // a priced code: no catalogue (issue 37, item 9)
    hasKeys(r.plan, PLAN, 'plan');
    expect(r.plan.payer).toBe('golden-poppy-demo');
    expect(r.plan.sponsor).toMatch(/Pacific Tile & Stone/);
    expect(r.plan.basis).toMatch(/synthetic/i);
    expect(r.plan.matchTier).not.toBe('none');
    const m = r.matches[0]!;
    hasKeys(m, MATCH, 'match');
    expect(String(m.npi)).toBe(demoNpi('POPPYFIELD FAMILY MEDICINE'));
    expect(m.inNetwork).toBe(true);
    expect(m.zip).toBe('94103');
    // Exact plan and one billing entity: one price, consistent everywhere it appears.
    expect(m.billingOutlook?.mode).toBe('single');
    expect(m.rate).toBeGreaterThan(0);
    expect(m.billingOutlook?.rate).toBe(m.rate);
    hasKeys(m.billingOutlook, OUTLOOK, 'billingOutlook');
    for (const c of m.billingCandidates) hasKeys(c, CANDIDATE, 'billingCandidate');
    hasKeys(m.medicareAnchor, ANCHOR, 'medicareAnchor');
    expect(m.medicareAnchor?.year).toBe(2026);
    expect(m.medicareAnchor?.rateRatio).toBeCloseTo(m.rate! / m.medicareAnchor!.medicareAllowed, 2);
    hasKeys(m.patientShare, SHARE, 'patientShare');
    words(m.patientShare?.note, 'patientShare.note');
    words(m.note, 'note');
    words(m.rateNote, 'rateNote');
    hasKeys(r.organizations[0], ORG, 'organization');
    words(r.disclaimer, 'disclaimer');
    words(r.networkNote, 'networkNote');
    words(r.methodology, 'methodology');
    words(r.rateFetchNote, 'rateFetchNote');
    expect(r.rateFetchNote).toMatch(/synthetic/i);
  });

  test('payer only: a range across plan variants, no single price, and asks for employer or plan name', async () => {
    const r = await networkStatus({ ...DEMO_REQUEST, planHints: { payerName: 'golden poppy health' } });
    expect(r.plan.matchTier).toBe('payer');
    expect(r.plan.planVariants?.count).toBeGreaterThan(1);
    const m = r.matches[0]!;
    expect(m.inNetwork).toBe(true);
    expect(m.rate).toBeNull();
    expect(m.rateRange!.min).toBeLessThan(m.rateRange!.max);
    const fields = r.needsMoreInfo.map((a) => a.field);
    expect(fields).toEqual(expect.arrayContaining(['employerName']));
    for (const a of r.needsMoreInfo) {
      hasKeys(a, ASK, 'needsMoreInfo');
      words(a.why, 'needsMoreInfo.why');
    }
    // The user cannot say: the asks stop.
    const stopped = await networkStatus({ ...DEMO_REQUEST, planHints: { payerName: 'Golden Poppy', unavailable: true } });
    expect(stopped.needsMoreInfo.filter((a) => a.field === 'employerName')).toEqual([]);
  });

  test('the main host (bearer) returns the same shape and the same figures', async () => {
    const pub = await networkStatus({ ...DEMO_REQUEST });
    const main = NetworkStatusResponseSchema.parse(await inject('POST', '/api/pricing/network-status', { ...DEMO_REQUEST }, true));
    expect(main.matches[0]?.rate).toBe(pub.matches[0]?.rate);
    expect(main.plan.basis).toBe(pub.plan.basis);
  });
});

describe('the demo network\'s named cases', () => {
  test('a clinic in no published network: inNetwork false, said as "not found", never a verdict', async () => {
    const r = await networkStatus({ providerName: 'Sierra Vista Medical Group', code: '99213', planHints: { payerName: 'Golden Poppy', employerName: 'Redwood Robotics' } });
    const m = r.matches[0]!;
    expect(m.name).toBe('SIERRA VISTA MEDICAL GROUP');
    expect(m.inNetwork).toBe(false);
    expect(m.rate).toBeNull();
    expect(`${m.note} ${r.networkNote}`).toMatch(/not (a hard|a verdict)|never a hard/i);
  });

  test('a DBA brand name finds the legal entity and shows the other name', async () => {
    const r = await networkStatus({ providerName: 'QuickCare Bayview', planHints: { payerName: 'GPHP' } });
    const m = r.matches[0]!;
    expect(String(m.npi)).toBe(demoNpi('BAYVIEW MEDICAL ASSOCIATES, INC.'));
    expect(m.otherNames).toContain('QUICKCARE BAYVIEW');
    expect(m.inNetwork).toBe(true);
  });

  test('two same-named clinics are told apart by ZIP', async () => {
    for (const zip of ['93721', '92101']) {
      const r = await networkStatus({ providerName: 'Sunrise Family Clinic', zip, code: '99213', planHints: { payerName: 'Golden Poppy' } });
      expect(r.matches[0]?.zip).toBe(zip);
      expect(r.matches.map((m) => m.name)).toEqual(expect.arrayContaining(['SUNRISE FAMILY CLINIC']));
    }
  });

  test('a clinician billing through two TINs: partitioned outlook, a range and its ask, not one price', async () => {
    const r = await networkStatus({ npi: demoNpi('LINH TANAKA'), code: '70551', planHints: { payerName: 'Golden Poppy', employerName: 'Redwood Robotics' } });
    const m = r.matches[0]!;
    expect(m.multiEntity).toBe(true);
    expect(m.billingOutlook?.mode).toBe('partitioned');
    words(m.billingOutlook?.ask, 'billingOutlook.ask');
    expect(m.rate).toBeNull();
    expect(m.rateRange).not.toBeNull();
    expect(m.billingCandidates.length).toBeGreaterThanOrEqual(2);
    expect(new Set(m.billingCandidates.map((c) => c.tin)).size).toBe(m.billingCandidates.length);
  });

  test('a deactivated NPI still listed by the payer is flagged', async () => {
    const r = await networkStatus({ npi: demoNpi('ROBERT BRENNAN'), code: '99213', planHints: { payerName: 'Golden Poppy', planName: 'PPO 3000' } });
    const m = r.matches[0]!;
    expect(m.deactivated).toBe(true);
    expect(m.identityNote).toMatch(/deactivated/i);
  });

  test('Original Medicare: the medicare block, coinsurance after the $283 deductible, the limiting charge, and the medicare_type ask', async () => {
    const r = await networkStatus({ ...DEMO_REQUEST, planHints: { payerName: 'Medicare' } });
    hasKeys(r.medicare, MEDICARE, 'medicare');
    expect(r.medicare?.partBDeductible).toBe(283);
    expect(r.needsMoreInfo.map((a) => a.field)).toContain('medicare_type');
    const m = r.matches[0]!;
    const allowed = m.medicareAnchor!.medicareAllowed;
    expect(m.patientShare?.afterDeductible).toBeCloseTo(allowed * 0.2, 2);
    expect(m.patientShare?.limitingChargeMax).toBeCloseTo(allowed * 1.0925, 2);
  });
});

describe('the other pricing responses', () => {
  test('provider-evidence validates and carries the spec fields', async () => {
    const r = ProviderEvidenceResponseSchema.parse(await inject('POST', '/api/pricing.v1/provider-evidence', { npi: demoNpi('POPPYFIELD FAMILY MEDICINE'), code: '99213' }));
    hasKeys(r, ['provider', 'service', 'signals', 'medicareAnchors', 'signalDefinitions', 'methodology', 'corrections', 'disclaimer', 'needsMoreInfo'], 'evidence');
    expect(r.provider.name).toBe('POPPYFIELD FAMILY MEDICINE');
    expect(r.medicareAnchors.length).toBeGreaterThan(0);
    // Absence of data is explained, never empty.
    expect(r.signals.length).toBeGreaterThan(0);
    for (const s of r.signals) words(s.display, 'signals[].display');
    words(r.disclaimer, 'disclaimer');
    const main = ProviderEvidenceResponseSchema.parse(await inject('POST', '/api/pricing/provider-evidence', { npi: demoNpi('POPPYFIELD FAMILY MEDICINE'), code: '99213' }, true));
    expect(main.medicareAnchors).toEqual(r.medicareAnchors);
  });

  test('index validates and reports the current snapshot as synthetic', async () => {
    const r = PricingIndexResponseSchema.parse(await inject('GET', '/api/pricing.v1'));
    hasKeys(r, ['name', 'apiVersion', 'dataVintage', 'region', 'auth', 'docs', 'endpoints', 'rateLimits', 'disclaimer', 'terms', 'contact'], 'index');
    expect(r.dataVintage).toMatch(/synthetic/i);
    expect(JSON.stringify(r.rateLimits)).toMatch(/20/);
  });

  test('payers validates and lists the synthetic demo payer with its accepted names', async () => {
    const r = PayersResponseSchema.parse(await inject('GET', '/api/pricing.v1/payers'));
    for (const p of r.payers) hasKeys(p, ['key', 'label', 'acceptedNames', 'exactPlanIdentifiers', 'coverage', 'blueCard'], 'payer');
    const demo = r.payers.find((p) => p.key === 'golden-poppy-demo');
    expect(demo?.label).toMatch(/synthetic demo/);
    expect(demo?.acceptedNames).toContain('Golden Poppy');
  });
});
