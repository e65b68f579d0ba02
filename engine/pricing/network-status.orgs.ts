/**
 * `organizations[]` (service-spec.md, Pricing): matches grouped by organization, so an agent can
 * say "Acme Clinic has 3 sites, the nearest 2.1 km away, all in network".
 */
import type { Match, NetworkStatusResponse } from './pricing.schema.ts';
import { normalizeName } from './provider-search.text.ts';

type Organization = NetworkStatusResponse['organizations'][number];

/** The organization a match belongs to: a subpart's parent, an organization itself, a clinician's employer or billing entity. */
export function organizationOf(m: Match): string {
  if (m.entityType === 'organization') return m.subpart && m.parentOrganization ? m.parentOrganization : m.name;
  return m.employers[0]?.organization ?? m.billingOrg ?? m.name;
}

/** Groups matches by organization, in the order of each organization's best match. */
export function organizations(matches: Match[]): Organization[] {
  const byKey = new Map<string, Organization>();
  for (const m of matches) {
    const name = organizationOf(m);
    const key = normalizeName(name);
    let o = byKey.get(key);
    if (!o) {
      o = { organization: name, entities: 0, inNetwork: m.inNetwork, nearestKm: null, facilityTypes: {}, npis: [] };
      byKey.set(key, o);
    }
    o.entities++;
    // Listed anywhere wins; unknown (null) only while every NPI of it is unknown.
    if (m.inNetwork === true || (m.inNetwork === false && o.inNetwork === null)) o.inNetwork = m.inNetwork;
    if (m.distanceKm !== null) o.nearestKm = o.nearestKm === null ? m.distanceKm : Math.min(o.nearestKm, m.distanceKm);
    const ft = m.facilityType ?? (m.entityType === 'individual' ? 'clinician' : 'organization');
    o.facilityTypes[ft] = (o.facilityTypes[ft] ?? 0) + 1;
    o.npis.push({ npi: m.npi, facilityType: m.facilityType, city: m.city, distanceKm: m.distanceKm, inNetwork: m.inNetwork, rate: m.rate, rateRange: m.rateRange });
  }
  return [...byKey.values()];
}
