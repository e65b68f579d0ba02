import { afterAll, beforeAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openDuck } from '../../ingest/snapshot/duck.ts';
import { TicFileWriter } from '../../ingest/snapshot/tic-file-writer.ts';
import { assembleSnapshot } from '../../ingest/snapshot/assemble.ts';
import { fileKey, groupKey, groupSetKey } from '../../ingest/snapshot/keys.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { RATES_VIEW_COLUMNS } from '../../schemas/pricing-tables.ts';
import type { FileHeader, GroupRecord, PriceRecord, RateRecord } from '../../ingest/tic/records.ts';

const root = mkdtempSync(join(tmpdir(), 'snapw-'));
let duck: DuckDBInstance;
let db: SnapshotDb;

const header = (kind: FileHeader['kind'] = 'in-network'): FileHeader => ({
  kind, reportingEntityName: 'Acme', reportingEntityType: 'issuer', planName: 'Gold', planIdType: 'hios', planId: '12345NY001',
  planMarketType: 'group', planSponsorName: null, issuerName: null, lastUpdatedOn: '2025-01-01', version: '1.0.0',
});
const group = (tin: string, npis: number[], networkNames: string[] = []): GroupRecord => ({ tinType: 'ein', tinValue: tin, businessName: null, npis, networkNames });
const price = (rate: number, extra: Partial<PriceRecord> = {}): PriceRecord => ({
  negotiatedType: 'negotiated', negotiatedRate: rate, expirationDate: '9999-12-31', serviceCode: ['11'], billingClass: 'professional',
  setting: null, billingCodeModifier: null, additionalInformation: null, ...extra,
});
const rate = (code: string, refIds: string[], prices: PriceRecord[], inlineGroups: GroupRecord[] = []): RateRecord => ({
  billingCodeType: 'CPT', billingCode: code, billingCodeTypeVersion: '2025', name: `item ${code}`, negotiationArrangement: 'ffs',
  refIds, inlineGroups, prices,
});

beforeAll(async () => {
  duck = await openDuck({ tempDir: join(root, 'tmp'), memoryLimit: '256MB' });
  const files = join(root, 'staging', 'files');
  // File A: references AFTER the rates, one reference missing, a TIN-only group (npi [0]).
  const a = await TicFileWriter.create(duck, { src: '/data/a.json', dir: join(files, fileKey('/data/a.json')) });
  a.rate(rate('99213', ['1', '2'], [price(100), price(120, { billingClass: 'institutional', serviceCode: null })]));
  a.rate(rate('99214', ['404'], [price(150)]));
  a.rate(rate('99215', ['3'], [price(200)]));
  a.providerReference({ refId: '1', groups: [group('11-1111111', [1234567890, 1234567891])], networkNames: ['PPO'], location: null });
  a.providerReference({ refId: '2', groups: [group('22-2222222', [1999999999])], networkNames: [], location: null });
  a.providerReference({ refId: '3', groups: [group('33-3333333', [0])], networkNames: [], location: null });
  a.header(header());
  await a.finish();
  // File B: references BEFORE rates, under other ids and with NPIs reordered; repeats file A's
  // 99213 $100 row for the same two groups exactly (dedup), and prices 99213 for an inline group.
  const b = await TicFileWriter.create(duck, { src: '/data/b.json', dir: join(files, fileKey('/data/b.json')) });
  b.providerReference({ refId: '690.64462', groups: [group('11-1111111', [1234567891, 1234567890])], networkNames: ['HMO'], location: null });
  b.providerReference({ refId: '7', groups: [group('22-2222222', [1999999999])], networkNames: [], location: null });
  b.rate(rate('99213', ['7', '690.64462'], [price(100)]));
  b.rate(rate('99213', [], [price(100)], [group('44-4444444', [1555555555])]));
  b.header({ ...header(), planName: 'Silver' });
  await b.finish();
  await assembleSnapshot(duck, {
    root, id: 's1', workDir: join(root, 'staging', 'out'), ticFilesDir: files, families: ['tic'],
    dataVintage: 'test', sources: {}, report: {},
  });
  db = await SnapshotDb.openDir(join(root, 'snapshots', 's1'));
});

afterAll(() => {
  db?.close();
  duck?.closeSync();
  rmSync(root, { recursive: true, force: true });
});

