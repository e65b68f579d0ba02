/**
 * tic-finalize.ts writeRates: the rows of `rates` against an independent expectation (identical rows
 * within a file and across files stored once, with every file key), the same rows whatever the
 * number of rows sorted at once, and every partition written as one file sorted by (billing_code,
 * set_ref); group_sets numbers its set keys (set_ref) 1..n in key order.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { cpSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { MemoryWindow, lit, memoryBytes, openDuck, scalar } from '../../ingest/snapshot/duck.ts';
import { TicFileWriter } from '../../ingest/snapshot/tic-file-writer.ts';
import { finalizeTic } from '../../ingest/snapshot/tic-finalize.ts';
import { TERMS_KEY_SQL, fileKey, groupKey, groupSetKey, keyRanges } from '../../ingest/snapshot/keys.ts';
import type { GroupRecord, PriceRecord } from '../../ingest/tic/records.ts';

const root = mkdtempSync(join(tmpdir(), 'ratesfin-'));
let duck: DuckDBInstance;
let con: DuckDBConnection;

const CODES: [string, string][] = [['CPT', '99213'], ['CPT', '99214'], ['CPT', '10021'], ['HCPCS', 'G0001'], ['HCPCS', 'G0002'], ['MS-DRG', '470']];
const REFS: Record<string, GroupRecord> = Object.fromEntries([1, 2, 3, 4, 5].map((i) => [String(i), {
  tinType: 'ein', tinValue: `0${i}-000000${i}`, businessName: null, npis: [1000000000 + i, 1000000100 + i], networkNames: [],
}]));
const SETS = [['1'], ['1', '2'], ['2', '1'], ['3', '4', '5'], ['5']]; // ['1','2'] and ['2','1'] are the same set
const FILES = ['/data/x.json', '/data/y.json', '/data/z.json'];

/** Deterministic PRNG (mulberry32). */
/** Holds the rates' last numbering statement (__sm) back 300 ms, and notes its end in `seen`. */
function slowSetNumbering(con: DuckDBConnection, seen: string[]): void {
  const run = con.run.bind(con);
  vi.spyOn(con, 'run').mockImplementation(async (sql: string) => {
    if (!sql.startsWith('CREATE OR REPLACE TABLE __sm ')) return run(sql);
    await new Promise((r) => setTimeout(r, 300));
    const result = await run(sql);
    seen.push('rates __sm done');
    return result;
  });
}

function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Planned { file: string; type: string; code: string; refs: string[]; prices: PriceRecord[] }

/** The rates each file stages: few enough values that rows repeat within and across files. */
function plan(): Planned[] {
  const rnd = prng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const out: Planned[] = [];
  for (const file of FILES) {
    for (let i = 0; i < 60; i++) {
      const [type, code] = pick(CODES);
      const prices: PriceRecord[] = [];
      for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) {
        prices.push({
          negotiatedType: pick(['negotiated', 'fee schedule']), negotiatedRate: pick([50, 75.5, 100]), expirationDate: '9999-12-31',
          serviceCode: pick([['11'], ['11', '22'], null]), billingClass: pick(['professional', 'institutional']), setting: null,
          billingCodeModifier: null, additionalInformation: null,
        });
      }
      out.push({ file, type, code, refs: pick(SETS), prices });
    }
  }
  return out;
}

const planned = plan();
const keyOfRef = (r: string): string => { const g = REFS[r]!; return groupKey(g.tinType, g.tinValue, g.npis).key; };

/** The expected rows: (code, description, rate, set) -> the files it appears in. */
function expected(files: readonly string[]): Map<string, string[]> {
  const m = new Map<string, Set<string>>();
  for (const p of planned.filter((x) => files.includes(x.file))) {
    const set = groupSetKey(p.refs.map(keyOfRef));
    for (const pr of p.prices) {
      const k = JSON.stringify([p.type, p.code, pr.negotiatedType, pr.negotiatedRate, pr.serviceCode, pr.billingClass, set]);
      if (!m.has(k)) m.set(k, new Set());
      m.get(k)!.add(fileKey(p.file));
    }
  }
  return new Map([...m].map(([k, v]) => [k, [...v].sort()]));
}

