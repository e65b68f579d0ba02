/**
 * numeric-parquet.ts: the Parquet files it writes read back in DuckDB with exactly the values and
 * order written (several row groups, more of them in flight than are compressed off the thread),
 * an empty file reads as zero typed rows, and a failed file is removed; columns stored uncompressed
 * (`plain`) beside zstd ones read back the same in DuckDB and in readNumericParquet.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { NumericParquetWriter, isNumericParquet, readNumericParquet } from '../../ingest/snapshot/numeric-parquet.ts';
import { lit } from '../../ingest/snapshot/duck.ts';

const root = mkdtempSync(join(tmpdir(), 'numeric-parquet-'));
let inst: DuckDBInstance;
let con: DuckDBConnection;

beforeAll(async () => {
  inst = await DuckDBInstance.create(':memory:');
  con = await inst.connect();
});

afterAll(() => {
  con?.closeSync();
  inst?.closeSync();
  rmSync(root, { recursive: true, force: true });
});

const COLUMNS = [{ name: 'a', type: 'INT32' }, { name: 'x', type: 'DOUBLE' }, { name: 'b', type: 'INT32' }] as const;

/** Deterministic values: negative and large ints, fractions, NPIs above 2^31. */
const valueA = (k: number): number => (k % 7 === 0 ? -k : k * 1009) | 0;
const valueX = (k: number): number => (k % 3 === 0 ? 1_999_999_999 + k : k / 8 - 0.1);
const valueB = (k: number): number => 2_147_483_647 - k;

test('rows read back in order with their types, over many row groups written in and off the thread', async () => {
  const path = join(root, 'many.parquet');
  const w = new NumericParquetWriter(path, COLUMNS, 1000);
  const n = 23_456; // 24 row groups, the last one partial
  for (let k = 0; k < n; k++) {
    const i = w.next();
    w.cols[0]![i] = valueA(k); w.cols[1]![i] = valueX(k); w.cols[2]![i] = valueB(k);
  }
  expect(await w.close()).toBe(n);
  const types = (await con.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${lit(path)}))`)).getRows();
  expect(types).toEqual([['a', 'INTEGER'], ['x', 'DOUBLE'], ['b', 'INTEGER']]);
  const meta = (await con.runAndReadAll(`SELECT count(DISTINCT row_group_id), any_value(compression) FROM parquet_metadata(${lit(path)})`)).getRows();
  expect(meta).toEqual([[24n, 'ZSTD']]);
  const rows = (await con.runAndReadAll(`SELECT a, x, b FROM read_parquet(${lit(path)}, file_row_number = true) ORDER BY file_row_number`)).getRows();
  expect(rows.length).toBe(n);
  const bad = rows.findIndex((r, k) => r[0] !== valueA(k) || r[1] !== valueX(k) || r[2] !== valueB(k));
  expect(bad).toBe(-1);
});

test('plain columns are stored uncompressed beside zstd ones and read back the same, in DuckDB and in JS', async () => {
  const plain = [{ name: 'a', type: 'INT32' }, { name: 'x', type: 'DOUBLE', plain: true }, { name: 'b', type: 'INT32', plain: true }] as const;
  const n = 5_500;
  for (const inline of [false, true]) {
    const path = join(root, `plain-${inline}.parquet`);
    const w = new NumericParquetWriter(path, plain, 1000, inline);
    for (let k = 0; k < n; k++) {
      const i = w.next();
      w.cols[0]![i] = valueA(k); w.cols[1]![i] = valueX(k); w.cols[2]![i] = valueB(k);
    }
    expect(await w.close()).toBe(n);
    const meta = (await con.runAndReadAll(`SELECT DISTINCT path_in_schema, compression FROM parquet_metadata(${lit(path)}) ORDER BY 1`)).getRows();
    expect(meta).toEqual([['a', 'ZSTD'], ['b', 'UNCOMPRESSED'], ['x', 'UNCOMPRESSED']]);
    const rows = (await con.runAndReadAll(`SELECT a, x, b FROM read_parquet(${lit(path)}, file_row_number = true) ORDER BY file_row_number`)).getRows();
    expect(rows.length).toBe(n);
    expect(rows.findIndex((r, k) => r[0] !== valueA(k) || r[1] !== valueX(k) || r[2] !== valueB(k))).toBe(-1);
    // Read in JS with either column list: the codec is each chunk's own (staged files of either kind read alike).
    for (const cols of [plain, COLUMNS]) {
      expect(isNumericParquet(path, cols)).toBe(true);
      const got: number[][] = [];
      for (const g of readNumericParquet(path, cols)) {
        expect(g.cols.map((c) => c.constructor.name)).toEqual(['Int32Array', 'Float64Array', 'Int32Array']);
        for (let i = 0; i < g.rows; i++) got.push([g.cols[0]![i]!, g.cols[1]![i]!, g.cols[2]![i]!]);
      }
      expect(got.length).toBe(n);
      expect(got.findIndex((r, k) => r[0] !== valueA(k) || r[1] !== valueX(k) || r[2] !== valueB(k))).toBe(-1);
    }
  }
});

test('an empty file has the columns and no rows', async () => {
  const path = join(root, 'empty.parquet');
  const w = new NumericParquetWriter(path, COLUMNS);
  expect(await w.close()).toBe(0);
  expect((await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${lit(path)})`)).getRows()).toEqual([[0n]]);
  expect((await con.runAndReadAll(`SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet(${lit(path)}))`)).getRows().flat()).toEqual(['a', 'x', 'b']);
});

test('abort removes a file being written; a closed file stays', async () => {
  const open = join(root, 'aborted.parquet');
  const w = new NumericParquetWriter(open, COLUMNS, 10);
  for (let k = 0; k < 55; k++) w.cols[0]![w.next()] = k;
  await w.abort();
  expect(existsSync(open)).toBe(false);
  const done = join(root, 'closed.parquet');
  const c = new NumericParquetWriter(done, COLUMNS, 10);
  c.cols[0]![c.next()] = 1;
  await c.close();
  await c.abort();
  expect((await con.runAndReadAll(`SELECT a FROM read_parquet(${lit(done)})`)).getRows()).toEqual([[1]]);
});

test('a writer after a closed or aborted one reuses its arrays and writes only its own rows', async () => {
  const fill = (w: NumericParquetWriter, n: number, from: number): void => {
    for (let k = from; k < from + n; k++) {
      const i = w.next();
      w.cols[0]![i] = valueA(k); w.cols[1]![i] = valueX(k); w.cols[2]![i] = valueB(k);
    }
  };
  const first = new NumericParquetWriter(join(root, 'reuse-1.parquet'), COLUMNS, 500);
  fill(first, 1200, 0);
  const firstCols = first.cols;
  await first.close();
  const failed = new NumericParquetWriter(join(root, 'reuse-2.parquet'), COLUMNS, 500);
  fill(failed, 300, 5000);
  await failed.abort();
  const path = join(root, 'reuse-3.parquet');
  const w = new NumericParquetWriter(path, COLUMNS, 500);
  expect(w.cols.some((a) => firstCols.includes(a))).toBe(true); // pooled, so stale values sit in them
  fill(w, 37, 100);
  expect(await w.close()).toBe(37);
  const rows = (await con.runAndReadAll(`SELECT a, x, b FROM read_parquet(${lit(path)}, file_row_number = true) ORDER BY file_row_number`)).getRows();
  expect(rows).toEqual(Array.from({ length: 37 }, (_, k) => [valueA(k + 100), valueX(k + 100), valueB(k + 100)]));
});
