/**
 * ProviderPort over a snapshot's NPPES tables (providers partitioned by state, sorted by npi),
 * ZIP centroids and PECOS reassignments, plus the brand-alias file (data/brand-aliases.json).
 *
 * The name index is built once per snapshot from the providers table, one state partition at a
 * time so the rows in flight stay small, and rebuilt when a new snapshot is published.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROVIDERS } from '../../../schemas/pricing-tables.ts';
import { tableDir } from '../../../schemas/snapshot-layout.ts';
import type { SnapshotDb } from './snapshot.duckdb.ts';
import { NameIndex, type NameEntry } from '../provider-search.index.ts';
import { withDisplayName, type Affiliation, type BrandAlias, type ProviderPort, type ProviderRow } from '../network-status.ports.ts';
import { memTable } from './network.duckdb.ts';

const PROVIDER_COLS = 'npi, entity_type, name, org_name, other_names, address, city, state, zip5, mailing_state, latitude, longitude, taxonomy, taxonomy_description, subpart, parent_org_name, parent_org_tin, deactivation_date, reactivation_date';

/** A providers row as stored: name is NULL for an NPI NPPES blanked (deactivated). */
type RawProviderRow = Omit<ProviderRow, 'name'> & { name: string | null };

/** The brand-alias file shipped in data/ (written by the reference-data loader, H5). */
export const DEFAULT_BRAND_ALIASES = fileURLToPath(new URL('../../../data/brand-aliases.json', import.meta.url));

function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * Reads brand aliases, tolerating the plausible shapes: an array, or `{brands: [...]}` / `{aliases: [...]}`,
 * each item with a brand (`brand` | `name` | `label`), other spellings (`aliases` | `acceptedNames`),
 * the names it operates under (`names` | `organizations` | `legalNames` | `orgNames`) and `npis`.
 */
export function parseBrandAliases(json: unknown): BrandAlias[] {
  const list: unknown[] = Array.isArray(json) ? json
    : json && typeof json === 'object'
      ? ((json as Record<string, unknown>).brands ?? (json as Record<string, unknown>).aliases ?? []) as unknown[]
      : [];
  if (!Array.isArray(list)) return [];
  const out: BrandAlias[] = [];
  for (const item of list) {
    if (!item || typeof item !== 'object') continue;
    const o = item as Record<string, unknown>;
    const brand = strings(o.brand ?? o.name ?? o.label)[0];
    if (!brand) continue;
    const names = [...strings(o.names), ...strings(o.organizations), ...strings(o.legalNames), ...strings(o.orgNames), ...strings(o.matches)];
    const npis = (Array.isArray(o.npis) ? o.npis : []).map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
    out.push({ brand, aliases: [...strings(o.aliases), ...strings(o.acceptedNames)], names, npis });
  }
  return out;
}

/**
 * The providers columns network-status reads, in memory, sorted by NPI and indexed on it (built
 * once per snapshot). The ART index turns the per-request `npi IN (…)` from a scan of one
 * row group per NPI into index lookups: 2026-11-28, 1 M providers, 1.3 -> 0.5 ms CPU for one NPI
 * and 7.4 -> 0.7 ms for three (docs/performance-log.md).
 */
export function memProviders(db: SnapshotDb): Promise<string> {
  return memTable(db, 'mem_providers', `SELECT ${PROVIDER_COLS} FROM providers ORDER BY npi`, { index: 'npi' });
}

