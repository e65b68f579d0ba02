/**
 * Provider resolution for network-status (issue 4, item 3): by NPI, or by name over individual,
 * organization and other (DBA) names plus consumer brand aliases, ranked by text match and
 * distance from `zip` or latitude/longitude; the `location` block says what was applied.
 */
import { AppError } from '../core/errors.ts';
import { distanceKm, type LatLon } from './geo.ts';
import type { NameHit } from './provider-search.index.ts';
import { jaroWinkler, normalizeName } from './provider-search.text.ts';
import type { BrandAlias, ProviderPort, ProviderRow } from './network-status.ports.ts';

export interface LocationBlock {
  applied: boolean;
  source: 'zip' | 'latlon' | 'none';
  state: string | null;
  note: string;
}

export interface ResolvedLocation {
  origin: LatLon | null;
  zip5: string | null;
  block: LocationBlock;
}

/** Where distances are measured from: the ZIP's centroid (Census ZCTA) or the given point. */
export async function resolveLocation(input: { zip?: string; latitude?: number; longitude?: number }, providers: ProviderPort): Promise<ResolvedLocation> {
  if (input.latitude !== undefined && input.longitude !== undefined) {
    const origin = { latitude: input.latitude, longitude: input.longitude };
    const state = await providers.nearestState(input.latitude, input.longitude);
    const zip5 = input.zip?.slice(0, 5) ?? null;
    return { origin, zip5, block: { applied: true, source: 'latlon', state, note: `Distances are measured from latitude ${input.latitude}, longitude ${input.longitude}${state ? ` (${state})` : ''}; provider locations are ZIP centroids, so distances are approximate.${zip5 ? ' The ZIP also given is used only to tell same-named providers apart.' : ''}` } };
  }
  if (input.zip) {
    const zip5 = input.zip.slice(0, 5);
    const c = await providers.zipCentroid(zip5);
    if (c) return { origin: { latitude: c.latitude, longitude: c.longitude }, zip5, block: { applied: true, source: 'zip', state: c.state, note: `Approximate distances from the centre of ZIP ${zip5}${c.state ? ` (${c.state})` : ''} to each provider's ZIP centre.` } };
    return { origin: null, zip5, block: { applied: false, source: 'none', state: null, note: `ZIP ${zip5} is not in the ZIP centroid table, so no distances are computed; it is still used to tell same-named providers apart.` } };
  }
  return { origin: null, zip5: null, block: { applied: false, source: 'none', state: null, note: 'No ZIP or latitude/longitude given: matches are ranked by name only and carry no distance. Send zip to rank nearby providers first.' } };
}

export interface Candidate {
  provider: ProviderRow;
  distanceKm: number | null;
  matchNote: string;
  /** Text match quality (1 for an NPI lookup). */
  text: number;
  viaOtherName: boolean;
  /** The consumer brand the match came through, if any. */
  brand: string | null;
  fuzzy: boolean;
}

/** A placeholder row for an NPI the registry does not hold (entity type 0 = unknown). */
function unregistered(npi: number): ProviderRow {
  return {
    npi, entity_type: 0, name: `NPI ${npi} (not in the provider registry)`, org_name: null, other_names: [], address: null, city: null, state: null,
    zip5: null, mailing_state: null, latitude: null, longitude: null, taxonomy: null, taxonomy_description: null, subpart: false,
    parent_org_name: null, parent_org_tin: null, deactivation_date: null, reactivation_date: null,
  };
}

/** The brands a query names (normalised equality with the brand or an alias, or a close Jaro-Winkler match). */
export function matchBrands(query: string, aliases: BrandAlias[]): { alias: BrandAlias; sim: number }[] {
  const q = normalizeName(query);
  if (!q) return [];
  const out: { alias: BrandAlias; sim: number }[] = [];
  for (const a of aliases) {
    let best = 0;
    for (const n of [a.brand, ...a.aliases]) {
      const s = normalizeName(n);
      const sim = s === q ? 1 : jaroWinkler(q, s);
      best = Math.max(best, sim);
    }
    if (best >= 0.92) out.push({ alias: a, sim: best });
  }
  return out.sort((a, b) => b.sim - a.sim);
}

/**
 * Finds the providers a request names. NPI lookups return that NPI (an unknown NPI is a 404-style
 * empty result, explained by the caller); names go through the in-memory name index.
 */
