/**
 * network-status over a snapshot built by the real ingest (runIngest) from the CMS 2.x example
 * files and UnitedHealthcare's real published test file (shared/data/tic), plus a tiny provider
 * registry written with the snapshot builder and carried over as the ingest's base. Expected
 * answers were read by hand from the JSON files:
 *   in-network-rates-all-negotiated-types-sample.json (Comprehensive Health Insurance, "Plan D PPO",
 *     sponsor "Comprehensive Employee Group"): group tin 12-3456789 ("Premier Medical Associates") npi [1234567890, 2345678901,
 *     3456789012]: 99214 negotiated 150.00; 97110 percentage 65; tin 34-5678901 npi [5678901234, …]:
 *     99285 institutional 2500.00 and professional percentage 75.5.
 *   uhc_services_test_file_3.json.gz (United HealthCare Services, Inc., schema 1.0.0, no plan
 *     fields): tin 261439695 npi [1033351119]: MS-DRG 0470 negotiated 18491.82; tin 430738490
 *     npi [1508935891, 1174577670, 1699002527]: MS-DRG 0216 per diem 6734.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runIngest } from '../../ingest/run-ingest.ts';
import { buildTestSnapshot } from '../helpers/snapshot-builder.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { createPricingPorts } from '../../engine/pricing/adapters/pricing-ports.ts';
import { networkStatus, type NetworkStatusInput } from '../../engine/pricing/network-status.ts';
import { NetworkStatusRequestSchema, NetworkStatusResponseSchema, type NetworkStatusResponse } from '../../engine/pricing/pricing.schema.ts';
import type { HandlerContext } from '../../engine/core/context.ts';

const TIC = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'tic');
const root = mkdtempSync(join(tmpdir(), 'netstat-tic-'));
let db: SnapshotDb;
let ctx: HandlerContext;

const prov = (npi: number, name: string, entity_type = 1) => ({ npi, name, entity_type, state: 'CA', city: 'Oakland', zip5: '94612', latitude: 37.8044, longitude: -122.2712, other_names: [] });

beforeAll(async () => {
  await buildTestSnapshot(join(root, 'snapshots', 'base'), {
    providers: [
      prov(1234567890, 'Example Clinician One, MD'), prov(5678901234, 'Example Hospital', 2),
      prov(1033351119, 'Example DRG Hospital', 2), prov(1508935891, 'Example Per Diem Facility', 2),
    ],
    zip_centroids: [{ zip5: '94612', latitude: 37.8044, longitude: -122.2712, state: 'CA' }],
  }, { id: 'base', synthetic: false });
  const ex = join(TIC, 'cms-examples-v2');
  const report = await runIngest({
    toc: [join(ex, 'table-of-contents-sample.json')],
    inNetwork: [...readdirSync(ex).filter((f) => f.startsWith('in-network')).map((f) => join(ex, f)), join(TIC, 'real', 'uhc_services_test_file_3.json.gz')],
    allowedAmounts: [], out: root, base: 'base', publish: false,
  });
  db = await SnapshotDb.openDir(report.snapshotDir!);
  ctx = {
    caller: { kind: 'anonymous', ip: '127.0.0.1' }, ports: { pricing: await createPricingPorts(db) } as unknown as HandlerContext['ports'],
    log: pino({ level: 'silent' }), requestId: 'tic', surface: 'pricing', urls: { baseUrl: 'http://x', pricingUrl: 'http://x' },
  };
}, 120_000);
afterAll(() => {
  db?.close();
  rmSync(root, { recursive: true, force: true });
});

async function ask(input: NetworkStatusInput): Promise<NetworkStatusResponse> {
  return NetworkStatusResponseSchema.parse(await networkStatus(NetworkStatusRequestSchema.parse(input), ctx));
}

test('CMS example plan by plan name: in network, 99214 at 150.00', async () => {
  const r = await ask({ npi: '1234567890', code: '99214', planHints: { payerName: 'Comprehensive Health Insurance', planName: 'Plan D PPO' } });
  expect(r.plan).toMatchObject({ payer: 'cms-example', matchTier: 'plan_name', sponsor: 'Comprehensive Employee Group' });
  expect(r.matches[0]).toMatchObject({ npi: 1234567890, inNetwork: true, networkEvidence: 1, rate: 150, billingOrg: 'Premier Medical Associates' });
  expect(r.matches[0]!.billingOutlook).toMatchObject({ mode: 'single', rate: 150 });
});

test('CMS example by employer; a percentage-only code has no dollar rate and says so', async () => {
  const r = await ask({ npi: '1234567890', code: '97110', planHints: { payerName: 'CMS example', employerName: 'Comprehensive Employee Group' } });
  expect(r.plan.matchTier).toBe('employer');
  expect(r.matches[0]).toMatchObject({ inNetwork: true, rate: null, rateRange: null });
  expect(r.matches[0]!.rateNote).toMatch(/percentage of billed charges \(65%\)/);
});

test('facility and professional arrangements for one code: facility_plus_professional, facility rate 2500', async () => {
  const r = await ask({ npi: '5678901234', code: '99285', planHints: { payerName: 'CMS example', planName: 'Plan D PPO' } });
  const m = r.matches[0]!;
  expect(m).toMatchObject({ inNetwork: true, rateRange: { min: 2500, max: 2500, median: 2500 }, setting: 'facility' });
  expect(m.billingOutlook!.mode).toBe('facility_plus_professional');
});

test('UnitedHealthcare real file without plan fields: payer-level, in network, DRG 470 range 18491.82', async () => {
  const r = await ask({ npi: '1033351119', code: '470', planHints: { payerName: 'UHC' } });
  expect(r.plan).toMatchObject({ payer: 'uhc', matchTier: 'payer' });
  expect(r.plan.coverageNote).toMatch(/not mapped to a plan/);
  expect(r.matches[0]).toMatchObject({ inNetwork: true, rate: null, rateRange: { min: 18491.82, max: 18491.82, median: 18491.82 } });
  // 1174577670 is listed by UHC but not in the registry snapshot: still answered from the file.
  const unregistered = await ask({ npi: '1174577670', code: '216', planHints: { payerName: 'UnitedHealthcare' } });
  expect(unregistered.matches[0]).toMatchObject({ entityType: 'unknown', inNetwork: true, rateRange: { min: 6734, max: 6734, median: 6734 } });
  const perDiem = await ask({ npi: '1508935891', code: '216', planHints: { payerName: 'United Healthcare' } });
  expect(perDiem.matches[0]!.rateRange).toEqual({ min: 6734, max: 6734, median: 6734 });
  expect(perDiem.matches[0]!.rateNote).toMatch(/dollars per day/);
});

test('not in the named payer’s files: inNetwork false (never a verdict), otherPayers names UHC', async () => {
  const r = await ask({ npi: '1033351119', planHints: { payerName: 'CMS example' } });
  expect(r.matches[0]).toMatchObject({ inNetwork: false, networkEvidence: 0 });
  expect(r.matches[0]!.otherPayers).toEqual([{ payer: 'uhc', payerLabel: 'UnitedHealthcare', inNetwork: true }]);
  expect(r.networkNote).toMatch(/not a verdict that they are out of network/);
});
