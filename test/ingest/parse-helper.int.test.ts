/**
 * The parse helper (ingest/snapshot/parse-helper.ts): a file ingested with part of its records read
 * by the helper's worker thread gives the same snapshot, the same per-file counts and warning
 * counts, and the same errors (message, reason, byte offset) as the parse thread alone. The helper
 * is made to start at byte 0 with small batches, so that the small fixtures use it; once with an
 * unbounded backlog (every record it may take, it takes) and once with a tiny one and 512-byte
 * batches (the two threads take turns, as on a large file, and larger records are declined).
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { runIngest, type IngestOptions } from '../../ingest/run-ingest.ts';
import type { IngestReport } from '../../ingest/report/report.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { generateInNetwork } from '../../ingest/gen/in-network-gen.ts';
import { openDuck } from '../../ingest/snapshot/duck.ts';
import { processFile, type FileOutcome } from '../../ingest/snapshot/process-file.ts';
import { fileKey } from '../../ingest/snapshot/keys.ts';
import { HelperTurn, ParseHelper, REC_REFERENCE, REC_WORDS, type FromHelper, type ParseHelperTuning, type ToHelper } from '../../ingest/snapshot/parse-helper.ts';
import { Worker } from 'node:worker_threads';
import type { TicFileWriter } from '../../ingest/snapshot/tic-file-writer.ts';
import { quietProgress, type ProgressEvent, type ProgressSink } from '../../ingest/progress/progress.ts';

const DATA = join(import.meta.dirname, '../../../shared/data/tic');
const tmp = mkdtempSync(join(tmpdir(), 'parse-helper-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ALL: ParseHelperTuning = { startBytes: 0, batchBytes: 64 * 1024, backlogBytes: 1 << 30 };
const TURNS: ParseHelperTuning = { startBytes: 0, batchBytes: 512, backlogBytes: 1 };

const list = (dir: string, re: RegExp): string[] => readdirSync(dir).filter((f) => re.test(f)).sort().map((f) => join(dir, f));

/** Everything the rows of a file can hold: later items' rates go to the helper, with warnings and odd shapes. */
function syntheticFile(): string {
  const ref = (id: number, npis: number[]): unknown => ({ provider_group_id: id, provider_groups: [{ npi: npis, tin: { type: 'ein', value: `12-34567${id % 10}${id % 7}` } }] });
  const price = (rate: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    negotiated_type: 'negotiated', negotiated_rate: rate, expiration_date: '2030-12-31', service_code: ['11', '22'], billing_class: 'professional', ...extra,
  });
  const items = [];
  for (let i = 0; i < 12; i++) {
    const rates: unknown[] = [];
    for (let r = 0; r < 8; r++) {
      const n = i * 8 + r;
      const prices = [price(100 + n), price(0.01, { billing_class: 'institutional', setting: 'inpatient' })];
      if (n % 5 === 0) prices.push(price(55.5, { billing_code_modifier: ['26', 'TC'], additional_information: 'note', unknown_price_key: 1 }));
      if (n % 7 === 0) rates.push({ provider_groups: [{ npi: [String(1_500_000_000 + n), 1_500_000_001], tin: { type: 'npi', value: '1500000001' } }], negotiated_prices: prices });
      else if (n % 11 === 0) rates.push({ provider_references: [1, 2.5, 404], negotiated_prices: prices, extra_rate_key: true });
      else rates.push({ provider_references: [(n % 4) + 1], negotiated_prices: prices });
    }
    rates.push({ provider_references: [1], negotiated_prices: [{ negotiated_type: 'derived', billing_class: 'professional' }] }); // no rate: skipped
    items.push({
      negotiation_arrangement: i === 3 ? 'bundle' : 'ffs', name: `Service ${i}`, billing_code_type: i % 3 === 0 ? 'MS-DRG' : 'CPT', billing_code_type_version: '2024',
      billing_code: i % 3 === 0 ? String(i) : String(99200 + i), description: 'x',
      ...(i === 3 ? { bundled_codes: [{ billing_code_type: 'CPT', billing_code: '99213', billing_code_type_version: '2024', description: 'b' }] } : {}),
      negotiated_rates: rates,
    });
  }
  const doc = {
    reporting_entity_name: 'Helper Test Health', reporting_entity_type: 'health insurance issuer', last_updated_on: '2026-11-01', version: '1.3.1',
    in_network: items,
    // References after the rates: 2.5 is a decimal id, 404 is never defined (unresolved).
    provider_references: [ref(1, [1234567890, 1234567891]), ref(2, [1987654321]), ref(3, [1111111112, 1111111113, 1111111114]), ref(4, [0]),
      { provider_group_id: 2.5, provider_groups: [{ npi: ['1999999999'], tin: { type: 'ein', value: '99-0000000' } }], unknown_ref_key: 'x' }],
  };
  const path = join(tmp, 'synthetic.json');
  writeFileSync(path, JSON.stringify(doc, null, 1));
  return path;
}