test('references after rates resolve; a missing reference drops its prices with a count', async () => {
  const rows = await db.query<{ billing_code: string; negotiated_rate: number; n: number }>(
    'SELECT billing_code, negotiated_rate, count(*)::INT AS n FROM rates GROUP BY ALL ORDER BY ALL');
  expect(rows).toEqual([
    { billing_code: '99213', negotiated_rate: 100, n: 2 }, // groups {1, 2} (A and B, stored once), inline group {4}
    { billing_code: '99213', negotiated_rate: 120, n: 1 }, // groups {1, 2}
    { billing_code: '99215', negotiated_rate: 200, n: 1 }, // TIN-only group {3}; 99214 (reference 404) dropped
  ]);
});

test('a rate row names its provider-group set once; group_sets lists the members', async () => {
  const g = (tin: string, npis: number[]): string => groupKey('ein', tin, npis).key;
  const set12 = groupSetKey([g('11-1111111', [1234567890, 1234567891]), g('22-2222222', [1999999999])]);
  expect(await db.query('SELECT negotiated_rate FROM rates WHERE set_ref = (SELECT DISTINCT set_ref FROM group_sets WHERE group_set_key = $s) ORDER BY 1', { s: set12 }))
    .toEqual([{ negotiated_rate: 100 }, { negotiated_rate: 120 }]);
  expect(await db.query('SELECT group_key FROM group_sets WHERE group_set_key = $s ORDER BY 1', { s: set12 }))
    .toEqual([g('11-1111111', [1234567890, 1234567891]), g('22-2222222', [1999999999])].sort().map((group_key) => ({ group_key })));
  expect(await db.query('SELECT count(*)::INT AS n FROM group_sets')).toEqual([{ n: 4 }]); // {1, 2}, {3}, {4}
});

test('identical rows across files are stored once with both file keys', async () => {
  const set12 = groupSetKey([groupKey('ein', '11-1111111', [1234567890, 1234567891]).key, groupKey('ein', '22-2222222', [1999999999]).key]);
  const rows = await db.query('SELECT file_keys FROM rates WHERE set_ref = (SELECT DISTINCT set_ref FROM group_sets WHERE group_set_key = $s) AND negotiated_rate = 100', { s: set12 });
  expect(rows).toEqual([{ file_keys: [fileKey('/data/a.json'), fileKey('/data/b.json')].sort() }]);
});

test('provider groups once, network names unioned, TIN-only group without members', async () => {
  const groups = await db.query<{ tin_value: string; npis: number[]; network_names: string[] }>(
    'SELECT tin_value, npis, network_names FROM provider_groups ORDER BY tin_value');
  expect(groups).toEqual([
    { tin_value: '11-1111111', npis: [1234567890, 1234567891], network_names: ['HMO', 'PPO'] },
    { tin_value: '22-2222222', npis: [1999999999], network_names: [] },
    { tin_value: '33-3333333', npis: [], network_names: [] },
    { tin_value: '44-4444444', npis: [1555555555], network_names: [] },
  ]);
  expect(await db.query('SELECT count(*)::INT AS n FROM group_members')).toEqual([{ n: 4 }]);
  const m = await db.query('SELECT npi_bucket FROM group_members WHERE npi = 1234567891');
  expect(m).toEqual([{ npi_bucket: 1234567891 % 64 }]);
});

test('prices keep types: lists, null lists, dates', async () => {
  const r = await db.query('SELECT service_code, billing_class, expiration_date FROM rates WHERE negotiated_rate = 120 ORDER BY set_ref LIMIT 1');
  expect(r).toEqual([{ service_code: null, billing_class: 'institutional', expiration_date: '9999-12-31' }]);
});

test('plans and plan_files from file headers', async () => {
  const plans = await db.query('SELECT plan_name, plan_id_type FROM plans ORDER BY plan_name');
  expect(plans).toEqual([{ plan_name: 'Gold', plan_id_type: 'HIOS' }, { plan_name: 'Silver', plan_id_type: 'HIOS' }]);
  expect(await db.query('SELECT count(*)::INT AS n FROM plan_files')).toEqual([{ n: 2 }]);
  expect(await db.query('SELECT count(*)::INT AS n FROM group_files')).toEqual([{ n: 6 }]); // A: 1, 2, 3; B: 1, 2, 4
});

