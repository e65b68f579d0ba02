/**
 * Streaming CSV reader for the reference and NPPES files (RFC 4180: quoted fields, doubled quotes,
 * CRLF / LF / CR line ends, a UTF-8 byte-order mark, a header row), reading plain, .gz or .zip
 * inputs as byte streams so a 9 GB NPPES main file never sits in memory.
 *
 * Design (why it is fast): the decoded text is scanned in large chunks; quoted fields (every NPPES
 * value is quoted, NPPES readme 1.1) are cut with `indexOf('"')` rather than char by char, and a row
 * split across chunks is re-parsed from its first character once the next chunk arrives, so the
 * parser keeps no per-character state between chunks. Lenient where files in the wild are sloppy
 * (a stray quote inside an unquoted field, text after a closing quote, an unterminated quote at end
 * of file): the text is kept literally and counted in `CsvReader.malformed`, never thrown.
 */
import { StringDecoder } from 'node:string_decoder';
import { CsvError, openCsvBytes, type CsvInput } from './csv-input.ts';

export { CsvError, isUrl, isZipFile, listZipMembers, openZipMember, openCsvBytes, downloadToFile, type CsvInput } from './csv-input.ts';

export interface CsvOptions {
  /** Field delimiter, one character. Default ','. */
  delimiter?: string;
  /** Byte decoding. NPPES and PECOS publish ISO-8859-1 (their metadata files say so); default utf8. */
  encoding?: 'utf8' | 'latin1';
  /** A row longer than this (characters) is a hostile or broken file: CsvError. Default 16 MiB. */
  maxRowChars?: number;
  /** For ZIP inputs: which member to read (the `*_fileheader.csv` members are always skipped). */
  member?: RegExp;
  /**
   * Column projection by position: false -> the field is scanned but returned as '' (no string is
   * allocated). Columns past the end of the array are kept. Default: every column.
   */
  columns?: readonly boolean[];
}

const QUOTE = 34;
const LF = 10;
const CR = 13;

/**
 * Incremental CSV parser over decoded text. `push` returns the rows completed so far; `end`
 * flushes the last row. Blank lines (no characters at all) are skipped.
 */
export class CsvParser {
  private carry = '';
  private skipLeadingLF = false;
  private started = false;
  private readonly delim: number;
  private readonly maxRowChars: number;
  private keep: Uint8Array | undefined;
  /** Rows with a quoting irregularity that was repaired leniently. */
  malformed = 0;
  /** 1-based physical line where the last completed row ended (for warnings). */
  line = 0;

  constructor(opts: Pick<CsvOptions, 'delimiter' | 'maxRowChars' | 'columns'> = {}) {
    const d = opts.delimiter ?? ',';
    if (d.length !== 1 || d === '"' || d === '\n' || d === '\r') throw new CsvError(`invalid delimiter ${JSON.stringify(d)}`);
    this.delim = d.charCodeAt(0);
    this.maxRowChars = opts.maxRowChars ?? 16 * 1024 * 1024;
    if (opts.columns) {
      this.keep = new Uint8Array(opts.columns.length);
      opts.columns.forEach((k, i) => { if (k) this.keep![i] = 1; });
    }
  }

  /** Restricts which columns are materialised (others read as ''); settable once the header is known. */
  setColumns(columns: readonly boolean[] | undefined): void {
    this.keep = columns ? Uint8Array.from(columns, (k) => (k ? 1 : 0)) : undefined;
  }

  push(text: string): string[][] {
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const buf = this.carry.length ? this.carry + text : text;
    return this.parse(buf, false);
  }

  end(): string[][] {
    const buf = this.carry;
    this.carry = '';
    return buf.length ? this.parse(buf, true) : [];
  }

