/**
 * The DuckDB instance an ingest writes through. Memory is bounded by DuckDB's own memory_limit
 * (its operators spill to temp_directory beyond it), so peak RSS stays flat whatever the input size
 * (issue 3, item 9). SQL string helpers live here too.
 */
import { mkdirSync } from 'node:fs';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

export interface DuckOptions {
  /** Spill directory (under the staging dir, so it is removed with it). */
  tempDir: string;
  /** DuckDB memory_limit, e.g. '512MB'. Node's own heap and buffers come on top. */
  memoryLimit?: string;
  threads?: number;
  /**
   * A database file instead of an in-memory database: staged tables then live in the file and the
   * buffer manager evicts them freely (an in-memory table cannot be evicted, and a 5-million-price
   * file's staging tables alone exceed a 400 MB limit).
   */
  file?: string;
}

/** An in-memory DuckDB whose tables and operators spill to `tempDir` beyond `memoryLimit`. */
export async function openDuck(o: DuckOptions): Promise<DuckDBInstance> {
  mkdirSync(o.tempDir, { recursive: true });
  return DuckDBInstance.create(o.file ?? ':memory:', {
    threads: String(o.threads ?? 2),
    memory_limit: o.memoryLimit ?? '512MB',
    temp_directory: o.tempDir,
    max_temp_directory_size: '500GB',
    // See table-writer.ts copySelectToTable: bounds the rows buffered per open partition.
    partitioned_write_flush_threshold: '8192',
    // Every query whose order matters says ORDER BY; the rest may stream in any order (less memory).
    preserve_insertion_order: 'false',
    // RSS is DuckDB's buffer pool plus what its allocator keeps cached: jemalloc held up to 128 MiB
    // a thread and 512 MiB after bulk frees by default, which put a 1 GiB ingest at 1.1-1.2 GB
    // RSS with a 400 MB memory_limit (measured 2026-11-22). Flushing early keeps the peak under 1 GB.
    allocator_flush_threshold: '16MB',
    allocator_bulk_deallocation_flush_threshold: '64MB',
    allocator_background_threads: 'true',
    // Every staged Parquet file is read once or twice: caching the bytes only adds to RSS.
    enable_external_file_cache: 'false',
    // The database is scratch (removed with its directory; every run starts a new one): a checkpoint
    // only writes what the WAL holds into the file. At DuckDB's 16 MB default one ran at finalize's
    // last DROP TABLE, ~0.3 s on the 1 GiB benchmark file (10.3 s against 10.9 end to end,
    // measured 2026-11-23); at 1 GB they still bound the WAL (and reclaim dropped tables' space)
    // on large runs.
    checkpoint_threshold: '1GB',
  });
}

/**
 * The compression of every Parquet file an ingest writes (COPY options). zstd level 1 rather than
 * DuckDB's default level: finalize of the 1 GiB benchmark file 8.8-9.3 s against 9.7-10.4 s
 * (16.0-17.0 CPU-seconds against 17.9-18.9), for a snapshot of 209 MB instead of 195 MB (measured
 * 2026-11-22, alternating runs). zstd decompresses at about the same speed whatever the level.
 */
export const ZSTD = 'COMPRESSION zstd, COMPRESSION_LEVEL 1';

/**
 * DuckDB's memory_limit lowered while every party of a concurrent step only streams rows out of
 * tables already built (a lower limit evicts their cached blocks, and DuckDB's allocator returns
 * the pages), and put back as soon as one party needs memory again (a sort, join or aggregate).
 * The SETs run on `control`, a connection that runs nothing else (a statement on a connection
 * ends the stream open on it). DuckDB takes a lower limit even while more is in use, evicting what
 * it can; the low limit must therefore hold what the streams pin (a few blocks each, and a sort's
 * result that spills).
 */
export class MemoryWindow {
  private readonly heavy = new Set<string>();
  private full: string | null = null;
  private down = false;
  private chain: Promise<void> = Promise.resolve();
  /** Times the limit was lowered (tests). */
  lowered = 0;
  private readonly control: DuckDBConnection;
  private readonly low: string;

  /** `full`: the limit as it was set (e.g. '256MB'), put back exactly; without it, read from DuckDB (shownLimit). */
  constructor(control: DuckDBConnection, low: string, full?: string) {
    this.control = control;
    this.low = low;
    this.full = full ?? null;
  }

  /** `party` needs memory from now on: the full limit is back before this resolves. */
  need(party: string): Promise<void> {
    this.heavy.add(party);
    return this.apply();
  }

  /** `party` only streams from now on (or is done): the limit goes down once every party does. */
  release(party: string): Promise<void> {
    this.heavy.delete(party);
    return this.apply();
  }

