import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runIngest } from '../../ingest/run-ingest.ts';
import type { IngestReport } from '../../ingest/report/report.ts';
import { fileKey } from '../../ingest/snapshot/keys.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { countInNetwork } from './tic-count.ts';

const DATA = join(import.meta.dirname, '../../../shared/data/tic');
const V2 = join(DATA, 'cms-examples-v2');
const V1 = join(DATA, 'cms-examples-v1');
const tmp = mkdtempSync(join(tmpdir(), 'ingest-tic-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const n = async (db: SnapshotDb, sql: string): Promise<number> => (await db.query<{ n: number }>(`SELECT count(*)::INT AS n FROM ${sql}`))[0]!.n;

describe('table of contents fan-out', () => {
  let report: IngestReport;
  let db: SnapshotDb;
  const ffs = join(V2, 'in-network-rates-fee-for-service-single-plan-sample.json');
  const multi = join(V2, 'in-network-rates-multiple-plans-sample.json');
  const allowed = join(V2, 'allowed-amounts-single-plan-sample.json');
  beforeAll(async () => {
    // The CMS v2 TOC with its https locations rewritten to local example files. Two structures
    // list the same in-network file and the same allowed-amounts file: each is ingested once.
    const toc = JSON.parse(readFileSync(join(V2, 'table-of-contents-sample.json'), 'utf8')) as {
      reporting_structure: { in_network_files: { location: string }[]; allowed_amount_file: { location: string } }[];
    };
    const map: Record<string, string> = {
      'in-network-file-123456.json': ffs, 'behavioral-health-0000.json': multi, 'chip-in-network-file.json': ffs,
      'allowed-amount-file-987665.json': allowed, 'chip-allowed-amount-file.json': allowed,
    };
    const local = (u: string): string => map[u.split('/').pop()!]!;
    for (const s of toc.reporting_structure) {
      for (const f of s.in_network_files) f.location = local(f.location);
      s.allowed_amount_file.location = local(s.allowed_amount_file.location);
    }
    const tocPath = join(tmp, 'toc.json');
    writeFileSync(tocPath, JSON.stringify(toc));
    report = await runIngest({ toc: [tocPath], inNetwork: [], allowedAmounts: [], out: join(tmp, 'toc-root') });
    db = await SnapshotDb.openDir(report.snapshotDir!);
  });
  afterAll(() => db?.close());

  test('each file once, however many plans list it', async () => {
    expect(report.totals.failed).toBe(0);
    expect(report.files.map((f) => f.kind).sort()).toEqual(['allowed-amounts', 'in-network', 'in-network', 'table-of-contents']);
    expect(await n(db, 'source_files')).toBe(4);
  });

  test('every plan -> file mapping of the TOC is recorded', async () => {
    const rows = await db.query<{ plan_name: string; file_key: string; file_type: string }>(`
      SELECT p.plan_name, pf.file_key, pf.file_type FROM plan_files pf JOIN plans p USING (plan_key)
      WHERE p.reporting_entity_name = 'medicare' AND p.plan_name IN ('medicaid', 'medicare', 'chip') ORDER BY ALL`);
    const expected = [
      ...['medicaid', 'medicare'].flatMap((p) => [
        { plan_name: p, file_key: fileKey(ffs), file_type: 'in-network' },
        { plan_name: p, file_key: fileKey(multi), file_type: 'in-network' },
        { plan_name: p, file_key: fileKey(allowed), file_type: 'allowed-amounts' },
      ]),
      { plan_name: 'chip', file_key: fileKey(ffs), file_type: 'in-network' },
      { plan_name: 'chip', file_key: fileKey(allowed), file_type: 'allowed-amounts' },
    ].sort((a, b) => `${a.plan_name}${a.file_key}${a.file_type}`.localeCompare(`${b.plan_name}${b.file_key}${b.file_type}`));
    expect(rows).toEqual(expected);
  });

  test('allowed amounts land in their table', async () => {
    expect(await n(db, 'allowed_amounts')).toBeGreaterThan(0);
  });
});

describe('CMS examples and real payer files', () => {
  const files = [
    ...['all-negotiated-types-sample', 'bundle-single-plan-sample', 'capitation-single-plan-sample', 'fee-for-service-single-plan-sample',
      'multiple-plans-sample', 'no-npi'].map((f) => join(V2, `in-network-rates-${f}.json`)),
    ...['bundle-single-plan-sample', 'capitation-single-plan-sample', 'fee-for-service-single-plan-sample', 'multiple-plans-sample', 'no-npi']
      .map((f) => join(V1, 'in-network-rates', `in-network-rates-${f}.json`)),
    join(DATA, 'real', 'healthscope_examplefile2.json.gz'),
    join(DATA, 'real', 'uhc_services_test_file_3.json.gz'),
    join(DATA, 'edge-cases', 'test_file_out_of_order.json'),
    join(DATA, 'edge-cases', 'test_file_no_references.json'),
  ];
  let report: IngestReport;
  let db: SnapshotDb;
  beforeAll(async () => {
    report = await runIngest({ toc: [], inNetwork: files, allowedAmounts: [], out: join(tmp, 'real-root'), concurrency: 2 });
    db = await SnapshotDb.openDir(report.snapshotDir!);
  });
  afterAll(() => db?.close());

  test('zero failed files', () => {
    expect(report.errors).toEqual([]);
    expect(report.totals.complete).toBe(files.length);
  });

  test('row counts equal an independent count (JSON.parse over the same files)', async () => {
    const want = countInNetwork(files);
    const staged = report.files.reduce((a, f) => a + (f.counts?.prices ?? 0), 0);
    expect(staged).toBe(want.prices);
    expect(report.files.reduce((a, f) => a + (f.counts?.rate_rows ?? 0), 0)).toBe(want.resolvedPrices);
    expect(await n(db, 'rates')).toBe(want.distinctRows);
    expect((await db.query<{ n: number }>('SELECT count(DISTINCT group_set_key)::INT AS n FROM group_sets'))[0]!.n).toBe(want.sets);
    // Each set key has one set_ref, numbered 1..n in key order.
    const refs = await db.query<{ key: string; ref: number }>('SELECT DISTINCT group_set_key AS key, set_ref AS ref FROM group_sets ORDER BY key');
    expect(refs.map((r) => r.ref)).toEqual(refs.map((_, i) => i + 1));
    // Every rates row names a set that group_sets lists, and expanding sets gives the per-group rows.
    expect((await db.query<{ n: number }>('SELECT count(*)::INT AS n FROM rates ANTI JOIN group_sets USING (set_ref)'))[0]!.n).toBe(0);
    expect(want.explodedRows).toBeGreaterThan(want.resolvedPrices);
    expect(await n(db, 'provider_groups')).toBe(want.groups);
    expect(await n(db, 'group_members')).toBe(want.members);
  });

  test('the real HealthSCOPE file alone: counts and its 10,181-NPI group', async () => {
    const hs = join(DATA, 'real', 'healthscope_examplefile2.json.gz');
    const want = countInNetwork([hs]);
    const f = report.files.find((x) => x.url === hs)!;
    expect(f.counts?.prices).toBe(want.prices);
    expect(want.prices).toBe(211905);
    const big = await db.query<{ n: number }>('SELECT max(len(npis))::INT AS n FROM provider_groups');
    expect(big[0]!.n).toBe(10181);
    expect(f.version).toBe('1.0.0');
  });

  test('remote references that cannot be fetched are reported, not fatal', () => {
    expect(report.warnings.unresolved_reference?.count ?? 0).toBeGreaterThan(0);
  });
});
