/**
 * Distances for provider ranking (issue 4, item 3: "ranked by text match and distance from `zip`
 * or latitude/longitude"). Great-circle distance on a spherical Earth: ZIP centroids are the
 * precision we have (providers.location_precision = zip), so the ellipsoid is not worth its cost.
 */

/** Mean Earth radius in km (IUGG). */
const EARTH_RADIUS_KM = 6371.0088;

/** A point in decimal degrees (WGS84). */
export interface LatLon {
  latitude: number;
  longitude: number;
}

const rad = (deg: number): number => (deg * Math.PI) / 180;

/** Haversine great-circle distance between two points, in km. */
export function haversineKm(a: LatLon, b: LatLon): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Distance rounded to 0.1 km for responses, or null when either point is unknown. */
export function distanceKm(from: LatLon | null, lat: number | null | undefined, lon: number | null | undefined): number | null {
  if (!from || lat === null || lat === undefined || lon === null || lon === undefined) return null;
  return Math.round(haversineKm(from, { latitude: lat, longitude: lon }) * 10) / 10;
}

/**
 * A latitude/longitude box that contains every point within `km` of `center` (used to pre-filter
 * rows in SQL before the exact haversine). Widened near the poles where longitude degrees shrink.
 */
export function boundingBox(center: LatLon, km: number): { minLat: number; maxLat: number; minLon: number; maxLon: number } {
  const dLat = km / 111.0;
  const cos = Math.max(0.01, Math.cos(rad(center.latitude)));
  const dLon = km / (111.0 * cos);
  return {
    minLat: center.latitude - dLat,
    maxLat: center.latitude + dLat,
    minLon: center.longitude - dLon,
    maxLon: center.longitude + dLon,
  };
}