  /**
   * DuckDB's thread pool at one thread from when this resolves until every one of `until` has
   * settled (`restored`), then at the count it had; set on the control connection, in turn with
   * the limits. For two connections whose statements run side by side: at two threads a
   * statement's calling thread busy-waits whenever the pool's other thread holds its last task,
   * taking a core from the statement beside it on a 2-core machine. Measured 2026-11-24 on the
   * staged 1 GiB benchmark file, finalize's set, description and group pick statements and the
   * groups' sort each alone: 336 CPU-ms in all at one thread against 507 at two (336 ms against
   * 379); finalize alone, 7 alternating pairs, CPU lower in 5 (schemas/README.md item 58). Not at
   * one thread throughout: the 40 GiB file took 371 s against 342 and 941 MiB against 817.
   */
  async oneThreadUntil(until: readonly Promise<unknown>[]): Promise<{ restored: Promise<void> }> {
    let threads = 1;
    this.chain = this.chain.then(async () => {
      threads = Math.max(1, await scalar(this.control, "SELECT current_setting('threads')"));
      await this.control.run('SET threads = 1');
    });
    await this.chain;
    const restored = Promise.allSettled(until).then(() => {
      this.chain = this.chain.then(async () => { await this.control.run(`SET threads = ${threads}`); });
      return this.chain;
    });
    return { restored };
  }

  private apply(): Promise<void> {
    this.chain = this.chain.then(async () => {
      if (this.heavy.size > 0 && this.down) {
        await this.control.run(`SET memory_limit = ${lit(this.full!)}`);
        this.down = false;
      } else if (this.heavy.size === 0 && !this.down) {
        this.full ??= await shownLimit(this.control);
        // Never up: a limit already at or below the low one stays.
        if (memoryBytes(this.low) >= memoryBytes(this.full)) return;
        await this.control.run(`SET memory_limit = ${lit(this.low)}`);
        this.down = true;
        this.lowered++;
      }
    });
    return this.chain;
  }
}

/**
 * DuckDB's memory_limit as a size that sets it back unchanged. DuckDB shows it cut to 0.1 MiB
 * (256 MB as "244.1 MiB"), and "244.1 MiB" set is 255,957,606 bytes, shown as "244.0 MiB": each
 * read and set would lose a little more. Rounded up to a whole KiB, the size shows as it was read
 * (at most 0.1 MiB below the limit first set).
 */
export async function shownLimit(con: DuckDBConnection): Promise<string> {
  const shown = String((await con.runAndReadAll("SELECT current_setting('memory_limit')")).getRows()[0]?.[0]);
  return `${Math.ceil(memoryBytes(shown) / 1024)}KiB`;
}

/**
 * Bytes of a DuckDB memory size: as it is set ('256MB', '1.5GB', '512 MiB') or as DuckDB shows it
 * ('244.1 MiB'). KB/MB/GB/TB are powers of 1000, KiB/MiB/GiB/TiB of 1024, as in DuckDB.
 */
export function memoryBytes(size: string): number {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$/i.exec(size);
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new Error(`not a memory size: ${JSON.stringify(size)} (e.g. 256MB)`);
  return Number(m[1]) * unit;
}

const UNITS: Record<string, number> = {
  '': 1, b: 1, byte: 1, bytes: 1,
  k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9, t: 1e12, tb: 1e12,
  kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40,
};

/** A SQL string literal. */
export function lit(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** A quoted identifier. */
export function ident(s: string): string {
  return `"${s.replaceAll('"', '""')}"`;
}

/** Runs statements in order on one connection. */
export async function runAll(con: DuckDBConnection, sql: string[]): Promise<void> {
  for (const s of sql) await con.run(s);
}

/** A single number from a one-row, one-column query. */
export async function scalar(con: DuckDBConnection, sql: string): Promise<number> {
  const r = await con.runAndReadAll(sql);
  const v = r.getRows()[0]?.[0];
  return v === null || v === undefined ? 0 : Number(v);
}

/**
 * Runs `tasks` (each one statement or a few) on `cons` concurrently, one task per connection at a
 * time, with DuckDB's thread pool at one thread: each statement then runs on the calling
 * connection's own thread only, so N connections are N single-threaded statements side by side.
 * For many small statements (a COPY per partition) this is faster than each one spreading over the
 * pool (measured 2026-11-22, 200 rates partitions on 2 cores: 6.0 s with 2 threads, 4.6 s with 1).
 * The thread count is restored afterwards, also on failure.
 */
export async function runSideBySide(cons: readonly DuckDBConnection[], tasks: readonly ((con: DuckDBConnection) => Promise<void>)[]): Promise<void> {
  const [first] = cons;
  if (!first) throw new Error('runSideBySide: no connection');
  const threads = await scalar(first, "SELECT current_setting('threads')");
  await first.run('SET threads = 1');
  let next = 0;
  let failed: unknown = null;
  const lane = async (con: DuckDBConnection): Promise<void> => {
    while (failed === null && next < tasks.length) {
      const task = tasks[next++]!;
      try {
        await task(con);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  try {
    await Promise.all(cons.map(lane));
  } finally {
    await first.run(`SET threads = ${Math.max(1, threads)}`);
  }
  if (failed !== null) throw failed;
}
