/**
 * The small NPPES side files indexed in memory before the main file streams past:
 * - othername_pfile (about 31 MB, ~700k names in June 2025): NPI -> other names. ~100 MB of heap.
 * - the monthly NPPES Deactivated NPI Report (XLSX or CSV, ~300k rows): NPI -> date. ~30 MB.
 * Strings kept in these maps are copied out of the parser's chunk (see `detach`), so the maps never
 * pin 1 MiB text chunks.
 */
import { CsvReader, CsvError, columnIndex, isZipFile, listZipMembers, type CsvInput } from '../csv.ts';
import { normDate, parseNpi } from '../reference/csv-source.ts';
import type { WarningTally } from '../report/warnings.ts';
import { excelSerialToIso, xlsxRows } from './xlsx.ts';

/**
 * A copy of `s` that does not share memory with the (large) string it was sliced from: V8 keeps a
 * substring of 13+ characters as a view on its parent, which would keep whole chunks alive.
 */
export function detach(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/** Other-name type codes of othername_pfile and the main file (NPPES code values). */
export const OTHER_NAME_TYPES: Readonly<Record<string, string>> = {
  '1': 'former name',
  '2': 'professional name',
  '3': 'doing business as',
  '4': 'former legal business name',
  '5': 'other name',
};

/** othername_pfile -> NPI -> names (every type code: DBA, former legal business name, other). */
export async function loadOtherNames(input: CsvInput, warnings: WarningTally, member = /^othername_pfile/i): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  const reader = new CsvReader(input, { header: true, encoding: 'latin1', member });
  let idx: { npi: number; name: number; type: number } | undefined;
  for await (const batch of reader.batches()) {
    idx ??= columnIndex(reader.header!, { npi: 'NPI', name: 'Provider Other Organization Name', type: 'Provider Other Organization Name Type Code' }, ['npi', 'name']);
    for (const row of batch) {
      const npi = parseNpi((row[idx.npi] ?? '').trim());
      const name = (row[idx.name] ?? '').trim();
      if (!npi) { warnings.add('bad_npi', 'othername_pfile', row.slice(0, 3).join('|')); continue; }
      if (!name) continue;
      const list = out.get(npi);
      if (list) { if (!list.includes(name)) list.push(detach(name)); } else out.set(npi, [detach(name)]);
    }
  }
  return out;
}

/**
 * The monthly NPPES Deactivated NPI Report: the XLSX CMS publishes (first sheet), or a CSV export of
 * it (columns "NPI" and "NPPES Deactivation Date"). Title lines above the header row are skipped.
 * Dates as MM/DD/YYYY text or as Excel serial day numbers.
 */
export async function loadDeactivations(input: CsvInput, warnings: WarningTally): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const xlsx = typeof input === 'string' && (await isZipFile(input)) && (await listZipMembers(input)).includes('xl/workbook.xml');
  const rows: AsyncIterable<string[]> = xlsx ? xlsxRows(input) : new CsvReader(input, { member: /deactivat/i }).rows();
  let npiCol = -1;
  let dateCol = -1;
  for await (const row of rows) {
    if (npiCol < 0) {
      const cells = row.map((c) => c.trim().toLowerCase());
      const n = cells.indexOf('npi');
      const d = cells.findIndex((c) => c.includes('deactivation date'));
      if (n >= 0 && d >= 0) { npiCol = n; dateCol = d; }
      continue; // title lines and the header row itself
    }
    const rawDate = (row[dateCol] ?? '').trim();
    const npi = parseNpi((row[npiCol] ?? '').trim());
    const date = normDate(rawDate) ?? (/^\d{4,6}(\.\d+)?$/.test(rawDate) ? excelSerialToIso(rawDate) : undefined);
    if (!npi || !date) {
      if (row.some((c) => c.trim())) warnings.add('bad_deactivation_row', 'deactivation report', row.join('|'));
      continue;
    }
    const prev = out.get(npi);
    if (!prev || date > prev) out.set(npi, date);
  }
  if (npiCol < 0) throw new CsvError('deactivation report: no header row with "NPI" and "NPPES Deactivation Date"');
  return out;
}