  private parse(buf: string, final: boolean): string[][] {
    const out: string[][] = [];
    const len = buf.length;
    const delim = this.delim;
    const keep = this.keep;
    let pos = 0;
    if (this.skipLeadingLF) {
      this.skipLeadingLF = false;
      if (buf.charCodeAt(0) === LF) pos = 1;
    }
    let rowStart = pos;
    let fields: string[] = [];
    let bad = false;
    rows: while (pos < len) {
      // Start of a field.
      const c = buf.charCodeAt(pos);
      if (fields.length === 0 && (c === LF || c === CR)) {
        // Blank line.
        this.line++;
        pos++;
        if (c === CR) {
          if (pos < len) { if (buf.charCodeAt(pos) === LF) pos++; } else if (!final) this.skipLeadingLF = true;
        }
        rowStart = pos;
        continue;
      }
      // Columns the caller does not read are scanned but never materialised (NPPES: ~70 of 330).
      const want = keep === undefined || fields.length >= keep.length || keep[fields.length] === 1;
      let value = '';
      if (c === QUOTE) {
        const n1 = pos + 1 < len ? buf.charCodeAt(pos + 1) : -1;
        const n2 = pos + 2 < len ? buf.charCodeAt(pos + 2) : -1;
        if (n1 === QUOTE && (n2 === delim || n2 === LF || n2 === CR || (n2 === -1 && final))) {
          // Fast path: the empty quoted field "" (most values of the NPPES main file).
          pos += 2;
        } else {
          let seg = pos + 1;
          let i = seg;
          for (;;) {
            const q = buf.indexOf('"', i);
            if (q === -1 || (q + 1 >= len && !final)) {
              if (!final) break rows; // need more text to close the field
              // Unterminated quote at end of file: keep what we have.
              if (want) value += buf.slice(seg);
              pos = len;
              bad = true;
              break;
            }
            if (q + 1 < len && buf.charCodeAt(q + 1) === QUOTE) {
              if (want) value += buf.slice(seg, q + 1);
              i = seg = q + 2;
              continue;
            }
            if (want) value += buf.slice(seg, q);
            pos = q + 1;
            break;
          }
          // Text between the closing quote and the delimiter: keep it literally.
          if (pos < len) {
            const n = buf.charCodeAt(pos);
            if (n !== delim && n !== LF && n !== CR) {
              const s = pos;
              while (pos < len) {
                const m = buf.charCodeAt(pos);
                if (m === delim || m === LF || m === CR) break;
                pos++;
              }
              if (pos >= len && !final) break rows;
              if (want) value += buf.slice(s, pos);
              bad = true;
            }
          }
        }
      } else {
        const s = pos;
        while (pos < len) {
          const m = buf.charCodeAt(pos);
          if (m === delim || m === LF || m === CR) break;
          if (m === QUOTE) bad = true; // a stray quote inside an unquoted field: kept literally
          pos++;
        }
        if (pos >= len && !final) break rows;
        if (want) value = buf.slice(s, pos);
      }
      fields.push(value);
      if (pos >= len) {
        // End of text (final): the row ends here.
        this.finishRow(out, fields, bad, buf, rowStart, pos);
        fields = [];
        rowStart = pos;
        break;
      }
      const t = buf.charCodeAt(pos);
      if (t === delim) {
        pos++;
        if (pos >= len) {
          if (!final) break rows;
          fields.push('');
          this.finishRow(out, fields, bad, buf, rowStart, pos);
          fields = [];
          rowStart = pos;
        }
        continue;
      }
      // CR or LF: end of row.
      this.finishRow(out, fields, bad, buf, rowStart, pos);
      pos++;
      if (t === CR) {
        if (pos < len) { if (buf.charCodeAt(pos) === LF) pos++; } else if (!final) this.skipLeadingLF = true;
      }
      fields = [];
      bad = false;
      rowStart = pos;
    }
    this.carry = rowStart < len ? buf.slice(rowStart) : '';
    if (this.carry.length > this.maxRowChars) {
      throw new CsvError(`a row longer than ${this.maxRowChars} characters starts after line ${this.line} (unterminated quote or not a CSV file)`);
    }
    return out;
  }

  /** `end` is the terminator's position; newlines inside quoted values are counted once per row, O(row). */
  private finishRow(out: string[][], fields: string[], bad: boolean, buf: string, start: number, end: number): void {
    let lines = 1;
    for (let k = buf.indexOf('\n', start); k !== -1 && k < end; k = buf.indexOf('\n', k + 1)) lines++;
    this.line += lines;
    if (bad) this.malformed++;
    out.push(fields);
  }
}

