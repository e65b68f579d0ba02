/**
 * Medicare reference loaders (issue 3, item 3): PPRRVU (non-QPP and, when present, QPP), GPCI,
 * locality-county crosswalk, ZIP5 carrier/locality, conversion factors and Part B parameters, as
 * TableSources for the snapshot writer. Files are found in `dir` by their CMS names, plain or .gz.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONVERSION_FACTORS, GPCI, LOCALITY_COUNTIES, MEDICARE_PARAMS, MPFS_RVU, ZIP_LOCALITIES } from '../../../schemas/pricing-tables.ts';
import type { TableSource } from '../../table-source.ts';
import { CONVERSION_FACTOR_ROWS, MEDICARE_PARAMS_ROWS } from './factors.ts';
import { gpciRows } from './gpci.ts';
import { pickFile } from './lines.ts';
import { loccoRows } from './locco.ts';
import { rvuFileFacts, rvuRows } from './rvu.ts';
import { zip5Rows } from './zip5.ts';

/** The Medicare files the repo ships (data/medicare, copied from the CMS downloads). */
export const DEFAULT_MEDICARE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../data/medicare');

export interface MedicareSourceOptions {
  /** Folder holding the CMS files; default data/medicare. */
  dir?: string;
  /** Explicit paths, overriding discovery in `dir`. */
  rvu?: string[];
  gpci?: string;
  locco?: string;
  zip5?: string;
}

/** The files a run will read, discovered by CMS file names. Throws naming any that is missing. */
export function medicareFiles(opts: MedicareSourceOptions = {}): { rvu: string[]; gpci: string; locco: string; zip5: string } {
  const dir = opts.dir ?? DEFAULT_MEDICARE_DIR;
  const names = opts.rvu && opts.gpci && opts.locco && opts.zip5 ? [] : readdirSync(dir);
  const find = (re: RegExp, what: string): string => {
    const f = pickFile(names, re);
    if (!f) throw new Error(`${dir}: no ${what} file (expected a name like ${re.source})`);
    return join(dir, f);
  };
  const rvuNames = names.filter((n) => /^PPRRVU\d{4}.*\.txt(\.gz)?$/i.test(n));
  const rvu = opts.rvu ?? [
    pickFile(rvuNames.filter((n) => /nonQPP/i.test(n)), /./),
    pickFile(rvuNames.filter((n) => /QPP/i.test(n) && !/nonQPP/i.test(n)), /./),
  ].filter((f): f is string => !!f).map((f) => join(dir, f));
  if (!rvu.length) throw new Error(`${dir}: no PPRRVU<year>…nonQPP.txt file`);
  return {
    rvu,
    gpci: opts.gpci ?? find(/^GPCI\d{4}\.csv(\.gz)?$/i, 'GPCI'),
    locco: opts.locco ?? find(/^\d{2}LOCCO\.csv(\.gz)?$/i, 'locality-county (LOCCO) CSV'),
    zip5: opts.zip5 ?? find(/^ZIP5_.*\.txt(\.gz)?$/i, 'ZIP5'),
  };
}

async function* each(rows: readonly Record<string, unknown>[]): AsyncGenerator<Record<string, unknown>> {
  yield* rows;
}

/** TableSources for mpfs_rvu, gpci, locality_counties, zip_localities, conversion_factors, medicare_params. */
export function medicareTableSources(opts: MedicareSourceOptions = {}): TableSource[] {
  const f = medicareFiles(opts);
  return [
    {
      table: MPFS_RVU,
      rows: async function* () { for (const path of f.rvu) yield* rvuRows({ path }); },
      provenance: {
        files: f.rvu.map((path) => ({ path, ...rvuFileFacts({ path }) })),
        layout: 'CMS RVU26B record layout (PPRRVU fixed width); descriptor columns 8-57 never stored',
      },
    },
    { table: GPCI, rows: () => gpciRows(f.gpci), provenance: { file: f.gpci, layout: 'CMS PFS Addendum E (GPCI) CSV' } },
    { table: LOCALITY_COUNTIES, rows: () => loccoRows(f.locco), provenance: { file: f.locco, layout: 'CMS locality-county crosswalk CSV' } },
    { table: ZIP_LOCALITIES, rows: () => zip5Rows(f.zip5), provenance: { file: f.zip5, layout: 'CMS ZIP5 file (ZIP5lyout.txt)' } },
    { table: CONVERSION_FACTORS, rows: () => each(CONVERSION_FACTOR_ROWS), provenance: { source: 'ingest/reference/medicare/factors.ts (rule citations per row)' } },
    { table: MEDICARE_PARAMS, rows: () => each(MEDICARE_PARAMS_ROWS), provenance: { source: 'ingest/reference/medicare/factors.ts (fact sheet citations per row)' } },
  ];
}
