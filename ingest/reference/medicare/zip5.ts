/**
 * ZIP5 loader: every ZIP code to its Medicare carrier (MAC) and pricing locality, fixed width per
 * ZIP5lyout.txt: state 1-2, ZIP 3-7, carrier 8-12, pricing locality 13-14, rural indicator 15
 * (blank urban, R rural, B super rural), year/quarter 76-80.
 */
import { cols, textLines } from './lines.ts';

/** One zip_localities row, or null for a blank/short line. */
export function parseZip5Line(line: string): Record<string, unknown> | null {
  if (line.length < 14) return null;
  const zip5 = cols(line, 3, 7);
  if (!/^\d{5}$/.test(zip5)) return null;
  return {
    zip5,
    state: cols(line, 1, 2),
    carrier: cols(line, 8, 12),
    locality: cols(line, 13, 14),
    rural_indicator: cols(line, 15, 15) || null,
    year_quarter: cols(line, 76, 80) || null,
  };
}

/** Streams the zip_localities rows of a ZIP5 file. */
export async function* zip5Rows(path: string): AsyncGenerator<Record<string, unknown>> {
  for await (const line of textLines(path)) {
    const row = parseZip5Line(line);
    if (row) yield row;
  }
}
