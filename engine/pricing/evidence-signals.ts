/**
 * Signal builders for provider-evidence (service-spec.md, Pricing: signals[] items `type`,
 * `display`, `hcpcs`, `floor`, `pctl`, `level`, `facility`, `measure`, `score`, `ci`, `verdict`,
 * `denominator`). Every display is one plain sentence an agent relays as written. Evidence never
 * ranks providers and absence of data is never negative evidence.
 */
import type { EvidenceProviderRow, ExclusionRow, VolumeRow } from './evidence.ports.ts';

export interface Signal {
  type: string;
  display: string;
  hcpcs?: string | null;
  floor?: number | null;
  pctl?: number | null;
  level?: string | null;
  facility?: string | null;
  measure?: string | null;
  score?: number | null;
  ci?: number[] | null;
  verdict?: string | null;
  denominator?: number | null;
}

/** CMS suppresses provider-service rows with fewer than 11 beneficiaries. */
export const PUF_SUPPRESSION_FLOOR = 11;
/** Fewer peers than this and a percentile says nothing: it is left out. */
export const MIN_PEERS_FOR_PERCENTILE = 5;

/** Plain meaning of the LEIE exclusion authorities (42 USC 1320a-7). */
const EXCLUSION_TYPES: Record<string, string> = {
  '1128a1': 'a conviction of a program-related crime (mandatory exclusion)',
  '1128a2': 'a conviction relating to patient abuse or neglect (mandatory exclusion)',
  '1128a3': 'a felony conviction relating to health care fraud (mandatory exclusion)',
  '1128a4': 'a felony conviction relating to controlled substances (mandatory exclusion)',
  '1128b4': 'license revocation, suspension or surrender',
  '1128b7': 'fraud, kickbacks or other prohibited activities',
  '1128b8': 'ownership or control of an entity by a sanctioned person',
  '1128b14': 'default on a health education loan or scholarship obligation',
};

function exclusionWhy(type: string | null): string {
  if (!type) return 'an unspecified authority';
  const k = type.toLowerCase().replace(/[^a-z0-9]/g, '');
  return EXCLUSION_TYPES[k] ? `${type} (${EXCLUSION_TYPES[k]})` : type;
}

/** Exclusion signals: one per LEIE row; reinstated rows are history, stated as such. */
export function exclusionSignals(rows: ExclusionRow[], leieLoaded: boolean, asOf: string): Signal[] {
  if (!leieLoaded) {
    return [{ type: 'no_data', display: 'The federal exclusion list (HHS-OIG LEIE) is not loaded in this data set, so exclusion status was not checked here; check oig.hhs.gov/exclusions.', level: 'none', verdict: 'not_checked' }];
  }
  if (!rows.length) {
    return [{ type: 'exclusion_check', display: 'This NPI is not on the federal exclusion list (HHS-OIG LEIE) in our data; older entries without an NPI cannot be matched by NPI, so oig.hhs.gov/exclusions remains the authority.', level: 'info', verdict: 'not_listed' }];
  }
  return rows.map((r) => {
    const reinstated = r.rein_date !== null && r.rein_date <= asOf;
    const who = r.business_name || [r.first_name, r.last_name].filter(Boolean).join(' ') || 'This provider';
    const waiver = r.waiver_date ? ` A waiver dated ${r.waiver_date}${r.waiver_state ? ` applies in ${r.waiver_state}` : ''}.` : '';
    const display = reinstated
      ? `${who} was on the federal exclusion list (HHS-OIG LEIE) from ${r.excl_date ?? 'an unknown date'} under ${exclusionWhy(r.excl_type)} and was reinstated on ${r.rein_date}.${waiver}`
      : `${who} is on the federal exclusion list (HHS-OIG LEIE): excluded since ${r.excl_date ?? 'an unknown date'} under ${exclusionWhy(r.excl_type)}. Medicare, Medicaid and other federal health programs do not pay for any item or service this provider furnishes, orders or prescribes.${waiver}`;
    return { type: 'exclusion', display, level: reinstated ? 'info' : 'alert', verdict: reinstated ? 'reinstated' : 'excluded', measure: 'LEIE', facility: null };
  });
}

