/**
 * The real payer files in ../shared/data/tic/real parse with no error, and the parser's counts equal
 * counts this test computes on its own from JSON.parse of the decompressed file (items, rates,
 * prices, provider references, groups, NPIs, the largest group, one-digit place-of-service codes).
 * Read through openSource, as the ingest does.
 */
import { describe, expect, it } from 'vitest';
import { openSource } from '../../ingest/sources/open-source.ts';
import { parseTic } from '../../ingest/tic/parse.ts';
import type { TicSink } from '../../ingest/tic/records.ts';
import { fixtureBytes, ticPath } from '../fixtures/tic/recorder.ts';

interface RawPrice { service_code?: string[]; negotiated_rate: number; billing_code_modifier?: string[] }
interface RawRate { provider_references?: number[]; provider_groups?: { npi: number[] }[]; negotiated_prices: RawPrice[] }
interface RawItem { billing_code_type: string; billing_code: string; negotiated_rates: RawRate[] }
interface RawFile { in_network: RawItem[]; provider_references: { provider_group_id: number; provider_groups: { npi: number[] }[] }[] }

/** Counts straight from the JSON, without the parser. */
function independentCounts(raw: RawFile) {
  let rates = 0, prices = 0, oneDigitPos = 0, emptyPos = 0, drgNot3 = 0, refIds = 0;
  const codes = new Set<string>();
  for (const it of raw.in_network) {
    codes.add(`${it.billing_code_type}|${it.billing_code}`);
    if (it.billing_code_type === 'MS-DRG' && it.billing_code.length !== 3) drgNot3++;
    for (const r of it.negotiated_rates) {
      rates++;
      refIds += r.provider_references?.length ?? 0;
      for (const p of r.negotiated_prices) {
        prices++;
        const sc = p.service_code ?? [];
        if (p.service_code && sc.length === 0) emptyPos++;
        oneDigitPos += sc.filter((c) => c.length === 1).length;
      }
    }
  }
  const groups = raw.provider_references.flatMap((r) => r.provider_groups);
  return {
    items: raw.in_network.length, codes: codes.size, rates, prices, refIds, oneDigitPos, emptyPos, drgNot3,
    refs: raw.provider_references.length, groups: groups.length,
    npis: groups.reduce((n, g) => n + g.npi.length, 0), maxGroup: Math.max(...groups.map((g) => g.npi.length)),
  };
}

async function parserCounts(file: string) {
  const c = { rates: 0, prices: 0, refIds: 0, refs: 0, groups: 0, npis: 0, maxGroup: 0, codes: new Set<string>(), itemsWithRates: 0 };
  let lastItem = '';
  const sink: TicSink = {
    header: () => undefined, plan: () => undefined, tocStructure: () => undefined, bundle: () => undefined, allowedAmount: () => undefined,
    warning: () => undefined,
    rate: (r) => {
      c.rates++;
      c.prices += r.prices.length;
      c.refIds += r.refIds.length;
      const key = `${r.billingCodeType}|${r.billingCode}|${r.name}`;
      if (key !== lastItem) { c.itemsWithRates++; lastItem = key; }
      c.codes.add(`${r.billingCodeType}|${r.billingCode}`);
    },
    providerReference: (r) => {
      c.refs++;
      c.groups += r.groups.length;
      for (const g of r.groups) { c.npis += g.npis.length; c.maxGroup = Math.max(c.maxGroup, g.npis.length); }
    },
  };
  const src = await openSource(file);
  const stats = await parseTic(src.stream, sink);
  return { c, stats, bytes: src.bytesRead() };
}

describe('real payer files', () => {
  it('HealthSCOPE (schema 1.0.0, 77 MB, a 10,181-NPI group, service codes written "1")', async () => {
    const file = ticPath('real/healthscope_examplefile2.json.gz');
    const want = independentCounts(JSON.parse(fixtureBytes(file).toString('utf8')) as RawFile);
    const { c, stats } = await parserCounts(file);
    expect(stats.kind).toBe('in-network');
    expect(stats.version).toBe('1.0.0');
    expect(want.items).toBe(17759); // the README's figure, checked against the JSON itself
    expect(want.maxGroup).toBe(10181);
    expect(c.itemsWithRates).toBe(want.items);
    expect(stats.rates).toBe(want.rates);
    expect(stats.prices).toBe(want.prices);
    expect(c.refIds).toBe(want.refIds);
    expect(c.refs).toBe(want.refs);
    expect(c.groups).toBe(want.groups);
    expect(c.npis).toBe(want.npis);
    expect(c.maxGroup).toBe(want.maxGroup);
    expect(stats.warnings.unpadded_code).toBe(want.oneDigitPos);
    expect(stats.warnings.skipped_record).toBe(0);
  });

  it('UHC (MS-DRG written 0001, [] arrays)', async () => {
    const file = ticPath('real/uhc_services_test_file_3.json.gz');
    const want = independentCounts(JSON.parse(fixtureBytes(file).toString('utf8')) as RawFile);
    const { c, stats } = await parserCounts(file);
    expect(stats.rates).toBe(want.rates);
    expect(stats.prices).toBe(want.prices);
    expect(c.codes.size).toBe(want.codes);
    expect(c.refs).toBe(want.refs);
    expect(c.groups).toBe(want.groups);
    expect(c.npis).toBe(want.npis);
    expect(want.drgNot3).toBeGreaterThan(0);
    expect(stats.warnings.unpadded_code).toBe(want.drgNot3 + want.oneDigitPos);
    expect([...c.codes].filter((k) => k.startsWith('MS-DRG|')).every((k) => /^MS-DRG\|\d{3}$/.test(k))).toBe(true);
    expect(stats.warnings.empty_array).toBeGreaterThanOrEqual(want.emptyPos);
    expect(stats.warnings.skipped_record).toBe(0);
  });
});
