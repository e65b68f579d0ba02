/**
 * One NPPES main-file row (npidata_pfile, 330 columns, NPPES_ReadMe_And_CodeValues.md 2.1) -> one
 * `providers` row (schemas/pricing-tables.ts). Column positions are resolved once from the header
 * by exact published name; each row is then plain array indexing (9M rows).
 */
import { CsvError, columnIndex } from '../csv.ts';
import { normDate, parseNpi } from '../reference/csv-source.ts';
import { zip5 } from '../reference/zip-centroids.ts';
import type { WarningTally } from '../report/warnings.ts';
import { nameSearch } from './name-search.ts';

const MAIN = {
  npi: 'NPI', entity: 'Entity Type Code', org: 'Provider Organization Name (Legal Business Name)',
  last: 'Provider Last Name (Legal Name)', first: 'Provider First Name', middle: 'Provider Middle Name',
  suffix: 'Provider Name Suffix Text', credential: 'Provider Credential Text',
  otherOrg: 'Provider Other Organization Name', otherOrgType: 'Provider Other Organization Name Type Code',
  otherLast: 'Provider Other Last Name', otherFirst: 'Provider Other First Name', otherMiddle: 'Provider Other Middle Name',
  otherSuffix: 'Provider Other Name Suffix Text', otherLastType: 'Provider Other Last Name Type Code',
  mailState: 'Provider Business Mailing Address State Name',
  line1: 'Provider First Line Business Practice Location Address',
  line2: 'Provider Second Line Business Practice Location Address',
  city: 'Provider Business Practice Location Address City Name',
  state: 'Provider Business Practice Location Address State Name',
  postal: 'Provider Business Practice Location Address Postal Code',
  country: 'Provider Business Practice Location Address Country Code (If outside U.S.)',
  phone: 'Provider Business Practice Location Address Telephone Number',
  enumerated: 'Provider Enumeration Date', deactivated: 'NPI Deactivation Date', reactivated: 'NPI Reactivation Date',
  sole: 'Is Sole Proprietor', subpart: 'Is Organization Subpart',
  parentLbn: 'Parent Organization LBN', parentTin: 'Parent Organization TIN',
} as const;
type MainKey = keyof typeof MAIN;

/** Taxonomy slots in the main file: Healthcare Provider Taxonomy Code_1..15 with their primary switches. */
const TAXONOMY_SLOTS = 15;

export interface ProviderRowDeps {
  /** othername_pfile index (NPI -> names). */
  otherNames: Map<number, string[]>;
  /** Deactivation report index (NPI -> YYYY-MM-DD); entries are deleted as their NPI is seen. */
  deactivations: Map<number, string>;
  /** ZIP5 -> [lat, lon]. */
  centroids: Map<string, [number, number]>;
  /** Taxonomy code -> NUCC description, or undefined. */
  taxonomyDescription: (code: string) => string | undefined;
  warnings: WarningTally;
  /** For warning locations. */
  file: string;
}

const yn = (s: string): boolean | null => (s === 'Y' ? true : s === 'N' ? false : null); // 'X' = not answered

/** Builds `providers` rows from main-file rows. Construct with the file's header row. */
export class ProviderRowBuilder {
  private readonly i: Record<MainKey, number>;
  private readonly taxCode: number[] = [];
  private readonly taxSwitch: number[] = [];
  readonly width: number;
  private rowNo = 1;
  private row: string[] = [];
  /** A trimmed field of the current row by logical key ('' when the column is absent). */
  private readonly get = (k: MainKey): string => {
    const p = this.i[k];
    return p < 0 ? '' : (this.row[p] ?? '').trim();
  };

  private readonly deps: ProviderRowDeps;

  constructor(header: string[], deps: ProviderRowDeps) {
    this.deps = deps;
    this.i = columnIndex(header, MAIN, ['npi', 'entity', 'org', 'last', 'first', 'line1', 'city', 'state', 'postal', 'deactivated']);
    for (let n = 1; n <= TAXONOMY_SLOTS; n++) {
      const t = columnIndex(header, { code: `Healthcare Provider Taxonomy Code_${n}`, sw: `Healthcare Provider Primary Taxonomy Switch_${n}` });
      if (t.code >= 0) { this.taxCode.push(t.code); this.taxSwitch.push(t.sw); }
    }
    if (this.taxCode.length === 0) throw new CsvError('not an NPPES main file: no "Healthcare Provider Taxonomy Code_1" column');
    this.width = header.length;
  }

  /** Which columns the builder reads (for the parser's projection: the other ~260 are never materialised). */
  usedColumns(): boolean[] {
    const used = new Array<boolean>(this.width).fill(false);
    for (const p of [...Object.values<number>(this.i), ...this.taxCode, ...this.taxSwitch]) if (p >= 0) used[p] = true;
    return used;
  }

  private warn(kind: string, example: string): void {
    this.deps.warnings.add(kind, `${this.deps.file}:row ${this.rowNo}`, example);
  }

  private date(s: string, column: string): string | null {
    const d = normDate(s);
    if (d === undefined) { this.warn('bad_date', `${column}=${s}`); return null; }
    return d;
  }