function settingWords(pos: string | null): string {
  if (pos === 'F') return 'in facilities (hospital or surgery center)';
  if (pos === 'O') return 'in the office';
  return '';
}

/** Medicare volume signals for the code, or an explained absence. */
export function volumeSignals(a: {
  rows: VolumeRow[]; pufLoaded: boolean; code: string; serviceName: string; providerName: string;
}): Signal[] {
  if (!a.pufLoaded) {
    return [{ type: 'no_data', hcpcs: a.code, display: `Medicare service volume data is not loaded in this data set, so there is no experience signal for ${a.code}. Absence of data says nothing about the provider.`, level: 'none', verdict: 'not_loaded', floor: PUF_SUPPRESSION_FLOOR }];
  }
  if (!a.rows.length) {
    return [{ type: 'medicare_volume', hcpcs: a.code, display: `Medicare's public claims data has no count for ${a.providerName} billing ${a.code} (${a.serviceName}). CMS omits counts under ${PUF_SUPPRESSION_FLOOR} Medicare patients, and many providers see few Medicare patients or bill under a group, so this says nothing about their experience or quality.`, level: 'none', verdict: 'no_data', floor: PUF_SUPPRESSION_FLOOR, measure: 'services billed to Medicare' }];
  }
  const newest = a.rows[0]!.year;
  return a.rows.filter((r) => r.year === newest).map((r) => {
    const services = r.tot_srvcs === null ? null : Math.round(r.tot_srvcs);
    const patients = r.tot_benes === null ? `fewer than ${PUF_SUPPRESSION_FLOOR} (suppressed by CMS)` : String(r.tot_benes);
    const where = settingWords(r.place_of_service);
    const enough = r.peer_count >= MIN_PEERS_FOR_PERCENTILE && r.peer_pctl !== null;
    const peers = `${r.provider_type ?? 'providers of the same type'}${r.state ? ` in ${r.state}` : ''}`;
    const comparison = enough
      ? ` That is at the ${ordinal(r.peer_pctl!)} percentile of volume among ${r.peer_count} ${peers} who billed it, a measure of Medicare experience, not of quality.`
      : ` Too few ${peers} billed it (${r.peer_count}) for a meaningful comparison.`;
    return {
      type: 'medicare_volume',
      hcpcs: r.hcpcs,
      display: `In Medicare's ${r.year} data, ${a.providerName} billed ${r.hcpcs} (${a.serviceName}) ${services ?? 'an unreported number of'} times${where ? ` ${where}` : ''} for ${patients} Medicare patients.${comparison}`,
      floor: PUF_SUPPRESSION_FLOOR,
      pctl: enough ? r.peer_pctl : null,
      level: 'info',
      measure: 'services billed to Medicare',
      score: services,
      verdict: 'reported',
      denominator: r.peer_count,
    };
  });
}

function ordinal(n: number): string {
  const v = Math.round(n);
  const s = v % 100 >= 11 && v % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[v % 10] ?? 'th';
  return `${v}${s}`;
}

/** NUCC taxonomy prefixes of facilities: hospitals (27x, 28x), ambulatory surgical centers (261QA1903X), SNFs (314000000X). */
export function isFacility(p: EvidenceProviderRow): boolean {
  if (p.entity_type !== 2) return false;
  const t = p.taxonomy ?? '';
  return /^(27|28)/.test(t) || t === '261QA1903X' || t.startsWith('314') || /hospital|surgery center|surgical center/i.test(p.taxonomy_description ?? '');
}

/** Facility-level outcome context: for facilities only, and we hold no outcome data, so an explained absence. */
export function facilitySignals(p: EvidenceProviderRow): Signal[] {
  if (!isFacility(p)) return [];
  return [{
    type: 'facility_outcomes',
    display: `No facility-level outcome data (such as CMS Care Compare quality measures) is loaded for ${p.name}, so no outcome context is shown. This is an absence of data, not a finding, and facility measures never describe an individual clinician.`,
    facility: p.name,
    level: 'none',
    verdict: 'no_data',
  }];
}
