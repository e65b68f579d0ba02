/**
 * Read access to the current pricing snapshot through DuckDB. Every table of
 * schemas/pricing-tables.ts is a view named after the table, over the snapshot's Parquet, so
 * adapters write plain SQL (`SELECT … FROM rates WHERE billing_code = $code`).
 *
 * The CURRENT pointer is re-read on `refresh()` (cheap: one small file read); a publish swaps the
 * views to the new snapshot for subsequent queries while queries in flight finish on the old one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { ALL_TABLES, PRICE_TERMS, RATES, setColumnOf, viewSql, type SetColumn, type TableDef } from '../../../schemas/pricing-tables.ts';
import { CURRENT_POINTER, MANIFEST_FILE, firstParquet, parquetColumnsSql, snapshotDir, tableScanSql, type SnapshotManifest } from '../../../schemas/snapshot-layout.ts';
import type { SnapshotInfo } from '../ports.ts';

type Params = DuckDBValue[] | Record<string, DuckDBValue>;

interface Opened {
  info: SnapshotInfo;
  /** How its rates rows name their provider-group set (schemas/pricing-tables.ts SetColumn). */
  setColumn: SetColumn;
  /** Rows per table, from the manifest (a published snapshot never changes: read once, not per request). */
  rows: Map<string, number>;
  instance: DuckDBInstance;
  pool: DuckDBConnection[];
  waiters: ((c: DuckDBConnection) => void)[];
}

/** A table with no rows has no Parquet files (a partitioned COPY of nothing writes none): typed empty view. */
function emptyTableSql(t: TableDef): string {
  return `SELECT ${t.columns.map((c) => `CAST(NULL AS ${c.type}) AS "${c.name}"`).join(', ')} WHERE false`;
}

/** Converts DuckDB JS values: BIGINT within the safe range -> number, DATE/TIMESTAMP -> ISO string. */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/**
 * DuckDB worker threads per snapshot instance: one, so each query runs on the thread that asked
 * (a pool connection's libuv worker) and concurrent requests run side by side on the pool. Two
 * threads split every small lookup across cores and paid for it in synchronisation: measured
 * 2026-11-28 on the 50 M-row benchmark snapshot, 2 cores, the rates lookup 3.4 ms of CPU at one
 * thread vs 4.2 at two, and four concurrent lookups took 2.1 ms of wall each vs 4.1
 * (docs/performance-log.md). Only the per-snapshot warm-up (large aggregations, in the
 * background) would gain from more.
 */
const QUERY_THREADS = 1;

/** The in-memory copy of the snapshot's price_terms (see load()); rates.duckdb.ts joins it. */
export const PRICE_TERMS_MEM = '__price_terms';

export class SnapshotDb {
  private opened: Opened | null = null;
  private readonly poolSize: number;
  private readonly root: string;

  private constructor(root: string, poolSize: number) {
    this.root = root;
    this.poolSize = poolSize;
  }

  /** `root` is the pricing directory (DATA_DIR/pricing) holding CURRENT and snapshots/. */
  static async open(root: string, poolSize = 4): Promise<SnapshotDb> {
    const db = new SnapshotDb(root, poolSize);
    await db.refresh();
    return db;
  }

  /** Opens a specific snapshot directory directly (tests, `snapshot info`). */
  static async openDir(dir: string, poolSize = 2): Promise<SnapshotDb> {
    const db = new SnapshotDb(dir, poolSize);
    db.opened = await db.load(dir);
    return db;
  }

  current(): SnapshotInfo | null {
    return this.opened?.info ?? null;
  }

  /** Re-reads CURRENT and switches to a newly published snapshot. Returns true when it changed. */
  async refresh(): Promise<boolean> {
    const ptr = join(this.root, CURRENT_POINTER);
    if (!existsSync(ptr)) return false;
    const id = readFileSync(ptr, 'utf8').trim();
    if (!id || this.opened?.info.id === id) return false;
    const next = await this.load(snapshotDir(this.root, id));
    const prev = this.opened;
    this.opened = next;
    if (prev) setTimeout(() => this.closeOpened(prev), 30_000).unref();
    return true;
  }

