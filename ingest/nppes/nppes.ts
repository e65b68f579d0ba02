/**
 * NPPES loader (issue 3, item 2): the NPI registry dissemination files in their published layout
 * (NPPES_ReadMe_And_CodeValues.md) -> the `providers`, `provider_locations` and
 * `provider_endpoints` tables. Each input may be a CSV, a .gz, or a ZIP (the monthly bundle: the
 * member is picked by its file-name pattern; `*_fileheader.csv` members are ignored). When `main` is
 * the bundle ZIP, the other-name, practice-location and endpoint files are taken from it too.
 *
 * Memory: the main file (10.7 GB, ~9M rows) is streamed and never held; before it streams, the
 * other-name file (~100 MB of heap), the deactivation report (~30 MB) and the ZIP centroids (~3 MB)
 * are indexed in Maps. The practice-location and endpoint files are streamed into their own tables.
 */
import { PROVIDERS, PROVIDER_ENDPOINTS, PROVIDER_LOCATIONS } from '../../schemas/pricing-tables.ts';
import { CsvError, CsvReader, columnIndex, isUrl, isZipFile, listZipMembers } from '../csv.ts';
import { parseNpi } from '../reference/csv-source.ts';
import { loadZipCentroids, zip5 } from '../reference/zip-centroids.ts';
import { WarningTally } from '../report/warnings.ts';
import type { TableSource } from '../table-source.ts';
import { loadDeactivations, loadOtherNames } from './indexes.ts';
import { ProviderRowBuilder, deactivatedOnlyRow } from './provider-row.ts';
import { COMMON_TAXONOMIES, loadNuccTaxonomy } from './taxonomy.ts';

export interface NppesSourceOptions {
  /** npidata_pfile_*.csv, or the monthly bundle ZIP. */
  main: string;
  /** othername_pfile_*.csv (default: the member of the bundle ZIP, if `main` is one). */
  otherNames?: string;
  /** pl_pfile_*.csv (default: from the bundle ZIP). */
  practiceLocations?: string;
  /** endpoint_pfile_*.csv (default: from the bundle ZIP). */
  endpoints?: string;
  /** NPPES Deactivated NPI Report: the XLSX CMS publishes, or a CSV export (NPI, NPPES Deactivation Date). */
  deactivations?: string;
  /** ZIP centroid CSV (default: data/zip in the repo). */
  zipCentroids?: string;
  /** Official NUCC taxonomy CSV for full descriptions (default: the built-in common-code map). */
  nucc?: string;
  /**
   * Emit a row (NPI + deactivation date) for NPIs the report lists but the main file does not.
   * Default true (the monthly main file lists every NPI, so these are few); false for a partial main
   * file (a weekly update, a regional extract) read with the national report.
   */
  reportOnlyNpis?: boolean;
}

/** Member-name patterns inside the NPPES bundle ZIP (readme 1.4). */
export const NPPES_MEMBERS = {
  main: /^npidata_pfile.*\.csv$/i,
  otherNames: /^othername_pfile.*\.csv$/i,
  practiceLocations: /^pl_pfile.*\.csv$/i,
  endpoints: /^endpoint_pfile.*\.csv$/i,
} as const;

/** Whether the bundle ZIP `path` holds a member for `pattern` (fileheader members excluded). */
async function bundleHas(path: string, pattern: RegExp): Promise<boolean> {
  if (isUrl(path) || !(await isZipFile(path))) return false;
  return (await listZipMembers(path)).some((n) => !/fileheader/i.test(n) && pattern.test(n.split('/').pop() ?? n));
}

/** The three NPPES tables. Sources for locations/endpoints are included when a file (or bundle) is given. */
export function nppesTableSources(opts: NppesSourceOptions): TableSource[] {
  const bundle = /\.zip$/i.test(opts.main);
  if (bundle && isUrl(opts.main)) {
    // Four tables read four members of one ~1 GB ZIP: fetch it once (downloadToFile) and pass the path.
    throw new CsvError(`${opts.main}: download the NPPES bundle first (csv.ts downloadToFile) and pass the local path`);
  }
  const out: TableSource[] = [providersSource(opts)];
  if (opts.practiceLocations || bundle) out.push(locationsSource(opts.practiceLocations ?? opts.main, !opts.practiceLocations));
  if (opts.endpoints || bundle) out.push(endpointsSource(opts.endpoints ?? opts.main, !opts.endpoints));
  return out;
}

