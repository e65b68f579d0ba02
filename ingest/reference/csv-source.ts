/**
 * Shared plumbing for the reference loaders (issue 3, item 3): a TableSource over one CSV file in
 * an official layout, with the header checked once, bad rows counted as warnings (never thrown),
 * and the value normalisers every CMS/OIG file needs (dates to YYYY-MM-DD, NPIs, blanks to NULL).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TableDef } from '../../schemas/pricing-tables.ts';
import { CsvReader, columnIndex, type CsvInput, type CsvOptions } from '../csv.ts';
import { WarningTally } from '../report/warnings.ts';
import type { TableSource } from '../table-source.ts';

/** Per-row helpers handed to a loader's `map`. */
export interface RowContext {
  /** Count a warning for this row (kind, short example); the row is still emitted unless map returns null. */
  warn(kind: string, example: string): void;
  /** 1-based record number of the row in the file (the header is record 1). */
  line: number;
}

export interface CsvSourceSpec<K extends string> {
  table: TableDef;
  input: CsvInput;
  /** Official layout name and where it is documented, for the manifest. */
  layout: string;
  /** Logical key -> exact official header name. */
  columns: Record<K, string>;
  /** Keys whose header must be present, else the file is not in the official layout (CsvError). */
  required: readonly K[];
  csv?: CsvOptions;
  /** Builds the table row; return null to drop the row (after calling ctx.warn saying why). */
  map(get: (k: K) => string, ctx: RowContext): Record<string, unknown> | null;
  extraProvenance?: Record<string, unknown>;
}

/** A TableSource reading one CSV file row by row through `spec.map`. */
export function csvTableSource<K extends string>(spec: CsvSourceSpec<K>): TableSource {
  const warnings = new WarningTally();
  const path = typeof spec.input === 'string' ? spec.input : '(stream)';
  return {
    table: spec.table,
    provenance: { path, layout: spec.layout, ...spec.extraProvenance },
    warnings,
    rows: async function* rows() {
      let idx: Record<K, number> | undefined;
      let width = 0;
      // Only the mapped columns are materialised (the PUF has 28 columns, 10 are read; HCPCS_Desc never is).
      const reader = new CsvReader(spec.input, {
        ...spec.csv, header: true,
        select: (header) => {
          idx = columnIndex(header, spec.columns, spec.required);
          width = header.length;
          const used = new Array<boolean>(width).fill(false);
          for (const i of Object.values<number>(idx)) if (i >= 0) used[i] = true;
          return used;
        },
      });
      let row: string[] = [];
      const get = (k: K): string => {
        const i = idx![k];
        return i < 0 ? '' : (row[i] ?? '').trim();
      };
      const ctx: RowContext = {
        line: 1,
        warn: (kind, example) => warnings.add(kind, `${path}:row ${ctx.line}`, example),
      };
      let malformedSeen = 0;
      for await (const batch of reader.batches()) {
        for (row of batch) {
          ctx.line++;
          if (row.length !== width) {
            // A row whose field count differs from the header is misaligned: every value would
            // land in the wrong column, so it is dropped and counted, never guessed at.
            warnings.add('bad_row_width', `${path}:row ${ctx.line}`, `${row.length} fields, header has ${width}: ${row.slice(0, 4).join('|')}`);
            continue;
          }
          const out = spec.map(get, ctx);
          if (out) yield out;
        }
        if (reader.malformed > malformedSeen) {
          warnings.add('irregular_quoting', `${path}:line ${reader.line}`, 'quote inside an unquoted field or text after a closing quote (kept literally)', reader.malformed - malformedSeen);
          malformedSeen = reader.malformed;
        }
      }
      if (!idx) warnings.add('empty_file', path, 'no header row');
    },
  };
}

/** '' -> null, else the trimmed string. */
export function str(s: string): string | null {
  return s === '' ? null : s;
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function ymd(y: number, m: number, d: number): string | undefined {
  if (!(y >= 1800 && y <= 2200 && m >= 1 && m <= 12 && d >= 1 && d <= DAYS[m - 1]!)) return undefined;
  if (m === 2 && d === 29 && !((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0)) return undefined;
  return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * A date as published (YYYYMMDD as in the LEIE, MM/DD/YYYY as in NPPES and the opt-out file, or
 * ISO YYYY-MM-DD) -> 'YYYY-MM-DD'. Blank and the LEIE's all-zero '00000000' -> null. Anything
 * else -> undefined (the caller warns and stores null).
 */
export function normDate(s: string): string | null | undefined {
  if (s === '' || /^0+$/.test(s)) return null;
  let m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (m) return ymd(+m[1]!, +m[2]!, +m[3]!);
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s);
  if (m) return ymd(+m[3]!, +m[1]!, +m[2]!);
  m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/.exec(s);
  if (m) return ymd(+m[1]!, +m[2]!, +m[3]!);
  return undefined;
}

/** normDate with a counted warning for an unparseable value. */
export function dateOrWarn(s: string, column: string, ctx: RowContext): string | null {
  const d = normDate(s);
  if (d === undefined) { ctx.warn('bad_date', `${column}=${s}`); return null; }
  return d;
}

/** A 10-digit NPI -> number; blank or all zeros (LEIE writes 0000000000 for "none") -> null; else undefined. */
export function parseNpi(s: string): number | null | undefined {
  if (s === '' || /^0+$/.test(s)) return null;
  return /^\d{10}$/.test(s) ? Number(s) : undefined;
}

/** A number as published ('1,234.50', '$12.00', '') -> number | null; undefined when not a number. */
export function parseNum(s: string): number | null | undefined {
  if (s === '') return null;
  const n = Number(s.replace(/[$,]/g, ''));
  return Number.isFinite(n) ? n : undefined;
}

/** Y/N (also Yes/No, true/false) -> boolean; blank -> null; else undefined. */
export function parseYN(s: string): boolean | null | undefined {
  if (s === '') return null;
  const u = s.toUpperCase();
  if (u === 'Y' || u === 'YES' || u === 'TRUE' || u === 'T' || u === '1') return true;
  if (u === 'N' || u === 'NO' || u === 'FALSE' || u === 'F' || u === '0') return false;
  return undefined;
}

/** Absolute path of a file in the repo's data/ folder, if it exists (loaders' defaults, issue 3 item 4). */
export function repoDataFile(rel: string): string | undefined {
  const p = fileURLToPath(new URL(`../../data/${rel}`, import.meta.url));
  return existsSync(p) ? p : undefined;
}
