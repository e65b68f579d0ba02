import type { TableDef } from '../schemas/pricing-tables.ts';
import type { WarningTally } from './report/warnings.ts';

/**
 * A loader's output: rows for one snapshot table, produced lazily (streamed, never loaded whole).
 * Row keys are the table's column names (schemas/pricing-tables.ts); missing keys are NULL.
 * The snapshot writer (ingest/snapshot) turns a list of these into Parquet.
 */
export interface TableSource {
  table: TableDef;
  rows: () => AsyncIterable<Record<string, unknown>>;
  /** Where the rows came from (file path/URL, layout, date), recorded in the manifest. */
  provenance: Record<string, unknown>;
  /**
   * Non-fatal problems (bad rows, unparseable dates, irregular quoting) counted while `rows()` runs;
   * read it after the iteration ends and fold it into the report. Optional: loaders that cannot
   * meet a bad row leave it out.
   */
  warnings?: WarningTally;
}