const TABLES = ['rates', 'price_terms', 'provider_groups', 'group_members', 'group_sets', 'group_files', 'bundles', 'plans', 'plan_files'];

interface Run { report: IngestReport; tables: Record<string, string[]> }

async function ingest(name: string, files: string[], helper: IngestOptions['helper']): Promise<Run> {
  const report = await runIngest({ toc: [], inNetwork: files, allowedAmounts: [], out: join(tmp, name), helper, concurrency: 1 });
  const db = await SnapshotDb.openDir(report.snapshotDir!);
  try {
    const tables: Record<string, string[]> = {};
    for (const t of TABLES) tables[t] = (await db.query(`SELECT * FROM ${t}`)).map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).sort();
    return { report, tables };
  } finally {
    db.close();
  }
}

/**
 * What a file's report says, but the warnings' examples (their order is each thread's) and the
 * count of groups staged: a group written inline in rates that both threads read is staged by each
 * (staged-layout.ts StagedCounts.groups); the tables hold it once.
 */
function fileFacts(r: IngestReport): unknown[] {
  return r.files.map((f) => ({
    url: f.url, status: f.status, error: f.error, reason: f.reason, byteOffset: f.byteOffset, counts: { ...f.counts, groups: undefined },
    warnings: Object.fromEntries(Object.entries(f.warnings ?? {}).map(([k, w]) => [k, w.count]).sort()),
  })).sort((a, b) => a.url.localeCompare(b.url));
}

describe('the same snapshot with and without the parse helper', () => {
  let files: string[];
  let alone: Run;
  beforeAll(async () => {
    const gen = join(tmp, 'generated.json.gz');
    await generateInNetwork(gen, { sizeMb: 3, seed: 7, bigGroupNpis: 3000, remoteFrac: 0, gzip: true, gzipLevel: 1 });
    files = [
      ...list(join(DATA, 'cms-examples-v2'), /^in-network-/),
      ...list(join(DATA, 'cms-examples-v1', 'in-network-rates'), /\.json$/),
      ...list(join(DATA, 'edge-cases'), /\.json(\.gz)?$/),
      ...list(join(DATA, 'real'), /\.json\.gz$/),
      syntheticFile(), gen,
    ];
    alone = await ingest('alone', files, false);
  }, 180_000);

  test('the inputs are read, with warnings, into every table', () => {
    expect(alone.report.totals.failed).toBe(0);
    expect(alone.report.files.length).toBe(files.length);
    for (const t of ['rates', 'price_terms', 'provider_groups', 'group_members', 'group_sets', 'bundles']) expect(alone.tables[t]!.length, t).toBeGreaterThan(0);
    const synthetic = alone.report.files.find((f) => f.url.endsWith('synthetic.json'))!;
    expect(Object.keys(synthetic.warnings ?? {})).toEqual(expect.arrayContaining(['penny_rate', 'unknown_field', 'unresolved_reference', 'skipped_record', 'decimal_group_id', 'tin_only_group']));
  });

  for (const [name, helper] of [['every record it may take', ALL], ['taking turns', TURNS]] as const) {
    test(`helper ${name}: identical tables, counts and warning counts`, async () => {
      const withHelper = await ingest(name.replaceAll(' ', '-'), files, helper);
      expect(fileFacts(withHelper.report)).toEqual(fileFacts(alone.report));
      for (const [i, f] of withHelper.report.files.entries()) expect(f.counts!.groups).toBeGreaterThanOrEqual(alone.report.files[i]!.counts!.groups!);
      // The helper did read records, of the generated file above all.
      const helped = (r: IngestReport, end: string): number => r.files.find((f) => f.url.endsWith(end))!.parseHelperBytes;
      expect(alone.report.files.every((f) => f.parseHelperBytes === 0)).toBe(true);
      expect(helped(withHelper.report, 'synthetic.json')).toBeGreaterThan(0);
      expect(helped(withHelper.report, 'generated.json.gz')).toBeGreaterThan(helper === ALL ? 1_000_000 : 0);
      expect(withHelper.report.tables).toEqual(alone.report.tables);
      for (const t of TABLES) expect(withHelper.tables[t], t).toEqual(alone.tables[t]);
    }, 180_000);
  }
});

