/**
 * Appends numeric rows to a DuckDB table a whole data chunk (2,048 rows) at a time. The row-wise
 * Appender costs one native call per value plus one per row (endRow): profiled on a 128 MiB TiC
 * file, those calls were 1.4 s of 3.4 s. Here a row is stored into JS typed arrays and each chunk
 * crosses into DuckDB with one copy per column (DuckDB*Vector.flush copies the typed array).
 */
import {
  DOUBLE, DuckDBDataChunk, INTEGER, LIST, listValue, type DuckDBAppender, type DuckDBType,
} from '@duckdb/node-api';

export type NumericColumnType = 'INTEGER' | 'DOUBLE';

const DUCK_TYPE: Record<NumericColumnType, DuckDBType> = { INTEGER, DOUBLE };

/** DuckDB's vector size: the most rows one data chunk holds. */
export const CHUNK_ROWS = 2048;

export class NumericChunkAppender {
  /** One typed array per column; write row `i` (from next()) into cols[c][i]. */
  readonly cols: (Int32Array | Float64Array)[];
  private readonly types: DuckDBType[];
  private n = 0;
  /** Rows appended so far (including those still buffered). */
  rows = 0;

  constructor(private readonly ap: DuckDBAppender, columnTypes: readonly NumericColumnType[]) {
    this.cols = columnTypes.map((t) => (t === 'INTEGER' ? new Int32Array(CHUNK_ROWS) : new Float64Array(CHUNK_ROWS)));
    this.types = columnTypes.map((t) => DUCK_TYPE[t]);
  }

  /** The index of the next row to fill; flushes a full chunk first. */
  next(): number {
    if (this.n === CHUNK_ROWS) this.flush();
    this.rows++;
    return this.n++;
  }

  /** Appends the buffered rows as one data chunk. */
  flush(): void {
    if (this.n === 0) return;
    const chunk = DuckDBDataChunk.create(this.types, this.n);
    for (let c = 0; c < this.cols.length; c++) {
      const v = chunk.getColumnVector(c);
      const col = this.cols[c]!;
      for (let i = 0; i < this.n; i++) v.setItem(i, col[i]!);
      v.flush();
    }
    this.ap.appendDataChunk(chunk);
    this.n = 0;
  }
}

/** NPIs buffered before a ListChunkAppender flushes early (bounds a chunk's list values). */
const LIST_ITEMS_PER_CHUNK = 1 << 20;
/**
 * List items after which the DuckDB appender itself is flushed into the table. DuckDB's appender
 * holds rows in memory outside the buffer pool until 204,800 rows: 158,420 groups carrying 39 M
 * NPIs (a 10 M-price file) were all held there, 300 MB of RSS (measured 2026-11-22).
 */
const LIST_ITEMS_PER_TABLE_FLUSH = 4 << 20;

/**
 * Appends (INTEGER id, DOUBLE[] values) rows a data chunk at a time: a provider group's sorted NPIs
 * as one list value, copied into DuckDB's list child vector per chunk, never as text.
 */
export class ListChunkAppender {
  private ids: number[] = [];
  private lists: Float64Array[] = [];
  private items = 0;
  private unflushed = 0;

  constructor(private readonly ap: DuckDBAppender) {}

  add(id: number, values: Float64Array): void {
    this.ids.push(id);
    this.lists.push(values);
    this.items += values.length;
    if (this.ids.length === CHUNK_ROWS || this.items >= LIST_ITEMS_PER_CHUNK) this.flush();
  }

  flush(): void {
    const n = this.ids.length;
    if (n === 0) return;
    const chunk = DuckDBDataChunk.create([INTEGER, LIST(DOUBLE)], n);
    const idv = chunk.getColumnVector(0);
    const lv = chunk.getColumnVector(1);
    for (let i = 0; i < n; i++) {
      idv.setItem(i, this.ids[i]!);
      // DuckDBListVector.flush reads a list value's items by index and length only, so a typed
      // array is passed as is (an Array.from copy cost 0.75 s per GiB of TiC, profiled); the
      // ingest tests check every NPI that comes out.
      lv.setItem(i, listValue(this.lists[i]! as unknown as number[]));
    }
    idv.flush();
    lv.flush();
    this.ap.appendDataChunk(chunk);
    this.unflushed += this.items;
    if (this.unflushed >= LIST_ITEMS_PER_TABLE_FLUSH) {
      this.ap.flushSync();
      this.unflushed = 0;
    }
    this.ids = [];
    this.lists = [];
    this.items = 0;
  }
}
