/**
 * A provider group of 1.2 M NPIs (staged as one row per NPI, several Parquet row groups; one list value
 * of provider_groups): its NPIs must arrive whole, once, in provider_groups and group_members.
 */
import { afterAll, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDuck } from '../../ingest/snapshot/duck.ts';
import { TicFileWriter } from '../../ingest/snapshot/tic-file-writer.ts';
import { assembleSnapshot } from '../../ingest/snapshot/assemble.ts';
import { fileKey } from '../../ingest/snapshot/keys.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';

const root = mkdtempSync(join(tmpdir(), 'biggroup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test('a 1.2 M-NPI group and its neighbours are stored whole', async () => {
  const duck = await openDuck({ tempDir: join(root, 'tmp'), memoryLimit: '256MB' });
  const files = join(root, 'staging', 'files');
  const w = await TicFileWriter.create(duck, { src: '/data/big.json', dir: join(files, fileKey('/data/big.json')) });
  const big = Array.from({ length: 1_200_000 }, (_, i) => 1_000_000_000 + i * 7); // NPIs as written (unsorted below)
  big.reverse();
  w.providerReference({ refId: '1', groups: [{ tinType: 'ein', tinValue: '11-1111111', businessName: null, npis: [1999999999, 1999999998], networkNames: [] }], networkNames: [], location: null });
  w.providerReference({ refId: '2', groups: [{ tinType: 'ein', tinValue: '22-2222222', businessName: null, npis: big, networkNames: [] }], networkNames: [], location: null });
  w.providerReference({ refId: '3', groups: [{ tinType: 'ein', tinValue: '33-3333333', businessName: null, npis: [1999999997], networkNames: [] }], networkNames: [], location: null });
  w.rate({ billingCodeType: 'CPT', billingCode: '99213', billingCodeTypeVersion: '2025', name: 'visit', negotiationArrangement: 'ffs', refIds: ['1', '2', '3'], inlineGroups: [],
    prices: [{ negotiatedType: 'negotiated', negotiatedRate: 90, expirationDate: null, serviceCode: null, billingClass: 'professional', setting: null, billingCodeModifier: null, additionalInformation: null }] });
  w.header({ kind: 'in-network', reportingEntityName: 'Acme', reportingEntityType: 'issuer', planName: null, planIdType: null, planId: null, planMarketType: null, planSponsorName: null, issuerName: null, lastUpdatedOn: '2025-01-01', version: '2.0.0' });
  await w.finish();
  await assembleSnapshot(duck, { root, id: 'big', workDir: join(root, 'staging', 'out'), ticFilesDir: files, families: ['tic'], dataVintage: 'test', sources: {}, report: {} });
  duck.closeSync();
  const db = await SnapshotDb.openDir(join(root, 'snapshots', 'big'));
  try {
    const groups = await db.query<{ tin_value: string; n: number; lo: number; hi: number }>(
      'SELECT tin_value, len(npis)::INT AS n, list_min(npis) AS lo, list_max(npis) AS hi FROM provider_groups ORDER BY tin_value');
    expect(groups).toEqual([
      { tin_value: '11-1111111', n: 2, lo: 1999999998, hi: 1999999999 },
      { tin_value: '22-2222222', n: 1_200_000, lo: 1_000_000_000, hi: 1_000_000_000 + 1_199_999 * 7 },
      { tin_value: '33-3333333', n: 1, lo: 1999999997, hi: 1999999997 },
    ]);
    expect(await db.query('SELECT count(*)::INT AS n, count(DISTINCT npi)::INT AS d FROM group_members')).toEqual([{ n: 1_200_003, d: 1_200_003 }]);
    // Each NPI sits in the bucket the engine looks in.
    expect(await db.query('SELECT count(*)::INT AS n FROM group_members WHERE npi_bucket <> npi % 64')).toEqual([{ n: 0 }]);
    expect(await db.query('SELECT count(*)::INT AS n FROM group_sets')).toEqual([{ n: 3 }]);
  } finally {
    db.close();
  }
}, 120_000);
