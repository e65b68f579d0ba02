/**
 * Writes snapshot tables as Parquet through DuckDB, in the layout of schemas/snapshot-layout.ts:
 * `<table>/k=v/…/data_N.parquet` for a partitioned TableDef (PARTITION_BY), else
 * `<table>/data_0.parquet` (`data_<i>.parquet`, one per key range, when written in ranges), rows
 * sorted by the TableDef's sortBy so row-group min/max statistics prune lookups, zstd compressed. Two entry points: a SQL SELECT (TiC finalize, merge) and a
 * TableSource (NPPES and reference loaders), appended through a DuckDB Appender, never row INSERTs.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIGINT, DOUBLE, INTEGER, LIST, VARCHAR,
  type DuckDBAppender, type DuckDBConnection, type DuckDBInstance, type DuckDBType,
} from '@duckdb/node-api';
import { rowGroupSize, type ColumnDef, type DuckType, type TableDef } from '../../schemas/pricing-tables.ts';
import { tableDir } from '../../schemas/snapshot-layout.ts';
import type { TableSource } from '../table-source.ts';
import { ZSTD, ident, lit } from './duck.ts';

// Row group sizes: pricing-tables.ts rowGroupSize (imported by finalize's writer threads, which load no DuckDB).
export { rowGroupSize } from '../../schemas/pricing-tables.ts';

/** Partitions written per COPY statement (see copySelectToTable). */
const PARTITIONS_PER_COPY = 128;

/**
 * COPYs `select` (which must yield the table's columns by name) into the snapshot's table
 * directory, replacing what was there. Returns the number of rows written.
 *
 * Partitioned tables are written in batches of at most PARTITIONS_PER_COPY partitions: DuckDB's
 * PARTITION_BY keeps a buffer per open partition: rates with a 3-character code_prefix had 1,963
 * partitions on a real payer file (HealthSCOPE), which ran out of a 512 MB memory_limit in one COPY
 * (measured), while batches stay bounded whatever the partition count (rates itself is written by
 * tic-finalize.ts in batches of its own; this path serves the other partitioned tables).
 * A partition smaller than partitioned_write_flush_threshold stays buffered until the COPY ends, so
 * the threshold is lowered too (openDuck): at most PARTITIONS_PER_COPY x 8,192 rows are buffered.
 *
 * `ranges` (unpartitioned tables only): SQL conditions on the select's columns that split its rows
 * into consecutive ranges of the sort order, each COPYed on its own into `data_<i>.parquet`. A
 * DISTINCT or GROUP BY over millions of rows outgrows a 256 MB memory_limit (DuckDB's hash
 * aggregate does not spill its way out of it: tic-finalize.ts keyRanges), one range at a time does not.
 */
