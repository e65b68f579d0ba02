/**
 * PharmacyDirectory over the pricing snapshot (issue 36, item 1): the NPPES organisations whose
 * taxonomies include a pharmacy a patient can walk into (NUCC: 3336C0003X Community/Retail
 * Pharmacy, 333600000X Pharmacy, 3336C0002X Clinic Pharmacy), active (not deactivated, or
 * reactivated). They are copied into memory once per snapshot (tens of thousands nationally), and
 * searched there: a latitude/longitude box first, then the exact great-circle distance, the same
 * haversine as engine/pricing/geo.ts on the same ZIP-centroid places (providers.location_precision = zip).
 */
import type { DuckDBValue } from '@duckdb/node-api';
import { boundingBox, distanceKm } from '../../pricing/geo.ts';
import { memTable } from '../../pricing/adapters/network-tables.duckdb.ts';
import type { SnapshotDb } from '../../pricing/adapters/snapshot.duckdb.ts';
import type { Pharmacy } from '../prescriptions.schema.ts';
import type { PharmacyDirectory, PharmacyQuery } from '../prescriptions.ports.ts';

/** The NUCC codes of pharmacies that dispense to walk-in patients. */
export const PHARMACY_TAXONOMIES = ['3336C0003X', '333600000X', '3336C0002X'] as const;

const pharmacies = (db: SnapshotDb): Promise<string> => memTable(db, 'mem_pharmacies',
  `SELECT npi, name, address, city, state, zip5, phone, latitude, longitude,
     CASE WHEN list_contains(taxonomies, taxonomy) AND list_contains(['${PHARMACY_TAXONOMIES.join("', '")}'], taxonomy) THEN taxonomy
          ELSE list_filter(taxonomies, t -> list_contains(['${PHARMACY_TAXONOMIES.join("', '")}'], t))[1] END AS taxonomy,
     coalesce(name_search, lower(name)) AS name_search
   FROM providers
   WHERE entity_type = 2 AND (deactivation_date IS NULL OR reactivation_date IS NOT NULL)
     AND list_has_any(taxonomies, ['${PHARMACY_TAXONOMIES.join("', '")}'])
   ORDER BY npi`);

interface Row {
  npi: number; name: string | null; address: string | null; city: string | null; state: string | null; zip5: string | null; phone: string | null;
  latitude: number | null; longitude: number | null; taxonomy: string | null; total: number;
}

/** The words of a name search as providers.name_search holds them (lower case, no punctuation). */
export function nameWords(name: string): string[] {
  return name.toLowerCase().replace(/[^a-z0-9 ]+/g, ' ').split(/\s+/).filter(Boolean).slice(0, 8);
}

export function createPharmacyDirectory(db: SnapshotDb): PharmacyDirectory {
  const toPharmacy = (r: Row, origin: PharmacyQuery['origin']): Pharmacy => ({
    accreditationNumber: String(r.npi), npi: String(r.npi), companyName: r.name ?? `NPI ${r.npi}`,
    address: r.address, address2: null, city: r.city, state: r.state, zip: r.zip5, phone: r.phone, fax: null,
    latitude: r.latitude, longitude: r.longitude, distanceKm: distanceKm(origin, r.latitude, r.longitude), taxonomy: r.taxonomy,
  });
  return {
    dataVintage: () => db.current()?.dataVintage ?? null,
    async zipCentroid(zip5) {
      const r = await db.query<{ latitude: number; longitude: number }>('SELECT latitude, longitude FROM zip_centroids WHERE zip5 = $zip LIMIT 1', { zip: zip5 });
      return r[0] ?? null;
    },
    async search(q) {
      const table = await pharmacies(db);
      const params: Record<string, DuckDBValue> = { offset: q.offset, limit: q.limit };
      const where: string[] = [];
      nameWords(q.name ?? '').forEach((w, i) => {
        params[`w${i}`] = w;
        where.push(`name_search LIKE '%' || $w${i} || '%'`);
      });
      let distance = 'NULL::DOUBLE';
      if (q.origin) {
        const box = boundingBox(q.origin, q.radiusKm);
        Object.assign(params, { lat: q.origin.latitude, lon: q.origin.longitude, radius: q.radiusKm, ...box });
        where.push('latitude BETWEEN $minLat AND $maxLat AND longitude BETWEEN $minLon AND $maxLon');
        distance = `2 * 6371.0088 * asin(least(1, sqrt(sin(radians(latitude - $lat) / 2) ^ 2
          + cos(radians($lat)) * cos(radians(latitude)) * sin(radians(longitude - $lon) / 2) ^ 2)))`;
      }
      const rows = await db.query<Row>(
        `SELECT *, count(*) OVER () AS total FROM (SELECT *, ${distance} AS d FROM "${table}" ${where.length ? `WHERE ${where.join(' AND ')}` : ''})
         ${q.origin ? 'WHERE d <= $radius' : ''} ORDER BY ${q.origin ? 'd, ' : ''}name, npi OFFSET $offset LIMIT $limit`, params);
      let count = rows[0]?.total ?? 0;
      if (!rows.length && q.offset > 0) {
        // Past the end: the window count is absent, so count separately.
        const { offset: _o, limit: _l, ...rest } = params;
        const c = await db.query<{ n: number }>(
          `SELECT count(*) AS n FROM (SELECT *, ${distance} AS d FROM "${table}" ${where.length ? `WHERE ${where.join(' AND ')}` : ''}) ${q.origin ? 'WHERE d <= $radius' : ''}`, rest);
        count = c[0]?.n ?? 0;
      }
      return { rows: rows.map((r) => toPharmacy(r, q.origin)), count: Number(count) };
    },
    async byNpi(npi) {
      if (!/^\d{10}$/.test(npi)) return null;
      const table = await pharmacies(db);
      const r = await db.query<Row>(`SELECT *, 1 AS total FROM "${table}" WHERE npi = $npi`, { npi: Number(npi) });
      return r[0] ? toPharmacy(r[0], null) : null;
    },
  };
}