export type CsvReaderOptions = CsvOptions & {
  header?: boolean;
  /** With `header`: which columns to materialise, decided from the header (see CsvOptions.columns). */
  select?: (header: string[]) => readonly boolean[];
};

/**
 * Reads a CSV input row by row. Iterate `batches()` (fastest: one array of rows per chunk) or
 * `rows()`. With `header`, the first row is taken as the header (available as `header` once
 * iteration has begun) and not yielded.
 */
export class CsvReader {
  header: string[] | undefined;
  private readonly parser: CsvParser;
  /** Data rows yielded so far. */
  rowCount = 0;
  private readonly input: CsvInput;
  private readonly opts: CsvReaderOptions;

  constructor(input: CsvInput, opts: CsvReaderOptions = {}) {
    this.input = input;
    this.opts = opts;
    this.parser = new CsvParser(opts);
  }

  /** Rows whose quoting was irregular and repaired leniently. */
  get malformed(): number { return this.parser.malformed; }

  /** Physical line number reached (1-based), for warnings. */
  get line(): number { return this.parser.line; }

  async *batches(): AsyncGenerator<string[][]> {
    const bytes = await openCsvBytes(this.input, this.opts.member);
    const latin1 = this.opts.encoding === 'latin1';
    const decoder = new StringDecoder('utf8');
    let first = true;
    for await (const chunk of bytes) {
      let text: string;
      if (typeof chunk === 'string') text = chunk;
      else {
        let b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        // A UTF-8 byte-order mark is dropped whatever the declared encoding.
        if (first && b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
        text = latin1 ? b.toString('latin1') : decoder.write(b);
      }
      first = false;
      const rows = this.parser.push(text);
      if (rows.length) yield this.take(rows);
    }
    const tail = (latin1 ? '' : decoder.end());
    const rows = [...(tail ? this.parser.push(tail) : []), ...this.parser.end()];
    if (rows.length) yield this.take(rows);
  }

  async *rows(): AsyncGenerator<string[]> {
    for await (const batch of this.batches()) yield* batch;
  }

  private take(rows: string[][]): string[][] {
    if (this.opts.header && this.header === undefined && rows.length) {
      this.header = rows.shift()!.map((h) => h.trim());
      if (this.opts.select) this.parser.setColumns(this.opts.select(this.header));
    }
    this.rowCount += rows.length;
    return rows;
  }
}

/** Every row of a CSV input (header included unless `header: true`). */
export function csvRows(input: CsvInput, opts: CsvOptions & { header?: boolean } = {}): AsyncGenerator<string[]> {
  return new CsvReader(input, opts).rows();
}

/** Records keyed by the header row's names (trimmed). Missing trailing fields are ''. */
export async function* csvRecords(input: CsvInput, opts: CsvOptions = {}): AsyncGenerator<Record<string, string>> {
  const reader = new CsvReader(input, { ...opts, header: true });
  for await (const batch of reader.batches()) {
    const h = reader.header!;
    for (const row of batch) {
      const rec: Record<string, string> = {};
      for (let i = 0; i < h.length; i++) rec[h[i]!] = row[i] ?? '';
      yield rec;
    }
  }
}

/**
 * Column positions for the names a loader needs, matched case-insensitively and ignoring runs of
 * spaces (NPPES writes "Address-  Address Line 2" with two spaces). Missing required names -> CsvError.
 */
export function columnIndex<K extends string>(header: string[], names: Record<K, string>, required: readonly NoInfer<K>[] = []): Record<K, number> {
  const norm = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const pos = new Map<string, number>();
  header.forEach((h, i) => { const k = norm(h); if (!pos.has(k)) pos.set(k, i); });
  const out = {} as Record<K, number>;
  const missing: string[] = [];
  for (const key of Object.keys(names) as K[]) {
    const i = pos.get(norm(names[key]));
    out[key] = i ?? -1;
    if (i === undefined && required.includes(key)) missing.push(names[key]);
  }
  if (missing.length) throw new CsvError(`missing column(s) ${missing.map((m) => JSON.stringify(m)).join(', ')} in header`);
  return out;
}