export function createProviderPort(db: SnapshotDb, opts: { brandAliasesPath?: string } = {}): ProviderPort {
  let index: { snapshot: string; p: Promise<NameIndex> } | null = null;
  let aliases: BrandAlias[] | null = null;
  const aliasPath = opts.brandAliasesPath ?? DEFAULT_BRAND_ALIASES;
  const zips = new Map<string, Promise<{ latitude: number; longitude: number; state: string | null } | null>>();
  let zipSnapshot = '';
  /** Registry rows for these NPIs, name as stored (possibly NULL). */
  async function readByNpis(npis: readonly number[]): Promise<RawProviderRow[]> {
    const ok = [...new Set(npis.filter((n) => Number.isSafeInteger(n)))];
    if (!ok.length) return [];
    // Once built (in the background, per snapshot), an in-memory copy sorted by NPI answers
    // lookups without decoding Parquet row groups: NPIs spread over a state's file would
    // otherwise decode most of its row groups (~15 ms each at 1M providers).
    const mem = memProviders(db);
    const ready = await Promise.race([mem, Promise.resolve(null)]);
    if (ready) return db.query<RawProviderRow>(`SELECT ${PROVIDER_COLS} FROM "${ready}" WHERE npi IN (${ok.join(', ')})`);
    // Until then, the name index (when built) knows each NPI's state: read just that partition.
    const idx = index && index.snapshot === (db.current()?.id ?? '') ? await Promise.race([index.p, Promise.resolve(null)]) : null;
    const dir = db.current()?.dir;
    if (!idx || !dir) return db.query<RawProviderRow>(`SELECT ${PROVIDER_COLS} FROM providers WHERE npi IN (${ok.join(', ')})`);
    const byState = new Map<string, number[]>();
    const unknown: number[] = [];
    for (const n of ok) {
      const st = idx.entryFor(n)?.state;
      const d = st ? join(tableDir(dir, PROVIDERS), `state=${st}`) : null;
      if (st && d && existsSync(d)) byState.set(st, [...(byState.get(st) ?? []), n]);
      else unknown.push(n);
    }
    const parts = [...byState].map(([st, ns]) => `SELECT ${PROVIDER_COLS} FROM read_parquet('${join(tableDir(dir, PROVIDERS), `state=${st}`, '*.parquet').replaceAll("'", "''")}', hive_partitioning = true, hive_types = {'state': VARCHAR}, union_by_name = true) WHERE npi IN (${ns.join(', ')})`);
    if (unknown.length) parts.push(`SELECT ${PROVIDER_COLS} FROM providers WHERE npi IN (${unknown.join(', ')})`);
    return db.query<RawProviderRow>(parts.join(' UNION ALL '));
  }
  return {
    async byNpis(npis) {
      // A NULL name (NPPES blanks a deactivated NPI's row) gets a display name here, once, so no
      // caller ever normalises or prints a null.
      return (await readByNpis(npis)).map(withDisplayName);
    },
    nameIndex() {
      const snap = db.current()?.id ?? '';
      if (!index || index.snapshot !== snap) {
        const p = buildIndex(db);
        index = { snapshot: snap, p };
        p.catch(() => { index = null; });
      }
      return index.p;
    },
    zipCentroid(zip5) {
      // Memoised per snapshot (a ZIP's centroid cannot change within one); bounded LRU.
      const snap = db.current()?.id ?? '';
      if (snap !== zipSnapshot) { zips.clear(); zipSnapshot = snap; }
      let p = zips.get(zip5);
      if (p) zips.delete(zip5);
      else {
        p = db.query<{ latitude: number; longitude: number; state: string | null }>(
          'SELECT latitude, longitude, state FROM zip_centroids WHERE zip5 = $zip LIMIT 1', { zip: zip5 }).then((r) => r[0] ?? null);
        p.catch(() => zips.delete(zip5));
        while (zips.size >= 50_000) zips.delete(zips.keys().next().value!);
      }
      zips.set(zip5, p);
      return p;
    },
    async nearestState(latitude, longitude) {
      // Equirectangular nearest centroid within ~1 degree: enough to name the state.
      const r = await db.query<{ state: string | null }>(
        `SELECT state FROM zip_centroids WHERE latitude BETWEEN $lat - 1 AND $lat + 1 AND longitude BETWEEN $lon - 1.5 AND $lon + 1.5 AND state IS NOT NULL
         ORDER BY (latitude - $lat) ^ 2 + ((longitude - $lon) * cos(radians($lat))) ^ 2 LIMIT 1`, { lat: latitude, lon: longitude });
      return r[0]?.state ?? null;
    },
    async brandAliases() {
      if (aliases === null) {
        try {
          aliases = existsSync(aliasPath) ? parseBrandAliases(JSON.parse(readFileSync(aliasPath, 'utf8'))) : [];
        } catch {
          aliases = [];
        }
      }
      return aliases;
    },
    async affiliations(npis) {
      const ok = npis.filter((n) => Number.isSafeInteger(n));
      // Without PECOS loaded the join is empty: not planned and run for every request (~1.5 ms of CPU).
      if (!ok.length || !db.hasRows('pecos_enrollment') || !db.hasRows('pecos_reassignment')) return [];
      // PECOS reassignment: the individual's enrollment reassigns benefits to an organization's enrollment.
      return db.query<Affiliation>(
        `SELECT DISTINCT ind.npi AS npi, org.npi AS "orgNpi", coalesce(org.org_name, org.last_name, '') AS "orgName"
         FROM pecos_enrollment ind
         JOIN pecos_reassignment r ON r.reassigning_enrlmt_id = ind.enrlmt_id
         JOIN pecos_enrollment org ON org.enrlmt_id = r.receiving_enrlmt_id
         WHERE ind.npi IN (${ok.join(', ')})`);
    },
  };
}

/**
 * Reads every provider's names and place for the index. Rows come back as a few large strings
 * (string_agg per NPI slice, unit/record separators) rather than one JS object per row: the
 * per-row object path costs ~17 µs a row (17 s for 1M providers), the string path a fraction.
 */
async function buildIndex(db: SnapshotDb): Promise<NameIndex> {
  const US = '\u001f';
  const RS = '\u001e';
  const clean = (col: string): string => `coalesce(regexp_replace(${col}, '[[:cntrl:]]', ' ', 'g'), '')`;
  const line = [
    'npi::VARCHAR', clean('name'), clean('org_name'),
    `coalesce(array_to_string(list_transform(other_names, x -> ${clean('x')}), chr(30)), '')`,
    clean('city'), clean('state'), clean('zip5'), "coalesce(latitude::VARCHAR, '')", "coalesce(longitude::VARCHAR, '')",
  ].join(' || chr(31) || ');
  const slices = 16;
  const chunks = await db.query<{ s: string | null }>(`SELECT string_agg(${line}, chr(10)) AS s FROM providers GROUP BY npi % ${slices}`);
  const entries: NameEntry[] = [];
  const num = (x: string | undefined): number | null => (x ? Number(x) : null);
  for (const { s } of chunks) {
    if (!s) continue;
    for (const row of s.split('\n')) {
      const [npi, name, org, others, city, state, zip5, lat, lon] = row.split(US);
      if (!npi) continue;
      const legal = [name || org || '', ...(org && org !== name ? [org] : [])].filter(Boolean);
      const other = others ? others.split(RS).filter((n) => n && !legal.includes(n)) : [];
      entries.push({
        npi: Number(npi), names: [...legal, ...other], legalNames: legal.length,
        city: city || null, state: state || null, zip5: zip5 || null, latitude: num(lat), longitude: num(lon),
      });
    }
  }
  entries.sort((a, b) => a.npi - b.npi);
  return new NameIndex(entries);
}
