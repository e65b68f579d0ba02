/**
 * The sections of GET /api/health-records and their view blocks (service-spec.md, Health records
 * view; Limits: 100 rows a view, newest first, paged with offset / nextOffset). A section is a set
 * of view blocks over some resource types; each block has the capped-view shape.
 */
import type { FhirResource } from './fhir-resource.ts';
import {
  allergyRow, claimHeaderRow, claimLineRows, coverageClassRows, coverageRow, encounterRow, immunizationRow, medicationRow,
  observationCategories, observationRow, problemRow, sortDateOf, type Sortable,
} from './records-rows.ts';

/** Rows per view (service-spec.md, Limits). */
export const ROWS_PER_VIEW = 100;

export const SECTIONS = ['summary', 'coverage', 'conditions', 'medications', 'allergies', 'immunizations', 'labs', 'vitals', 'visits', 'claims', 'everything'] as const;
export type Section = (typeof SECTIONS)[number];
/** The sections that hold records (all but summary and everything). */
export type DataSection = Exclude<Section, 'summary' | 'everything'>;

interface ViewDef {
  /** Rows of one resource (one, several or none). */
  rows(r: FhirResource): Sortable[];
}

interface SectionDef {
  types: readonly string[];
  /** Which resources of those types belong here (labs vs vitals share Observation). */
  accept?: (r: FhirResource) => boolean;
  views: Record<string, ViewDef>;
}

const one = (f: (r: FhirResource) => Record<string, unknown>): ViewDef => ({
  rows: (r) => [{ date: sortDateOf(r), key: r.id, row: f(r) }],
});
const many = (f: (r: FhirResource) => Record<string, unknown>[]): ViewDef => ({
  rows: (r) => f(r).map((row, i) => ({ date: sortDateOf(r), key: `${r.id}#${String(i).padStart(5, '0')}`, row })),
});
const isCategory = (c: string) => (r: FhirResource) => observationCategories(r).includes(c);

export const SECTION_DEFS: Record<DataSection, SectionDef> = {
  coverage: { types: ['Coverage'], views: { coverage: one(coverageRow), coverage_class: many(coverageClassRows) } },
  conditions: { types: ['Condition'], views: { problems: one(problemRow) } },
  medications: { types: ['MedicationRequest'], views: { medication_request: one(medicationRow) } },
  allergies: { types: ['AllergyIntolerance'], views: { allergies: one(allergyRow) } },
  immunizations: { types: ['Immunization'], views: { immunizations: one(immunizationRow) } },
  labs: { types: ['Observation'], accept: isCategory('laboratory'), views: { labs: one(observationRow) } },
  vitals: { types: ['Observation'], accept: isCategory('vital-signs'), views: { vitals: one(observationRow) } },
  visits: { types: ['Encounter'], views: { encounters: one(encounterRow) } },
  claims: { types: ['ExplanationOfBenefit'], views: { claims_header: one(claimHeaderRow), claims_lines: many(claimLineRows) } },
};

export const DATA_SECTIONS = Object.keys(SECTION_DEFS) as DataSection[];

/** The capped-view block (service-spec.md, Health records view). */
export interface ViewBlock {
  count: number;
  truncated: boolean;
  showing: string;
  nextOffset?: number;
  rows: Record<string, unknown>[];
}

/** Newest first; undated rows last; ties by key so that paging is stable. */
function compare(a: Sortable, b: Sortable): number {
  if (a.date !== b.date) {
    if (a.date === null) return 1;
    if (b.date === null) return -1;
    return a.date < b.date ? 1 : -1;
  }
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** One capped view of `all` rows from `offset`. */
export function cappedView(all: Sortable[], offset: number): ViewBlock {
  const sorted = [...all].sort(compare);
  const rows = sorted.slice(offset, offset + ROWS_PER_VIEW).map((s) => s.row);
  const end = offset + rows.length;
  const truncated = end < sorted.length;
  return {
    count: sorted.length,
    truncated,
    showing: rows.length ? `rows ${offset + 1}-${end} of ${sorted.length}` : `no rows from offset ${offset} (${sorted.length} in all)`,
    ...(truncated ? { nextOffset: end } : {}),
    rows,
  };
}

/** The resources of a section, among the loaded ones. */
export function sectionResources(section: DataSection, resources: readonly FhirResource[]): FhirResource[] {
  const def = SECTION_DEFS[section];
  return resources.filter((r) => def.types.includes(r.resourceType) && (def.accept?.(r) ?? true));
}

/** Every view block of a section at `offset`. */
export function sectionBlocks(section: DataSection, resources: readonly FhirResource[], offset: number): Record<string, ViewBlock> {
  const mine = sectionResources(section, resources);
  const out: Record<string, ViewBlock> = {};
  for (const [name, view] of Object.entries(SECTION_DEFS[section].views)) {
    out[name] = cappedView(mine.flatMap((r) => view.rows(r)), offset);
  }
  return out;
}

/** recordCounts of the summary: resources per section. */
export function recordCounts(resources: readonly FhirResource[]): Record<DataSection, number> {
  return Object.fromEntries(DATA_SECTIONS.map((s) => [s, sectionResources(s, resources).length])) as Record<DataSection, number>;
}