export async function copySelectToTable(con: DuckDBConnection, t: TableDef, select: string, snapshot: string, ranges?: readonly string[]): Promise<number> {
  const out = tableDir(snapshot, t);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const cols = t.columns.map((c) => `CAST(${ident(c.name)} AS ${c.type}) AS ${ident(c.name)}`).join(', ');
  const opts = `FORMAT parquet, ${ZSTD}, ROW_GROUP_SIZE ${rowGroupSize(t)}`;
  // Partition columns first: each partition's rows then reach the writer together (ORDER BY npi
  // alone scattered group_members over 64 partitions: 6x slower, measured), and inside a partition
  // (constant partition values) the order is exactly sortBy.
  const sortCols = [...(t.partitionBy ?? []), ...(t.sortBy ?? [])];
  const order = t.sortBy?.length ? ` ORDER BY ${sortCols.map(ident).join(', ')}` : '';
  const fail = (err: unknown): never => {
    throw new Error(`writing table ${t.name}: ${(err as Error).message}`, { cause: err });
  };
  if (!t.partitionBy?.length) {
    try {
      // One file per range, named so that their names sort in range order.
      const parts = ranges?.length ? ranges : ['true'];
      const width = String(parts.length - 1).length;
      let rows = 0;
      for (const [i, where] of parts.entries()) {
        const file = lit(join(out, `data_${String(i).padStart(width, '0')}.parquet`));
        const r = await con.runAndReadAll(`COPY (SELECT ${cols} FROM (${select}) WHERE ${where}${order}) TO ${file} (${opts})`);
        rows += Number(r.getRows()[0]?.[0] ?? 0);
      }
      return rows;
    } catch (err) {
      return fail(err);
    }
  }
  if (ranges?.length) throw new Error(`writing table ${t.name}: ranges are for unpartitioned tables`);
  const parts = t.partitionBy.map(ident);
  const u = `__w_${t.name}_${Math.random().toString(36).slice(2, 8)}`;
  const k = `${u}_k`;
  try {
    await con.run(`CREATE TABLE ${u} AS SELECT ${cols} FROM (${select})`);
    await con.run(`CREATE TABLE ${k} AS SELECT ${parts.join(', ')}, (row_number() OVER (ORDER BY ${parts.join(', ')}) - 1) // ${PARTITIONS_PER_COPY} AS __b
      FROM (SELECT DISTINCT ${parts.join(', ')} FROM ${u})`);
    const batches = Number((await con.runAndReadAll(`SELECT coalesce(max(__b) + 1, 0) FROM ${k}`)).getRows()[0]?.[0] ?? 0);
    let rows = 0;
    for (let b = 0; b < batches; b++) {
      rows += await copyPartitionBatch(con, t, `SELECT u.* FROM ${u} u SEMI JOIN (SELECT * FROM ${k} WHERE __b = ${b}) k USING (${parts.join(', ')})`, snapshot, b);
    }
    return rows;
  } catch (err) {
    return fail(err);
  } finally {
    await con.run(`DROP TABLE IF EXISTS ${u}`);
    await con.run(`DROP TABLE IF EXISTS ${k}`);
  }
}

/**
 * Writes one batch of a partitioned table (rows of a disjoint set of partitions) next to what is
 * already in the table directory: files are named data_<batch>_<i>.parquet. Returns rows written.
 */
export async function copyPartitionBatch(con: DuckDBConnection, t: TableDef, select: string, snapshot: string, batch: number): Promise<number> {
  const out = tableDir(snapshot, t);
  mkdirSync(out, { recursive: true });
  const parts = (t.partitionBy ?? []).map(ident);
  const cols = t.columns.map((c) => `CAST(${ident(c.name)} AS ${c.type}) AS ${ident(c.name)}`).join(', ');
  const order = [...(t.partitionBy ?? []), ...(t.sortBy ?? [])].map(ident).join(', ');
  const r = await con.runAndReadAll(`COPY (SELECT ${cols} FROM (${select}) ORDER BY ${order})
    TO ${lit(out)} (FORMAT parquet, ${ZSTD}, ROW_GROUP_SIZE ${rowGroupSize(t)}, PARTITION_BY (${parts.join(', ')}), OVERWRITE_OR_IGNORE, FILENAME_PATTERN 'data_${batch}_{i}')`);
  return Number(r.getRows()[0]?.[0] ?? 0);
}

/** How a staged column is appended (dates staged as text and cast by DuckDB at COPY). */
function stageType(type: DuckType): string {
  return type === 'DATE' || type === 'TIMESTAMP' ? 'VARCHAR' : type;
}

const LIST_TYPES: Partial<Record<DuckType, DuckDBType>> = {
  'VARCHAR[]': LIST(VARCHAR), 'BIGINT[]': LIST(BIGINT), 'INTEGER[]': LIST(INTEGER), 'DOUBLE[]': LIST(DOUBLE),
};

function toBigInt(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  return BigInt(str(v).trim());
}

/** Text form of a value: objects as JSON (never "[object Object]"). */
const str = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

type Cell = null | string | bigint | number | boolean | (string | bigint | number | null)[];

