/**
 * Service catalog and payers registry loaders (issue 3 item 3; issue 4 items 8 and 9).
 *
 * The catalog joins the CMS 70 shoppable services (CMS plain-language names) and the TiC 500
 * items (plain-language text repaired by catalog-repair.ts), adds carebridge's own wording for
 * the rows the source left blank (data/catalog/supplement.csv), a category, who the code applies
 * to, and related codes with when each applies (data/catalog/related.json). Name precedence:
 * supplement override > CMS 70 > repaired TiC text. Never an AMA CPT descriptor.
 *
 * The repo ships the built catalog as data/catalog/service-catalog.json (regenerate with
 * `npx node --import tsx ingest/reference/catalog.ts`); a test keeps it equal to the build.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAYERS, SERVICE_CATALOG } from '../../schemas/pricing-tables.ts';
import { csvRecords } from '../csv.ts';
import type { TableSource } from '../table-source.ts';
import { expandCmsCodes, repairTicText, restoreTicCode, type CodeType } from './catalog-repair.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** data/catalog in the repo. */
export const DEFAULT_CATALOG_DIR = join(ROOT, 'data', 'catalog');
/** data/payers.json in the repo. */
export const DEFAULT_PAYERS_FILE = join(ROOT, 'data', 'payers.json');

/** One service_catalog row (column names of schemas/pricing-tables.ts SERVICE_CATALOG). */
export interface CatalogRow {
  code: string;
  code_type: CodeType;
  name: string;
  category: string;
  sources: string[];
  applies_to: string;
  related_codes: string[];
  related_when: string[];
  name_source: 'cms70' | 'tic500' | 'tic500-repaired' | 'carebridge';
}

/** Category by code range, in the CMS 70 list's vocabulary (plus Anesthesia and Drugs). */
export function categoryFor(code: string, codeType: CodeType): string {
  if (codeType === 'MS-DRG') return 'Medicine & Surgery';
  if (codeType === 'HCPCS') return code.startsWith('J') ? 'Drugs & Biologics' : 'Medicine & Surgery';
  const n = Number(code.slice(0, 5));
  if (n < 2000) return 'Anesthesia';
  if (n >= 70000 && n < 80000) return 'Radiology';
  if ((n >= 80000 && n < 90000) || n === 36415) return 'Laboratory & Pathology';
  if ((n >= 99202 && n < 99500) || (n >= 90785 && n < 90900)) return 'Evaluation & Management';
  return 'Medicine & Surgery';
}

/** Who the code applies to, in plain words: patient qualifiers from the name, then who bills it. */
export function appliesToFor(code: string, codeType: CodeType, name: string, category: string): string {
  const parts: string[] = [];
  const lower = name.toLowerCase();
  if (/\bnew patient/.test(lower)) parts.push('A new patient (not seen by this practice in the last 3 years).');
  else if (/\bestablished patient/.test(lower)) parts.push('An established patient (seen by this practice in the last 3 years).');
  const age = /(?:age[sd]?\s*)?(\d+)\s*(?:-|to)\s*(\d+)\s*(?:years|yrs)?/i.exec(name);
  if (age && /year|age/i.test(name)) parts.push(`Ages ${age[1]} to ${age[2]}.`);
  else if (/65 and older|65 or older/i.test(name)) parts.push('Age 65 or older.');
  // Office visit levels since 2021 (CMS PFS 2021 final rule): medical decision making or total time on the day.
  if (/^992(0[2-5]|1[2-5])$/.test(code)) parts.push("Level set by medical decision making or the clinician's total time that day.");
  if (codeType === 'MS-DRG') parts.push('A hospital inpatient stay, paid to the hospital as one case rate; surgeons, anesthesia and other clinicians bill separately.');
  else if (category === 'Anesthesia') parts.push("The anesthesia provider's fee only; the procedure and the facility bill separately.");
  else if (category === 'Laboratory & Pathology') parts.push('The lab test, billed by the lab that runs it; the visit that ordered it is billed separately.');
  else if (category === 'Radiology') parts.push("The imaging study. A global price covers the scan and the radiologist's reading; in a hospital the facility and the radiologist usually bill separately.");
  else if (category === 'Drugs & Biologics') parts.push('The drug itself; giving it (injection or infusion) is billed separately.');
  else if (category === 'Evaluation & Management') {
    // Office visits: priceNote already says whose fee it is and the facility fee.
    if (!/^992(0[2-5]|1[1-5])$/.test(code)) parts.push("The clinician's visit fee; a hospital-owned clinic may add a separate facility fee.");
  }
  else if (/^[1-6]\d{4}$/.test(code)) parts.push("The surgeon's or proceduralist's fee; a hospital or surgery center facility fee and anesthesia are billed separately.");
  else parts.push('The service as billed by the clinician or facility that provides it.');
  return parts.join(' ');
}

function tidy(s: string): string {
  return s.trim().replace(/\s+/g, ' ').replace(/\.$/, '');
}

/**
 * related.json: families of codes. A member with `see: true` is a pointer out of the family (the
 * established-patient code in the new-patient family): the family's codes list it, but it does not
 * take the whole family as its own related codes (its own family lists the pointer back).
 */
interface RelatedFile { groups: { family: string; members: { code: string; when: string; see?: boolean }[] }[] }