test('catalog.duckdb answers SQL by relative paths: from the snapshot directory, or with file_search_path', async () => {
  const dir = join(root, 'snapshots', 's1');
  const ask = async (opts: Record<string, string>): Promise<unknown> => {
    const inst = await DuckDBInstance.create(join(dir, 'catalog.duckdb'), { access_mode: 'READ_ONLY', ...opts });
    const con = await inst.connect();
    try {
      return (await con.runAndReadAll("SELECT count(*)::INT FROM rates WHERE billing_code_type = 'CPT' AND code_prefix = '99'")).getRows();
    } finally {
      con.closeSync();
      inst.closeSync();
    }
  };
  const cwd = process.cwd();
  process.chdir(dir); // what `cd snapshots/<id> && duckdb catalog.duckdb` does
  try {
    expect(await ask({})).toEqual([[4]]);
  } finally {
    process.chdir(cwd);
  }
  expect(await ask({ file_search_path: dir })).toEqual([[4]]);
  // rates is a view: the stored rows joined with their price_terms, every TiC field on the row.
  {
    const inst = await DuckDBInstance.create(join(dir, 'catalog.duckdb'), { access_mode: 'READ_ONLY', file_search_path: dir });
    const con = await inst.connect();
    const cols = (await con.runAndReadAll('DESCRIBE rates')).getRows().map((r) => String(r[0]));
    expect(cols).toEqual(RATES_VIEW_COLUMNS.map((c) => c.name));
    const joined = (await con.runAndReadAll('SELECT count(*)::INT FROM rates')).getRows();
    const stored = (await con.runAndReadAll("SELECT count(*)::INT FROM read_parquet('rates/**/*.parquet')")).getRows();
    expect(joined).toEqual(stored);
    con.closeSync();
    inst.closeSync();
  }
  // Empty tables still have a typed view.
  const inst = await DuckDBInstance.create(join(dir, 'catalog.duckdb'), { access_mode: 'READ_ONLY', file_search_path: dir });
  const con = await inst.connect();
  expect((await con.runAndReadAll('SELECT count(*)::INT FROM providers')).getRows()).toEqual([[0]]);
  con.closeSync();
  inst.closeSync();
});

test("a set's reference ids are staged joined and split again, an id holding the separator too", async () => {
  const files = join(root, 'staging-sep', 'files');
  const c = await TicFileWriter.create(duck, { src: '/data/c.json', dir: join(files, fileKey('/data/c.json')) });
  const odd = 'x\u001fy'; // the staging separator inside an id: its set keeps a row per id
  c.rate(rate('99213', ['5', odd], [price(10)]));
  c.rate(rate('99214', ['5', '6'], [price(20)]));
  c.rate(rate('99215', ['6', '404'], [price(30)], [group('77-7777777', [1777777777])]));
  c.providerReference({ refId: '5', groups: [group('55-5555555', [1555555551])], networkNames: [], location: null });
  c.providerReference({ refId: odd, groups: [group('88-8888888', [1888888888])], networkNames: [], location: null });
  c.providerReference({ refId: '6', groups: [group('66-6666666', [1666666666])], networkNames: [], location: null });
  c.header(header());
  const staged = await c.finish();
  expect(staged.counts.unresolved_references).toBe(1); // '404'
  await assembleSnapshot(duck, {
    root, id: 's-sep', workDir: join(root, 'staging-sep', 'out'), ticFilesDir: files, families: ['tic'], dataVintage: 'test', sources: {}, report: {},
  });
  const sdb = await SnapshotDb.openDir(join(root, 'snapshots', 's-sep'));
  try {
    const members = await sdb.query<{ billing_code: string; tins: string[] }>(`SELECT r.billing_code, list_sort(list(g.tin_value)) AS tins
      FROM rates r JOIN group_sets s USING (set_ref) JOIN provider_groups g USING (group_key) GROUP BY ALL ORDER BY 1`);
    expect(members).toEqual([
      { billing_code: '99213', tins: ['55-5555555', '88-8888888'] },
      { billing_code: '99214', tins: ['55-5555555', '66-6666666'] },
      { billing_code: '99215', tins: ['66-6666666', '77-7777777'] },
    ]);
  } finally {
    sdb.close();
  }
});
