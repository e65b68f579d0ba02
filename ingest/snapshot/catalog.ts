/**
 * catalog.duckdb: a DuckDB database in the snapshot directory with one VIEW per table over the
 * snapshot's Parquet, by RELATIVE path, so the directory can be moved, copied or mounted anywhere
 * and still answers SQL:
 *
 *   cd $DATA_DIR/pricing/snapshots/<id> && duckdb catalog.duckdb -c "SELECT count(*) FROM rates"
 *   duckdb -cmd "SET file_search_path='/abs/snapshots/<id>'" /abs/snapshots/<id>/catalog.duckdb
 *
 * DuckDB resolves relative paths against the working directory or file_search_path at query time.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { ALL_TABLES, viewSql, type TableDef } from '../../schemas/pricing-tables.ts';
import { CATALOG_FILE, firstParquet, parquetColumnsSql } from '../../schemas/snapshot-layout.ts';
import { ident, lit } from './duck.ts';

/** The stored columns of each table of a snapshot (null: no Parquet), read from one file's schema. */
export async function storedColumns(con: DuckDBConnection, snapshot: string): Promise<(t: TableDef) => readonly string[] | null> {
  const m = new Map<TableDef, string[]>();
  for (const t of ALL_TABLES) {
    const f = firstParquet(snapshot, t);
    if (f) m.set(t, (await con.runAndReadAll(parquetColumnsSql(f))).getRows().map((r) => String(r[0])));
  }
  return (t) => m.get(t) ?? null;
}

/** A typed, empty SELECT of a table (a table with no rows has no Parquet to read). */
export function emptySelect(t: TableDef): string {
  return `SELECT ${t.columns.map((c) => `CAST(NULL AS ${c.type}) AS ${ident(c.name)}`).join(', ')} WHERE false`;
}

/** A table's Parquet, by a path relative to the snapshot directory. */
function relativeScan(t: TableDef): string {
  const glob = lit(`${t.name}/**/*.parquet`);
  if (!t.partitionBy?.length) return `read_parquet(${glob}, union_by_name = true)`;
  const types = t.partitionBy.map((p) => `${lit(p)}: ${t.columns.find((c) => c.name === p)?.type ?? 'VARCHAR'}`).join(', ');
  return `read_parquet(${glob}, hive_partitioning = true, hive_types = {${types}}, union_by_name = true)`;
}

/** (Re)writes `snapshot/catalog.duckdb` with one view per table of schemas/pricing-tables.ts. */
export async function writeCatalog(snapshot: string): Promise<void> {
  const file = join(snapshot, CATALOG_FILE);
  rmSync(file, { force: true });
  rmSync(`${file}.wal`, { force: true });
  const inst = await DuckDBInstance.create(file, { threads: '1', file_search_path: snapshot });
  const con = await inst.connect();
  try {
    // A view per table; rates and group_members join their numbers back (schemas/pricing-tables.ts viewSql).
    const columns = await storedColumns(con, snapshot);
    const stored = (t: TableDef): string => (columns(t) ? relativeScan(t) : `(${emptySelect(t)})`);
    for (const t of ALL_TABLES) await con.run(`CREATE VIEW ${ident(t.name)} AS ${viewSql(t, stored, columns)}`);
    await con.run('CHECKPOINT');
  } finally {
    con.closeSync();
    inst.closeSync();
  }
}
