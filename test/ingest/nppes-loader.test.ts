import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nppesTableSources } from '../../ingest/nppes/nppes.ts';
import { NPPES_MAIN_HEADERS } from '../../ingest/nppes/headers.ts';
import { normalizeName } from '../../ingest/nppes/name-search.ts';
import type { TableSource } from '../../ingest/table-source.ts';
import { makeNppesFixtures, type NppesFixturePaths } from '../fixtures/nppes/make-fixtures.ts';

let dir: string;
let fx: NppesFixturePaths;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cb-nppes-'));
  fx = makeNppesFixtures(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(src: TableSource): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const r of src.rows()) out.push(r);
  return out;
}
const byNpi = (rows: Record<string, unknown>[]): Map<number, Record<string, unknown>> => new Map(rows.map((r) => [r.npi as number, r]));
const counts = (src: TableSource): Record<string, number> => Object.fromEntries(Object.entries(src.warnings?.entries ?? {}).map(([k, v]) => [k, v.count]));

const SMITH = {
  npi: 1234567893, entity_type: 1, name: 'JOHN SMITH, M.D.', last_name: 'SMITH', first_name: 'JOHN', middle_name: 'Q',
  credential: 'M.D.', org_name: null, other_names: ['JOHN JONES'], address: '100 MAIN ST, SUITE 200', city: 'SAN FRANCISCO',
  state: 'CA', zip5: '94107', phone: '4155550100', mailing_state: 'CA', latitude: 37.758547, longitude: -122.39954,
  taxonomy: '207Q00000X', taxonomy_description: 'Family Medicine', taxonomies: ['207R00000X', '207Q00000X'],
  sole_proprietor: true, subpart: null, parent_org_name: null, parent_org_tin: null, enumeration_date: '2005-05-23',
  deactivation_date: null, reactivation_date: null, name_search: 'john smith md john smith john q smith john jones',
};

