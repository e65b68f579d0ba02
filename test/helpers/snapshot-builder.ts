/**
 * Writes a snapshot from in-memory rows, in the exact layout the ingest pipeline produces
 * (schemas/snapshot-layout.ts), through real DuckDB. For engine tests that need a specific, small
 * data set; pipeline tests build snapshots with the real ingest instead.
 */
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { GROUP_MEMBERS, GROUP_SETS, PRICE_TERMS, PROVIDER_GROUPS, RATES, RATES_VIEW_COLUMNS, TABLES_BY_NAME, duckColumnsSql, type TableDef } from '../../schemas/pricing-tables.ts';
import { MANIFEST_FILE, tableDir, type SnapshotManifest } from '../../schemas/snapshot-layout.ts';

export type Row = Record<string, unknown>;

function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'NULL';
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return `'${s.replaceAll("'", "''")}'`;
}

async function writeTable(con: Awaited<ReturnType<DuckDBInstance['connect']>>, dir: string, t: TableDef, rows: Row[]): Promise<void> {
  const tmp = `t_${t.name}`;
  // A column the contract does not have would be dropped silently (a stale fixture after a
  // contract change, e.g. rates.group_key): fail instead, naming it.
  const known = new Set(t.columns.map((c) => c.name));
  for (const r of rows) {
    const unknown = Object.keys(r).find((k) => !known.has(k));
    if (unknown) throw new Error(`buildTestSnapshot: table ${t.name} has no column ${unknown} (schemas/pricing-tables.ts)`);
  }
  await con.run(`CREATE OR REPLACE TEMP TABLE ${tmp} (${duckColumnsSql(t)})`);
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const values = chunk.map((r) => `(${t.columns.map((c) => {
      const v = r[c.name];
      const lit = literal(v);
      return lit === 'NULL' || !c.type.endsWith('[]') || (Array.isArray(v) && v.length) ? `${lit}::${c.type}` : `[]::${c.type}`;
    }).join(', ')})`);
    await con.run(`INSERT INTO ${tmp} VALUES ${values.join(', ')}`);
  }
  const out = tableDir(dir, t);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const order = t.sortBy?.length ? ` ORDER BY ${t.sortBy.map((s) => `"${s}"`).join(', ')}` : '';
  if (t.partitionBy?.length) {
    await con.run(`COPY (SELECT * FROM ${tmp}${order}) TO '${out}' (FORMAT parquet, PARTITION_BY (${t.partitionBy.map((p) => `"${p}"`).join(', ')}), OVERWRITE_OR_IGNORE)`);
  } else {
    await con.run(`COPY (SELECT * FROM ${tmp}${order}) TO '${join(out, 'data_0.parquet')}' (FORMAT parquet)`);
  }
}

/**
 * rates rows in the readable form of the `rates` view (every term on the row) split into stored
 * rates rows naming a terms_id and their price_terms rows, as the ingest writes them. Rows that
 * already carry a terms_id are kept as they are (with the price_terms rows the caller gives).
 */
function splitRates(rows: Row[]): { rates: Row[]; terms: Row[] } {
  const viewCols = new Set(RATES_VIEW_COLUMNS.map((c) => c.name));
  const termCols = PRICE_TERMS.columns.map((c) => c.name).filter((n) => n !== 'terms_id');
  const ids = new Map<string, number>();
  const terms: Row[] = [];
  const rates = rows.map((r) => {
    const unknown = Object.keys(r).find((k) => !viewCols.has(k));
    if (unknown) throw new Error(`buildTestSnapshot: table rates has no column ${unknown} (schemas/pricing-tables.ts)`);
    if (r.terms_id !== undefined) return r;
    const key = JSON.stringify(termCols.map((n) => r[n] ?? null));
    let id = ids.get(key);
    if (id === undefined) {
      id = ids.size + 1;
      ids.set(key, id);
      terms.push({ terms_id: id, ...Object.fromEntries(termCols.map((n) => [n, r[n] ?? null])) });
    }
    return { ...Object.fromEntries(Object.entries(r).filter(([k]) => !termCols.includes(k))), terms_id: id };
  });
  return { rates, terms };
}