describe('errors found by the helper', () => {
  let duck: DuckDBInstance;
  beforeAll(async () => { duck = await openDuck({ tempDir: join(tmp, 'duck') }); });
  afterAll(() => duck?.closeSync());

  const stage = async (src: string, helper: false | ParseHelperTuning, tag: string, progress: ProgressSink = quietProgress): Promise<{ out: FileOutcome; helperFiles: boolean }> => {
    const stagingDir = join(tmp, `stage-${tag}`);
    const out = await processFile({ duck, stagingDir, src, kind: 'in-network', resume: false, progress, helper });
    return { out, helperFiles: existsSync(join(stagingDir, 'files', fileKey(src), 'prices.1.parquet')) };
  };

  /** A file of `items` items of 20 rates each; `bad(i, r)` replaces a rate's JSON. */
  const fileWith = (name: string, bad: (i: number, r: number) => string | null, tail = ']}'): string => {
    const rates = (i: number): string => Array.from({ length: 20 }, (_, r) => bad(i, r)
      ?? `{"provider_references":[1],"negotiated_prices":[{"negotiated_type":"negotiated","negotiated_rate":${10 + r},"expiration_date":"2030-01-01","billing_class":"professional"}]}`).join(',');
    const items = Array.from({ length: 6 }, (_, i) => `{"negotiation_arrangement":"ffs","name":"n","billing_code_type":"CPT","billing_code_type_version":"2024","billing_code":"${99200 + i}","description":"d","negotiated_rates":[${rates(i)}]}`);
    const body = `{"reporting_entity_name":"e","reporting_entity_type":"t","last_updated_on":"2026-01-01","version":"1.0.0","provider_references":[{"provider_group_id":1,"provider_groups":[{"npi":[1234567890],"tin":{"type":"ein","value":"11-1111111"}}]}],"in_network":[${items.join(',')}${tail}`;
    const path = join(tmp, name);
    writeFileSync(path, body);
    return path;
  };

  test('a file the helper reads whole stages its numbers beside the parse thread\'s', async () => {
    const src = fileWith('fine.json', () => null);
    const a = await stage(src, false, 'fine-alone');
    const runs = vi.spyOn(ParseHelper.prototype, 'rates');
    try {
      const b = await stage(src, ALL, 'fine-helper');
      expect(a.out.status).toBe('complete');
      expect(a.helperFiles).toBe(false);
      expect(b.helperFiles).toBe(true);
      expect(b.out.counts).toEqual(a.out.counts);
      // Each item's rates after its first went over as runs, found unread, and checked out.
      expect(runs.mock.calls.length).toBeGreaterThanOrEqual(6);
      expect(runs.mock.results.every((r) => r.value === true)).toBe(true);
      expect(b.out.reparsed).toBe(false);
    } finally {
      runs.mockRestore();
    }
  });

  test('a run whose end was guessed wrong (objects shaped like rates in an unknown field): parsed again, the same rows', async () => {
    // After negotiated_rates, an unknown field holds objects whose first key is provider_references:
    // the parse thread's search for where the run of rates ends finds one of them, past the `]`.
    const odd = '"odd_list":[{"a":1},{"provider_references":[1],"negotiated_prices":[{"negotiated_type":"negotiated","negotiated_rate":999,"expiration_date":"2030-01-01","billing_class":"professional"}]}]';
    const src = fileWith('wrong-guess.json', () => null);
    writeFileSync(src, readFileSync(src, 'utf8').replace(/(\}\]\}\])(?=\},\{"negotiation_arrangement")/, `$1,${odd}`));
    expect(readFileSync(src, 'utf8')).toContain('odd_list');
    const a = await stage(src, false, 'guess-alone');
    const events: ProgressEvent[] = [];
    const b = await stage(src, ALL, 'guess-helper', { event: (e) => events.push(e), close() {} });
    expect(a.out.status).toBe('complete');
    expect(a.out.reparsed).toBe(false);
    expect(b.out).toMatchObject({ status: 'complete', reparsed: true, counts: a.out.counts });
    // The log says so, with the error that made the parse start again.
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['file_started', 'file_reparse', 'file_done']));
    expect(events.find((e) => e.type === 'file_reparse')).toMatchObject({ error: expect.stringMatching(/not a run of records/) });
    expect(Object.fromEntries(Object.entries(b.out.warnings).map(([k, w]) => [k, w.count]))).toEqual(Object.fromEntries(Object.entries(a.out.warnings).map(([k, w]) => [k, w.count])));
    expect(a.out.counts!.prices).toBe(6 * 20); // the 999 price is not a rate
  });

  const cases: [string, (i: number, r: number) => string | null, string?][] = [
    ['invalid JSON in a rate', (i, r) => (i === 4 && r === 7 ? '{"provider_references":[1],"negotiated_prices":[{"negotiated_rate":1.2.3}]}' : null)],
    ['negotiated_prices of the wrong type', (i, r) => (i === 3 && r === 12 ? '{"provider_references":[1],"negotiated_prices":5}' : null)],
    ['a helper error before a truncated end', (i, r) => (i === 2 && r === 5 ? '{"provider_references":[1],"negotiated_prices":{"a":1}}' : null), '{"negotiation_arrangement":"ffs","negotiated_rates":[{"provider_'],
    ['a truncated end only', () => null, '{"negotiation_arrangement":"ffs","negotiated_rates":[{"provider_'],
  ];
  // Every case also has, before its error, a rate with an unknown field and a penny rate (the
  // second rate of an item: the helper's share): the failed file still reports those warnings.
  const withWarnings = (bad: (i: number, r: number) => string | null) => (i: number, r: number): string | null => (i === 1 && r === 1
    ? '{"provider_references":[1],"odd_key":1,"negotiated_prices":[{"negotiated_type":"negotiated","negotiated_rate":0.01,"expiration_date":"2030-01-01","billing_class":"professional"}]}'
    : bad(i, r));
  const warningKinds = (o: FileOutcome): string[] => Object.keys(o.warnings).sort();
  for (const [name, bad, tail] of cases) {
    test(`${name}: the same error, reason, byte offset and warnings`, async () => {
      const src = fileWith(`${name.replaceAll(' ', '-')}.json`, withWarnings(bad), tail);
      const a = await stage(src, false, `${name}-alone`);
      expect(a.out.status).toBe('failed');
      expect(warningKinds(a.out)).toEqual(expect.arrayContaining(['penny_rate', 'unknown_field']));
      for (const [tag, helper] of [['all', ALL], ['turns', TURNS]] as const) {
        const b = await stage(src, helper, `${name}-${tag}`);
        expect({ status: b.out.status, error: b.out.error, reason: b.out.reason, byteOffset: b.out.byteOffset, warnings: warningKinds(b.out) })
          .toEqual({ status: a.out.status, error: a.out.error, reason: a.out.reason, byteOffset: a.out.byteOffset, warnings: warningKinds(a.out) });
      }
    });
  }
});