function providersSource(opts: NppesSourceOptions): TableSource {
  const warnings = new WarningTally();
  const provenance: Record<string, unknown> = {
    layout: 'NPPES Data Dissemination npidata_pfile (330 columns; readme Feb 2025)',
    main: opts.main, otherNames: opts.otherNames ?? null, deactivations: opts.deactivations ?? null,
    zipCentroids: opts.zipCentroids ?? 'data/zip (default)', nucc: opts.nucc ?? 'built-in common-code map',
    locationPrecision: 'zip',
  };
  return {
    table: PROVIDERS,
    provenance,
    warnings,
    rows: async function* rows() {
      const otherNamesPath = opts.otherNames ?? ((await bundleHas(opts.main, NPPES_MEMBERS.otherNames)) ? opts.main : undefined);
      provenance.otherNames = otherNamesPath ?? null;
      const otherNames = otherNamesPath ? await loadOtherNames(otherNamesPath, warnings, NPPES_MEMBERS.otherNames) : new Map<number, string[]>();
      const deactivations = opts.deactivations ? await loadDeactivations(opts.deactivations, warnings) : new Map<number, string>();
      const centroids = await loadZipCentroids(opts.zipCentroids);
      const nucc = opts.nucc ? await loadNuccTaxonomy(opts.nucc) : undefined;
      const taxonomyDescription = (code: string): string | undefined => nucc?.get(code) ?? COMMON_TAXONOMIES[code];
      let builder: ProviderRowBuilder | undefined;
      const reader = new CsvReader(opts.main, {
        header: true, encoding: 'latin1', member: NPPES_MEMBERS.main,
        select: (header) => {
          builder = new ProviderRowBuilder(header, { otherNames, deactivations, centroids, taxonomyDescription, warnings, file: opts.main });
          return builder.usedColumns();
        },
      });
      let malformed = 0;
      for await (const batch of reader.batches()) {
        for (const row of batch) {
          const r = builder!.build(row);
          if (r) yield r;
        }
        if (reader.malformed > malformed) {
          warnings.add('irregular_quoting', `${opts.main}:line ${reader.line}`, 'quote inside an unquoted field or text after a closing quote (kept literally)', reader.malformed - malformed);
          malformed = reader.malformed;
        }
      }
      // NPIs in the deactivation report that the main file does not list still get a row, so a
      // lookup of a deactivated NPI says "deactivated" rather than "unknown".
      if (opts.reportOnlyNpis === false) return;
      if (deactivations.size) warnings.add('deactivated_not_in_main', 'deactivation report', `${deactivations.size} NPI(s) only in the deactivation report, e.g. ${[...deactivations.keys()].slice(0, 3).join(', ')}`, deactivations.size);
      for (const [npi, date] of deactivations) yield deactivatedOnlyRow(npi, date);
    },
  };
}

/** A streamed side file (pl_pfile, endpoint_pfile); an absent bundle member yields no rows and a warning. */
function sideFileSource<K extends string>(spec: {
  table: TableSource['table']; path: string; fromBundle: boolean; member: RegExp; layout: string;
  columns: Record<K, string>; required: NoInfer<K>[]; map: (get: (k: NoInfer<K>) => string, npi: number) => Record<string, unknown>;
}): TableSource {
  const warnings = new WarningTally();
  return {
    table: spec.table,
    provenance: { path: spec.path, layout: spec.layout },
    warnings,
    rows: async function* rows() {
      if (spec.fromBundle && !(await bundleHas(spec.path, spec.member))) {
        warnings.add('member_missing', spec.path, `no member matching ${String(spec.member)} in the bundle`);
        return;
      }
      const reader = new CsvReader(spec.path, { header: true, encoding: 'latin1', member: spec.member });
      let idx: Record<K, number> | undefined;
      let row: string[] = [];
      const get = (k: K): string => { const p = idx![k]; return p < 0 ? '' : (row[p] ?? '').trim(); };
      let n = 1;
      for await (const batch of reader.batches()) {
        idx ??= columnIndex(reader.header!, spec.columns, spec.required);
        const width = reader.header!.length;
        for (row of batch) {
          n++;
          if (row.length !== width) { warnings.add('bad_row_width', `${spec.path}:row ${n}`, `${row.length} fields, header has ${width}`); continue; }
          const npi = parseNpi(get('npi' as K));
          if (!npi) { warnings.add('bad_npi', `${spec.path}:row ${n}`, `NPI=${get('npi' as K)}`); continue; }
          yield spec.map(get, npi);
        }
      }
    },
  };
}

function locationsSource(path: string, fromBundle: boolean): TableSource {
  return sideFileSource({
    table: PROVIDER_LOCATIONS, path, fromBundle, member: NPPES_MEMBERS.practiceLocations,
    layout: 'NPPES pl_pfile (secondary practice locations)',
    columns: {
      npi: 'NPI',
      line1: 'Provider Secondary Practice Location Address- Address Line 1',
      line2: 'Provider Secondary Practice Location Address- Address Line 2', // published with two spaces; matched space-insensitively
      city: 'Provider Secondary Practice Location Address - City Name',
      state: 'Provider Secondary Practice Location Address - State Name',
      postal: 'Provider Secondary Practice Location Address - Postal Code',
      country: 'Provider Secondary Practice Location Address - Country Code (If outside U.S.)',
      phone: 'Provider Secondary Practice Location Address - Telephone Number',
    },
    required: ['npi', 'line1', 'city', 'state', 'postal'],
    map: (get, npi) => {
      const us = get('country') === '' || get('country') === 'US';
      return {
        npi,
        address: [get('line1'), get('line2')].filter(Boolean).join(', ') || null,
        city: get('city') || null,
        state: get('state').toUpperCase() || null,
        zip5: us ? zip5(get('postal')) : null,
        phone: get('phone') || null,
      };
    },
  });
}

function endpointsSource(path: string, fromBundle: boolean): TableSource {
  return sideFileSource({
    table: PROVIDER_ENDPOINTS, path, fromBundle, member: NPPES_MEMBERS.endpoints,
    layout: 'NPPES endpoint_pfile',
    columns: { npi: 'NPI', type: 'Endpoint Type', endpoint: 'Endpoint', affiliation: 'Affiliation', lbn: 'Affiliation Legal Business Name' },
    required: ['npi', 'type', 'endpoint'],
    map: (get, npi) => ({
      npi,
      endpoint_type: get('type') || null,
      endpoint: get('endpoint') || null,
      affiliation: get('affiliation') || null,
      affiliation_legal_name: get('lbn') || null,
    }),
  });
}