/**
 * provider_groups rows get their group_ref (1..n in group_key order, as the ingest numbers them)
 * unless given, and group_members rows in the readable form of the view (with group_key) are
 * stored with their group's group_ref.
 */
function refGroups(groups: Row[], members: Row[]): { groups: Row[]; members: Row[] } {
  const sorted = [...groups].sort((a, b) => String(a.group_key).localeCompare(String(b.group_key)));
  const refs = new Map(sorted.map((g, i) => [String(g.group_key), (g.group_ref as number | undefined) ?? i + 1]));
  return {
    groups: groups.map((g) => ({ ...g, group_ref: refs.get(String(g.group_key)) })),
    members: members.map((m) => {
      if (m.group_ref !== undefined) return m;
      const ref = refs.get(String(m.group_key));
      if (ref === undefined) throw new Error(`buildTestSnapshot: group_members names group ${String(m.group_key)}, which provider_groups does not have`);
      const { group_key: _, ...rest } = m;
      return { ...rest, group_ref: ref };
    }),
  };
}

/**
 * group_sets rows get their set_ref (1..n in group_set_key order, as the ingest numbers them)
 * unless given, and rates rows naming their set by group_set_key (the readable form, as
 * rate-sets.ts withGroupSets writes them) are stored with its set_ref. A set key only rates name
 * (no member rows) gets a number too.
 */
function refSets(rates: Row[], sets: Row[]): { rates: Row[]; sets: Row[] } {
  const keyOf = (r: Row): string | null => (typeof r.group_set_key === 'string' ? r.group_set_key : null);
  const keys = [...new Set([...sets, ...rates].map(keyOf).filter((k) => k !== null))].sort();
  const refs = new Map(keys.map((k, i) => [k, i + 1]));
  const refOf = (r: Row): number | undefined => { const k = keyOf(r); return k === null ? undefined : refs.get(k); };
  return {
    sets: sets.map((s) => ({ ...s, set_ref: s.set_ref ?? refOf(s) })),
    rates: rates.map((r) => {
      if (r.set_ref !== undefined || keyOf(r) === null) return r;
      const { group_set_key: _key, ...rest } = r;
      return { ...rest, set_ref: refOf(r) };
    }),
  };
}

/**
 * Builds `dir` as a complete snapshot with the given tables (every other table is written empty,
 * so readers never meet a missing table).
 */
export async function buildTestSnapshot(dir: string, tables: Record<string, Row[]>, manifest: Partial<SnapshotManifest> = {}): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  try {
    const counts: Record<string, { rows: number }> = {};
    const sets = refSets(tables[RATES.name] ?? [], tables[GROUP_SETS.name] ?? []);
    const split = splitRates(sets.rates);
    const grouped = refGroups(tables[PROVIDER_GROUPS.name] ?? [], tables[GROUP_MEMBERS.name] ?? []);
    const given: Record<string, Row[]> = {
      ...tables, [RATES.name]: split.rates, [PRICE_TERMS.name]: [...(tables[PRICE_TERMS.name] ?? []), ...split.terms], [GROUP_SETS.name]: sets.sets,
      [PROVIDER_GROUPS.name]: grouped.groups, [GROUP_MEMBERS.name]: grouped.members,
    };
    for (const t of TABLES_BY_NAME.values()) {
      const rows = given[t.name] ?? [];
      await writeTable(con, dir, t, rows);
      counts[t.name] = { rows: rows.length };
    }
    for (const name of Object.keys(tables)) if (!TABLES_BY_NAME.has(name)) throw new Error(`unknown table ${name}`);
    const m: SnapshotManifest = {
      id: manifest.id ?? 'test',
      createdAt: manifest.createdAt ?? new Date().toISOString(),
      status: 'complete',
      tables: counts,
      dataVintage: manifest.dataVintage ?? 'test data',
      synthetic: manifest.synthetic ?? true,
      sources: manifest.sources ?? {},
    };
    writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(m, null, 2));
  } finally {
    con.closeSync();
    inst.closeSync();
  }
}
