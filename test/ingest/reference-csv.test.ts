import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CsvParser, CsvReader, CsvError, csvRecords, csvRows, columnIndex } from '../../ingest/csv.ts';
import { writeZip } from '../fixtures/nppes/zip-writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'cb-csv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function parseAll(chunks: string[]): string[][] {
  const p = new CsvParser();
  const out: string[][] = [];
  for (const c of chunks) out.push(...p.push(c));
  out.push(...p.end());
  return out;
}

/** A straightforward char-by-char RFC 4180 parser used as the reference in the differential test. */
function naive(text: string): string[][] {
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  const rows: string[][] = [];
  let row: string[] = [];
  let f = '';
  let inQ = false;
  let fieldStarted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inQ) {
      if (ch === '"') { if (text[i + 1] === '"') { f += '"'; i++; } else inQ = false; } else f += ch;
    } else if (ch === '"' && !fieldStarted) { inQ = true; fieldStarted = true; }
    else if (ch === ',') { row.push(f); f = ''; fieldStarted = false; }
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      if (row.length || fieldStarted || f) { row.push(f); rows.push(row); }
      row = []; f = ''; fieldStarted = false;
    } else { f += ch; fieldStarted = true; }
  }
  if (row.length || fieldStarted || f) { row.push(f); rows.push(row); }
  return rows;
}

describe('CsvParser', () => {
  it('parses RFC 4180 quoting, doubled quotes, embedded newlines, CRLF, BOM and blank lines', () => {
    const text = '\uFEFFa,b,c\r\n"x, y","he said ""hi""","line1\nline2"\r\n\r\n1,,3\n"",last,\n';
    expect(parseAll([text])).toEqual([
      ['a', 'b', 'c'],
      ['x, y', 'he said "hi"', 'line1\nline2'],
      ['1', '', '3'],
      ['', 'last', ''],
    ]);
  });

  it('gives the same rows whatever the chunk boundaries (every split point)', () => {
    const text = 'h1,h2\r\n"a""b",c\r"q,\r\nq"\n\n,"",x\r\nlast,"row"';
    const whole = parseAll([text]);
    expect(whole).toEqual([['h1', 'h2'], ['a"b', 'c'], ['q,\r\nq'], ['', '', 'x'], ['last', 'row']]);
    for (let i = 0; i <= text.length; i++) {
      for (const j of [i, i + 1, i + 3]) {
        expect(parseAll([text.slice(0, i), text.slice(i, j), text.slice(j)])).toEqual(whole);
      }
    }
  });

  it('agrees with a naive reference parser on random well-formed CSV', () => {
    let seed = 7;
    const rnd = (n: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    const alphabet = ['a', 'B', ',', '"', '\n', '\r\n', ' ', 'é'];
    for (let t = 0; t < 200; t++) {
      const lines: string[] = [];
      for (let r = 0; r < 1 + rnd(5); r++) {
        const fields: string[] = [];
        for (let c = 0; c < 1 + rnd(4); c++) {
          let v = '';
          for (let k = 0; k < rnd(6); k++) v += alphabet[rnd(alphabet.length)]!;
          fields.push(/[",\r\n]/.test(v) || rnd(2) ? `"${v.replaceAll('"', '""')}"` : v);
        }
        lines.push(fields.join(','));
      }
      const text = lines.join(rnd(2) ? '\r\n' : '\n') + (rnd(2) ? '\n' : '');
      const cut = rnd(text.length + 1);
      expect(parseAll([text.slice(0, cut), text.slice(cut)])).toEqual(naive(text));
    }
  });

  it('repairs sloppy quoting leniently and counts it', () => {
    const p = new CsvParser();
    const rows = [...p.push('a"b,"c"d,e\n"open'), ...p.end()];
    expect(rows).toEqual([['a"b', 'cd', 'e'], ['open']]);
    expect(p.malformed).toBe(2);
  });

  it('refuses a runaway row instead of buffering it without bound', () => {
    const p = new CsvParser({ maxRowChars: 100 });
    expect(() => p.push('"' + 'x'.repeat(200))).toThrow(CsvError);
  });

  it('projects columns: unselected fields read as empty, selected ones and row widths unchanged', () => {
    const text = 'a,"b,1","c""",d\n"",x,"",\n1,2,3,4\n';
    const full = parseAll([text]);
    for (let cut = 0; cut <= text.length; cut++) {
      const p = new CsvParser({ columns: [true, false, true] });
      const rows = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut)), ...p.end()];
      expect(rows).toEqual(full.map((r) => r.map((v, i) => (i === 1 ? '' : v))));
    }
  });

  it('tracks physical lines, including newlines inside quotes', () => {
    const p = new CsvParser();
    p.push('a\n"b\nc"\nd\n');
    expect(p.line).toBe(4);
  });
});