/** Converts one value to its column's type; throws on a value that does not fit (row rejected). */
function convertCell(c: ColumnDef, v: unknown): Cell {
  if (v === null || v === undefined || (typeof v === 'number' && !Number.isFinite(v))) return null;
  switch (c.type) {
    case 'VARCHAR': case 'DATE': case 'TIMESTAMP':
      return v instanceof Date ? v.toISOString() : str(v);
    case 'BIGINT': return toBigInt(v);
    case 'INTEGER': case 'SMALLINT': case 'DOUBLE': {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new Error(`${c.name}: ${JSON.stringify(v)} is not a number`);
      return n;
    }
    case 'BOOLEAN': return Boolean(v);
    case 'VARCHAR[]': case 'BIGINT[]': case 'INTEGER[]': case 'DOUBLE[]': {
      const arr: unknown[] = Array.isArray(v) ? v : [v];
      return arr.map((x) => (x === null || x === undefined ? null
        : c.type === 'VARCHAR[]' ? str(x) : c.type === 'BIGINT[]' ? toBigInt(x) : Number(x)));
    }
  }
}

function appendCell(ap: DuckDBAppender, c: ColumnDef, v: Cell): void {
  if (v === null) { ap.appendNull(); return; }
  switch (c.type) {
    case 'VARCHAR': case 'DATE': case 'TIMESTAMP': ap.appendVarchar(v as string); return;
    case 'BIGINT': ap.appendBigInt(v as bigint); return;
    case 'INTEGER': ap.appendInteger(v as number); return;
    case 'SMALLINT': ap.appendSmallInt(v as number); return;
    case 'DOUBLE': ap.appendDouble(v as number); return;
    case 'BOOLEAN': ap.appendBoolean(v as boolean); return;
    case 'VARCHAR[]': case 'BIGINT[]': case 'INTEGER[]': case 'DOUBLE[]':
      ap.appendList(v as (string | bigint | number | null)[], LIST_TYPES[c.type] as never); return;
  }
}

export interface TableSourceResult {
  table: string;
  rows: number;
  /** Rows refused by the writer (a value of the wrong type for its column), with the first reasons. */
  rejected: number;
  rejectedExamples: string[];
}

/**
 * Streams a loader's rows into `snapshot/<table>/`. A row whose value cannot be converted to its
 * column type is rejected and counted (never a crash); the loader's own warnings stay in
 * `src.warnings`. Several sources for one table are appended together (`sources` share the table).
 */
export async function writeTableSources(instance: DuckDBInstance, sources: TableSource[], snapshot: string): Promise<TableSourceResult> {
  const t = sources[0]!.table;
  const con = await instance.connect();
  const stage = `stage_${t.name}_${Math.random().toString(36).slice(2, 8)}`;
  try {
    await con.run(`CREATE TABLE ${stage} (${t.columns.map((c) => `${ident(c.name)} ${stageType(c.type)}`).join(', ')})`);
    const ap = await con.createAppender(stage);
    let rejected = 0;
    const examples: string[] = [];
    const cells: Cell[] = new Array<Cell>(t.columns.length);
    for (const src of sources) {
      for await (const row of src.rows()) {
        try {
          // Convert the whole row first: a half-appended row would poison the appender.
          for (let i = 0; i < t.columns.length; i++) cells[i] = convertCell(t.columns[i]!, row[t.columns[i]!.name]);
        } catch (err) {
          rejected++;
          if (examples.length < 3) examples.push(`${(err as Error).message}: ${JSON.stringify(row, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x)).slice(0, 200)}`);
          continue;
        }
        for (let i = 0; i < t.columns.length; i++) appendCell(ap, t.columns[i]!, cells[i]!);
        ap.endRow();
      }
    }
    ap.closeSync();
    const rows = await copySelectToTable(con, t, `SELECT * FROM ${stage}`, snapshot);
    await con.run(`DROP TABLE ${stage}`);
    return { table: t.name, rows, rejected, rejectedExamples: examples };
  } finally {
    con.closeSync();
  }
}
