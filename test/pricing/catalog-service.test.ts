/**
 * Service catalog, payers registry, GET /payers and the pricing index, over a real snapshot built
 * from the repo's catalog and payers files (and over the shipped-file fallback).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { HandlerContext } from '../../engine/core/context.ts';
import { DuckReferenceStore, shippedCatalogEntries, shippedPayerRows } from '../../engine/pricing/adapters/reference.duckdb.ts';
import { createPricingPorts } from '../../engine/pricing/adapters/pricing-ports.ts';
import { ServiceCatalog } from '../../engine/pricing/catalog.ts';
import { pricingIndex } from '../../engine/pricing/index-info.ts';
import { listPayers, normalizePayerName, PayerRegistry } from '../../engine/pricing/payers.ts';
import { PayersResponseSchema, PricingIndexResponseSchema, ServiceSchema, SupportedServiceSchema } from '../../engine/pricing/pricing.schema.ts';
import { buildReferenceSnapshot, type BuiltSnapshot } from './medicare-fixture.ts';

let snap: BuiltSnapshot;
let catalog: ServiceCatalog;
let payers: PayerRegistry;
let ctx: HandlerContext;

beforeAll(async () => {
  snap = await buildReferenceSnapshot({}, { zip5: () => false, hcpcs: () => false });
  const ref = new DuckReferenceStore(snap.db);
  catalog = await ref.catalog();
  payers = await ref.payers();
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

describe('service catalog', () => {
  test('the snapshot catalog and the shipped fallback agree', () => {
    expect(catalog.size).toBe(new ServiceCatalog(shippedCatalogEntries()).size);
    expect(catalog.size).toBe(501);
  });

  test('serviceFor: plain-language name, category, appliesTo, notes, related codes with when', () => {
    const s = catalog.serviceFor('70551')!;
    expect(ServiceSchema.parse(s)).toEqual(s);
    expect(s).toMatchObject({ code: '70551', category: 'Radiology' });
    expect(s.relatedCodes).toContainEqual({ code: '70553', name: 'MRI scan of brain before and after contrast', when: 'brain MRI without and then with contrast' });
    expect(s.priceNote).toMatch(/modifier 26/);
    expect(s.medicareNote).toMatch(/Physician Fee Schedule/);
    expect(catalog.serviceFor('99213')!.appliesTo).toMatch(/established patient/i);
    expect(catalog.serviceFor('470')!.medicareNote).toMatch(/inpatient/);
    expect(catalog.serviceFor('01960')!.medicareNote).toMatch(/anesthesia conversion factor/);
  });

  test('codes as people type them', () => {
    expect(catalog.canonical('1960')).toBe('01960');
    expect(catalog.canonical('MS-DRG 470')).toBe('470');
    expect(catalog.canonical('0470')).toBe('470');
    expect(catalog.canonical('g0121')).toBe('G0121');
    expect(catalog.isCatalogCode('99999')).toBe(false);
    expect(catalog.serviceFor('99999')).toBeNull();
    expect(catalog.relatedOptions('99999')).toEqual([]);
  });

  test('supportedServices: every code once, schema-valid; relatedOptions for an ask', () => {
    const all = catalog.supportedServices();
    expect(all.length).toBe(501);
    for (const s of all) SupportedServiceSchema.parse(s);
    expect(catalog.supportedServices({ category: 'Anesthesia' }).map((s) => s.code)).toEqual(['01960', '01961', '01967', '01968']);
    expect(catalog.relatedOptions('45378').map((r) => r.code)).toEqual(['45380', '45385', '45384', '45391', 'G0121', 'G0105']);
  });
});

describe('payers registry', () => {
  test.each([
    ['UHC', 'uhc'], ['united', 'uhc'], ['United Healthcare', 'uhc'], ['UnitedHealthcare', 'uhc'], ['united health-care', 'uhc'], ['UHC Choice Plus', 'uhc'],
    ['Aetna', 'aetna'], ['aetna choice pos ii', 'aetna'], ['CIGNA', 'cigna'], ['Kaiser Permanente', 'kaiser'], ['kaiser', 'kaiser'],
    ['Anthem', 'anthem'], ['Anthem Blue Cross', 'anthem'], ['Blue Shield of California', 'bsca'],
    ['BCBS of Texas', 'hcsc'], ['Blue Cross & Blue Shield of Illinois', 'hcsc'], ['bcbsil', 'hcsc'], ['BCBS Montana PPO', 'hcsc'],
    ['Health Care Service Corporation', 'hcsc'], ['HCSC', 'hcsc'],
    ['HealthSCOPE Benefits', 'healthscope'], ['CareFirst', 'carefirst'], ['Blue Cross', 'bcbs'], ['BCBS', 'bcbs'],
    ['Original Medicare', 'medicare'], ['medicare', 'medicare'],
  ])('%s -> %s', (name, key) => {
    expect(payers.resolve(name)?.key).toBe(key);
  });

  test('unknown and empty names resolve to null', () => {
    expect(payers.resolve('Acme Mutual of Nowhere')).toBeNull();
    expect(payers.resolve('')).toBeNull();
    expect(payers.resolve('!!!')).toBeNull();
    expect(normalizePayerName('Blue Cross & Blue Shield of Texas, Inc.')).toBe('blue cross blue shield texas');
  });

  test('TiC reporting entity names map to payers; groupNumber states only for HCSC', () => {
    expect(payers.forReportingEntity('United HealthCare Services, Inc.')?.key).toBe('uhc');
    expect(payers.forReportingEntity('United-HealthCare-Services-Inc')?.key).toBe('uhc');
    expect(payers.forReportingEntity('HealthSCOPE Benefits, Inc.')?.key).toBe('healthscope');
    expect(payers.groupNumberStates('hcsc')).toEqual(['IL', 'TX', 'OK', 'NM', 'MT']);
    expect(payers.groupNumberStates('uhc')).toEqual([]);
    expect(new PayerRegistry(shippedPayerRows()).list()).toEqual(payers.list());
  });

  test('GET /payers: schema-valid, accepted names and exact-plan identifiers', async () => {
    const res = PayersResponseSchema.parse(await listPayers(ctx));
    const uhc = res.payers.find((p) => p.key === 'uhc')!;
    expect(uhc.acceptedNames).toEqual(expect.arrayContaining(['UHC', 'United', 'UnitedHealthcare']));
    expect(res.payers.find((p) => p.key === 'hcsc')).toMatchObject({ blueCard: true, exactPlanIdentifiers: ['employerName', 'planName', 'groupNumber'] });
    for (const p of res.payers) expect(p.coverage.length).toBeGreaterThan(10);
  });
});

describe('pricing index', () => {
  test('name, apiVersion v1, dataVintage from the snapshot, rate limits, contact', async () => {
    const idx = PricingIndexResponseSchema.parse(await pricingIndex(ctx));
    expect(idx).toMatchObject({ name: 'carebridge pricing', apiVersion: 'v1', dataVintage: 'MPFS 2026 (RVU26B); test', contact: 'support@carebridge.example' });
    expect(idx.rateLimits).toMatchObject({ anonymous: { 'network-status': { requests: 20 }, 'provider-evidence': { requests: 60 } } });
    expect(idx.endpoints.map((e) => e.path)).toContain('/api/pricing.v1/network-status');
    expect(idx.disclaimer).toMatch(/911/);
  });

  test('without a snapshot: dataVintage null, still answers', async () => {
    const bare = { ...ctx, ports: { ...ctx.ports, pricing: { snapshot: () => null } }, urls: { baseUrl: 'http://127.0.0.1:8787', pricingUrl: 'http://127.0.0.1:8787' } };
    const idx = PricingIndexResponseSchema.parse(await pricingIndex(bare));
    expect(idx.dataVintage).toBeNull();
    expect(idx.contact).toMatch(/operator of this server/);
  });
});
