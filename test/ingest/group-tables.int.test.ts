/**
 * provider_groups and group_members as finalize writes them in JS (group-tables.ts), with the two
 * pieces under it: the staged NPI records (npi-stage.ts) and the Parquet writer (parquet-write.ts),
 * each read back by DuckDB and compared with an independent expectation.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { lit, openDuck } from '../../ingest/snapshot/duck.ts';
import { TicFileWriter } from '../../ingest/snapshot/tic-file-writer.ts';
import { finalizeTic } from '../../ingest/snapshot/tic-finalize.ts';
import { fileKey, groupKey } from '../../ingest/snapshot/keys.ts';
import { NpiStageReader, NpiStageWriter } from '../../ingest/snapshot/npi-stage.ts';
import { ParquetWriter } from '../../ingest/snapshot/parquet-write.ts';
import { GroupSink, MEMBERS_PER_SORT, networkNames, sortPairs, type GselBatch } from '../../ingest/snapshot/group-tables.ts';
import type { GroupRecord } from '../../ingest/tic/records.ts';
import { mulberry32 } from '../../ingest/demo/prng.ts';

const root = mkdtempSync(join(tmpdir(), 'grouptables-'));
let duck: DuckDBInstance;
let con: DuckDBConnection;
let reader: DuckDBConnection;

beforeAll(async () => {
  duck = await openDuck({ tempDir: join(root, 'tmp') });
  con = await duck.connect();
  reader = await duck.connect();
});

afterAll(() => {
  reader.closeSync();
  con.closeSync();
  duck.closeSync();
  rmSync(root, { recursive: true, force: true });
});

const rows = async (sql: string): Promise<Record<string, unknown>[]> => (await con.runAndReadAll(sql)).getRowObjectsJson();

describe('ParquetWriter', () => {
  test('every column kind, nulls, empty lists, 64-bit values and several row groups read back by DuckDB, with npi statistics', async () => {
    const path = join(root, 'kinds.parquet');
    const w = new ParquetWriter(path, [
      { name: 'k', kind: 'string' }, { name: 'r', kind: 'int32' }, { name: 't', kind: 'optional-string' },
      { name: 'npis', kind: 'int64-list' }, { name: 'names', kind: 'string-list' }, { name: 'x', kind: 'int64', stats: true },
    ]);
    const u = new Uint32Array([5, 6, 7, 4_000_000_000, 1]);
    const wide = new Uint32Array([1410065407, 2, 0, 1]); // 9999999999 and 2^32 as (low, high) words
    const want: unknown[] = [];
    for (let g = 0; g < 3; g++) {
      const input: [string, number, string | null, (c: ParquetWriter['cols'][number]) => void, string[], string[], number][] = [
        [`a${g}`, -1, null, (c) => c.int64ListU32(u, 0, 3), ['5', '6', '7'], ['n1', 'é – ü'], 2 ** 40 + g],
        [`b${g}`, 2, 'ein', (c) => c.int64ListU32(u, 3, 3), [], [], 3],
        [`c${g}`, 2 ** 31 - 1, '', (c) => c.int64ListWords(wide, 0, 4), ['9999999999', '4294967296'], ['z'], 1234567890 + g],
      ];
      for (const [k, r, t, list, listWant, names, x] of input) {
        w.cols[0]!.string(k); w.cols[1]!.int32(r); w.cols[2]!.string(t); list(w.cols[3]!); w.cols[4]!.stringList(names); w.cols[5]!.int64(x);
        w.endRow();
        want.push({ k, r, t, npis: listWant, names, x: String(x) });
      }
      await w.writeRowGroup();
    }
    expect(await w.close()).toBe(9);
    // (the staging instance does not preserve insertion order: row groups may come back in any order)
    expect(await rows(`SELECT * FROM read_parquet(${lit(path)}) ORDER BY k`)).toEqual(want.sort((a, b) => String((a as { k: string }).k).localeCompare((b as { k: string }).k)));
    expect((await rows(`SELECT k FROM read_parquet(${lit(path)}, file_row_number = true) ORDER BY file_row_number`)).map((r) => r.k))
      .toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'c1', 'a2', 'b2', 'c2']); // written in order
    expect((await rows(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${lit(path)}))`)).map((r) => `${String(r.column_name)} ${String(r.column_type)}`))
      .toEqual(['k VARCHAR', 'r INTEGER', 't VARCHAR', 'npis BIGINT[]', 'names VARCHAR[]', 'x BIGINT']);
    const stats = await rows(`SELECT row_group_id, stats_min_value, stats_max_value FROM parquet_metadata(${lit(path)}) WHERE path_in_schema = 'x' ORDER BY 1`);
    expect(stats).toEqual([0, 1, 2].map((g) => ({ row_group_id: String(g), stats_min_value: '3', stats_max_value: String(2 ** 40 + g) })));
  });

  test('a key given as four 32-bit words is written as its 32 lowercase hex digits (hex128), beside keys given as text', async () => {
    const path = join(root, 'hex.parquet');
    const w = new ParquetWriter(path, [{ name: 'k', kind: 'string' }, { name: 't', kind: 'optional-string' }]);
    const words = new Uint32Array([0, 0, 0, 0, 0xffffffff, 0x80000000, 1, 0x0123abcd, 0xdeadbeef, 0x00f0000f, 0x7fffffff, 0x10]);
    const hex = (at: number): string => [...words.subarray(at, at + 4)].map((x) => x.toString(16).padStart(8, '0')).join('');
    const want: { i: number; k: string; t: string | null }[] = [];
    for (let i = 0; i < 3; i++) {
      w.cols[0]!.hex128(words, 4 * i); w.cols[1]!.hex128(words, 4 * (2 - i)); w.endRow();
      want.push({ i: 2 * i, k: hex(4 * i), t: hex(4 * (2 - i)) });
      w.cols[0]!.string(`text ${i}`); w.cols[1]!.string(null); w.endRow();
      want.push({ i: 2 * i + 1, k: `text ${i}`, t: null });
    }
    await w.writeRowGroup();
    expect(await w.close()).toBe(6);
    expect(want[4]).toEqual({ i: 4, k: 'deadbeef00f0000f7fffffff00000010', t: '00000000000000000000000000000000' });
    expect(await rows(`SELECT file_row_number::INTEGER AS i, k, t FROM read_parquet(${lit(path)}, file_row_number = true) ORDER BY i`)).toEqual(want);
  });

  test('an aborted writer leaves no file', async () => {
    const path = join(root, 'aborted.parquet');
    const w = new ParquetWriter(path, [{ name: 'r', kind: 'int32' }]);
    w.cols[0]!.int32(1);
    w.endRow();
    await w.writeRowGroup();
    await w.abort();
    expect(readdirSync(root)).not.toContain('aborted.parquet');
  });
});

describe('staged NPI records', () => {
  test('narrow, wide, huge and TIN-only groups come back in order; a damaged file is named', () => {
    const path = join(root, 'npis.bin');
    const w = new NpiStageWriter(path);
    const huge = Array.from({ length: 600_000 }, (_, i) => 1_000_000_000 + 3 * i); // larger than one write buffer
    const groups: [number, number[]][] = [[1, [1234567893, 1518379601]], [2, []], [3, [1234567893, 9999999999]], [4, huge], [2 ** 30 + 1, [4294967295]]];
    for (const [gid, npis] of groups) w.add(gid, Float64Array.from(npis));
    w.close();
    const r = new NpiStageReader(path);
    const got: [number, number[]][] = [];
    for (let rec = r.next(); rec; rec = r.next()) {
      const vals: number[] = [];
      if (rec.wide) for (let k = rec.from; k < rec.to; k += 2) vals.push(rec.words[k]! + rec.words[k + 1]! * 2 ** 32);
      else for (let k = rec.from; k < rec.to; k++) vals.push(rec.words[k]!);
      got.push([rec.gid, vals]);
    }
    r.close();
    expect(got).toEqual(groups.filter(([, n]) => n.length > 0));
    expect(() => new NpiStageWriter(join(root, 'bad.bin')).add(1, [0])).toThrow(/NPI 0 of group 1/);
    truncateSync(path, readFileSync(path).length - 4); // the last record loses its one NPI
    const cut = new NpiStageReader(path);
    expect(() => { while (cut.next()); }).toThrow(/npis\.bin: ends inside the record of group 1073741825/);
    cut.close();
  });
});

test("network names: distinct and in DuckDB's VARCHAR order, whatever the characters", async () => {
  const rnd = mulberry32(3);
  const alphabet = ['a', 'B', 'z', 'é', '\uFF5E', '\uE000', '😀', '𝔸', ' ', '-', '0'];
  for (let t = 0; t < 200; t++) {
    const names = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => alphabet[Math.floor(rnd() * alphabet.length)]!).join(''));
    const r = await con.runAndReadAll(`SELECT list_sort(list_distinct(string_split(${lit(names.join('\u001f'))}, chr(31))))`);
    expect(networkNames(names.join('\u001f'))).toEqual(r.getRowsJson()[0]![0]);
  }
  expect(networkNames(null)).toEqual([]);
  expect(networkNames('')).toEqual([]);
});

test('sortPairs orders (q, ref) completely, whatever the bits used', () => {
  const rnd = mulberry32(3);
  for (const [n, qBits, refBits] of [[0, 26, 18], [1, 26, 18], [5000, 26, 18], [5000, 32, 32], [3000, 3, 2]] as const) {
    const q = Uint32Array.from({ length: n }, () => Math.floor(rnd() * 2 ** qBits));
    const ref = Uint32Array.from({ length: n }, () => Math.floor(rnd() * 2 ** refBits));
    const want = [...q].map((v, i) => [v, ref[i]!] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const got = sortPairs(q.slice(), ref.slice());
    expect([...got.npi].map((v, i) => [v, got.ref[i]!])).toEqual(want);
  }
  // NPIs in 1 to 40 groups each (runs of equal q sorted by insertion, or as a typed array past 16), in any order.
  const pairs = Array.from({ length: 40 }, (_, k) => Array.from({ length: k + 1 }, () => [1_000_000 + 7 * k, Math.floor(rnd() * 2 ** 22)] as const)).flat()
    .map((p) => [rnd(), p] as const).sort((a, b) => a[0] - b[0]).map(([, p]) => p);
  const got = sortPairs(Uint32Array.from(pairs, (p) => p[0]), Uint32Array.from(pairs, (p) => p[1]));
  expect([...got.npi].map((v, i) => [v, got.ref[i]!])).toEqual([...pairs].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
});

describe('provider_groups and group_members', () => {
  const group = (tin: string, npis: number[], networkNames: string[] = []): GroupRecord => ({ tinType: 'ein', tinValue: tin, businessName: tin === '01' ? 'Clinic' : null, npis, networkNames });
  const rnd = mulberry32(11);
  const many = [...new Set(Array.from({ length: 5000 }, () => 1_000_000_000 + Math.floor(rnd() * 8_999_999_999)))]; // 10 digits, many above 2^32
  // File x: a group with a wide NPI, a TIN-only group, a group also in file y (under other network names);
  // file y: a 5,000-NPI group and 300 groups that all hold the same NPI (one partition of equal NPIs).
  const FILES: Record<string, GroupRecord[]> = {
    '/data/x.json': [group('01', [1234567893, 9999999999, 1000000001, 1000000065]), group('02', []), group('03', [1518379601, 1000000001], ['N1'])],
    '/data/y.json': [group('03', [1000000001, 1518379601], ['N2']), group('04', many), ...Array.from({ length: 300 }, (_, i) => group(`1${i}`, [1234567893]))],
  };

  let files = '';
  beforeAll(async () => {
    files = join(root, 'files');
    for (const [src, groups] of Object.entries(FILES)) {
      const dir = join(files, fileKey(src));
      const w = await TicFileWriter.create(duck, { src, dir });
      groups.forEach((g, i) => w.providerReference({ refId: String(i), groups: [g], networkNames: [], location: null }));
      w.rate({ billingCodeType: 'CPT', billingCode: '99213', billingCodeTypeVersion: null, name: 'x', negotiationArrangement: 'ffs', refIds: groups.map((_, i) => String(i)), inlineGroups: [],
        prices: [{ negotiatedType: 'negotiated', negotiatedRate: 10, expirationDate: null, serviceCode: null, billingClass: 'professional', setting: null, billingCodeModifier: null, additionalInformation: null }] });
      const r = await w.finish();
      writeFileSync(join(dir, 'done.json'), JSON.stringify({ counts: r.counts }));
    }
  });

  /** What the tables must hold, computed here from the groups as given. */
  function expected(): { groups: string[]; members: string[] } {
    const byKey = new Map<string, { tin: string; npis: number[]; networks: Set<string>; business: string | null }>();
    for (const g of Object.values(FILES).flat()) {
      const { key } = groupKey(g.tinType, g.tinValue, g.npis);
      const e = byKey.get(key) ?? { tin: g.tinValue!, npis: [...new Set(g.npis)].sort((a, b) => a - b), networks: new Set<string>(), business: g.businessName };
      for (const n of g.networkNames) e.networks.add(n);
      byKey.set(key, e);
    }
    const keys = [...byKey.keys()].sort();
    const groups = keys.map((k, i) => { const e = byKey.get(k)!; return JSON.stringify([k, i + 1, 'ein', e.tin, e.npis.map(String), [...e.networks].sort(), e.business]); });
    const members = keys.flatMap((k) => byKey.get(k)!.npis.map((n) => `${n} ${k}`)).sort();
    return { groups: groups.sort(), members };
  }

  async function read(out: string): Promise<{ groups: string[]; members: string[] }> {
    const g = await rows(`SELECT * FROM read_parquet(${lit(join(out, 'provider_groups', '*.parquet'))})`);
    const m = await rows(`SELECT m.npi, g.group_key FROM read_parquet(${lit(join(out, 'group_members', '*', '*.parquet'))}) m
      JOIN read_parquet(${lit(join(out, 'provider_groups', '*.parquet'))}) g USING (group_ref)`);
    return {
      groups: g.map((r) => JSON.stringify([r.group_key, r.group_ref, r.tin_type, r.tin_value, r.npis, r.network_names, r.business_name])).sort(),
      members: m.map((r) => `${String(r.npi)} ${String(r.group_key)}`).sort(),
    };
  }

  /** Bucket files with rows out of (npi, group_ref) order, in the wrong bucket, or a row group without npi statistics. */
  async function layoutProblems(out: string): Promise<string[]> {
    const bad = await rows(`SELECT DISTINCT filename FROM (SELECT filename, npi_bucket, npi,
        (npi, group_ref) < lag((npi, group_ref)) OVER (PARTITION BY filename ORDER BY file_row_number) AS down
      FROM read_parquet(${lit(join(out, 'group_members', '*', '*.parquet'))}, filename = true, file_row_number = true, hive_partitioning = true))
      WHERE down OR npi % 64 <> npi_bucket`);
    const noStats = await rows(`SELECT DISTINCT file_name FROM parquet_metadata(${lit(join(out, 'group_members', '*', '*.parquet'))})
      WHERE path_in_schema = 'npi' AND (stats_min_value IS NULL OR stats_max_value IS NULL)`);
    return [...bad.map((r) => String(r.filename)), ...noStats.map((r) => `no statistics: ${String(r.file_name)}`)];
  }

  test('once per group_key, NPIs sorted, network names unioned; every (npi, group) once, bucketed and sorted; whatever the sort and pick sizes', async () => {
    const want = expected();
    expect(want.members.length).toBeGreaterThan(5000);
    let first: { groups: string[]; members: string[] } | null = null;
    // One partition per bucket; NPI ranges; ranges split again (300 equal NPIs: by group). The
    // groups picked in one statement, in key ranges, in a range per staged row.
    for (const [membersPerSort, groupsPerPick] of [[2_000_000, undefined], [64, 5], [5, 1]] as const) {
      const out = join(root, `snap-${membersPerSort}`);
      const counts = await finalizeTic(con, files, out, { reader, membersPerSort, groupsPerPick });
      const got = await read(out);
      expect(got).toEqual(want);
      expect(counts.provider_groups).toBe(want.groups.length);
      expect(counts.group_members).toBe(want.members.length);
      expect(await layoutProblems(out)).toEqual([]);
      expect(readdirSync(join(out, 'group_members')).every((d) => readdirSync(join(out, 'group_members', d)).join() === 'data_0.parquet')).toBe(true);
      first ??= got;
    }
    // Without a reader connection the groups come after the rates, the same tables.
    // A spill left by a killed run is removed; this run's own too.
    const out = join(root, 'snap-sequential');
    mkdirSync(`${out}.members-spill`, { recursive: true });
    writeFileSync(join(`${out}.members-spill`, 'p0.bin'), 'left by a killed run');
    await finalizeTic(con, files, out);
    expect(await read(out)).toEqual(want);
    expect(readdirSync(root).filter((d) => d.endsWith('.members-spill'))).toEqual([]);
  });

  test('picked groups out of (file_key, gid) order are refused, not written without their NPIs', async () => {
    const fk = fileKey('/data/y.json');
    const snapshot = join(root, 'snap-unordered');
    const batch = (gids: number[]): GselBatch => ({
      fk: Int32Array.from(gids, () => 0), gid: Int32Array.from(gids), g2: Int32Array.from(gids, (_, i) => i + 1), keyWords: new Uint32Array(4 * gids.length),
      keyText: gids.map((g) => `k${g}`), tinType: gids.map(() => 'ein'), tinValue: gids.map(() => '1'), networkNames: gids.map(() => null), businessName: gids.map(() => null),
    });
    const sink = new GroupSink({ filesDir: files, snapshot, cap: MEMBERS_PER_SORT, fileKeys: [fk] });
    await sink.add(batch([1, 2]));
    await expect(sink.add(batch([3, 1]))).rejects.toThrow(`picked groups out of (file_key, gid) order: gid 1 after 3 in file ${fk}`);
    await sink.abort();
    const [a, b] = [fk, fileKey('/data/x.json')].sort();
    const other = new GroupSink({ filesDir: files, snapshot, cap: MEMBERS_PER_SORT, fileKeys: [a!, b!] });
    const two: GselBatch = { ...batch([1, 1]), fk: Int32Array.of(1, 0) };
    await expect(other.add(two)).rejects.toThrow(`picked groups out of (file_key, gid) order: file ${a!} after ${b!}`);
    await other.abort();
    expect(existsSync(join(snapshot, 'provider_groups', 'data_0.parquet'))).toBe(false);
  });

  test('a damaged staged NPI file fails finalize with its name, not a crash', async () => {
    const bad = join(root, 'files-bad');
    const src = '/data/x.json';
    const dir = join(bad, fileKey(src));
    const w = await TicFileWriter.create(duck, { src, dir });
    w.providerReference({ refId: '1', groups: [group('01', [1234567893, 1518379601])], networkNames: [], location: null });
    const r = await w.finish();
    writeFileSync(join(dir, 'done.json'), JSON.stringify({ counts: r.counts }));
    truncateSync(join(dir, 'group_npis.bin'), 10);
    await expect(finalizeTic(con, bad, join(root, 'snap-bad'), { reader })).rejects.toThrow(/provider_groups and group_members: .*group_npis\.bin: 10 bytes is not whole 32-bit words/);
  });
});
