/**
 * Where a snapshot's tables live on disk, shared by the writers (ingest/) and the readers
 * (engine/pricing/adapters). See the layout comment in pricing-tables.ts.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TableDef } from './pricing-tables.ts';

export const CURRENT_POINTER = 'CURRENT';
export const SNAPSHOTS_DIR = 'snapshots';
export const STAGING_DIR = 'staging';
export const MANIFEST_FILE = 'manifest.json';
export const CATALOG_FILE = 'catalog.duckdb';

export function snapshotDir(root: string, id: string): string {
  return join(root, SNAPSHOTS_DIR, id);
}

export function tableDir(snapshot: string, table: TableDef | string): string {
  return join(snapshot, typeof table === 'string' ? table : table.name);
}

function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/**
 * DuckDB table expression reading one table of a snapshot. Hive partitions are typed from the
 * TableDef (not guessed), so `code_prefix='001'` stays a string.
 */
export function tableScanSql(snapshot: string, table: TableDef): string {
  const glob = join(tableDir(snapshot, table), '**', '*.parquet');
  if (!table.partitionBy?.length) return `read_parquet(${sqlString(glob)}, union_by_name = true)`;
  const types = table.partitionBy
    .map((p) => `${sqlString(p)}: ${table.columns.find((c) => c.name === p)?.type ?? 'VARCHAR'}`)
    .join(', ');
  return `read_parquet(${sqlString(glob)}, hive_partitioning = true, hive_types = {${types}}, union_by_name = true)`;
}

/** One Parquet file of a table (its schema is the table's), or null when none was written. */
export function firstParquet(snapshot: string, table: TableDef): string | null {
  const dir = tableDir(snapshot, table);
  if (!existsSync(dir)) return null;
  const f = readdirSync(dir, { recursive: true }).map(String).sort().find((x) => x.endsWith('.parquet'));
  return f === undefined ? null : join(dir, f);
}

/** SQL returning the column names of a Parquet file (one row each, column `column_name`). */
export function parquetColumnsSql(file: string): string {
  return `SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet(${sqlString(file)}))`;
}

/** The manifest written at the root of every snapshot. */
export interface SnapshotManifest {
  id: string;
  createdAt: string;
  status: 'staging' | 'complete';
  /** Row counts per table written. */
  tables: Record<string, { rows: number }>;
  /** Human description of the data's dates, e.g. "TiC 2025-06-01; NPPES 2025-06; MPFS 2026". */
  dataVintage: string;
  /** True when any table holds synthetic (demo) data; responses must say so in their basis. */
  synthetic: boolean;
  /** Free-form provenance per source family. */
  sources: Record<string, unknown>;
}