test('one helper runs at a time in a run: files parsed side by side take turns', async () => {
  const writer = { absorb() {}, appendRecorded() {} } as unknown as TicFileWriter;
  const turn = new HelperTurn();
  const helper = (name: string): ParseHelper => {
    const dir = join(tmp, `turns-${name}`);
    mkdirSync(dir, { recursive: true });
    return new ParseHelper({ turn, writer, src: `/data/${name}.json`, dir, startBytes: 0 });
  };
  const a = helper('a');
  const b = helper('b');
  expect(a.open(0)).toBe(true);
  expect(b.open(0)).toBe(false);
  expect(b.open(1 << 30)).toBe(false);
  await a.finish();
  expect(b.open(0)).toBe(true);
  await b.finish();
  const c = helper('c');
  expect(c.open(0)).toBe(true);
  await c.close(); // a failed file's helper frees its turn too
  const d = helper('d');
  expect(d.open(0)).toBe(true);
  await d.close();
});

test('a helper starts at once for a source known to be large, at startBytes otherwise', async () => {
  const writer = { absorb() {}, appendRecorded() {} } as unknown as TicFileWriter;
  const helper = (name: string): ParseHelper => {
    const dir = join(tmp, `early-${name}`);
    mkdirSync(dir, { recursive: true });
    return new ParseHelper({ writer, src: `/data/${name}.json`, dir, startBytes: 1000 });
  };
  const small = helper('small');
  small.expectBytes(999); // may be shorter than startBytes: waits for it
  expect(small.open(0)).toBe(false);
  expect(small.open(1000)).toBe(true);
  await small.finish();
  const unknown = helper('unknown');
  unknown.expectBytes(null);
  expect(unknown.open(500)).toBe(false);
  await unknown.close();
  const large = helper('large');
  large.expectBytes(1000); // its parse reaches startBytes for sure
  expect(large.open(0)).toBe(true);
  await large.finish();
});