  /** The providers row for one main-file row, or null (dropped, with a warning). */
  build(row: string[]): Record<string, unknown> | null {
    this.rowNo++;
    if (row.length > this.width) {
      // More fields than the header: an unquoted comma shifted every column; nothing is trustworthy.
      this.warn('bad_row_width', `${row.length} fields, header has ${this.width}: ${row.slice(0, 3).join('|')}`);
      return null;
    }
    if (row.length < this.width) this.warn('short_row', `${row.length} fields, header has ${this.width}: ${row.slice(0, 3).join('|')} (missing fields read as blank)`);
    this.row = row;
    const g = this.get; // a bound method, not a per-row closure (9M rows: closures and their names cost)
    const npi = parseNpi(g('npi'));
    if (!npi) { this.warn('bad_npi', `NPI=${g('npi')}`); return null; }

    const et = g('entity');
    let entityType: number | null = et === '1' ? 1 : et === '2' ? 2 : null;
    if (et && entityType === null) { this.warn('bad_entity_type', `Entity Type Code=${et}`); entityType = null; }

    // Deactivation: the main file's date and the deactivation report's; the later one wins. A
    // reactivation date after it means the NPI is active again (engine rule: active when
    // deactivation_date is null or reactivation_date >= deactivation_date).
    let deactivation = this.date(g('deactivated'), 'NPI Deactivation Date');
    const listed = this.deps.deactivations.get(npi);
    if (listed !== undefined) {
      this.deps.deactivations.delete(npi);
      if (!deactivation || listed > deactivation) deactivation = listed;
    }
    const reactivation = this.date(g('reactivated'), 'NPI Reactivation Date');

    const org = g('org') || null;
    const first = g('first') || null;
    const last = g('last') || null;
    const middle = g('middle') || null;
    const credential = g('credential') || null;
    const personal = [first, last].filter(Boolean).join(' ');
    let name: string | null;
    // Display name "First Last[ Suffix], Credential": the suffix (JR., III) tells relatives apart.
    const suffix = g('suffix');
    const full = suffix && personal ? `${personal} ${suffix}` : personal;
    if (entityType === 1) name = full ? (credential ? `${full}, ${credential}` : full) : org;
    else name = org ?? (personal || null);

    const others: string[] = [];
    const candidates = [g('otherOrg'), [g('otherFirst'), g('otherMiddle'), g('otherLast'), g('otherSuffix')].filter(Boolean).join(' '), ...(this.deps.otherNames.get(npi) ?? [])];
    for (const o of candidates) {
      if (o && o !== name && o !== org && o !== personal && !others.includes(o)) others.push(o);
    }

    const taxonomies: string[] = [];
    let primary: string | null = null;
    for (let t = 0; t < this.taxCode.length; t++) {
      const code = (row[this.taxCode[t]!] ?? '').trim();
      if (!code) continue;
      if (!taxonomies.includes(code)) taxonomies.push(code);
      const sw = this.taxSwitch[t]! >= 0 ? (row[this.taxSwitch[t]!] ?? '').trim() : '';
      if (sw === 'Y' && primary === null) primary = code;
    }
    primary ??= taxonomies[0] ?? null;

    const country = g('country');
    const us = country === '' || country === 'US';
    const st = g('state').toUpperCase();
    const state = us && /^[A-Z]{2}$/.test(st) ? st : 'XX';
    const z = us ? zip5(g('postal')) : null;
    const ll = z ? this.deps.centroids.get(z) : undefined;
    const address = [g('line1'), g('line2')].filter(Boolean).join(', ') || null;
    const ms = g('mailState').toUpperCase();

    return {
      npi,
      entity_type: entityType,
      name,
      last_name: last,
      first_name: first,
      middle_name: middle,
      credential,
      org_name: org,
      other_names: others,
      address,
      city: g('city') || null,
      state,
      zip5: z,
      phone: g('phone') || null,
      mailing_state: /^[A-Z]{2}$/.test(ms) ? ms : null,
      latitude: ll ? ll[0] : null,
      longitude: ll ? ll[1] : null,
      taxonomy: primary,
      taxonomy_description: primary ? (this.deps.taxonomyDescription(primary) ?? null) : null,
      taxonomies,
      sole_proprietor: yn(g('sole')),
      subpart: yn(g('subpart')),
      parent_org_name: g('parentLbn') || null,
      parent_org_tin: g('parentTin') || null,
      enumeration_date: this.date(g('enumerated'), 'Provider Enumeration Date'),
      deactivation_date: deactivation,
      reactivation_date: reactivation,
      name_search: nameSearch([name, org, personal, [first, middle, last].filter(Boolean).join(' '), ...others]) || null,
    };
  }
}

/** The providers row for an NPI known only from the deactivation report (absent from the main file). */
export function deactivatedOnlyRow(npi: number, date: string): Record<string, unknown> {
  return { npi, entity_type: null, name: null, state: 'XX', other_names: [], taxonomies: [], deactivation_date: date };
}
