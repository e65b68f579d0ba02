/**
 * The NPPES and reference loaders through the real snapshot table writer (DuckDB appender ->
 * Parquet), read back with DuckDB: every value lands in its contract type (dates as DATE, lists as
 * lists, the state partition), and no row is rejected.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableScanSql } from '../../schemas/snapshot-layout.ts';
import { PROVIDERS, LEIE, PROVIDER_LOCATIONS } from '../../schemas/pricing-tables.ts';
import { nppesTableSources } from '../../ingest/nppes/nppes.ts';
import { leieTableSource } from '../../ingest/reference/leie.ts';
import { writeTableSources } from '../../ingest/snapshot/table-writer.ts';
import { makeNppesFixtures, type NppesFixturePaths } from '../fixtures/nppes/make-fixtures.ts';

let dir: string;
let fx: NppesFixturePaths;
let inst: DuckDBInstance;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cb-nppes-snap-'));
  fx = makeNppesFixtures(join(dir, 'in'));
  inst = await DuckDBInstance.create(':memory:');
});
afterAll(() => {
  inst.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const con = await inst.connect();
  try {
    return (await con.runAndReadAll(sql)).getRowObjectsJson();
  } finally {
    con.closeSync();
  }
}

describe('NPPES and reference tables through the Parquet writer', () => {
  it('writes providers and locations with contract types and no rejected rows', async () => {
    const snap = join(dir, 'snap');
    const [providers, locations] = nppesTableSources({ main: fx.bundle, deactivations: fx.deactivations });
    const r1 = await writeTableSources(inst, [providers!], snap);
    const r2 = await writeTableSources(inst, [locations!], snap);
    expect(r1).toMatchObject({ table: 'providers', rows: 9, rejected: 0 });
    expect(r2).toMatchObject({ table: 'provider_locations', rows: 1, rejected: 0 });

    const rows = await query(`SELECT npi, name, other_names, state, typeof(deactivation_date) AS dt, deactivation_date, latitude
      FROM ${tableScanSql(snap, PROVIDERS)} ORDER BY npi`);
    const acme = rows.find((r) => r.npi === '1245319599');
    expect(acme).toMatchObject({ name: 'ACME HEALTH, INC.', other_names: ['ACME URGENT CARE', 'ACME WALK-IN CLINIC', 'ACME MEDICAL GROUP'], state: 'CA', latitude: 37.807709 });
    const deact = rows.find((r) => r.npi === '1003000134');
    expect(deact).toMatchObject({ name: null, state: 'XX', dt: 'DATE', deactivation_date: '2020-06-15' });
    const states = await query(`SELECT state, count(*)::INTEGER AS n FROM ${tableScanSql(snap, PROVIDERS)} GROUP BY state ORDER BY state`);
    expect(states).toEqual([{ state: 'CA', n: 5 }, { state: 'XX', n: 4 }]);
    const loc = await query(`SELECT npi, zip5 FROM ${tableScanSql(snap, PROVIDER_LOCATIONS)}`);
    expect(loc).toEqual([{ npi: '1234567893', zip5: '95113' }]);
  });

  it('writes the real LEIE excerpt with DATE columns', async () => {
    const snap = join(dir, 'snap2');
    const path = fileURLToPath(new URL('../../../shared/data/leie/UPDATED_csv_head_excerpt.csv', import.meta.url));
    const r = await writeTableSources(inst, [leieTableSource(path)], snap);
    expect(r).toMatchObject({ rows: 4, rejected: 0 });
    const rows = await query(`SELECT business_name, excl_date::VARCHAR AS d, typeof(excl_date) AS t, npi FROM ${tableScanSql(snap, LEIE)} ORDER BY excl_date`);
    expect(rows[0]).toEqual({ business_name: '14 LAWRENCE AVE PHARMACY', d: '1988-08-30', t: 'DATE', npi: null });
  });
});