async function stage(filesDir: string, files: readonly string[]): Promise<void> {
  for (const f of files) {
    const w = await TicFileWriter.create(duck, { src: f, dir: join(filesDir, fileKey(f)) });
    for (const [refId, g] of Object.entries(REFS)) w.providerReference({ refId, groups: [g], networkNames: [], location: null });
    for (const p of planned.filter((x) => x.file === f)) {
      w.rate({ billingCodeType: p.type, billingCode: p.code, billingCodeTypeVersion: null, name: `item ${p.code}`, negotiationArrangement: 'ffs',
        refIds: p.refs, inlineGroups: [], prices: p.prices });
    }
    const r = await w.finish();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(filesDir, fileKey(f), 'done.json'), JSON.stringify({ counts: r.counts }));
  }
}

async function rows(snapshot: string): Promise<Map<string, string[]>> {
  const sets = (await con.runAndReadAll(`SELECT DISTINCT set_ref, group_set_key FROM read_parquet(${lit(join(snapshot, 'group_sets', '*.parquet'))})
    ORDER BY group_set_key`)).getRows();
  expect(sets.map((x) => Number(x[0]))).toEqual(sets.map((_, i) => i + 1)); // one number per key, 1..n in key order
  const r = await con.runAndReadAll(`SELECT billing_code_type, billing_code, negotiated_type, negotiated_rate, service_code, billing_class, s.group_set_key, file_keys
    FROM read_parquet(${lit(join(snapshot, 'rates', '*', '*', '*.parquet'))}, hive_partitioning = true) r
    JOIN read_parquet(${lit(join(snapshot, 'price_terms', '*.parquet'))}) t USING (terms_id)
    LEFT JOIN (SELECT DISTINCT set_ref, group_set_key FROM read_parquet(${lit(join(snapshot, 'group_sets', '*.parquet'))})) s USING (set_ref)`);
  const out = new Map<string, string[]>();
  for (const row of r.getRowObjectsJson()) {
    expect(row.group_set_key, 'a rates row names a set group_sets does not list').not.toBeNull();
    const k = JSON.stringify([row.billing_code_type, row.billing_code, row.negotiated_type, Number(row.negotiated_rate), row.service_code, row.billing_class, row.group_set_key]);
    expect(out.has(k), `row stored twice: ${k}`).toBe(false);
    out.set(k, row.file_keys as string[]);
  }
  return out;
}