describe.each([
  ['parse-helper.worker.ts', "Node's own type stripping (the pinned Node 24)"],
  ['parse-helper.worker.mjs', 'tsx (a Node without type stripping)'],
])('the worker entry %s, through %s', (entry) => {
  test('stages a provider reference it is handed and ends with its counts', async () => {
    const dir = join(tmp, `entry-${entry}`);
    mkdirSync(dir, { recursive: true });
    const worker = new Worker(new URL(`../../ingest/snapshot/${entry}`, import.meta.url), { workerData: { src: '/data/entry.json', dir }, execArgv: [] });
    try {
      const got: FromHelper[] = [];
      const done = new Promise<void>((resolve, reject) => {
        worker.on('message', (m: FromHelper) => { got.push(m); if (m.type !== 'rows') resolve(); });
        worker.on('error', reject);
      });
      const bytes = new TextEncoder().encode('{"provider_group_id":7,"provider_groups":[{"npi":[1234567893,"1518379601"],"tin":{"type":"ein","value":"12-3456789"}}]}');
      const recs = new Float64Array(REC_WORDS);
      recs.set([REC_REFERENCE, 0, bytes.length, 0, bytes.length, 0]);
      const post = (m: ToHelper): void => worker.postMessage(m);
      post({ type: 'batch', bytes, used: bytes.length, recs, headers: [] });
      post({ type: 'end' });
      await done;
      expect(got.map((m) => m.type)).toEqual(['rows', 'done']);
      const rows = got[0] as Extract<FromHelper, { type: 'rows' }>;
      expect(rows.tables.refs?.length).toBeGreaterThan(0);
      expect(rows.tables.groups?.length).toBeGreaterThan(0);
      const end = got[1] as Extract<FromHelper, { type: 'done' }>;
      expect(end.stats.providerReferences).toBe(1);
      expect(end.staged.counts.groups).toBe(1);
    } finally {
      await worker.terminate();
    }
  });
});