  private async load(dir: string): Promise<Opened> {
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as SnapshotManifest;
    const instance = await DuckDBInstance.create(':memory:', { threads: String(QUERY_THREADS) });
    const setup = await instance.connect();
    // Every table gets a view, so queries never fail on a family the snapshot did not ingest; rates
    // joins its price_terms back (viewSql). price_terms is small (one row per distinct combination
    // of terms) and joined by every rates query, so it is read into memory once, as __price_terms.
    const cols = new Map<TableDef, string[]>();
    for (const t of ALL_TABLES) {
      const f = firstParquet(dir, t);
      if (f) cols.set(t, (await setup.runAndReadAll(parquetColumnsSql(f))).getRows().map((r) => String(r[0])));
    }
    const columns = (t: TableDef): string[] | null => cols.get(t) ?? null;
    await setup.run(`CREATE TABLE ${PRICE_TERMS_MEM} AS ${columns(PRICE_TERMS) ? `SELECT * FROM ${tableScanSql(dir, PRICE_TERMS)}` : emptyTableSql(PRICE_TERMS)}`);
    const stored = (t: TableDef): string => (t === PRICE_TERMS ? PRICE_TERMS_MEM : columns(t) ? tableScanSql(dir, t) : `(${emptyTableSql(t)})`);
    for (const t of ALL_TABLES) await setup.run(`CREATE VIEW "${t.name}" AS ${viewSql(t, stored, columns)}`);
    setup.closeSync();
    const pool: DuckDBConnection[] = [];
    for (let i = 0; i < this.poolSize; i++) pool.push(await instance.connect());
    return {
      info: { id: manifest.id, dir, createdAt: manifest.createdAt, dataVintage: manifest.dataVintage, synthetic: manifest.synthetic },
      setColumn: setColumnOf(columns(RATES)),
      rows: new Map(Object.entries(manifest.tables).map(([name, t]) => [name, t.rows ?? 0])),
      instance,
      pool,
      waiters: [],
    };
  }

  private async acquire(o: Opened): Promise<DuckDBConnection> {
    const c = o.pool.pop();
    if (c) return c;
    return new Promise((resolve) => o.waiters.push(resolve));
  }

  private release(o: Opened, c: DuckDBConnection): void {
    const w = o.waiters.shift();
    if (w) w(c);
    else o.pool.push(c);
  }

  /** Runs a query on the current snapshot; rows come back as plain JS objects. */
  async query<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]> {
    const o = this.opened;
    if (!o) throw new Error('no pricing snapshot is open');
    const c = await this.acquire(o);
    try {
      const reader = await c.runAndReadAll(sql, params);
      return reader.getRowObjectsJS().map((r) => plain(r) as T);
    } finally {
      this.release(o, c);
    }
  }

  /**
   * The column by which the open snapshot's rates (and group_sets) name a provider-group set:
   * set_ref, or group_set_key in a snapshot written before set_ref.
   */
  setColumn(): SetColumn {
    return this.opened?.setColumn ?? 'set_ref';
  }

  /** Rows of a table of the open snapshot (manifest counts; 0 when absent or no snapshot is open). */
  rowCount(table: string): number {
    return this.opened?.rows.get(table) ?? 0;
  }

  /** Whether the open snapshot has a table with at least one row (manifest counts). */
  hasRows(table: string): boolean {
    return (this.opened?.rows.get(table) ?? 0) > 0;
  }

  private closeOpened(o: Opened): void {
    for (const c of o.pool) c.closeSync();
    o.instance.closeSync();
  }

  close(): void {
    if (this.opened) this.closeOpened(this.opened);
    this.opened = null;
  }
}
