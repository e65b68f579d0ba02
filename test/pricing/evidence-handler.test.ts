/**
 * provider-evidence end to end over a real snapshot: the repo's Medicare files and catalog through
 * the real loaders, plus hand-made rows in the NPPES / LEIE / opt-out / PECOS / PUF table layouts
 * (no real rows of those are available offline). Peer percentile by hand: seven CA internists
 * billed 99213 in the office in 2023 (100, 200, 300, 400, 500, 550, 600 services); the one with
 * 550 has 6 of 7 at or below it: 6/7 = 85.7% -> 86th percentile.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { HandlerContext } from '../../engine/core/context.ts';
import { AppError } from '../../engine/core/errors.ts';
import { createPricingPorts } from '../../engine/pricing/adapters/pricing-ports.ts';
import { providerEvidence } from '../../engine/pricing/evidence.ts';
import { ProviderEvidenceResponseSchema } from '../../engine/pricing/pricing.schema.ts';
import { buildReferenceSnapshot, type BuiltSnapshot } from './medicare-fixture.ts';

const DOC = 1111111112; // internist, San Francisco 94110
const EXCLUDED = 1222222223;
const OPTED_OUT = 1333333334;
const HOSPITAL = 1444444445;
const QUIET = 1555555556; // in NPPES, no Medicare claims rows at all

const provider = (npi: number, entity: number, name: string, zip5: string, taxonomy: string, desc: string) => ({
  npi, entity_type: entity, name, city: 'SAN FRANCISCO', state: 'CA', zip5, taxonomy, taxonomy_description: desc, name_search: name.toLowerCase(),
});
const puf = (npi: number, srvcs: number, state = 'CA', type = 'Internal Medicine', benes: number | null = 40) => ({
  year: 2023, npi, hcpcs: '99213', place_of_service: 'O', provider_type: type, state, tot_benes: benes, tot_srvcs: srvcs, avg_allowed_amount: 95,
});

let snap: BuiltSnapshot;
let ctx: HandlerContext;

beforeAll(async () => {
  snap = await buildReferenceSnapshot({
    providers: [
      provider(DOC, 1, 'Ana Ruiz, MD', '94110', '207R00000X', 'Internal Medicine'),
      provider(EXCLUDED, 1, 'Bo Excluded, MD', '94110', '207R00000X', 'Internal Medicine'),
      provider(OPTED_OUT, 1, 'Cy Private, MD', '94110', '207R00000X', 'Internal Medicine'),
      provider(HOSPITAL, 2, 'Mission General Hospital', '94110', '282N00000X', 'General Acute Care Hospital'),
      provider(QUIET, 1, 'Di Quiet, NP', '94110', '363L00000X', 'Nurse Practitioner'),
    ],
    puf_provider_service: [
      puf(DOC, 550), puf(1000000101, 100), puf(1000000102, 200), puf(1000000103, 300), puf(1000000104, 400), puf(1000000105, 500),
      puf(1000000106, 600), puf(1000000107, 5000, 'NY'), puf(1000000108, 9000, 'CA', 'Family Practice'),
      puf(EXCLUDED, 20, 'CA', 'Cardiology', null),
      { ...puf(DOC, 12), hcpcs: '93000' },
    ],
    leie: [{ npi: EXCLUDED, last_name: 'EXCLUDED', first_name: 'BO', excl_type: '1128a1', excl_date: '2024-05-20', state: 'CA' }],
    medicare_optout: [{ npi: OPTED_OUT, first_name: 'CY', last_name: 'PRIVATE', optout_effective_date: '2025-01-01', optout_end_date: '2027-01-01', state: 'CA' }],
    pecos_enrollment: [{ npi: DOC, enrlmt_id: 'I20200101000001', provider_type_desc: 'PRACTITIONER - INTERNAL MEDICINE', state: 'CA' }],
  }, { zip5: (z) => z === '94110', hcpcs: (c) => ['99213', '93000', '70551'].includes(c) });
  ctx = {
    caller: { kind: 'anonymous', ip: '203.0.113.9' },
    ports: { db: undefined as never, clock: { now: () => new Date('2026-11-22T12:00:00Z') }, pricing: await createPricingPorts(snap.db) },
    log: pino({ level: 'silent' }),
    requestId: 'test',
    surface: 'pricing',
    urls: { baseUrl: 'https://carebridge.example', pricingUrl: 'https://pricing.carebridge.example' },
  };
});
afterAll(() => snap?.close());

const ev = async (npi: number | string, code?: string) =>
  ProviderEvidenceResponseSchema.parse(await providerEvidence({ npi: String(npi), ...(code ? { code } : {}) }, ctx));

describe('provider evidence', () => {
  test('volume with its peer percentile, exclusion check, both Medicare anchors', async () => {
    const r = await ev(DOC, '99213');
    expect(r.provider).toEqual({ npi: String(DOC), name: 'Ana Ruiz, MD', entityType: 'individual', city: 'SAN FRANCISCO', state: 'CA' });
    expect(r.service?.code).toBe('99213');
    const vol = r.signals.find((s) => s.type === 'medicare_volume')!;
    expect(vol).toMatchObject({ hcpcs: '99213', score: 550, pctl: 86, denominator: 7, floor: 11, verdict: 'reported' });
    expect(vol.display).toMatch(/billed 99213 .* 550 times in the office for 40 Medicare patients/);
    expect(vol.display).toMatch(/86th percentile of volume among 7 Internal Medicine in CA/);
    expect(vol.display).toMatch(/not of quality/);
    expect(r.signals.find((s) => s.type === 'exclusion_check')?.verdict).toBe('not_listed');
    expect(r.signals.some((s) => s.type === 'facility_outcomes')).toBe(false);
    // Hand-checked in medicare-anchor.test.ts: 99213 at ZIP 94110, $117.58 office, $64.37 facility.
    expect(r.medicareAnchors.map((a) => [a.setting, a.medicareAllowed, a.year])).toEqual([['non-facility', 117.58, 2026], ['facility', 64.37, 2026]]);
    expect(r.medicareAnchors[0]!.service).toMatch(/Office visit, established patient/);
    expect(r.needsMoreInfo).toEqual([]);
    expect(r.disclaimer).toMatch(/not a quote/);
    expect(r.corrections).toMatch(/support@carebridge.example/);
    expect(Object.keys(r.signalDefinitions)).toEqual(expect.arrayContaining(['medicare_volume', 'exclusion', 'facility_outcomes', 'no_data']));
  });

  test('a facility-only code: the office anchor is absent, not invented (70551 global is NA in facility)', async () => {
    const r = await ev(DOC, '70551');
    expect(r.medicareAnchors.map((a) => a.setting)).toEqual(['non-facility']);
    expect(r.signals.find((s) => s.type === 'medicare_volume')?.verdict).toBe('no_data');
  });

  test('federal exclusion: relayed plainly with date and type', async () => {
    const r = await ev(EXCLUDED, '99213');
    const ex = r.signals.find((s) => s.type === 'exclusion')!;
    expect(ex).toMatchObject({ level: 'alert', verdict: 'excluded' });
    expect(ex.display).toMatch(/is on the federal exclusion list \(HHS-OIG LEIE\): excluded since 2024-05-20 under 1128a1 \(a conviction of a program-related crime/);
    expect(ex.display).toMatch(/do not pay for any item or service/);
    // Suppressed beneficiary count and too few peers, both explained.
    const vol = r.signals.find((s) => s.type === 'medicare_volume')!;
    expect(vol.display).toMatch(/fewer than 11 \(suppressed by CMS\)/);
    expect(vol.display).toMatch(/Too few Cardiology in CA billed it \(1\)/);
    expect(vol.pctl).toBeNull();
  });

  test('opted out of Medicare', async () => {
    const r = await ev(OPTED_OUT, '99213');
    expect(r.signals.find((s) => s.type === 'medicare_optout')?.display).toMatch(/opted out of Medicare: Medicare pays nothing/);
  });

  test('no data is an explained absence, never negative', async () => {
    const r = await ev(QUIET, '99213');
    const vol = r.signals.find((s) => s.type === 'medicare_volume')!;
    expect(vol).toMatchObject({ verdict: 'no_data', level: 'none' });
    expect(vol.display).toMatch(/says nothing about their experience or quality/);
  });

  test('a facility gets facility-level context (here: an explained absence), never a clinician outcome', async () => {
    const r = await ev(HOSPITAL, '45378');
    expect(r.provider.entityType).toBe('organization');
    const f = r.signals.find((s) => s.type === 'facility_outcomes')!;
    expect(f).toMatchObject({ facility: 'Mission General Hospital', verdict: 'no_data' });
    expect(f.display).toMatch(/never describe an individual clinician/);
  });

  test('without a code: a code ask whose options are catalog codes the provider billed', async () => {
    const r = await ev(DOC);
    expect(r.service).toBeNull();
    expect(r.medicareAnchors).toEqual([]);
    expect(r.needsMoreInfo).toHaveLength(1);
    expect(r.needsMoreInfo[0]).toMatchObject({ field: 'code' });
    expect(r.needsMoreInfo[0]!.options.map((o) => (o as { code: string }).code)).toEqual(['99213', '93000']);
  });

  test('bad input: unknown NPI 404 (field npi), malformed NPI and unknown code 400 with field', async () => {
    const err = async (p: Promise<unknown>): Promise<AppError> => p.then(() => { throw new Error('expected an AppError'); }, (e: unknown) => e as AppError);
    const nf = await err(providerEvidence({ npi: '1999999999', code: '99213' }, ctx));
    expect([nf.code, nf.status, nf.details.field]).toEqual(['not_found', 404, 'npi']);
    const bad = await err(providerEvidence({ npi: '12345' }, ctx));
    expect([bad.code, bad.status, bad.details.field]).toEqual(['invalid_request', 400, 'npi']);
    const code = await err(providerEvidence({ npi: String(DOC), code: '00000' }, ctx));
    expect([code.code, code.status, code.details.field]).toEqual(['unknown_code', 400, 'code']);
  });

  test('anesthesia code typed without its zero is the catalog code 01960', async () => {
    const r = await ev(DOC, '1960');
    expect(r.service?.code).toBe('01960');
    expect(r.medicareAnchors).toEqual([]);
  });
});

describe('a snapshot without the evidence tables', () => {
  test('every absence is explained, nothing is inferred from it', async () => {
    const bare = await buildReferenceSnapshot({ providers: [provider(DOC, 1, 'Ana Ruiz, MD', '94110', '207R00000X', 'Internal Medicine')] }, { zip5: (z) => z === '94110', hcpcs: (c) => c === '99213' });
    try {
      const c2: HandlerContext = { ...ctx, ports: { ...ctx.ports, pricing: await createPricingPorts(bare.db) } };
      const r = ProviderEvidenceResponseSchema.parse(await providerEvidence({ npi: String(DOC), code: '99213' }, c2));
      expect(r.signals.map((s) => [s.type, s.verdict])).toEqual([['no_data', 'not_checked'], ['no_data', 'not_loaded']]);
      expect(r.signals[0]!.display).toMatch(/oig.hhs.gov\/exclusions/);
      expect(r.signals[1]!.display).toMatch(/says nothing about the provider/);
      expect(r.medicareAnchors.map((a) => a.medicareAllowed)).toEqual([117.58, 64.37]);
    } finally {
      bare.close();
    }
  });
});
