/**
 * Minimal streaming reader for the first worksheet of an XLSX file (ECMA-376 SpreadsheetML), enough
 * for the NPPES Deactivated NPI Report, which CMS publishes only as XLSX: shared strings
 * (xl/sharedStrings.xml) are loaded, then xl/worksheets/sheet1.xml is streamed row by row. Cell
 * types handled: shared string (t="s"), inline string, formula string (t="str"), boolean and numbers
 * (as their text; dates stay Excel serial numbers, see excelSerialToIso). No styles, no formulas.
 */
import { CsvError, listZipMembers, openZipMember } from '../csv.ts';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? m;
  });
}

/** The text of every <t> element in a fragment (rich-text runs concatenated). */
function texts(fragment: string): string {
  let out = '';
  for (const m of fragment.matchAll(/<t(?:\s[^>]*)?>([\s\S]*?)<\/t>/g)) out += m[1];
  return unescapeXml(out);
}

/** Column index of a cell reference ("A1" -> 0, "AB7" -> 27). */
function columnOf(ref: string): number {
  let n = 0;
  for (const ch of ref) {
    const c = ch.charCodeAt(0);
    if (c < 65 || c > 90) break;
    n = n * 26 + (c - 64);
  }
  return n - 1;
}

async function readMember(path: string, member: RegExp): Promise<string> {
  const { stream } = await openZipMember(path, member);
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** Rows of the first worksheet as arrays of cell text (missing cells are ''). */
export async function* xlsxRows(path: string): AsyncGenerator<string[]> {
  const members = await listZipMembers(path);
  if (!members.includes('xl/workbook.xml')) throw new CsvError(`${path}: not an XLSX workbook (no xl/workbook.xml)`);
  const shared: string[] = [];
  if (members.includes('xl/sharedStrings.xml')) {
    const xml = await readMember(path, /^sharedStrings\.xml$/);
    for (const m of xml.matchAll(/<si>([\s\S]*?)<\/si>/g)) shared.push(texts(m[1]!));
  }
  const sheets = members.filter((m) => /^xl\/worksheets\/sheet\d+\.xml$/.test(m)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (!sheets.length) throw new CsvError(`${path}: the workbook has no worksheet`);
  const first = sheets[0]!.split('/').pop()!;
  const { stream } = await openZipMember(path, new RegExp(`^${first.replace('.', '\\.')}$`));
  let carry = '';
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of stream) {
    carry += decoder.decode(chunk as Buffer, { stream: true });
    let end: number;
    let start = 0;
    while ((end = carry.indexOf('</row>', start)) !== -1) {
      const open = carry.lastIndexOf('<row', end);
      yield parseRow(carry.slice(open, end), shared);
      start = end + 6;
    }
    carry = carry.slice(start);
    if (carry.length > 64 * 1024 * 1024) throw new CsvError(`${path}: a worksheet row larger than 64 MiB`);
  }
}

function parseRow(xml: string, shared: string[]): string[] {
  const row: string[] = [];
  for (const m of xml.matchAll(/<c\s([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
    const attrs = m[1]!;
    const body = m[2] ?? '';
    const ref = /\br="([A-Z]+)\d+"/.exec(attrs)?.[1];
    const col = ref ? columnOf(ref) : row.length;
    const type = /\bt="(\w+)"/.exec(attrs)?.[1];
    let v: string;
    if (type === 'inlineStr') v = texts(body);
    else {
      const raw = unescapeXml(/<v>([\s\S]*?)<\/v>/.exec(body)?.[1] ?? '');
      v = type === 's' ? (shared[Number(raw)] ?? '') : raw;
    }
    while (row.length < col) row.push('');
    row[col] = v;
  }
  return row;
}

/** An Excel serial day number (1900 date system) -> YYYY-MM-DD, or undefined when out of range. */
export function excelSerialToIso(s: string): string | undefined {
  const n = Number(s);
  if (!Number.isFinite(n) || n < 1 || n > 2_958_465) return undefined;
  // Day 0 is 1899-12-30 once Excel's fictitious 1900-02-29 is accounted for (serials >= 61).
  const d = new Date(Date.UTC(1899, 11, 30) + Math.floor(n) * 86_400_000);
  return d.toISOString().slice(0, 10);
}
