/**
 * Writes CSV files in the NPPES dissemination layout (NPPES_ReadMe_And_CodeValues.md 1.1): every
 * value quoted, a double quote inside a value replaced by a single quote (as NPPES does), CRLF line
 * ends, ISO-8859-1 bytes. For fixtures and the synthetic demo network; the loader reads these files
 * exactly like the published ones.
 */
import { writeFileSync } from 'node:fs';
import { NPPES_MAIN_HEADERS, type NppesMainHeader } from './headers.ts';

/** One row keyed by exact header names; missing columns are written empty. */
export type NppesCsvRow = Partial<Record<string, string>>;

/** The CSV text for `rows` under `headers`. A key that is not a header is a typo: Error. */
export function nppesCsvText(headers: readonly string[], rows: NppesCsvRow[]): string {
  const known = new Set(headers);
  const q = (v: string): string => `"${v.replaceAll('"', "'")}"`;
  const lines = [headers.map(q).join(',')];
  for (const r of rows) {
    for (const k of Object.keys(r)) if (!known.has(k)) throw new Error(`not an NPPES column: ${JSON.stringify(k)}`);
    lines.push(headers.map((h) => q(r[h] ?? '')).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Writes `rows` as an NPPES main file (npidata_pfile layout, 330 columns) or, with `headers`, another NPPES file. */
export function writeNppesCsv(rows: (Partial<Record<NppesMainHeader, string>> | NppesCsvRow)[], path: string, headers: readonly string[] = NPPES_MAIN_HEADERS): void {
  writeFileSync(path, nppesCsvText(headers, rows), 'latin1');
}
