/**
 * Deviations real files show (DoltHub edge cases, hand-made cases) and hostile input: the records
 * and warnings each produces, and clear TicParseErrors with offsets and reasons, never a crash.
 * Both parsers run every case.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTic } from '../../ingest/tic/parse.ts';
import { TicParseError } from '../../ingest/tic/records.ts';
import { MAX_PENDING_RATES } from '../../ingest/tic/assembler.ts';
import type { OffloadStats, Offloader } from '../../ingest/tic/offload.ts';
import { openSource, SourceError } from '../../ingest/sources/open-source.ts';
import { CASES, HOSTILE, HOSTILE_MAX_STRING } from '../fixtures/tic/cases.ts';
import { chunked, fixtureBytes, parseBytes, parseOk, recorder, ticPath, type Recorded } from '../fixtures/tic/recorder.ts';

const count = (r: Recorded): Record<string, number> => {
  const c: Record<string, number> = {};
  for (const w of r.warnings) c[w.kind] = (c[w.kind] ?? 0) + 1;
  return c;
};
const unknownNames = (r: Recorded): string[] => r.warnings.filter((w) => w.kind === 'unknown_field').map((w) => w.example).sort();

describe.each(['fast', 'reference'] as const)('edge cases (%s)', (parser) => {
  it('provider references after the rates: rates first, then references (the writer joins later)', async () => {
    const r = await parseOk(fixtureBytes(ticPath('edge-cases/test_file_out_of_order.json')), { parser }, 101);
    const order = r.calls.map((c) => c[0]).filter((n) => n === 'rate' || n === 'providerReference');
    expect(order).toEqual(['rate', 'rate', 'rate', 'providerReference', 'providerReference', 'providerReference']);
    expect(r.refs.map((x) => [x.refId, x.location, x.groups.map((g) => [g.tinValue, g.npis])])).toEqual([
      ['2', 'https://raw.githubusercontent.com/CMSgov/price-transparency-guide/master/examples/provider-reference/provider-reference.json', []],
      ['0', null, [['9999999999', [9889889881, 1234567890]]]], // "9889889881" was a string
      ['1', null, [['88-8888888', [2020202020, 3030303030, 1111111111]]]],
    ]);
    // a rate with both inline groups and references keeps both
    expect(r.rates[0]).toMatchObject({ billingCodeType: 'TS-TST', billingCode: '0000', negotiationArrangement: 'ffs', refIds: ['0', '1'] });
    expect(r.rates[0]!.inlineGroups.map((g) => g.npis)).toEqual([[4444444444, 5555555555], [4444444444, 5555555555, 9999999998]]);
    expect(r.rates[2]).toMatchObject({ billingCode: '1111', refIds: [], prices: [{ negotiatedRate: 88888.99 }] });
    expect(count(r)).toMatchObject({ type_coerced: 1, remote_reference: 1, empty_array: 6, missing_field: 1 });
  });

  it('the same file with references first gives the same records', async () => {
    const a = await parseOk(fixtureBytes(ticPath('edge-cases/test_file_out_of_order.json')), { parser });
    const b = await parseOk(fixtureBytes(ticPath('edge-cases/test_file_ordered.json')), { parser });
    expect(b.calls.map((c) => c[0]).indexOf('providerReference')).toBeLessThan(b.calls.map((c) => c[0]).indexOf('rate'));
    expect(b.rates).toEqual(a.rates);
    expect(b.refs).toEqual(a.refs);
  });

  it('no provider references at all: inline groups only', async () => {
    const r = await parseOk(fixtureBytes(ticPath('edge-cases/test_file_no_references.json')), { parser });
    expect(r.refs).toEqual([]);
    expect(r.rates.map((x) => [x.billingCode, x.refIds, x.inlineGroups.map((g) => g.tinValue)])).toEqual([
      ['0000', [], ['11-1111111', '12-1111111']], ['1111', [], ['11-1111111']], ['1111', [], ['AB-1111111']]]);
    expect(r.headers[0]!.kind).toBe('in-network');
  });

  it('DoltHub processor fixtures (gzip) parse; impossible date 9999-99-99 becomes null', async () => {
    for (const f of ['processors_test_518b.json.gz', 'processors_test_616b.json.gz']) {
      const r = await parseOk(fixtureBytes(ticPath('edge-cases', f)), { parser });
      expect(r.headers[0]!.lastUpdatedOn).toBeNull();
      expect(count(r).invalid_value).toBe(1);
      expect(r.rates.length).toBeGreaterThan(0);
    }
  });

  it('decimal provider_group_id survives as its text and joins', async () => {
    const r = await parseOk(CASES.decimalGroupId!, { parser });
    expect(r.refs[0]!.refId).toBe('690.64462');
    expect(r.rates[0]!.refIds).toEqual(['690.64462']);
    expect(count(r)).toEqual({ decimal_group_id: 1 });
  });

  it('provider ids keep their written text: 1.0, a 20-digit id, an exponent', async () => {
    const r = await parseOk(CASES.rawIds!, { parser });
    expect(r.refs.map((x) => x.refId)).toEqual(['1.0', '12345678901234567890', '2e1']);
    expect(r.rates.map((x) => x.refIds)).toEqual([['1.0', '12345678901234567890', '2e1'], ['12345678901234567891']]);
    expect(r.warnings).toEqual([]);
  });

  it('a number of more than 10 digits is no NPI: dropped with invalid_value; 10 digits are kept', async () => {
    const r = await parseOk(CASES.wideNpis!, { parser });
    expect(r.refs[0]!.groups.map((g) => g.npis)).toEqual([[1234567893, 9999999999]]);
    expect(r.rates[0]!.inlineGroups.map((g) => g.npis)).toEqual([[1518379601]]);
    expect(count(r)).toEqual({ invalid_value: 3 });
  });

  it('UHC deviations: MS-DRG 0001 -> 001, RC 450 -> 0450, POS 1 -> 01, $0.01 kept with a warning, [] -> null', async () => {
    const r = await parseOk(CASES.uhcDeviations!, { parser });
    expect(r.rates.map((x) => [x.billingCodeType, x.billingCode])).toEqual([['MS-DRG', '001'], ['RC', '0450']]);
    expect(r.rates[0]!.prices).toEqual([{ negotiatedType: 'negotiated', negotiatedRate: 0.01, expirationDate: '9999-12-31', serviceCode: null,
      billingClass: 'institutional', setting: null, billingCodeModifier: null, additionalInformation: null }]);
    expect(r.rates[1]!.prices[0]).toMatchObject({ negotiatedType: 'per diem', serviceCode: ['01', '11'], additionalInformation: 'tier 1: days 1-3' });
    expect(count(r)).toEqual({ unpadded_code: 3, penny_rate: 1, empty_array: 2 });
  });

  it('2.x reporting_plans in an in-network file become plans; network names and settings kept', async () => {
    const r = await parseOk(CASES.v2ReportingPlans!, { parser });
    expect(r.plans).toEqual([
      { planName: 'Gold', planIdType: 'HIOS', planId: '12345NY001', planMarketType: 'individual', planSponsorName: null, issuerName: 'Acme Issuer' },
      { planName: 'Silver', planIdType: 'EIN', planId: '11-1111111', planMarketType: 'group', planSponsorName: 'Widgets Inc', issuerName: 'Acme Issuer' },
    ]);
    expect(r.refs[0]).toEqual({ refId: '7', location: null, networkNames: ['Choice Plus'],
      groups: [{ tinType: 'ein', tinValue: '22-2222222', businessName: 'Clinic', npis: [1234567893], networkNames: ['Choice Plus Select'] }] });
    expect(r.rates[0]!.prices[0]).toMatchObject({ negotiatedType: 'fee schedule', billingClass: 'both', setting: 'outpatient' });
    expect(r.warnings).toEqual([]);
  });

  it('unknown fields warn by name (never fail); NPIs as strings; npi [0]; code written after the rates', async () => {
    const r = await parseOk(CASES.oddFields!, { parser });
    expect(unknownNames(r)).toEqual(['discount', 'extra_block', 'internal_id', 'sourceSystem', 'tier']);
    expect(r.rates).toHaveLength(1);
    expect(r.rates[0]).toMatchObject({ billingCodeType: 'HCPCS', billingCode: 'J1745', name: 'Late', negotiationArrangement: 'ffs' });
    expect(r.rates[0]!.inlineGroups.map((g) => [g.tinValue, g.npis])).toEqual([['11-1111111', [1234567893, 1518379601]], ['33-3333333', []]]);
    expect(count(r)).toEqual({ unknown_field: 5, type_coerced: 1, tin_only_group: 1 });
  });

  it('allowed amounts: empty file with a non-schema key is a warning, not a failure', async () => {
    const r = await parseOk(CASES.allowedEmpty!, { parser });
    expect(r.headers[0]!.kind).toBe('allowed-amounts');
    expect(r.allowed).toEqual([]);
    expect(r.warnings).toEqual([{ kind: 'unknown_field', path: '$', example: 'sourceSystem_plan' }]);
    const real = await parseOk(readFileSync(ticPath('real/2025-06-01_10-ROADS-EXPRESS-LLC_10-ROADS-EXPRESS-LLC_allowed-amounts.json')), { parser });
    expect(real.warnings.map((w) => w.example)).toEqual(['sourceSystem_plan']);
  });

  it('table of contents: uppercase EIN and no version are tolerated (warnings)', async () => {
    const r = await parseOk(CASES.tocNoVersion!, { parser });
    expect(r.toc).toHaveLength(2);
    expect(r.toc[0]!.plans[0]).toMatchObject({ planIdType: 'EIN', planId: '510540405' });
    expect(r.toc[1]!.allowedAmountFile).toEqual({ description: 'aa', location: 'https://x.example/aa.json' });
    expect(r.headers[0]).toMatchObject({ kind: 'table-of-contents', version: null, lastUpdatedOn: null });
    expect(count(r)).toEqual({ missing_field: 2 });
    const real = await parseOk(readFileSync(ticPath('real/2025-06-01_1-800-RADIATOR-OF-DALLAS-FORT-WORTH-LLC_index.json')), { parser });
    expect(real.toc).toHaveLength(1);
    expect(real.toc[0]!.inNetworkFiles).toHaveLength(5);
    expect(real.toc[0]!.plans).toEqual([{ planName: 'United-Healthcare-EPO', planIdType: 'EIN', planId: '510540405', planMarketType: 'group', planSponsorName: null, issuerName: null }]);
  });

  it('byte-order mark, escapes in keys and values, unicode', async () => {
    const bytes = Buffer.from(CASES.bomAndEscapes!);
    const r = await parseOk(bytes, { parser }, 5);
    expect(r.headers[0]!.reportingEntityName).toBe('Café "Health" – Ünïcode');
    expect(r.rates[0]).toMatchObject({ billingCodeType: 'CPT', name: 'line\nbreak' });
    expect(r.stats.bytes).toBe(bytes.length);
  });

  it('empty arrays and unusable records are skipped with warnings', async () => {
    const r = await parseOk(CASES.emptyArrays!, { parser });
    expect(r.rates).toHaveLength(1);
    expect(r.rates[0]!.prices).toHaveLength(1);
    expect(count(r)).toEqual({ empty_array: 4, missing_field: 2, skipped_record: 3 });
  });

  it.each(Object.entries(HOSTILE))('hostile: %s fails with its reason and an offset', async (_name, { doc, reason }) => {
    const out = await parseBytes(doc, { parser, maxStringBytes: HOSTILE_MAX_STRING, maxDepth: 64 }, 7);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error).toBeInstanceOf(TicParseError);
    expect(out.error.reason).toBe(reason);
    expect(out.error.byteOffset).toBeGreaterThanOrEqual(0);
    expect(out.error.byteOffset).toBeLessThanOrEqual(Buffer.byteLength(doc));
    expect(out.error.message).toMatch(/at byte \d+$/);
  });

  it('a record larger than maxRecordBytes fails instead of filling memory', async () => {
    const ids = Array.from({ length: 10000 }, (_, i) => 10000 + i).join(',');
    const doc = `{"in_network":[{"negotiation_arrangement":"ffs","billing_code_type":"CPT","billing_code":"99213","negotiated_rates":[{"provider_references":[${ids}]}]}]}`;
    const out = await parseBytes(doc, { parser, maxRecordBytes: 20_000 }, 1024);
    expect(!out.ok && out.error.reason).toBe('too_long');
    expect(!out.ok && out.error.message).toMatch(/a record larger than 20000 bytes/);
    expect((await parseBytes(doc, { parser }, 1024)).ok).toBe(true);
  });

  it('stops when the AbortSignal fires, and reports progress per chunk', async () => {
    const ac = new AbortController();
    const seen: number[] = [];
    const doc = Buffer.from(CASES.fastRateEdges!);
    const err = await parseTic(chunked(doc, 64), recorder().sink, {
      parser, signal: ac.signal, onBytes: (n) => { seen.push(n); if (n >= 640) ac.abort(new Error('stop')); },
    }).then(() => null, (e: unknown) => e);
    expect((err as Error).message).toBe('stop');
    expect(seen.slice(0, 3)).toEqual([64, 128, 192]);
    expect(seen.at(-1)).toBe(640);
  });

  it('rates held for a billing code that never comes are bounded (MAX_PENDING_RATES)', async () => {
    const entry = Buffer.from('{"provider_references":[1],"negotiated_prices":[{"negotiated_type":"negotiated","negotiated_rate":1,"expiration_date":"2025-01-01","billing_class":"both"}]},');
    let sent = 0;
    async function* doc(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('{"in_network":[{"name":"n","negotiated_rates":[');
      const block = Buffer.concat(Array.from({ length: 1000 }, () => entry));
      for (; sent <= MAX_PENDING_RATES + 2000; sent += 1000) yield block;
      yield Buffer.from('{}]}]}');
    }
    const err = await parseTic(doc(), recorder().sink, { parser }).then(() => null, (e: unknown) => e);
    expect((err as TicParseError).reason).toBe('too_long');
    expect((err as Error).message).toMatch(/more than 200000 negotiated_rates before its billing_code_type/);
    expect(sent).toBeLessThan(MAX_PENDING_RATES + 2000);
  }, 60_000);

  it('a kind hint that does not match the file fails clearly', async () => {
    const out = await parseBytes(CASES.tocNoVersion!, { parser, kindHint: 'in-network' });
    expect(!out.ok && out.error.message).toMatch(/expected a in-network file, found "reporting_structure"/);
  });

  it('a 64 MiB string fails at maxStringBytes long before the input ends (bounded memory)', async () => {
    const total = 64 * 1024 * 1024;
    let produced = 0;
    async function* hostile(): AsyncGenerator<Uint8Array> {
      const head = Buffer.from('{"version":"1","in_network":[],"reporting_entity_name":"');
      produced += head.length;
      yield head;
      const block = Buffer.alloc(64 * 1024, 0x61);
      while (produced < total) { produced += block.length; yield block; }
      yield Buffer.from('"}');
    }
    const err = await parseTic(hostile(), recorder().sink, { parser, maxStringBytes: 1024 * 1024 }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(TicParseError);
    expect((err as TicParseError).reason).toBe('too_long');
    expect(produced).toBeLessThan(2 * 1024 * 1024 + 128 * 1024); // stopped within a chunk or two of the limit
    expect((err as TicParseError).byteOffset).toBeLessThan(2 * 1024 * 1024);
  });
});

describe('fast parser: lengths in a captured record', () => {
  // A record the fast parser cannot read in place is scanned only for its end (light()), which
  // counts the length of every bare token, also across chunks: the limit holds to the byte
  // whatever the chunking.
  it.each([7, 13, 100, 1000, 4095, 4096, 1 << 20])('a bare number past maxStringBytes fails at the same byte (chunks of %i)', async (size) => {
    const doc = HOSTILE.longNumber!.doc;
    const out = await parseBytes(doc, { parser: 'fast', maxStringBytes: HOSTILE_MAX_STRING }, size);
    expect(!out.ok && out.error.reason).toBe('too_long');
    // The number starts at the first 9; the byte that makes it one longer than the limit fails.
    expect(!out.ok && out.error.byteOffset).toBe(doc.indexOf('9') + HOSTILE_MAX_STRING);
  });

  it.each([7, 64, 4096])('a number exactly maxStringBytes long passes (chunks of %i)', async (size) => {
    const doc = HOSTILE.longNumber!.doc.replace(/9{5000}/, '9'.repeat(HOSTILE_MAX_STRING));
    const out = await parseBytes(doc, { parser: 'fast', maxStringBytes: HOSTILE_MAX_STRING }, size);
    expect(out.ok || out.error.reason).not.toBe('too_long');
  });
});

describe('fast parser: records handed to a second thread', () => {
  // A record handed over is found by light() alone; a long array of bare values (a group's NPIs)
  // it passes with native searches for its `]` (bareRun), only where nothing but bare values
  // comes before that `]`. Each record's bytes must be exactly its text, whatever the chunking.
  const npis = (n: number, from: number): number[] => Array.from({ length: n }, (_, k) => from + k);
  const refs = [
    { provider_group_id: 1, provider_groups: [{ npi: npis(40, 1_000_000_000), tin: { type: 'ein', value: '11-1111111' } }] },
    { provider_group_id: 2, provider_groups: [{ npi: npis(3, 1_100_000_000), tin: { type: 'ein', value: '22-2222222' } }] },
    // a long run of numbers, then a nested array or a string before the first `]`: no shortcut
    { provider_group_id: 3, provider_groups: [{ npi: [...npis(12, 1_200_000_000), [7, 8]], tin: { type: 'ein', value: 'x]"' } }] },
    { provider_group_id: 4, provider_groups: [{ npi: [...npis(12, 1_300_000_000), 'a]b', 5], tin: { type: 'ein', value: '44' } }] },
    { provider_group_id: 5, provider_groups: [{ npi: [...npis(12, 1_400_000_000), { k: ']' }], tin: { type: 'ein', value: '55' } }] },
  ];
  const price = { negotiated_type: 'negotiated', negotiated_rate: 1.5, expiration_date: '9999-12-31', billing_class: 'professional' };
  // an item's first rate is read by the parse thread itself; the next are handed over
  const rates = [{ provider_references: [1], negotiated_prices: [price] }, { provider_references: npis(30, 1), negotiated_prices: [price] }];
  const doc = JSON.stringify({
    reporting_entity_name: 'x', reporting_entity_type: 'x', last_updated_on: '2026-11-01', version: '1.0.0', provider_references: refs,
    in_network: [{ negotiation_arrangement: 'ffs', name: 'n', billing_code_type: 'CPT', billing_code_type_version: '2026', billing_code: '99213', description: 'd', negotiated_rates: rates }],
  });

  const handOver = async (size: number, maxStringBytes?: number): Promise<{ texts: string[]; ends: number[]; error: TicParseError | null }> => {
    const texts: string[] = [], ends: number[] = [];
    const take = (bytes: Uint8Array, end: number): boolean => { texts.push(Buffer.from(bytes).toString()); ends.push(end); return true; };
    const off: Offloader = {
      open: () => true, rate: (_h, bytes, end) => take(bytes, end), reference: take,
      finish: () => Promise.resolve({ rates: 0, prices: 0, providerReferences: 0, warnings: {} as OffloadStats['warnings'] }), close: () => Promise.resolve(),
    };
    const error = await parseTic(chunked(Buffer.from(doc), size), recorder().sink, { parser: 'fast', offload: off, maxStringBytes }).then(() => null, (e: unknown) => e as TicParseError);
    return { texts, ends, error };
  };

  it.each([7, 64, 100, 333, 4096, 1 << 20])('every record handed over is exactly its text (chunks of %i)', async (size) => {
    const { texts, ends, error } = await handOver(size);
    expect(error).toBeNull();
    const expected = [...refs, ...rates.slice(1)].map((r) => JSON.stringify(r));
    expect(texts).toEqual(expected);
    expect(ends).toEqual(expected.map((t) => doc.indexOf(t) + t.length));
  });

  it.each([7, 4096, 1 << 20])('a bare value past maxStringBytes inside a long array still fails at its byte (chunks of %i)', async (size) => {
    // the 40-NPI array is ~440 bytes: a limit of 100 is passed by no single NPI, by the run as a whole
    const ok = await handOver(size, 100);
    expect(ok.error).toBeNull();
    const long = doc.replace('1000000039]', `${'1'.repeat(150)}]`);
    const texts: string[] = [];
    const off: Offloader = {
      open: () => true, rate: (_h, b) => texts.push(Buffer.from(b).toString()) > 0, reference: (b) => texts.push(Buffer.from(b).toString()) > 0,
      finish: () => Promise.resolve({ rates: 0, prices: 0, providerReferences: 0, warnings: {} as OffloadStats['warnings'] }), close: () => Promise.resolve(),
    };
    const err = await parseTic(chunked(Buffer.from(long), size), recorder().sink, { parser: 'fast', offload: off, maxStringBytes: 100 }).then(() => null, (e: unknown) => e as TicParseError);
    expect(err?.reason).toBe('too_long');
    expect(err?.byteOffset).toBe(long.indexOf('1'.repeat(150)) + 100);
  });
});

describe('fast parser: runs of records handed over unread', () => {
  // handRun: the parse thread ends a run at the last `},{"<this record's first key>"` in the chunk
  // (within the helper's runBytes, before the next item's opening) without reading it. In this
  // file every such match is a real boundary, so every run must be exactly its records.
  const price = (r: number): unknown => ({ negotiated_type: 'negotiated', negotiated_rate: r, expiration_date: '9999-12-31', billing_class: 'professional' });
  const refs = Array.from({ length: 30 }, (_, k) => ({ provider_group_id: k + 1, provider_groups: [{ npi: [1_000_000_000 + k], tin: { type: 'ein', value: `11-${k}` } }] }));
  const items = Array.from({ length: 5 }, (_, i) => ({
    negotiation_arrangement: 'ffs', name: 'n', billing_code_type: 'CPT', billing_code_type_version: '2026', billing_code: String(99200 + i), description: 'd',
    negotiated_rates: Array.from({ length: 12 }, (_, r) => (r % 4 === 3
      ? { negotiated_prices: [price(r)], provider_references: [1, 2] } // another first key: its own runs
      : { provider_references: [(r % 30) + 1], negotiated_prices: [price(i * 100 + r), price(0.5)] })),
  }));
  const doc = JSON.stringify({ reporting_entity_name: 'x', reporting_entity_type: 'x', last_updated_on: '2026-11-01', version: '1.0.0', provider_references: refs, in_network: items });
  // Items set apart by a newline and a tab, their rates compact (as HealthSCOPE's real file).
  const spaced = doc.replace(/^(.*"in_network":\[).*$/s, (_, head: string) => `${head}${items.map((x) => JSON.stringify(x)).join(',\n\t')}]}`);
  // Records set apart by a comma and a space (Python's json.dumps writes `}, {`): runs too.
  const python = doc.replaceAll('},{', '}, {');

  const handOver = async (size: number, runBytes: number, text = doc): Promise<{ handed: { kind: string; code: string | null; text: string; end: number; room: number }[]; error: unknown }> => {
    const handed: { kind: string; code: string | null; text: string; end: number; room: number }[] = [];
    const one = (kind: string, code: string | null, b: Uint8Array, end: number, room = 0): boolean => { handed.push({ kind, code, text: Buffer.from(b).toString(), end, room }); return true; };
    const off: Offloader = {
      open: () => true, runBytes,
      rate: (h, b, end) => one('rate', h.code, b, end), reference: (b, end) => one('reference', null, b, end),
      rates: (h, b, end, room) => one('rates', h.code, b, end, room), references: (b, end, room) => one('references', null, b, end, room),
      finish: () => Promise.resolve({ rates: 0, prices: 0, providerReferences: 0, warnings: {} as OffloadStats['warnings'] }), close: () => Promise.resolve(),
    };
    const error = await parseTic(chunked(Buffer.from(text), size), recorder().sink, { parser: 'fast', offload: off }).then(() => null, (e: unknown) => e);
    return { handed, error };
  };

  // Pretty-printed at three indents too: a record's first key on the next line (item 40).
  const layouts: Record<string, string> = {
    compact: doc, spaced, python,
    ...Object.fromEntries([1, 2, '\t'].map((indent) => [`pretty ${JSON.stringify(indent)}`, JSON.stringify(JSON.parse(doc), null, indent)])),
  };

  it.each(([[7, 4096], [333, 4096], [4096, 4096], [1 << 20, 4096], [1 << 20, 1 << 20], [1 << 20, 0]] as [number, number][]).flatMap(([a, b]) => Object.keys(layouts).map((l) => [a, b, l] as const)))('runs and single records are exactly the records after each item\'s first (chunks of %i, runs up to %i bytes, layout %s)', async (size, runBytes, layout) => {
    const text = layouts[layout]!;
    const { handed, error } = await handOver(size, runBytes, text);
    expect(error).toBeNull();
    for (const h of handed) expect(text.slice(h.end - h.text.length, h.end)).toBe(h.text);
    // A run is a comma-separated list of records: as a JSON array, its records in order.
    const records = handed.flatMap((h) => (JSON.parse(`[${h.text}]`) as unknown[]).map((r) => ({ kind: h.kind.startsWith('rate') ? 'rate' : 'reference', code: h.code, r })));
    expect(records).toEqual([
      ...refs.map((r) => ({ kind: 'reference', code: null, r })),
      ...items.flatMap((it) => it.negotiated_rates.slice(1).map((r) => ({ kind: 'rate', code: it.billing_code, r }))),
    ]);
    const runs = handed.filter((h) => h.kind === 'rates' || h.kind === 'references');
    if (runBytes === 0) expect(runs).toEqual([]);
    if (size === 1 << 20 && runBytes > 0) {
      expect(runs.length).toBeGreaterThan(0);
      expect(Math.max(...runs.map((h) => (JSON.parse(`[${h.text}]`) as unknown[]).length))).toBeGreaterThan(1);
    }
    for (const h of runs) expect(h.text.length).toBeLessThanOrEqual(runBytes);
    // Nesting left under maxDepth (64): provider_references elements sit at depth 2, rates at 4.
    for (const h of runs) expect(h.room).toBe(h.kind === 'rates' ? 60 : 62);
  });
});

describe('through openSource', () => {
  it('a truncated gzip fails with SourceError and offsets; the parser saw only the bytes before', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'h3-edge-'));
    try {
      const gz = gzipSync(readFileSync(ticPath('cms-examples-v2/in-network-rates-all-negotiated-types-sample.json')));
      const p = join(dir, 'cut.json.gz');
      await writeFile(p, gz.subarray(0, gz.length - 40));
      const src = await openSource(p);
      const err = await parseTic(src.stream, recorder().sink).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(SourceError);
      expect((err as SourceError).reason).toBe('truncated_gzip');
      expect((err as SourceError).compressedOffset).toBe(gz.length - 40);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
