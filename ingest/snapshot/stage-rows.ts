/**
 * Staging rows recorded in one thread and appended in another: the parse helper's stager
 * (parse-helper.ts) records its rows into flat arrays (RowRecorder), posts them, and the parse
 * thread appends them to the file's DuckDB staging tables (replayRows). No DuckDB in here: the
 * helper's worker never loads it.
 */
import type { DuckDBAppender } from '@duckdb/node-api';
import type { StagedCounts } from './staged-layout.ts';
import type { WarningSummary } from '../report/warnings.ts';
import type { RowAppender } from './tic-stager.ts';

export type RowValue = string | number | null;

/** A RowAppender that keeps the values, row after row, in one array (taken by take()). */
export class RowRecorder implements RowAppender {
  private values: RowValue[] = [];

  appendInteger(v: number): void { this.values.push(v); }
  appendVarchar(v: string): void { this.values.push(v); }
  appendDouble(v: number): void { this.values.push(v); }
  appendNull(): void { this.values.push(null); }
  endRow(): void { /* rows are as wide as their table: replayRows counts them out */ }

  /** The values recorded since the last take(), or null when there are none. */
  take(): RowValue[] | null {
    if (this.values.length === 0) return null;
    const v = this.values;
    this.values = [];
    return v;
  }
}

type Kind = 'int' | 'double' | 'varchar';
const kinds = new Map<string, Kind[]>();

/** The append method of each column of a STAGE_TABLES definition ('a INTEGER, b VARCHAR, ...'). */
function kindsOf(columns: string): Kind[] {
  let k = kinds.get(columns);
  if (k) return k;
  k = columns.split(',').map((c) => {
    const type = c.trim().split(/\s+/)[1];
    if (type === 'INTEGER') return 'int';
    if (type === 'DOUBLE') return 'double';
    if (type === 'VARCHAR') return 'varchar';
    throw new Error(`no replay for column type ${String(type)}`);
  });
  kinds.set(columns, k);
  return k;
}

/** Appends recorded values (whole rows of the table `columns` defines) to `ap`. */
export function replayRows(ap: DuckDBAppender, columns: string, values: readonly RowValue[]): void {
  const k = kindsOf(columns);
  const width = k.length;
  if (values.length % width !== 0) throw new Error(`recorded values are not whole rows of (${columns})`);
  for (let i = 0; i < values.length; i += width) {
    for (let c = 0; c < width; c++) {
      const v = values[i + c] as RowValue;
      if (v === null) ap.appendNull();
      else if (k[c] === 'varchar') ap.appendVarchar(v as string);
      else if (k[c] === 'int') ap.appendInteger(v as number);
      else ap.appendDouble(v as number);
    }
    ap.endRow();
  }
}

/** What a parse helper staged besides its rows, handed to TicFileWriter.absorb() at the end. */
export interface HelperStaged {
  counts: StagedCounts;
  warnings: WarningSummary;
  remote: { refId: string; location: string }[];
  /** Its staged prices (prices<suffix>.parquet); group_npis<suffix>.bin lies beside it. */
  pricesPath: string;
}
