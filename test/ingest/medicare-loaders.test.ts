/**
 * The Medicare loaders over the real CMS files the repo ships (data/medicare, copied from
 * ../shared/data/medicare). Row counts are computed independently from the raw text here; exact
 * values for a few rows were read from the files by eye (positions per RVU26B layout and
 * ZIP5lyout.txt) and written as literals.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_MEDICARE_DIR, medicareTableSources } from '../../ingest/reference/medicare/index.ts';
import { parseRvuLine, rvuFileFacts } from '../../ingest/reference/medicare/rvu.ts';
import { medicareFiles } from '../../ingest/reference/medicare/index.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

type Row = Record<string, unknown>;
const rows: Record<string, Row[]> = {};
const raw = (name: string): string => {
  const buf = readFileSync(join(DEFAULT_MEDICARE_DIR, name));
  return (name.endsWith('.gz') ? gunzipSync(buf) : buf).toString('latin1');
};

beforeAll(async () => {
  for (const s of medicareTableSources()) {
    rows[s.table.name] = [];
    for await (const r of s.rows()) rows[s.table.name]!.push(r);
  }
});

const find = (table: string, pred: (r: Row) => boolean): Row => {
  const hit = rows[table]!.find(pred);
  if (!hit) throw new Error(`no ${table} row`);
  return hit;
};

describe('PPRRVU (RVU26B fixed width)', () => {
  test('one row per data record: every line except the HDR copyright lines', () => {
    const lines = raw('PPRRVU2026_Apr_nonQPP.txt.gz').split('\n').filter((l) => l.trim() !== '');
    const data = lines.filter((l) => !l.startsWith('HDR'));
    expect(lines.length - data.length).toBe(7); // the 7 HDR lines at the top of the file
    expect(rows.mpfs_rvu!.length).toBe(data.length);
    expect(data.length).toBe(19277);
  });

  test('exact values of 99213, 70551-26, 93000 and 99221 as printed in the file', () => {
    // "99213 … A   1.30   1.46     0.33    0.09   2.85  1.720XXX…  33.4009"
    expect(find('mpfs_rvu', (r) => r.hcpcs === '99213' && r.modifier === '')).toMatchObject({
      year: 2026, release: 'RVU26B', qpp: false, status: 'A', work_rvu: 1.3, nf_pe_rvu: 1.46, f_pe_rvu: 0.33, mp_rvu: 0.09,
      nf_total: 2.85, f_total: 1.72, pctc: '0', global_days: 'XXX', conversion_factor: 33.4009, nf_na: false, f_na: false,
    });
    // "7055126 … A   1.44   0.51     0.51    0.08   2.03  2.031XXX"
    expect(find('mpfs_rvu', (r) => r.hcpcs === '70551' && r.modifier === '26')).toMatchObject({ work_rvu: 1.44, nf_pe_rvu: 0.51, f_pe_rvu: 0.51, mp_rvu: 0.08, pctc: '1' });
    // Global 70551: facility NA; OPPS PE 7.77 / 7.77, OPPS MP 0.12 at 152-171.
    expect(find('mpfs_rvu', (r) => r.hcpcs === '70551' && r.modifier === '')).toMatchObject({ f_na: true, nf_na: false, opps_nf_pe_rvu: 7.77, opps_f_pe_rvu: 7.77, opps_mp_rvu: 0.12 });
    // 93000: "A   0.17   0.27     0.27NA  0.02" (facility NA), PC/TC 4.
    expect(find('mpfs_rvu', (r) => r.hcpcs === '93000')).toMatchObject({ work_rvu: 0.17, nf_pe_rvu: 0.27, mp_rvu: 0.02, f_na: true, pctc: '4' });
    // 99221: "A   1.63   0.41NA   0.41" (non-facility NA).
    expect(find('mpfs_rvu', (r) => r.hcpcs === '99221')).toMatchObject({ nf_na: true, f_na: false, work_rvu: 1.63 });
    expect(find('mpfs_rvu', (r) => r.hcpcs === '01960')).toMatchObject({ status: 'J' });
  });

  test('status counts match the status column (position 58) of the raw file', () => {
    const data = raw('PPRRVU2026_Apr_nonQPP.txt.gz').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('HDR'));
    const payable = data.filter((l) => ['A', 'R', 'T'].includes(l.charAt(57))).length;
    expect(rows.mpfs_rvu!.filter((r) => ['A', 'R', 'T'].includes(r.status as string)).length).toBe(payable);
  });

  test('the descriptor columns 8-57 are never read', () => {
    const line = '99213  SECRET AMA DESCRIPTOR TEXT THAT MUST NOT LEAK    A   1.30   1.46     0.33    0.09   2.85  1.720XXX.00.00.00000009            33.4009 090 99      0.00   0.00   0.00';
    const row = parseRvuLine(line, { year: 2026, release: 'RVU26B', qpp: false })!;
    expect(JSON.stringify(row)).not.toContain('SECRET');
    expect(row.work_rvu).toBe(1.3);
    expect(Object.keys(row)).not.toContain('description');
  });
});

describe('GPCI2026.csv, 25LOCCO.csv, ZIP5', () => {
  test('GPCI: one row per data line, floor and no-floor work GPCI', () => {
    const dataLines = raw('GPCI2026.csv').split('\n').filter((l) => /^\d{5},/.test(l));
    expect(rows.gpci!.length).toBe(dataLines.length);
    expect(dataLines.length).toBe(109);
    // "01112,CA,05,SAN FRANCISCO-OAKLAND-BERKELEY (…),1.095,1.095,1.410,0.425"
    expect(find('gpci', (r) => r.mac === '01112' && r.locality === '05')).toMatchObject({ year: 2026, state: 'CA', work_gpci: 1.095, work_gpci_no_floor: 1.095, pe_gpci: 1.41, mp_gpci: 0.425 });
    // "10112,AL,00,ALABAMA,0.988,1.000,0.875,0.566": without floor 0.988, with floor 1.000.
    expect(find('gpci', (r) => r.mac === '10112')).toMatchObject({ work_gpci_no_floor: 0.988, work_gpci: 1, pe_gpci: 0.875, mp_gpci: 0.566 });
    // "02102,AK,01,ALASKA*,…": footnote star dropped.
    expect(find('gpci', (r) => r.mac === '02102').locality_name).toBe('ALASKA');
  });

  test('LOCCO: MAC and locality restored to 5 and 2 digits, state carried down', () => {
    const dataLines = raw('25LOCCO.csv').split('\n').filter((l) => /^\d/.test(l));
    expect(rows.locality_counties!.length).toBe(dataLines.length);
    expect(find('locality_counties', (r) => r.mac === '02102')).toMatchObject({ locality: '01', state: 'ALASKA' });
    // "1112,75,,REST OF STATE*,ALL OTHER COUNTIES": California carried down, star dropped.
    expect(find('locality_counties', (r) => r.mac === '01112' && r.locality === '75')).toMatchObject({ state: 'CALIFORNIA', fee_schedule_area: 'REST OF STATE', counties: 'ALL OTHER COUNTIES' });
  });

  test('ZIP5: every line, positions per ZIP5lyout.txt, and every ZIP joins a GPCI row', () => {
    const lines = raw('ZIP5_OCT2025.txt.gz').split(/\r?\n/).filter((l) => l.trim() !== '');
    expect(rows.zip_localities!.length).toBe(lines.length);
    expect(lines.length).toBe(42956);
    // "CA941100111205 Z9   0 A …20254"
    expect(find('zip_localities', (r) => r.zip5 === '94110')).toMatchObject({ state: 'CA', carrier: '01112', locality: '05', rural_indicator: null, year_quarter: '20254' });
    // "CA961010111275BZ9B …": Redding area ZIP in Rest of California, super rural.
    expect(find('zip_localities', (r) => r.zip5 === '96101')).toMatchObject({ carrier: '01112', locality: '75', rural_indicator: 'B' });
    expect(find('zip_localities', (r) => r.zip5 === '10001')).toMatchObject({ state: 'NY', carrier: '13202', locality: '01' });
    const gpci = new Set(rows.gpci!.map((g) => `${g.mac}|${g.locality}`));
    expect(rows.zip_localities!.filter((z) => !gpci.has(`${z.carrier}|${z.locality}`)).length).toBe(0);
  });

  test('conversion factors and Part B parameters, with provenance; the 2026 CF equals the file column', () => {
    const cf = (year: number, kind: string): Row => find('conversion_factors', (r) => r.year === year && r.kind === kind);
    expect(cf(2026, 'mpfs').value).toBe(33.4009);
    expect(cf(2026, 'mpfs_qpp').value).toBe(33.5675);
    expect(cf(2026, 'anesthesia').value).toBe(20.4976);
    // ANES2025.csv header: "National Anes CF of 20.3178".
    expect(cf(2025, 'anesthesia').value).toBe(20.3178);
    expect(new Set(rows.mpfs_rvu!.map((r) => r.conversion_factor))).toEqual(new Set([cf(2026, 'mpfs').value]));
    for (const r of rows.conversion_factors!) expect(String(r.source).length).toBeGreaterThan(20);
    expect(find('medicare_params', (r) => r.year === 2026)).toMatchObject({ part_b_deductible: 283, coinsurance_pct: 20, nonpar_pct: 95, limiting_charge_pct: 115 });
    expect(find('medicare_params', (r) => r.year === 2025).part_b_deductible).toBe(257);
  });
});

describe('file discovery and the QPP file', () => {
  test('year, release and QPP flag from CMS file names', () => {
    expect(rvuFileFacts({ path: 'PPRRVU2026_Apr_nonQPP.txt' })).toEqual({ year: 2026, release: 'RVU26B', qpp: false });
    expect(rvuFileFacts({ path: 'PPRRVU2026_Jul_QPP.txt.gz' })).toEqual({ year: 2026, release: 'RVU26C', qpp: true });
    expect(() => rvuFileFacts({ path: 'rvu.txt' })).toThrow(/year/);
  });

  test('both RVU files are found in a folder; a missing file is named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'h6-mcr-'));
    try {
      for (const f of ['PPRRVU2026_Apr_nonQPP.txt', 'PPRRVU2026_Apr_QPP.txt', 'GPCI2026.csv', '25LOCCO.csv']) writeFileSync(join(dir, f), '');
      expect(() => medicareFiles({ dir })).toThrow(/no ZIP5 file/);
      writeFileSync(join(dir, 'ZIP5_OCT2025.txt'), '');
      expect(medicareFiles({ dir }).rvu.map((p) => p.split('/').pop())).toEqual(['PPRRVU2026_Apr_nonQPP.txt', 'PPRRVU2026_Apr_QPP.txt']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