/** price_terms: [terms_id, content] rows; checks ids are 1..n and every rates row names one. */
async function terms(snapshot: string): Promise<string[]> {
  const t = (await con.runAndReadAll(`SELECT terms_id, ${TERMS_KEY_SQL} AS k FROM read_parquet(${lit(join(snapshot, 'price_terms', '*.parquet'))}) ORDER BY terms_id`)).getRows();
  expect(t.map((r) => Number(r[0]))).toEqual(t.map((_, i) => i + 1));
  const keys = t.map((r) => String(r[1]));
  expect(keys).toEqual([...new Set(keys)].sort()); // each combination once, numbered in key order
  const orphans = await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${lit(join(snapshot, 'rates', '*', '*', '*.parquet'))})
    WHERE terms_id NOT IN (SELECT terms_id FROM read_parquet(${lit(join(snapshot, 'price_terms', '*.parquet'))}))`);
  expect(Number(orphans.getRows()[0]![0])).toBe(0);
  return keys;
}

async function groups(snapshot: string): Promise<{ group_key: string; npis: number[] }[]> {
  const r = await con.runAndReadAll(`SELECT group_key, group_ref, npis FROM read_parquet(${lit(join(snapshot, 'provider_groups', '*.parquet'))}) ORDER BY group_key`);
  const rows = r.getRowObjectsJson();
  expect(rows.map((x) => Number(x.group_ref))).toEqual(rows.map((_, i) => i + 1)); // 1..n in group_key order
  return rows.map((x) => ({ group_key: x.group_key as string, npis: (x.npis as string[]).map(Number) }));
}

/** group_members files whose rows are not in npi order. */
async function unsortedMembers(snapshot: string): Promise<string[]> {
  const r = await con.runAndReadAll(`SELECT DISTINCT filename FROM (SELECT filename, npi < lag(npi) OVER (PARTITION BY filename ORDER BY file_row_number) AS down
    FROM read_parquet(${lit(join(snapshot, 'group_members', '*', '*.parquet'))}, filename = true, file_row_number = true)) WHERE down`);
  return r.getRows().map((x) => String(x[0]));
}

async function members(snapshot: string): Promise<string[]> {
  const r = await con.runAndReadAll(`SELECT m.npi, g.group_key FROM read_parquet(${lit(join(snapshot, 'group_members', '*', '*.parquet'))}) m
    JOIN read_parquet(${lit(join(snapshot, 'provider_groups', '*.parquet'))}) g USING (group_ref) ORDER BY ALL`);
  return r.getRows().map(([n, g]) => `${String(n)} ${String(g)}`).sort();
}

/** Partition files that are not sorted by (billing_code, set_ref), and partitions with more than one file. */
async function layoutProblems(snapshot: string): Promise<string[]> {
  const problems: string[] = [];
  for (const t of readdirSync(join(snapshot, 'rates'))) {
    for (const p of readdirSync(join(snapshot, 'rates', t))) {
      const files = readdirSync(join(snapshot, 'rates', t, p));
      if (files.length !== 1) problems.push(`${t}/${p}: ${files.join(', ')}`);
      for (const f of files) {
        const r = await con.runAndReadAll(`SELECT billing_code, set_ref FROM read_parquet(${lit(join(snapshot, 'rates', t, p, f))}, file_row_number = true) ORDER BY file_row_number`);
        const keys = r.getRows().map(([c, s]) => [String(c), Number(s)] as const);
        const before = (a: readonly [string, number], b: readonly [string, number]): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]);
        if (keys.some((k, i) => i > 0 && !before(keys[i - 1]!, k))) problems.push(`${t}/${p}/${f} not sorted`);
      }
    }
  }
  return problems;
}

beforeAll(async () => {
  duck = await openDuck({ tempDir: join(root, 'tmp'), memoryLimit: '256MB' });
  con = await duck.connect();
  await stage(join(root, 'all'), FILES);
  await stage(join(root, 'one'), [FILES[0]!]);
});

afterAll(() => {
  con?.closeSync();
  duck?.closeSync();
  rmSync(root, { recursive: true, force: true });
});

describe('rates from several files', () => {
  test('each distinct row once, with every file it appears in; partitions sorted, one file each', async () => {
    const out = join(root, 'snap-all');
    const counts = await finalizeTic(con, join(root, 'all'), out);
    const want = expected(FILES);
    expect(counts.rates).toBe(want.size);
    expect(await rows(out)).toEqual(want);
    expect([...want.values()].some((f) => f.length > 1)).toBe(true); // the data does repeat rows across files
    expect(await layoutProblems(out)).toEqual([]);
    const combos = new Set([...want.keys()].map((k) => JSON.stringify((JSON.parse(k) as unknown[]).filter((_, i) => [2, 4, 5].includes(i)))));
    expect((await terms(out)).length).toBe(combos.size);
    expect(counts.price_terms).toBe(combos.size);
    expect(combos.size).toBeGreaterThan(1);
  });

  /** Whether DuckDB joined the staged prices (its join streamed) while `fn` ran, and whether the writer did (the id maps streamed). */
  async function joinedBy(fn: () => Promise<unknown>): Promise<{ duckdb: boolean; writer: boolean }> {
    const streamed: string[] = [];
    const conStream = con.stream.bind(con);
    vi.spyOn(con, 'stream').mockImplementation((sql: string) => { streamed.push(sql); return conStream(sql); });
    try {
      await fn();
    } finally {
      vi.restoreAllMocks();
    }
    return { duckdb: streamed.some((q) => q.includes('negotiated_rate')), writer: streamed.some((q) => q.startsWith('SELECT f.fk, item_seq')) };
  }

  test('the staged prices joined to their numbers by DuckDB, or by the writer thread reading them itself: the same tables', async () => {
    const out = join(root, 'snap-all-duckdb-join');
    expect(await joinedBy(() => finalizeTic(con, join(root, 'all'), out, { ratesJoin: 'duckdb' }))).toEqual({ duckdb: true, writer: false });
    expect(await rows(out)).toEqual(expected(FILES));
    expect(await rows(out)).toEqual(await rows(join(root, 'snap-all')));
    expect(await terms(out)).toEqual(await terms(join(root, 'snap-all')));
    expect(await layoutProblems(out)).toEqual([]);
  });

  test('the writer joins by default; with more ids than it joins on in memory DuckDB does: the same tables', async () => {
    const js = join(root, 'snap-all-js-join'), many = join(root, 'snap-all-many-ids');
    expect(await joinedBy(() => finalizeTic(con, join(root, 'all'), js))).toEqual({ duckdb: false, writer: true });
    expect(await joinedBy(() => finalizeTic(con, join(root, 'all'), many, { jsJoinMaxIds: 10 }))).toEqual({ duckdb: true, writer: false });
    expect(await rows(js)).toEqual(expected(FILES));
    expect(await rows(many)).toEqual(expected(FILES));
  });

  test('a staged prices file not written by numeric-parquet.ts (e.g. rewritten by DuckDB) is joined by DuckDB: the same tables', async () => {
    const staged = join(root, 'all-rewritten');
    cpSync(join(root, 'all'), staged, { recursive: true });
    const one = readdirSync(staged).flatMap((d) => readdirSync(join(staged, d)).filter((n) => n.startsWith('prices')).map((n) => join(staged, d, n)))[0]!;
    await con.run(`COPY (SELECT * FROM read_parquet(${lit(one)})) TO ${lit(`${one}.tmp`)} (FORMAT parquet)`);
    renameSync(`${one}.tmp`, one);
    const out = join(root, 'snap-all-rewritten');
    expect(await joinedBy(() => finalizeTic(con, staged, out))).toEqual({ duckdb: true, writer: false });
    expect(await rows(out)).toEqual(expected(FILES));
  });

  test.each([1, 7])('rates sorted %i row(s) at a time, one-NPI slices: the same tables', async (perSort) => {
    const out = join(root, `snap-all-small-${perSort}`);
    await finalizeTic(con, join(root, 'all'), out, { ratesPerSort: perSort, membersPerSort: 1 });
    expect(await rows(out)).toEqual(expected(FILES));
    expect(await layoutProblems(out)).toEqual([]);
    expect(await groups(out)).toEqual(await groups(join(root, 'snap-all')));
    expect(await members(out)).toEqual(await members(join(root, 'snap-all')));
  });

  test('group picks and DISTINCTs in key ranges give the same tables; the range files follow each other in key order', async () => {
    const out = join(root, 'snap-all-ranges');
    const whole = join(root, 'snap-all');
    const reader = await duck.connect();
    const control = await duck.connect();
    const limit = async (): Promise<string> => String((await con.runAndReadAll("SELECT current_setting('memory_limit')")).getRows()[0]?.[0]);
    const before = await limit();
    // The limit goes down while both only stream to their writers (a MemoryWindow on `control`), and back after.
    const sets: string[] = [];
    const run = control.run.bind(control);
    vi.spyOn(control, 'run').mockImplementation((sql: string) => { sets.push(sql); return run(sql); });
    // The small tables (group_sets first) are written under the low limit, on the connection of
    // whichever writer ended first.
    const limits: string[] = [];
    for (const c of [con, reader]) {
      const all = c.runAndReadAll.bind(c);
      vi.spyOn(c, 'runAndReadAll').mockImplementation(async (sql: string) => {
        if (sql.startsWith('COPY') && sql.includes('set_ref')) limits.push(await limit());
        return all(sql);
      });
    }
    try {
      await finalizeTic(con, join(root, 'all'), out, { reader, groupsPerPick: 1, rowsPerDistinct: 2, control, streamMemoryLimit: '100MB' });
    } finally {
      vi.restoreAllMocks();
      reader.closeSync();
      control.closeSync();
    }
    expect(limits.length).toBeGreaterThan(1);
    expect(new Set(limits)).toEqual(new Set(['95.3 MiB']));
    const changes = sets.filter((q) => q.startsWith('SET '));
    expect(changes.length, sets.join('; ')).toBeGreaterThanOrEqual(2);
    // Down to the low limit and back to the one read before, in turn, ending at the full one.
    const full = `SET memory_limit = '${Math.ceil(memoryBytes(before) / 1024)}KiB'`; // shownLimit
    changes.forEach((q, i) => expect(q).toBe(i % 2 === 0 ? "SET memory_limit = '100MB'" : full));
    expect(changes.length % 2).toBe(0);
    expect(await limit()).toBe(before);
    expect(await rows(out)).toEqual(expected(FILES));
    expect(await groups(out)).toEqual(await groups(whole));
    expect(await members(out)).toEqual(await members(whole));
    for (const table of ['group_sets', 'group_files']) {
      const all = async (dir: string): Promise<string[]> => (await con.runAndReadAll(`SELECT * FROM read_parquet(${lit(join(dir, table, '*.parquet'))})`))
        .getRows().map((r) => JSON.stringify(r)).sort();
      expect(await all(out), table).toEqual(await all(whole));
      const files = readdirSync(join(out, table)).sort();
      expect(files.length, table).toBeGreaterThan(1);
      // Read in file name order, the rows are in (group_key, ...) order across files.
      const keys = (await con.runAndReadAll(`SELECT group_key FROM read_parquet([${files.map((f) => lit(join(out, table, f))).join(', ')}], file_row_number = true, filename = true)
        ORDER BY filename, file_row_number`)).getRows().map((r) => String(r[0]));
      expect(keys, table).toEqual([...keys].sort());
    }
  });

  test('beside the rates, DuckDB picks the groups after the rates\' numbering (a large run) and sorts them before the rates\' join starts, and streams them from a table', async () => {
    const out = join(root, 'snap-order');
    const reader = await duck.connect();
    const seen: string[] = [];
    const streamed: string[] = [];
    const conStream = con.stream.bind(con);
    vi.spyOn(con, 'stream').mockImplementation((sql: string) => {
      // The join: DuckDB's, or the numbers the writer joins itself (items' first; those of descriptions and sets follow).
      const join = sql.startsWith('SELECT m.cr, m.r, sm.sc, am.ac, p.negotiated_rate, f.fk FROM ') || sql.startsWith('SELECT f.fk, item_seq');
      if (!/^SELECT f\.fk, (attr_id|set_id)/.test(sql)) seen.push(join ? 'rates join' : sql.startsWith('SELECT r, cr, ') ? 'rates items' : sql);
      return conStream(sql);
    });
    slowSetNumbering(con, seen); // the pick must still wait for it
    const readerRun = reader.run.bind(reader);
    vi.spyOn(reader, 'run').mockImplementation(async (sql: string) => {
      if (sql.startsWith('CREATE OR REPLACE TABLE __gsel ')) seen.push('groups pick');
      const result = await readerRun(sql);
      if (!sql.startsWith('CREATE OR REPLACE TABLE __gord ')) return result;
      await new Promise((r) => setTimeout(r, 500)); // a slow sort: the rates must still wait for it
      seen.push('groups sorted');
      return result;
    });
    const stream = reader.stream.bind(reader);
    vi.spyOn(reader, 'stream').mockImplementation((sql: string) => { streamed.push(sql); return stream(sql); });
    try {
      await finalizeTic(con, join(root, 'all'), out, { reader, pickBesideMax: -1 });
    } finally {
      vi.restoreAllMocks();
      reader.closeSync();
    }
    expect(seen).toEqual(['rates __sm done', 'groups pick', 'groups sorted', 'rates join', 'rates items']);
    // No sort's result stays open while the writer drains it (it pinned memory the rates' join then lacked).
    expect(streamed).toEqual(['SELECT * FROM __gord']);
    expect(await rows(out)).toEqual(expected(FILES));
  });

  test('a small run\'s group pick runs beside the rates\' numbering, DuckDB at one thread up to the groups\' sort; a run with more staged rows than pickBesideMax waits for it, at two', async () => {
    // Read on a connection of its own: the others are busy with finalize's statements.
    const probe = await duck.connect();
    const threads = async (): Promise<number> => scalar(probe, "SELECT current_setting('threads')");
    const before = await threads();
    expect(before).toBe(2);
    for (const [max, besides] of [[undefined, true], [3, false]] as const) {
      const out = join(root, `snap-beside-${max ?? 'default'}`);
      const reader = await duck.connect();
      const control = await duck.connect();
      const seen: string[] = [];
      const during: Record<string, number> = {};
      slowSetNumbering(con, seen); // a pick beside it starts first
      const readerRun = reader.run.bind(reader);
      vi.spyOn(reader, 'run').mockImplementation(async (sql: string) => {
        if (sql.startsWith('CREATE OR REPLACE TABLE __gsel ')) { seen.push('groups pick'); during.pick = await threads(); }
        if (sql.startsWith('CREATE OR REPLACE TABLE __gord ')) during.sort = await threads();
        return readerRun(sql);
      });
      // Once both are done (the numbering and the groups' sort), the pool is whole again: by the
      // rates' items, which follow both (polled: it is put back as soon as they settle, not before).
      const conStream = con.stream.bind(con);
      vi.spyOn(con, 'stream').mockImplementation(async (sql: string) => {
        if (sql.startsWith('SELECT r, cr, ')) {
          for (let waited = 0; waited < 5000 && (await threads()) !== before; waited += 20) await new Promise((r) => setTimeout(r, 20));
          during.items = await threads();
        }
        return conStream(sql);
      });
      try {
        await finalizeTic(con, join(root, 'all'), out, { reader, control, ...(max !== undefined ? { pickBesideMax: max } : {}) });
      } finally {
        vi.restoreAllMocks();
        reader.closeSync();
        control.closeSync();
      }
      expect(seen, `pickBesideMax ${max}`).toEqual(besides ? ['groups pick', 'rates __sm done'] : ['rates __sm done', 'groups pick']);
      expect(during, `pickBesideMax ${max}`).toEqual(besides ? { pick: 1, sort: 1, items: 2 } : { pick: 2, sort: 2, items: 2 });
      expect(await threads()).toBe(before);
      expect(await rows(out)).toEqual(expected(FILES));
    }
    probe.closeSync();
  });

  test('beside a reader connection, group_sets and the other tables are written while the groups\' writer still runs', async () => {
    const out = join(root, 'snap-overlap');
    const reader = await duck.connect();
    const seen: string[] = [];
    let setsStarted = (): void => {};
    const started = new Promise<void>((resolve) => { setsStarted = resolve; });
    const all = con.runAndReadAll.bind(con);
    vi.spyOn(con, 'runAndReadAll').mockImplementation((sql: string) => {
      if (sql.startsWith('COPY') && sql.includes('set_ref')) { seen.push('group_sets'); setsStarted(); }
      return all(sql);
    });
    const stream = reader.stream.bind(reader);
    vi.spyOn(reader, 'stream').mockImplementation(async (sql: string) => {
      const result = await stream(sql);
      const fetch = result.fetchChunk.bind(result);
      vi.spyOn(result, 'fetchChunk').mockImplementation(async () => {
        const chunk = await fetch();
        if (chunk && chunk.rowCount > 0) return chunk;
        // The groups' last rows held back until group_sets starts (or, were it to wait for the groups, 10 s).
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([started, new Promise((r) => { timer = setTimeout(r, 10_000); })]);
        clearTimeout(timer);
        seen.push('groups fetched');
        return chunk;
      });
      return result;
    });
    try {
      await finalizeTic(con, join(root, 'all'), out, { reader });
    } finally {
      vi.restoreAllMocks();
      reader.closeSync();
    }
    expect(seen).toEqual(['group_sets', 'groups fetched']);
    expect(await rows(out)).toEqual(expected(FILES));
  }, 30_000);

  test('a MemoryWindow lowers the limit only while no party needs memory, and puts it back', async () => {
    const control = await duck.connect();
    const now = async (): Promise<string> => String((await con.runAndReadAll("SELECT current_setting('memory_limit')")).getRows()[0]?.[0]);
    try {
      const full = await now();
      const w = new MemoryWindow(control, '64MB');
      await w.need('a');
      await w.need('b');
      await w.release('a');
      expect(await now()).toBe(full); // b still needs it
      await w.release('b');
      expect(await now()).toBe('61.0 MiB');
      await w.release('b'); // released twice: nothing more
      expect(w.lowered).toBe(1);
      await w.need('a');
      expect(await now()).toBe(full);
      await w.release('a');
      expect([await now(), w.lowered]).toEqual(['61.0 MiB', 2]);
      await w.need('end');
      expect(await now()).toBe(full);
      for (let i = 0; i < 3; i++) { // read from DuckDB each time, the limit still holds
        const again = new MemoryWindow(control, '64MB');
        await again.release('x');
        await again.need('x');
        expect(await now()).toBe(full);
      }
      // Never up: a limit below the low one stays.
      const high = new MemoryWindow(control, '100GB');
      await high.release('x');
      expect([await now(), high.lowered]).toEqual([full, 0]);
      // Given the full limit as it was set, that exact value is put back (DuckDB shows 200 MB as 190.7 MiB).
      const exact = new MemoryWindow(control, '64MB', '200MB');
      await exact.release('x');
      await exact.need('x');
      expect(await now()).toBe('190.7 MiB');
      await control.run(`SET memory_limit = ${lit(full)}`);
      // A size that is none is a mistake, not a reason to keep the limit.
      await expect(new MemoryWindow(control, 'lots').release('x')).rejects.toThrow(/not a memory size: "lots"/);
      expect([memoryBytes('128MB'), memoryBytes('244.1 MiB'), memoryBytes('1.5 GiB'), memoryBytes('512'), memoryBytes('0 bytes')])
        .toEqual([128e6, 244.1 * 2 ** 20, 1.5 * 2 ** 30, 512, 0]);
    } finally {
      control.closeSync();
    }
  });

  test('key ranges cover every string once, in order', async () => {
    const keys = ['', '0', '0000', '0000ffff', '00010000', '5', '7fff', '8000', 'ffff', 'ffffffffffffffff', 'g', 'G', 'zz', 'é', ...Array.from({ length: 200 }, (_, i) => groupKey('ein', String(i), [i]).key)];
    const values = keys.map((k) => `(${lit(k)})`).join(', ');
    const finest = keyRanges('k', 70_000); // at most 65,536 ranges: four hex digits
    expect([finest.length, finest[0], finest[1], finest.at(-1)]).toEqual([65_536, "k < '0001'", "k >= '0001' AND k < '0002'", "k >= 'ffff'"]);
    for (const n of [0, 1, 2, 3, 7, 100]) {
      const ranges = keyRanges('k', n);
      expect(ranges.length).toBe(Math.max(1, n));
      const hits = await con.runAndReadAll(`SELECT k, ${ranges.map((w, i) => `CASE WHEN ${w} THEN ${i} END`).join(', ')} FROM (VALUES ${values}) t(k)`);
      let last = -1;
      for (const row of [...hits.getRows()].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1))) {
        const inRanges = row.slice(1).filter((x) => x !== null).map(Number);
        expect(inRanges, String(row[0])).toHaveLength(1);
        expect(inRanges[0]!, String(row[0])).toBeGreaterThanOrEqual(last); // sorted keys fall in ranges in order
        last = inRanges[0]!;
      }
    }
  });

  test('provider groups once each with their sorted NPIs; group_members is every (npi, group) once', async () => {
    const out = join(root, 'snap-all');
    const want = Object.values(REFS).map((g) => ({ group_key: groupKey(g.tinType, g.tinValue, g.npis).key, npis: [...g.npis].sort((a, b) => a - b) }))
      .sort((a, b) => a.group_key.localeCompare(b.group_key));
    expect(await groups(out)).toEqual(want);
    expect(await members(out)).toEqual(want.flatMap((g) => g.npis.map((npi) => `${npi} ${g.group_key}`)).sort());

  });

  test('on one connection', async () => {
    const out = join(root, 'snap-all-one-con');
    await finalizeTic(con, join(root, 'all'), out, {});
    expect(await rows(out)).toEqual(expected(FILES));
  });
});

test.each([['sorted at once', undefined], ['sorted a row at a time', 1], ['sorted 5 rows at a time', 5]] as const)('one file, %s: rows repeated inside the file are stored once', async (_how, ratesPerSort) => {
  const out = join(root, `snap-one${ratesPerSort ?? ''}`);
  const counts = await finalizeTic(con, join(root, 'one'), out, { ratesPerSort });
  const want = expected([FILES[0]!]);
  const staged = planned.filter((p) => p.file === FILES[0]).reduce((n, p) => n + p.prices.length, 0);
  expect(want.size).toBeLessThan(staged); // the file repeats some rows
  expect(counts.rates).toBe(want.size);
  expect(await rows(out)).toEqual(want);
  expect(await layoutProblems(out)).toEqual([]);
  // Only the terms this file's rows use, numbered 1..n on their own.
  expect((await terms(out)).length).toBeLessThanOrEqual((await terms(join(root, 'snap-all'))).length);
});

test.each([['one file', 1], ['two files', 2]] as const)('%s: a description only dropped prices had leaves no gap in terms_id', async (_what, n) => {
  // A rate whose only reference is never defined names a set without members: its prices are
  // dropped, and with them the one description ("bundle ...") that sorts before all others.
  const dir = join(root, `dropped-${n}`);
  const price = (negotiatedType: string, negotiatedRate: number): PriceRecord => ({
    negotiatedType, negotiatedRate, expirationDate: null, serviceCode: null, billingClass: 'professional', setting: null, billingCodeModifier: null, additionalInformation: null });
  const files = ['/data/d1.json', '/data/d2.json'].slice(0, n);
  for (const src of files) {
    const w = await TicFileWriter.create(duck, { src, dir: join(dir, fileKey(src)) });
    w.providerReference({ refId: '1', groups: [REFS['1']!], networkNames: [], location: null });
    const rate = (refIds: string[], prices: PriceRecord[]): void => w.rate({ billingCodeType: 'CPT', billingCode: '99213', billingCodeTypeVersion: null,
      name: 'x', negotiationArrangement: 'ffs', refIds, inlineGroups: [], prices });
    rate(['404'], [price('bundle', 5)]);
    rate(['1'], [price('negotiated', 10), price('fee schedule', 20)]);
    const r = await w.finish();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, fileKey(src), 'done.json'), JSON.stringify({ counts: r.counts }));
  }
  const out = join(root, `snap-dropped-${n}`);
  const counts = await finalizeTic(con, dir, out);
  expect(counts.rates).toBe(2);
  expect(counts.price_terms).toBe(2);
  const keys = await terms(out); // ids 1..n in key order, every rates row naming one
  expect(keys.some((k) => k.includes('bundle'))).toBe(false);
  const r = await con.runAndReadAll(`SELECT t.negotiated_type, r.negotiated_rate FROM read_parquet(${lit(join(out, 'rates', '*', '*', '*.parquet'))}) r
    JOIN read_parquet(${lit(join(out, 'price_terms', '*.parquet'))}) t USING (terms_id) ORDER BY 2`);
  expect(r.getRows()).toEqual([['negotiated', 10], ['fee schedule', 20]]);
});

test('group_members: every bucket file in npi order, when groups interleave in a bucket and slices are small', async () => {
  // Three groups whose NPIs alternate inside bucket 0 (and 1): staged group after group, so the
  // rows reach finalize out of npi order.
  const dir = join(root, 'interleaved');
  const src = '/data/interleaved.json';
  const w = await TicFileWriter.create(duck, { src, dir: join(dir, fileKey(src)) });
  const npisOf = (g: number): number[] => Array.from({ length: 600 }, (_, j) => 1_000_000_000 + 64 * (3 * j + g) + (j % 2));
  for (const g of [0, 1, 2]) {
    w.providerReference({ refId: String(g), groups: [{ tinType: 'ein', tinValue: `1${g}-0000000`, businessName: null, npis: npisOf(g), networkNames: [] }], networkNames: [], location: null });
  }
  w.rate({ billingCodeType: 'CPT', billingCode: '99213', billingCodeTypeVersion: null, name: 'x', negotiationArrangement: 'ffs', refIds: ['0', '1', '2'], inlineGroups: [],
    prices: [{ negotiatedType: 'negotiated', negotiatedRate: 10, expirationDate: null, serviceCode: null, billingClass: 'professional', setting: null, billingCodeModifier: null, additionalInformation: null }] });
  const r = await w.finish();
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(dir, fileKey(src), 'done.json'), JSON.stringify({ counts: r.counts }));
  for (const perSlice of [700, 100_000]) {
    const out = join(root, `snap-interleaved-${perSlice}`);
    const counts = await finalizeTic(con, dir, out, { membersPerSort: perSlice });
    expect(counts.group_members).toBe(1800);
    expect(readdirSync(join(out, 'group_members')).sort()).toEqual(['npi_bucket=0', 'npi_bucket=1']);
    expect(await unsortedMembers(out)).toEqual([]);
  }
});