/** Builds the catalog rows from the source lists in `dir` (default data/catalog), sorted by code. */
export async function buildServiceCatalog(dir = DEFAULT_CATALOG_DIR): Promise<{ rows: CatalogRow[]; repairedRows: number }> {
  const byCode = new Map<string, CatalogRow>();
  const get = (code: string, codeType: CodeType): CatalogRow => {
    let r = byCode.get(code);
    if (!r) {
      r = { code, code_type: codeType, name: '', category: '', sources: [], applies_to: '', related_codes: [], related_when: [], name_source: 'tic500' };
      byCode.set(code, r);
    }
    return r;
  };
  let repairedRows = 0;
  for await (const rec of csvRecords(join(dir, 'source', 'tic_500_codes_plain_language.csv'))) {
    const { code, codeType } = restoreTicCode(rec.code ?? '');
    const r = get(code, codeType);
    r.sources.push('tic500');
    const raw = rec.plain_language_description_as_in_repo ?? '';
    const fixed = repairTicText(raw);
    if (fixed.changed.length) repairedRows++;
    if (tidy(fixed.text)) {
      r.name = tidy(fixed.text);
      r.name_source = fixed.changed.length ? 'tic500-repaired' : 'tic500';
    }
  }
  for await (const rec of csvRecords(join(dir, 'source', 'cms_70_shoppable_services.csv'))) {
    const group = expandCmsCodes(rec.cms_code_as_listed ?? '', rec.code_type ?? '');
    for (const { code, codeType } of group) {
      const r = get(code, codeType);
      if (!r.sources.includes('cms70')) r.sources.unshift('cms70');
      r.name = tidy(rec.plain_language_name ?? '');
      r.name_source = 'cms70';
      r.category = (rec.category ?? '').trim();
    }
  }
  for await (const rec of csvRecords(join(dir, 'supplement.csv'))) {
    const r = byCode.get((rec.code ?? '').trim());
    if (!r) throw new Error(`supplement.csv names ${rec.code}, which is in neither source list`);
    r.name = tidy(rec.name ?? '');
    r.name_source = 'carebridge';
  }
  const related = JSON.parse(readFileSync(join(dir, 'related.json'), 'utf8')) as RelatedFile;
  for (const g of related.groups) {
    const members = g.members.filter((m) => byCode.has(m.code));
    for (const m of members) {
      if (m.see) continue;
      const r = byCode.get(m.code)!;
      for (const o of members) {
        if (o.code === m.code || r.related_codes.includes(o.code)) continue;
        r.related_codes.push(o.code);
        r.related_when.push(o.when);
      }
    }
  }
  const rows = [...byCode.values()].sort((a, b) => a.code.localeCompare(b.code));
  for (const r of rows) {
    if (!r.name) throw new Error(`catalog code ${r.code} has no plain-language name: add it to supplement.csv`);
    r.category ||= categoryFor(r.code, r.code_type);
    r.applies_to = appliesToFor(r.code, r.code_type, r.name, r.category);
  }
  return { rows, repairedRows };
}

/** One payers-table row per registry entry of data/payers.json. */
export function payerRows(file = DEFAULT_PAYERS_FILE): Record<string, unknown>[] {
  const reg = JSON.parse(readFileSync(file, 'utf8')) as { payers: Record<string, unknown>[] };
  return reg.payers.map((p) => ({
    key: p.key,
    label: p.label,
    accepted_names: p.acceptedNames,
    reporting_entity_names: p.reportingEntityNames ?? [],
    exact_plan_identifiers: p.exactPlanIdentifiers ?? [],
    coverage: p.coverage ?? null,
    blue_card: p.blueCard ?? false,
    group_number_states: p.groupNumberStates ?? [],
  }));
}

export interface CatalogSourceOptions {
  /** Folder with source/, supplement.csv and related.json; default data/catalog. */
  dir?: string;
  /** Payers registry; default data/payers.json. */
  payersFile?: string;
}

/** TableSources for service_catalog and payers. */
export function catalogTableSources(opts: CatalogSourceOptions = {}): TableSource[] {
  const dir = opts.dir ?? DEFAULT_CATALOG_DIR;
  const payersFile = opts.payersFile ?? DEFAULT_PAYERS_FILE;
  return [
    {
      table: SERVICE_CATALOG,
      rows: async function* () { yield* (await buildServiceCatalog(dir)).rows as unknown as Record<string, unknown>[]; },
      provenance: {
        sources: [join(dir, 'source', 'cms_70_shoppable_services.csv'), join(dir, 'source', 'tic_500_codes_plain_language.csv')],
        repairs: 'TiC 500 text "td" -> "ent" inside words; 4-digit codes restored to 5-digit anesthesia codes; blanks from supplement.csv',
        related: join(dir, 'related.json'),
      },
    },
    { table: PAYERS, rows: async function* () { yield* payerRows(payersFile); }, provenance: { file: payersFile } },
  ];
}

/** The shipped, repaired catalog file. */
export const SHIPPED_CATALOG_FILE = join(DEFAULT_CATALOG_DIR, 'service-catalog.json');

/** Serialises the built catalog the way the repo ships it. */
export function shippedCatalogJson(rows: CatalogRow[]): string {
  return `${JSON.stringify({
    _provenance: 'Built by ingest/reference/catalog.ts from data/catalog/source (CMS 70 shoppable services; TiC 500 items, repaired), supplement.csv and related.json. Plain-language names only; no AMA CPT descriptors.',
    services: rows,
  }, null, 1)}\n`;
}

// `npx node --import tsx ingest/reference/catalog.ts` rewrites the shipped catalog.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { rows, repairedRows } = await buildServiceCatalog();
  writeFileSync(SHIPPED_CATALOG_FILE, shippedCatalogJson(rows));
  console.log(`wrote ${rows.length} services (${repairedRows} TiC rows repaired) to ${SHIPPED_CATALOG_FILE}`);
}