export async function findProviders(
  input: { providerName?: string; npi?: string; limit: number },
  loc: ResolvedLocation,
  providers: ProviderPort,
): Promise<Candidate[]> {
  if (input.npi) {
    const npi = Number(input.npi);
    const rows = await providers.byNpis([npi]);
    if (!rows.length) {
      // Not in this snapshot's registry (NPPES not loaded, or a newer NPI): still answer from the
      // published files, which list NPIs whether or not the registry has them.
      return [{
        provider: unregistered(npi), distanceKm: null, text: 1, viaOtherName: false, brand: null, fuzzy: false,
        matchNote: `Looked up by NPI ${input.npi}, which is not in the provider registry of this data snapshot: name, address and specialty are unknown, and network status comes from the published files alone.`,
      }];
    }
    return rows.map((p) => ({
      provider: p, distanceKm: distanceKm(loc.origin, p.latitude, p.longitude), text: 1, viaOtherName: false, brand: null, fuzzy: false,
      matchNote: input.providerName
        ? `Looked up by NPI ${input.npi}; the name given (“${input.providerName}”) ${jaroWinkler(normalizeName(input.providerName), normalizeName(p.name)) >= 0.85 ? 'agrees with' : 'differs from'} the registry name.`
        : `Looked up by NPI ${input.npi}.`,
    }));
  }
  if (!input.providerName) throw new AppError('invalid_request', 'Send providerName or npi.', { field: 'providerName' });
  const index = await providers.nameIndex();
  const opts = { origin: loc.origin, zip5: loc.zip5, limit: input.limit };
  const hits = new Map<number, { hit: NameHit; brand: string | null }>();
  const keep = (hit: NameHit, brand: string | null): void => {
    const prev = hits.get(hit.entry.npi);
    if (!prev || hit.rank > prev.hit.rank) hits.set(hit.entry.npi, { hit, brand });
  };
  for (const h of index.search(input.providerName, opts)) keep(h, null);

  // Consumer brands: "One Medical" -> the legal and DBA names it operates under.
  const { rest, hints } = index.placeHints(input.providerName);
  const brandQuery = rest.join(' ') || input.providerName;
  const brands = matchBrands(brandQuery, await providers.brandAliases());
  const brandNpis = new Map<number, string>();
  for (const { alias, sim } of brands) {
    const placed = [hints.city, hints.zip5].filter(Boolean).join(' ');
    for (const name of alias.names) {
      for (const h of index.search(`${name} ${placed}`.trim(), { ...opts, limit: 100 })) {
        if (h.text < 0.85) continue;
        keep({ ...h, text: Math.min(h.text, sim), rank: h.rank + 0.02 }, alias.brand);
      }
    }
    for (const n of alias.npis) brandNpis.set(n, alias.brand);
  }
  const extra = [...brandNpis.keys()].filter((n) => !hits.has(n));
  const ids = [...hits.keys(), ...extra];
  const rows = new Map((await providers.byNpis(ids)).map((r) => [r.npi, r]));
  const out: (Candidate & { rank: number })[] = [];
  for (const [npi, { hit, brand }] of hits) {
    const p = rows.get(npi);
    if (!p) continue;
    const fuzzy = hit.approximate;
    out.push({
      provider: p, distanceKm: hit.distanceKm === null ? null : Math.round(hit.distanceKm * 10) / 10, text: hit.text, viaOtherName: hit.viaOtherName, brand, fuzzy, rank: hit.rank,
      matchNote: brand
        ? `Matched through the consumer brand “${brand}”, which operates as “${hit.matchedName}”.`
        : `Matched “${input.providerName}” to ${hit.viaOtherName ? `the other name (DBA) “${hit.matchedName}”` : `“${hit.matchedName}”`} (text match ${hit.text.toFixed(2)}${fuzzy ? ', approximate: check the spelling' : ''})${hit.cityMatched ? ', city agrees' : ''}${hit.zipMatched ? ', ZIP agrees' : ''}.`,
    });
  }
  for (const npi of extra) {
    const p = rows.get(npi);
    if (!p) continue;
    const brand = brandNpis.get(npi)!;
    out.push({ provider: p, distanceKm: distanceKm(loc.origin, p.latitude, p.longitude), text: 0.95, viaOtherName: false, brand, fuzzy: false, rank: 0.95, matchNote: `Listed under the consumer brand “${brand}” in the brand-alias file.` });
  }
  out.sort((a, b) => b.rank - a.rank || a.provider.npi - b.provider.npi);
  return out.slice(0, input.limit).map(({ rank: _rank, ...c }) => c);
}
