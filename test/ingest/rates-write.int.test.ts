/**
 * The pieces finalize's writer threads stand on, each read back by DuckDB (or an independent
 * decoder) and compared with an expectation computed here: the RLE/bit-packing hybrid,
 * DELTA_BINARY_PACKED, the Parquet writer's dictionary-encoded, delta-packed, double and
 * statistics-bearing columns, RatesSink (its sort, repeats and file lists,
 * items, partitions, row groups) and the writer threads (sink-worker.ts), including their errors.
 * End to end through DuckDB's staging: rates-finalize.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { lit, openDuck } from '../../ingest/snapshot/duck.ts';
import { Bytes, ParquetWriter, encodeDelta, encodeHybrid, type ParquetColumn } from '../../ingest/snapshot/parquet-write.ts';
import { BATCH_ROWS, ITEM_STRINGS, RatesSink, transferOf, type RatePartition, type RatesBatch, type RatesInit, type RatesResult, type RowBatch } from '../../ingest/snapshot/rates-write.ts';
import { SinkWorker, type FromSink, type ToSink } from '../../ingest/snapshot/sink-worker.ts';
import { Worker } from 'node:worker_threads';
import { RATES, rowGroupSize } from '../../schemas/pricing-tables.ts';
import { mulberry32 } from '../../ingest/demo/prng.ts';

const root = mkdtempSync(join(tmpdir(), 'rateswrite-'));
let duck: DuckDBInstance;
let con: DuckDBConnection;

beforeAll(async () => {
  duck = await openDuck({ tempDir: join(root, 'tmp') });
  con = await duck.connect();
});

afterAll(() => {
  con.closeSync();
  duck.closeSync();
  rmSync(root, { recursive: true, force: true });
});

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  return (await con.runAndReadAll(sql)).getRowObjectsJson();
}

/** Parquet's RLE/bit-packing hybrid read bit by bit (the format's definition, nothing shared with the encoder). */
function decodeHybrid(buf: Uint8Array, width: number, n: number): number[] {
  const out: number[] = [];
  let p = 0;
  const varint = (): number => {
    let v = 0, mul = 1, b: number;
    do { b = buf[p++]!; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
    return v;
  };
  while (out.length < n) {
    const h = varint();
    if (h % 2 === 0) {
      let v = 0;
      for (let k = 0; k < Math.ceil(width / 8); k++) v += buf[p++]! * 256 ** k;
      for (let k = 0; k < h / 2; k++) out.push(v);
    } else {
      const count = ((h - 1) / 2) * 8;
      const bit0 = p * 8;
      for (let k = 0; k < count; k++) {
        let v = 0;
        for (let j = 0; j < width; j++) {
          const bit = bit0 + k * width + j;
          if ((buf[bit >> 3]! >> (bit & 7)) & 1) v += 2 ** j;
        }
        out.push(v);
      }
      p += (count * width) / 8;
    }
  }
  expect(p).toBe(buf.length); // nothing left over
  return out.slice(0, n);
}

describe('encodeHybrid', () => {
  test('round-trips runs, noise, runs of exactly 7 and 8, at every width up to 24', () => {
    const rnd = mulberry32(7);
    for (let width = 1; width <= 24; width++) {
      for (let trial = 0; trial < 20; trial++) {
        const values: number[] = [];
        const n = Math.floor(rnd() * 300);
        while (values.length < n) {
          const v = Math.floor(rnd() * 2 ** width);
          const len = [1, 2, 7, 8, 9, 30][Math.floor(rnd() * 6)]!;
          for (let k = 0; k < len && values.length < n; k++) values.push(rnd() < 0.7 ? v : Math.floor(rnd() * 2 ** width));
        }
        const out = new Bytes();
        encodeHybrid(out, Int32Array.from(values), values.length, width);
        expect(decodeHybrid(out.take(), width, values.length)).toEqual(values);
      }
    }
    expect(() => encodeHybrid(new Bytes(), new Int32Array(1), 1, 25)).toThrow(/bit width 25/);
  });
});

/** DELTA_BINARY_PACKED read by the format's definition (independent of the encoder). */
function decodeDelta(buf: Uint8Array): number[] {
  let p = 0;
  const varint = (): number => {
    let v = 0, mul = 1, b: number;
    do { b = buf[p++]!; v += (b & 0x7f) * mul; mul *= 128; } while (b & 0x80);
    return v;
  };
  const unzigzag = (z: number): number => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
  const block = varint(), minis = varint(), total = varint();
  let value = unzigzag(varint());
  const out = total > 0 ? [value] : [];
  while (out.length < total) {
    const min = unzigzag(varint());
    const widths = Array.from({ length: minis }, () => buf[p++]!);
    for (const width of widths) {
      if (out.length >= total) break;
      const bit0 = p * 8;
      for (let k = 0; k < block / minis; k++) {
        let x = 0;
        for (let j = 0; j < width; j++) {
          const bit = bit0 + k * width + j;
          if ((buf[bit >> 3]! >> (bit & 7)) & 1) x += 2 ** j;
        }
        value += min + x;
        if (out.length < total) out.push(value);
      }
      p += (width * block) / minis / 8;
    }
  }
  expect(p).toBe(buf.length);
  return out;
}

describe('encodeDelta', () => {
  test('round-trips ascending, random, negative and wide (past 24 and 32 bits) values of any count', () => {
    const rnd = mulberry32(11);
    const shapes: ((i: number, prev: number) => number)[] = [
      (_, prev) => prev + Math.floor(rnd() * 6000) * 64, // a bucket's NPIs
      () => Math.floor(rnd() * 134_000) + 1, // group numbers
      () => Math.floor(rnd() * 2 ** 32) - 2 ** 31, // any int32
      (i) => (i % 150 === 0 ? 1e9 : 0) + Math.floor(rnd() * 9e9), // lists of NPIs, up to 2^33
      () => 7, // constant: zero widths
      ...[20, 25, 28, 31, 32].map((b) => () => Math.floor(rnd() * 2 ** b)), // every bit-packing path (<= 32 bits, wider) at widths that straddle words
    ];
    for (const [s, shape] of shapes.entries()) {
      for (const n of [0, 1, 2, 31, 32, 33, 128, 129, 130, 1000, 5000]) {
        const values: number[] = [];
        for (let i = 0; i < n; i++) values.push(shape(i, values[i - 1] ?? 1e9));
        const out = new Bytes();
        encodeDelta(out, Float64Array.from(values), n);
        expect(decodeDelta(out.take()), `shape ${s}, ${n} values`).toEqual(values);
      }
    }
  });

  test('delta-packed int32, int64 and int64-list columns read back by DuckDB as written', async () => {
    const path = join(root, 'delta.parquet');
    const w = new ParquetWriter(path, [
      { name: 'i', kind: 'int32', delta: true }, { name: 'n', kind: 'int64', delta: true, stats: true }, { name: 'l', kind: 'int64-list', delta: true },
    ], undefined, true);
    const rnd = mulberry32(5);
    const want: Record<string, unknown>[] = [];
    let npi = 1_000_000_000;
    for (let r = 0; r < 3000; r++) {
      const i = Math.floor(rnd() * 2 ** 20) - 2 ** 19;
      npi += Math.floor(rnd() * 200) * 64;
      const list = Array.from({ length: Math.floor(rnd() * 4) }, () => 1_000_000_000 + Math.floor(rnd() * 8e9)).sort((a, b) => a - b);
      w.cols[0]!.int32(i); w.cols[1]!.int64(npi); w.cols[2]!.int64ListU32(new Uint32Array(0), 0, 0);
      w.endRow();
      want.push({ i, n: String(npi), l: [] });
      if (list.length) {
        // a second row with a list, given as (low, high) word pairs
        const words = new Uint32Array(list.flatMap((v) => [v >>> 0, Math.floor(v / 2 ** 32)]));
        w.cols[0]!.int32(-i); w.cols[1]!.int64(npi); w.cols[2]!.int64ListWords(words, 0, words.length);
        w.endRow();
        want.push({ i: -i, n: String(npi), l: list.map(String) });
      }
      if (r % 1000 === 999) await w.writeRowGroup();
    }
    await w.close();
    expect(await rows(`SELECT i, n, l FROM read_parquet(${lit(path)}, file_row_number = true) ORDER BY file_row_number`)).toEqual(want);
    const meta = await rows(`SELECT DISTINCT path_in_schema, encodings, compression FROM parquet_metadata(${lit(path)}) ORDER BY 1`);
    expect(meta.map((m) => `${String(m.path_in_schema)} ${String(m.encodings)} ${String(m.compression)}`))
      .toEqual(['i RLE, DELTA_BINARY_PACKED UNCOMPRESSED', 'l, list, element RLE, DELTA_BINARY_PACKED UNCOMPRESSED', 'n RLE, DELTA_BINARY_PACKED UNCOMPRESSED']);
  });
});

describe('ParquetWriter: dictionary-encoded strings, doubles, statistics', () => {
  for (const inline of [false, true]) {
    test(`read back by DuckDB, with per-row-group min/max (${inline ? 'compressed on the calling thread' : "compressed on libuv's pool"})`, async () => {
      const words = ['zeta', 'alpha', 'é – ü', 'Beta', '', 'alpha2', 'z'];
      const cols: ParquetColumn[] = [
        { name: 's', kind: 'dict-string', stats: true, lookup: (id) => words[id]! },
        { name: 'o', kind: 'dict-string', stats: true, nullable: true, lookup: (id) => words[id]! },
        { name: 'i', kind: 'int32', stats: true },
        { name: 'd', kind: 'double', stats: true },
        { name: 'l', kind: 'dict-string-list', lookup: (id) => `k${id}` },
      ];
      const path = join(root, `dict-${inline}.parquet`);
      const w = new ParquetWriter(path, cols, undefined, inline);
      const rnd = mulberry32(inline ? 1 : 2);
      const want: Record<string, unknown>[] = [];
      const groups: Record<string, unknown>[][] = [];
      // Row groups small (a few hundred bytes: stored uncompressed) and large (~200 kB: zstd).
      for (const size of [5, 40_000, 1, 3_000]) {
        const group: Record<string, unknown>[] = [];
        for (let r = 0; r < size; r++) {
          const s = Math.floor(rnd() * words.length), o = rnd() < 0.3 ? -1 : Math.floor(rnd() * words.length);
          const i = Math.floor(rnd() * 2 ** 32) - 2 ** 31, d = (rnd() - 0.5) * 1e6;
          const l = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => Math.floor(rnd() * 50));
          w.cols[0]!.dictId(s); w.cols[1]!.dictId(o); w.cols[2]!.int32(i); w.cols[3]!.double(d); w.cols[4]!.dictList(l, 0, l.length);
          w.endRow();
          group.push({ s: words[s], o: o < 0 ? null : words[o], i, d, l: l.map((x) => `k${x}`) });
        }
        await w.writeRowGroup();
        want.push(...group);
        groups.push(group);
      }
      expect(await w.close()).toBe(want.length);
      const got = await rows(`SELECT s, o, i, d, l FROM read_parquet(${lit(path)}, file_row_number = true) ORDER BY file_row_number`);
      expect(got).toEqual(want);
      expect((await rows(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${lit(path)}))`)).map((r) => `${String(r.column_name)} ${String(r.column_type)}`))
        .toEqual(['s VARCHAR', 'o VARCHAR', 'i INTEGER', 'd DOUBLE', 'l VARCHAR[]']);
      // Statistics as DuckDB reads them: byte order for strings (é sorts after z), nulls counted.
      const meta = await rows(`SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value, stats_null_count, compression
        FROM parquet_metadata(${lit(path)}) ORDER BY row_group_id, column_id`);
      const byteMin = (xs: string[]): string => xs.reduce((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b)) <= 0 ? a : b));
      const byteMax = (xs: string[]): string => xs.reduce((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b)) >= 0 ? a : b));
      groups.forEach((g, id) => {
        const of = (col: string): Record<string, unknown> => meta.find((m) => Number(m.row_group_id) === id && m.path_in_schema === col)!;
        const ss = g.map((r) => r.s as string), os = g.map((r) => r.o).filter((x): x is string => x !== null);
        expect([of('s').stats_min_value, of('s').stats_max_value]).toEqual([byteMin(ss), byteMax(ss)]);
        if (os.length) expect([of('o').stats_min_value, of('o').stats_max_value]).toEqual([byteMin(os), byteMax(os)]);
        expect(Number(of('o').stats_null_count)).toBe(g.length - os.length);
        const is = g.map((r) => r.i as number), ds = g.map((r) => r.d as number);
        expect([Number(of('i').stats_min_value), Number(of('i').stats_max_value)]).toEqual([Math.min(...is), Math.max(...is)]);
        expect([Number(of('d').stats_min_value), Number(of('d').stats_max_value)]).toEqual([Math.min(...ds), Math.max(...ds)]);
        expect(of('d').compression).toBe(g.length > 1000 ? 'ZSTD' : 'UNCOMPRESSED');
      });
      // A filter on s skips row groups by those statistics: one whose strings are all 'alpha'.
      expect(Number((await rows(`SELECT count(*) AS n FROM read_parquet(${lit(path)}) WHERE s = 'é – ü'`))[0]!.n)).toBe(want.filter((r) => r.s === 'é – ü').length);
    });
  }

  test('a dict column without a lookup, or a null in a required one, is refused', () => {
    expect(() => new ParquetWriter(join(root, 'x.parquet'), [{ name: 'x', kind: 'dict-string' }])).toThrow(/x: a dict-string column needs a lookup/);
    rmSync(join(root, 'x.parquet'), { force: true });
    const w = new ParquetWriter(join(root, 'y.parquet'), [{ name: 'y', kind: 'dict-string', lookup: String }]);
    expect(() => w.cols[0]!.dictId(-1)).toThrow(/y: null in a required column/);
    void w.abort();
  });
});

/** A partition's items: one per code rank in [lo, hi], r = cr + offset. */
function itemsOf(lo: number, hi: number, offset = 0): RatesBatch {
  const crs = Array.from({ length: hi - lo + 1 }, (_, k) => lo + k);
  return {
    items: {
      r: Int32Array.from(crs, (cr) => cr + offset), cr: Int32Array.from(crs),
      strings: [crs.map((cr) => `C${String(cr).padStart(6, '0')}`), crs.map(() => '2025'), crs.map((cr) => (cr % 5 === 0 ? null : `item ${cr}`)), crs.map(() => 'ffs')],
    },
  };
}

/** Rows [cr, r, sc, ac, rate, fk?] as the join gives them. */
function batchOf(rows: readonly (readonly [number, number, number, number, number, number?])[]): RatesBatch {
  const multi = rows.some((x) => x[5] !== undefined);
  const b: RowBatch = {
    n: rows.length, cr: Int32Array.from(rows, (x) => x[0]), r: Int32Array.from(rows, (x) => x[1]), sc: Int32Array.from(rows, (x) => x[2]),
    ac: Int32Array.from(rows, (x) => x[3]), rate: Float64Array.from(rows, (x) => x[4]), fk: multi ? Int32Array.from(rows, (x) => x[5] ?? 0) : null,
  };
  return { rows: b };
}

/** Fisher-Yates with a seeded generator. */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const rnd = mulberry32(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [out[i], out[j]] = [out[j]!, out[i]!]; }
  return out;
}

const spillOf = (name: string): string => join(root, `${name}.rates-spill`);
const parquetFiles = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.parquet')) : []);

describe('RatesSink', () => {
  const parts: RatePartition[] = [{ type: 'CPT', prefix: 'C0', lo: 1, hi: 3 }, { type: 'CPT', prefix: 'C1', lo: 4, hi: 9 }, { type: 'HCPCS', prefix: 'C2', lo: 10, hi: 12 }];
  const read = async (out: string): Promise<Record<string, unknown>[]> => rows(`SELECT billing_code_type, code_prefix, billing_code, name, terms_id, negotiated_rate, set_ref, file_keys
    FROM read_parquet(${lit(join(out, '*', '*', '*.parquet'))}, hive_partitioning = true, filename = true, file_row_number = true) ORDER BY filename, file_row_number`);

  test.each([['sorted at once', undefined], ['sorted a row at a time', 1], ['sorted 2 rows at a time', 2]] as const)('one file, rows in any order, %s: sorted, repeats dropped, a file per partition, items joined on, terms_id dense', async (_how, cap) => {
    const out = join(root, `sink-one-${cap ?? 0}`);
    const sink = new RatesSink({ out, parts, fileKeys: ['f1'], multi: false, terms: 6, spill: spillOf(`sink-one-${cap ?? 0}`), cap });
    const all: [number, number, number, number, number][] = [[1, 101, 1, 3, 10], [1, 101, 1, 3, 10], [1, 101, 2, 3, 10], [3, 103, 1, 5, 0.5], [5, 105, 4, 3, 7], [5, 105, 4, 3, 7], [12, 112, 1, 6, 99.99], [1, 101, 1, 3, 9.5]];
    const mixed = shuffled(all, 3);
    await sink.add(batchOf(mixed.slice(0, 5)));
    await sink.add(batchOf(mixed.slice(5)));
    await sink.add(itemsOf(1, 7, 100));
    await sink.add(itemsOf(8, 12, 100));
    // Descriptions 3, 5 and 6 are used: terms_id 1, 2, 3.
    expect(await sink.end()).toEqual({ rows: 6, terms: [3, 5, 6] });
    expect(await read(out)).toEqual([
      { billing_code_type: 'CPT', code_prefix: 'C0', billing_code: 'C000001', name: 'item 1', terms_id: 1, negotiated_rate: 9.5, set_ref: 1, file_keys: ['f1'] },
      { billing_code_type: 'CPT', code_prefix: 'C0', billing_code: 'C000001', name: 'item 1', terms_id: 1, negotiated_rate: 10, set_ref: 1, file_keys: ['f1'] },
      { billing_code_type: 'CPT', code_prefix: 'C0', billing_code: 'C000001', name: 'item 1', terms_id: 1, negotiated_rate: 10, set_ref: 2, file_keys: ['f1'] },
      { billing_code_type: 'CPT', code_prefix: 'C0', billing_code: 'C000003', name: 'item 3', terms_id: 2, negotiated_rate: 0.5, set_ref: 1, file_keys: ['f1'] },
      { billing_code_type: 'CPT', code_prefix: 'C1', billing_code: 'C000005', name: null, terms_id: 1, negotiated_rate: 7, set_ref: 4, file_keys: ['f1'] },
      { billing_code_type: 'HCPCS', code_prefix: 'C2', billing_code: 'C000012', name: 'item 12', terms_id: 3, negotiated_rate: 99.99, set_ref: 1, file_keys: ['f1'] },
    ]);
    expect(readdirSync(join(out, 'billing_code_type=CPT')).sort()).toEqual(['code_prefix=C0', 'code_prefix=C1']);
    expect(existsSync(spillOf(`sink-one-${cap ?? 0}`))).toBe(false);
    // The stored columns are the table's, in its order.
    expect((await rows(`SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet(${lit(join(out, 'billing_code_type=CPT', 'code_prefix=C0', 'data_0.parquet'))}, hive_partitioning = false))`)).map((r) => r.column_name))
      .toEqual(RATES.columns.filter((c) => !RATES.partitionBy?.includes(c.name)).map((c) => c.name));
  });

  test.each([undefined, 1, 3])('several files (sorted %s at a time): each distinct row once, with every file it came from', async (cap) => {
    const out = join(root, `sink-multi-${cap ?? 0}`);
    const sink = new RatesSink({ out, parts, fileKeys: ['', 'fa', 'fb', 'fc'], multi: true, terms: 1, spill: spillOf(`sink-multi-${cap ?? 0}`), cap });
    // [1, 1, 1, 1, 10] from files 3 and 1 (file 1 twice), [2, ...] from 2, [4, ...] from all three.
    await sink.add(batchOf(shuffled([[1, 1, 1, 1, 10, 3], [4, 4, 1, 1, 1, 2], [1, 1, 1, 1, 10, 1], [2, 2, 1, 1, 10, 2], [4, 4, 1, 1, 1, 3], [1, 1, 1, 1, 10, 1], [4, 4, 1, 1, 1, 1]], 9)));
    await sink.add(itemsOf(1, 12));
    expect(await sink.end()).toEqual({ rows: 3, terms: [1] });
    expect((await read(out)).map((r) => r.file_keys)).toEqual([['fa', 'fc'], ['fb'], ['fa', 'fb', 'fc']]);
  });

  test('rates sort as numbers: negative, zero (-0 is 0), tiny and huge', async () => {
    const out = join(root, 'sink-signs');
    const sink = new RatesSink({ out, parts, fileKeys: ['f'], multi: false, terms: 1, spill: spillOf('sink-signs') });
    const rates = [5, -0, 0, -1e-300, 1e300, -7.25, 1e-300, -1e300, 0.1, 2 ** 53];
    await sink.add(batchOf(rates.map((rate) => [2, 2, 1, 1, rate] as const)));
    await sink.add(itemsOf(1, 12));
    expect((await sink.end()).rows).toBe(rates.length - 1); // -0 and 0 are one row
    expect((await read(out)).map((r) => r.negotiated_rate)).toEqual([-1e300, -7.25, -1e-300, 0, 1e-300, 0.1, 5, 2 ** 53, 1e300]);
  });

  test('a row in no partition, naming a description that is none or an item that is not its code\'s: clear errors; abort removes files and spill', async () => {
    const init = (name: string): RatesInit => ({ out: join(root, name), parts, fileKeys: ['f'], multi: false, terms: 2, spill: spillOf(name) });
    const early: [RatesBatch, RegExp][] = [
      [batchOf([[13, 13, 1, 1, 1]]), /rates row of code rank 13 in no partition/],
      [batchOf([[0, 0, 1, 1, 1]]), /rates row of code rank 0 in no partition/],
      [batchOf([[2, 2, 1, 3, 1]]), /rates row of code rank 2 names price description 3, not one of 1\.\.2/],
      [batchOf([[2, 2, 1, 1, 1, 4]]), /rates rows with file numbers \(one file\)/],
    ];
    for (const [i, [batch, error]] of early.entries()) {
      const sink = new RatesSink(init(`sink-bad-${i}`));
      await expect(sink.add(batch)).rejects.toThrow(error);
      await sink.abort();
      expect(existsSync(spillOf(`sink-bad-${i}`)), `case ${i}`).toBe(false);
    }
    // Found while writing: the partition before it is written, then removed by abort.
    const sink = new RatesSink(init('sink-bad-item'));
    await sink.add(batchOf([[1, 1, 1, 1, 1], [5, 7, 1, 1, 1]]));
    await expect((async () => { await sink.add(itemsOf(1, 12)); return sink.end(); })()).rejects.toThrow(/rates row names item 7 of code rank 5, which is not one/);
    await sink.abort();
    expect(parquetFiles(join(root, 'sink-bad-item'))).toEqual([join('billing_code_type=CPT', 'code_prefix=C0', 'data_0.parquet')]); // the partition before it, whole
    expect(existsSync(spillOf('sink-bad-item'))).toBe(false);
    const late = new RatesSink(init('sink-bad-late'));
    await late.add(itemsOf(1, 2));
    await expect(late.add(batchOf([[1, 1, 1, 1, 1]]))).rejects.toThrow(/rates rows after the items/);
    await late.abort();
    expect(() => new RatesSink({ ...init('sink-bad-parts'), parts: [parts[1]!, parts[0]!] })).toThrow(/rates partitions out of order: code ranks 1-3 after 4-9/);
  });

  test('a partition larger than a row group and than a sort: row groups in order, each with its own billing_code range', async () => {
    const out = join(root, 'sink-big');
    const big: RatePartition[] = [{ type: 'CPT', prefix: 'C0', lo: 1, hi: 400 }];
    const sink = new RatesSink({ out, parts: big, fileKeys: ['f'], multi: false, terms: 1, spill: spillOf('sink-big'), cap: 50_000 });
    const per = 800; // rows a code: 320,000 rows, 3 row groups; 7 sorts at least
    // Backwards (the worst order for the sort), a batch at a time.
    for (let at = 400 * per - 1; at >= 0;) {
      const rowsOf: [number, number, number, number, number][] = [];
      for (let k = 0; k < BATCH_ROWS && at >= 0; k++, at--) {
        const cr = 1 + Math.floor(at / per);
        rowsOf.push([cr, cr, 1 + (at % per), 1, cr]);
      }
      await sink.add(batchOf(rowsOf));
    }
    await sink.add(itemsOf(1, 400));
    expect((await sink.end()).rows).toBe(400 * per);
    const file = join(out, 'billing_code_type=CPT', 'code_prefix=C0', 'data_0.parquet');
    const meta = await rows(`SELECT row_group_id, row_group_num_rows, stats_min_value, stats_max_value FROM parquet_metadata(${lit(file)})
      WHERE path_in_schema = 'billing_code' ORDER BY row_group_id`);
    const size = rowGroupSize(RATES);
    const code = (cr: number): string => `C${String(cr).padStart(6, '0')}`;
    expect(meta).toEqual([0, 1, 2].map((g) => ({
      row_group_id: String(g), row_group_num_rows: String(Math.min(size, 400 * per - g * size)),
      stats_min_value: code(1 + Math.floor((g * size) / per)), stats_max_value: code(1 + Math.floor((Math.min(400 * per, (g + 1) * size) - 1) / per)),
    })));
    expect(Number((await rows(`SELECT count(*) AS n FROM read_parquet(${lit(file)}) WHERE billing_code = 'C000399'`))[0]!.n)).toBe(per);
    const unsorted = await rows(`SELECT count(*) AS n FROM (SELECT billing_code < lag(billing_code) OVER w OR (billing_code = lag(billing_code) OVER w AND set_ref <= lag(set_ref) OVER w) AS down
      FROM read_parquet(${lit(file)}, file_row_number = true) WINDOW w AS (ORDER BY file_row_number)) WHERE down`);
    expect(Number(unsorted[0]!.n)).toBe(0);
    expect(readdirSync(root).filter((d) => d.startsWith('sink-big.rates-spill'))).toEqual([]);
  });
});

describe('the writer threads', () => {
  const one = (out: string, name: string): RatesInit => ({ out, parts: [{ type: 'RC', prefix: 'C0', lo: 1, hi: 3 }], fileKeys: ['f'], multi: false, terms: 1, spill: spillOf(name) });

  test('a rates sink on a worker writes what it is given and hands batches back', async () => {
    const out = join(root, 'worker-rates');
    const w = new SinkWorker<RatesBatch, RatesResult>('rates', 2);
    try {
      w.init(one(out, 'worker-rates'));
      for (let k = 0; k < 5; k++) {
        const b = batchOf([[1 + (k >> 1), 1 + (k >> 1), 1 + k, 1, k]]);
        await w.add(b, 'rows' in b ? transferOf(b.rows) : []);
      }
      await w.add(itemsOf(1, 3));
      expect(await w.end()).toEqual({ rows: 5, terms: [1] });
      expect(w.reuse()).toBeDefined(); // buffers came back
    } finally {
      await w.stop();
    }
    expect(Number((await rows(`SELECT count(*) AS n FROM read_parquet(${lit(join(out, '*', '*', '*.parquet'))})`))[0]!.n)).toBe(5);
    expect(ITEM_STRINGS.length).toBe(4);
  });

  test("the sink's error reaches the caller, and the thread ends", async () => {
    const blocker = join(root, 'not-a-dir');
    writeFileSync(blocker, 'x');
    const w = new SinkWorker<RatesBatch, RatesResult>('rates');
    try {
      w.init(one(join(blocker, 'rates'), 'worker-error'));
      const b = batchOf([[1, 1, 1, 1, 1]]);
      await expect((async () => { await w.add(b); await w.add(itemsOf(1, 3)); return await w.end(); })()).rejects.toThrow(/ENOTDIR|EEXIST/);
    } finally {
      await w.stop();
    }
    expect(existsSync(spillOf('worker-error'))).toBe(false);
  });

  test('the tsx entry (for a Node without type stripping) serves the same sinks', async () => {
    const out = join(root, 'worker-tsx');
    const worker = new Worker(new URL('../../ingest/snapshot/sink.worker.mjs', import.meta.url), { workerData: { kind: 'rates' }, execArgv: [] });
    const done = new Promise<FromSink>((resolve) => worker.on('message', (m: FromSink) => { if (m.t !== 'ack') resolve(m); }));
    const post = (m: ToSink): void => worker.postMessage(m);
    post({ t: 'init', init: one(out, 'worker-tsx') });
    post({ t: 'add', batch: batchOf([[1, 1, 2, 1, 1], [1, 1, 1, 1, 1]]), ack: true });
    post({ t: 'add', batch: itemsOf(1, 1), ack: false });
    post({ t: 'end' });
    expect(await done).toEqual({ t: 'done', result: { rows: 2, terms: [1] } });
    await worker.terminate();
  });

  test('stop() before the end aborts: no file and no spill is left behind', async () => {
    const out = join(root, 'worker-stopped');
    mkdirSync(out);
    const w = new SinkWorker<RatesBatch, RatesResult>('rates');
    w.init(one(out, 'worker-stopped'));
    await w.add(batchOf([[1, 1, 1, 1, 1]]));
    await w.add(itemsOf(1, 1));
    await w.stop();
    expect(parquetFiles(out)).toEqual([]);
    expect(existsSync(spillOf('worker-stopped'))).toBe(false);
  });
});