describe('NPPES loader on the published layout', () => {
  it('uses the exact 330 published headers', () => {
    expect(NPPES_MAIN_HEADERS).toHaveLength(330);
    expect(NPPES_MAIN_HEADERS[0]).toBe('NPI');
    expect(NPPES_MAIN_HEADERS[329]).toBe('Certification Date');
  });

  it('maps every field of an individual and an organization, with other names merged (DBA)', async () => {
    const [providers] = nppesTableSources({ main: fx.main, otherNames: fx.otherNames, deactivations: fx.deactivations });
    const rows = byNpi(await collect(providers!));
    expect(rows.get(1234567893)).toEqual(SMITH);
    expect(rows.get(1245319599)).toEqual({
      npi: 1245319599, entity_type: 2, name: 'ACME HEALTH, INC.', last_name: null, first_name: null, middle_name: null,
      credential: null, org_name: 'ACME HEALTH, INC.', other_names: ['ACME URGENT CARE', 'ACME WALK-IN CLINIC', 'ACME MEDICAL GROUP'],
      address: '500 BROADWAY', city: 'OAKLAND', state: 'CA', zip5: '94612', phone: '5105550100', mailing_state: 'CA',
      latitude: 37.807709, longitude: -122.266857, taxonomy: '261QU0200X', taxonomy_description: 'Clinic/Center, Urgent Care',
      taxonomies: ['261QU0200X'], sole_proprietor: null, subpart: false, parent_org_name: null, parent_org_tin: null,
      enumeration_date: '2006-06-01', deactivation_date: null, reactivation_date: null,
      name_search: 'acme health inc acme urgent care acme walk in clinic acme medical group',
    });
  });

  it('keeps a subpart with its parent and takes the first taxonomy when none is primary', async () => {
    const [providers] = nppesTableSources({ main: fx.main });
    const sub = byNpi(await collect(providers!)).get(1003000126);
    expect(sub).toMatchObject({
      name: 'ACME HEALTH OAKLAND CAMPUS', subpart: true, parent_org_name: 'ACME HEALTH, INC.', parent_org_tin: '123456789',
      taxonomy: '282N00000X', taxonomy_description: 'General Acute Care Hospital', taxonomies: ['282N00000X', '261QP2300X'],
      address: "510 BROADWAY, BLDG 'B'", other_names: [],
    });
  });

  it('applies deactivation from the main file and the deactivation report, and honours reactivation', async () => {
    const [providers] = nppesTableSources({ main: fx.main, deactivations: fx.deactivations });
    const rows = byNpi(await collect(providers!));
    // Deactivated in the main file: a blanked row that keeps only NPI + date.
    expect(rows.get(1003000134)).toEqual({
      npi: 1003000134, entity_type: null, name: null, last_name: null, first_name: null, middle_name: null, credential: null,
      org_name: null, other_names: [], address: null, city: null, state: 'XX', zip5: null, phone: null, mailing_state: null,
      latitude: null, longitude: null, taxonomy: null, taxonomy_description: null, taxonomies: [], sole_proprietor: null,
      subpart: null, parent_org_name: null, parent_org_tin: null, enumeration_date: null, deactivation_date: '2020-06-15',
      reactivation_date: null, name_search: null,
    });
    // The NPI is the only data in its row: the date comes from the report.
    expect(rows.get(1003000142)).toMatchObject({ entity_type: null, name: null, state: 'XX', deactivation_date: '2024-03-01' });
    // Reactivated after the deactivation the report also lists: both dates kept, reactivation later.
    expect(rows.get(1003000159)).toMatchObject({ name: 'JOSÉ PEÑA JR., NP', deactivation_date: '2019-01-10', reactivation_date: '2019-02-20', name_search: 'jose pena jr np jose pena', sole_proprietor: false });
    // A complete row deactivated by the report only.
    expect(rows.get(1003000167)).toMatchObject({ name: "MARY O'BRIEN", deactivation_date: '2025-05-05', taxonomy: '9999X0000X', taxonomy_description: null, sole_proprietor: null, name_search: 'mary obrien' });
    // Only in the report: still gets a row saying it is deactivated.
    expect(rows.get(1003000183)).toEqual({ npi: 1003000183, entity_type: null, name: null, state: 'XX', other_names: [], taxonomies: [], deactivation_date: '2022-02-02' });
    expect(rows.size).toBe(9);
    const [partial] = nppesTableSources({ main: fx.main, deactivations: fx.deactivations, reportOnlyNpis: false });
    expect(byNpi(await collect(partial!)).has(1003000183)).toBe(false);
    expect(counts(providers!)).toEqual({ bad_npi: 1, bad_row_width: 1, bad_date: 1, bad_deactivation_row: 1, deactivated_not_in_main: 1 });
  });

  it('reads the deactivation report as CMS publishes it (XLSX, Excel serial dates) like its CSV export', async () => {
    const { WarningTally } = await import('../../ingest/report/warnings.ts');
    const { loadDeactivations } = await import('../../ingest/nppes/indexes.ts');
    const fromXlsx = await loadDeactivations(fx.deactivationsXlsx, new WarningTally());
    const fromCsv = await loadDeactivations(fx.deactivations, new WarningTally());
    expect([...fromXlsx]).toEqual([[1003000142, '2024-03-01'], [1003000159, '2019-01-10'], [1003000167, '2025-05-05'], [1003000183, '2022-02-02']]);
    expect(fromXlsx).toEqual(fromCsv);
  });

  it('puts a foreign practice address under state XX without a ZIP or coordinates', async () => {
    const [providers] = nppesTableSources({ main: fx.main });
    expect(byNpi(await collect(providers!)).get(1003000175)).toMatchObject({
      name: 'KLINIK MUSTER GMBH', state: 'XX', zip5: null, latitude: null, longitude: null, city: 'MUENCHEN', reactivation_date: null,
    });
  });

  it('reads secondary practice locations and endpoints', async () => {
    const [, pl, ep] = nppesTableSources({ main: fx.main, practiceLocations: fx.practiceLocations, endpoints: fx.endpoints });
    expect(pl!.table.name).toBe('provider_locations');
    expect(await collect(pl!)).toEqual([{ npi: 1234567893, address: '200 SECOND ST, FLOOR 2', city: 'SAN JOSE', state: 'CA', zip5: '95113', phone: '4085550100' }]);
    expect(await collect(ep!)).toEqual([{ npi: 1245319599, endpoint_type: 'DIRECT', endpoint: 'intake@direct.acme-health.example', affiliation: 'N', affiliation_legal_name: null }]);
  });

  it('reads the bundle ZIP (main, other names, locations, endpoints; fileheader members ignored) exactly like the CSVs', async () => {
    const plain = nppesTableSources({ main: fx.main, otherNames: fx.otherNames, practiceLocations: fx.practiceLocations, endpoints: fx.endpoints });
    const zipped = nppesTableSources({ main: fx.bundle });
    expect(zipped.map((s) => s.table.name)).toEqual(['providers', 'provider_locations', 'provider_endpoints']);
    for (let i = 0; i < 3; i++) expect(await collect(zipped[i]!)).toEqual(await collect(plain[i]!));
    expect(zipped[0]!.provenance.otherNames).toBe(fx.bundle);
  });

  it('refuses a file that is not an NPPES main file, naming what is missing', async () => {
    const [notMain] = nppesTableSources({ main: fx.otherNames });
    await expect(collect(notMain!)).rejects.toThrow(/missing column\(s\) "Entity Type Code"/);
    const [fromXlsx] = nppesTableSources({ main: fx.deactivationsXlsx });
    await expect(collect(fromXlsx!)).rejects.toThrow(/no member matching .*npidata_pfile.* \(members: \[Content_Types\]\.xml/);
  });

  it('takes taxonomy descriptions from an official NUCC CSV when given (either published header layout)', async () => {
    const { writeFileSync } = await import('node:fs');
    const nucc = join(dir, 'nucc_taxonomy_251.csv');
    writeFileSync(nucc, 'Code,Grouping,Classification,Specialization,Definition,Notes,Display Name,Section\r\n'
      + '207Q00000X,Allopathic & Osteopathic Physicians,Family Medicine,,"Synthetic definition, not NUCC text.",,Family Medicine Physician,Individual\r\n'
      + '9999X0000X,Synthetic Grouping,Synthetic Classification,Synthetic Specialty,,,,Individual\r\n', 'latin1');
    const [providers] = nppesTableSources({ main: fx.main, nucc });
    const rows = byNpi(await collect(providers!));
    expect(rows.get(1003000167)).toMatchObject({ taxonomy: '9999X0000X', taxonomy_description: 'Synthetic Classification, Synthetic Specialty' });
    expect(rows.get(1234567893)).toMatchObject({ taxonomy_description: 'Family Medicine' });
    // Codes the NUCC file lacks fall back to the built-in map.
    expect(rows.get(1245319599)).toMatchObject({ taxonomy_description: 'Clinic/Center, Urgent Care' });
    const merged = join(dir, 'merged_nucc_data.csv');
    writeFileSync(merged, 'combined_code,download_Grouping,download_Classification,download_Specialization\n9999X0000X,G,Merged Classification,\n');
    const { loadNuccTaxonomy } = await import('../../ingest/nppes/taxonomy.ts');
    expect([...(await loadNuccTaxonomy(merged))]).toEqual([['9999X0000X', 'Merged Classification']]);
  });

  it('writes the published quoting (every value quoted, inner double quotes as single quotes) and refuses unknown columns', async () => {
    const { nppesCsvText } = await import('../../ingest/nppes/write.ts');
    expect(nppesCsvText(['NPI', 'Provider First Name'], [{ NPI: '1234567893', 'Provider First Name': 'JO "JJ"' }]))
      .toBe('"NPI","Provider First Name"\r\n"1234567893","JO \'JJ\'"\r\n');
    expect(() => nppesCsvText(NPPES_MAIN_HEADERS, [{ 'Provider Firstname': 'X' }])).toThrow(/not an NPPES column: "Provider Firstname"/);
  });

  it('normalises names for search the same way for data and queries', () => {
    expect(normalizeName("St. John's Health & Wellness, Inc.")).toBe('st johns health and wellness inc');
    expect(normalizeName('  PEÑA-GÓMEZ ')).toBe('pena gomez');
  });
});
