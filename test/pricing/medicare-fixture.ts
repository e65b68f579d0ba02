/**
 * A real snapshot built from the repo's Medicare files and catalog through the real loaders
 * (ingest/reference), materialised with test/helpers/snapshot-builder.ts. Shared by the
 * Medicare and evidence tests so the whole path (fixed-width files -> rows -> Parquet -> DuckDB
 * views -> reference adapter -> engine) is exercised.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogTableSources } from '../../ingest/reference/catalog.ts';
import { medicareTableSources } from '../../ingest/reference/medicare/index.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { buildTestSnapshot, type Row } from '../helpers/snapshot-builder.ts';

/**
 * Which loader rows to materialise. Writing all 62k RVU and ZIP rows through the builder's SQL
 * literals takes ~20 s on these machines, so tests keep the rows they query (every row still
 * comes from the real loader over the real file); the loader tests count the full files.
 */
export interface RowFilter {
  zip5?: (zip5: string) => boolean;
  hcpcs?: (code: string) => boolean;
}

/** ZIPs in California, Manhattan and Birmingham AL: the localities the tests price. */
export const TEST_ZIPS = (z: string): boolean => /^(9[0-6]|100|352)/.test(z);

/** Rows of every Medicare and catalog table from the real loaders, filtered by `filter`. */
export async function referenceRows(filter: RowFilter = {}): Promise<Record<string, Row[]>> {
  const tables: Record<string, Row[]> = {};
  for (const s of [...medicareTableSources(), ...catalogTableSources()]) {
    const rows: Row[] = [];
    for await (const r of s.rows()) {
      if (filter.zip5 && s.table.name === 'zip_localities' && !filter.zip5(String(r.zip5))) continue;
      if (filter.hcpcs && s.table.name === 'mpfs_rvu' && !filter.hcpcs(String(r.hcpcs))) continue;
      rows.push(r);
    }
    tables[s.table.name] = rows;
  }
  return tables;
}

export interface BuiltSnapshot {
  db: SnapshotDb;
  dir: string;
  close(): void;
}

/** Builds a temp snapshot from the real reference rows plus `extra` tables, and opens it. */
export async function buildReferenceSnapshot(extra: Record<string, Row[]> = {}, filter: RowFilter = {}): Promise<BuiltSnapshot> {
  const dir = mkdtempSync(join(tmpdir(), 'h6-ref-'));
  await buildTestSnapshot(dir, { ...(await referenceRows(filter)), ...extra }, { id: 'ref', dataVintage: 'MPFS 2026 (RVU26B); test', synthetic: false });
  const db = await SnapshotDb.openDir(dir, 2);
  return { db, dir, close: () => { db.close(); rmSync(dir, { recursive: true, force: true }); } };
}