describe('CsvReader inputs', () => {
  const csv = 'NPI,Name\r\n1234567893,"SMITH, JOHN"\r\n1245319599,ACME\r\n';

  it('reads a plain file, a gzip file and a ZIP member (skipping the fileheader member)', async () => {
    writeFileSync(join(dir, 'plain.csv'), '\uFEFF' + csv);
    writeFileSync(join(dir, 'plain.csv.gz'), gzipSync(Buffer.from(csv)));
    writeFileSync(join(dir, 'bundle.zip'), writeZip([
      { name: 'npidata_pfile_20050523-20250608_fileheader.csv', data: Buffer.from('NPI,Name\r\n') },
      { name: 'npidata_pfile_20050523-20250608.csv', data: Buffer.from(csv) },
      { name: 'othername_pfile_20050523-20250608.csv', data: Buffer.from('x\n') },
    ]));
    const expected = [{ NPI: '1234567893', Name: 'SMITH, JOHN' }, { NPI: '1245319599', Name: 'ACME' }];
    for (const path of ['plain.csv', 'plain.csv.gz']) {
      const got: Record<string, string>[] = [];
      for await (const r of csvRecords(join(dir, path))) got.push(r);
      expect(got).toEqual(expected);
    }
    const got: Record<string, string>[] = [];
    for await (const r of csvRecords(join(dir, 'bundle.zip'), { member: /^npidata_pfile/i })) got.push(r);
    expect(got).toEqual(expected);
  });

  it('names the members when a ZIP member is ambiguous or missing', async () => {
    await expect(async () => { for await (const _ of csvRows(join(dir, 'bundle.zip'))) { /* drain */ } }).rejects.toThrow(/2 CSV members in the ZIP/);
    await expect(async () => { for await (const _ of csvRows(join(dir, 'bundle.zip'), { member: /^pl_pfile/ })) { /* drain */ } }).rejects.toThrow(/no member matching/);
  });

  it('decodes ISO-8859-1 and splits UTF-8 characters across chunks correctly', async () => {
    const latin = Buffer.from('name\nPEÑA\n', 'latin1');
    const r1 = new CsvReader([latin], { encoding: 'latin1', header: true });
    const got1: string[][] = [];
    for await (const row of r1.rows()) got1.push(row);
    expect(got1).toEqual([['PEÑA']]);
    const utf = Buffer.from('name\nPEÑA\n');
    const chunks = [utf.subarray(0, 7), utf.subarray(7)]; // splits the two-byte Ñ
    const got2: string[][] = [];
    for await (const row of new CsvReader(chunks, { header: true }).rows()) got2.push(row);
    expect(got2).toEqual([['PEÑA']]);
  });

  it('fails a truncated gzip file with an error instead of returning partial rows silently', async () => {
    const gz = gzipSync(Buffer.from('a,b\n' + '1,2\n'.repeat(50_000)));
    writeFileSync(join(dir, 'cut.csv.gz'), gz.subarray(0, gz.length >> 1));
    await expect(async () => { for await (const _ of csvRows(join(dir, 'cut.csv.gz'))) { /* drain */ } }).rejects.toThrow(/unexpected end of file/);
  });

  it('reads http(s) URLs: plain and gzip streamed, ZIP downloaded first; HTTP errors named', async () => {
    const { createServer } = await import('node:http');
    const bodies: Record<string, Buffer> = {
      '/a.csv': Buffer.from(csv),
      '/a.csv.gz': gzipSync(Buffer.from(csv)),
      '/bundle.zip': writeZip([{ name: 'npidata_pfile_x.csv', data: Buffer.from(csv) }, { name: 'npidata_pfile_x_fileheader.csv', data: Buffer.from('NPI,Name\n') }]),
    };
    const server = createServer((req, res) => {
      const b = bodies[req.url ?? ''];
      if (req.url === '/moved.csv') { res.writeHead(302, { location: '/a.csv' }).end(); return; }
      if (!b) { res.writeHead(404).end('not found'); return; }
      res.writeHead(200, { 'content-length': b.length }).end(b);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const base = `http://127.0.0.1:${port}`;
    try {
      const expected = [{ NPI: '1234567893', Name: 'SMITH, JOHN' }, { NPI: '1245319599', Name: 'ACME' }];
      for (const path of ['/a.csv', '/a.csv.gz', '/bundle.zip', '/moved.csv']) {
        const got: Record<string, string>[] = [];
        for await (const r of csvRecords(base + path)) got.push(r);
        expect(got, path).toEqual(expected);
      }
      await expect(async () => { for await (const _ of csvRows(`${base}/missing.csv`)) { /* drain */ } }).rejects.toThrow(/missing\.csv: HTTP 404/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('reports a missing file as a CsvError', async () => {
    await expect(async () => { for await (const _ of csvRows(join(dir, 'nope.csv'))) { /* drain */ } }).rejects.toThrow(CsvError);
  });

  it('maps header names case- and space-insensitively and names missing required columns', () => {
    const idx = columnIndex(['NPI', 'Provider Secondary Practice Location Address-  Address Line 2'], { npi: 'npi', l2: 'Provider Secondary Practice Location Address- Address Line 2', x: 'X' });
    expect(idx).toEqual({ npi: 0, l2: 1, x: -1 });
    expect(() => columnIndex(['a'], { npi: 'NPI' }, ['npi'])).toThrow(/"NPI"/);
  });
});
