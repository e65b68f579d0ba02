/**
 * The Medicare anchor: what Original Medicare allows for a service in the provider's locality
 * under the Physician Fee Schedule (issue 4, item 6; 42 CFR 414.20-414.48; RVU26B layout):
 *
 *   amount = [(work RVU x work GPCI) + (PE RVU x PE GPCI) + (MP RVU x MP GPCI)] x CF
 *
 * - locality: ZIP5 -> carrier + pricing locality (ZIP5 file) -> GPCI row (Addendum E);
 * - PE RVU: facility for hospital, ASC and SNF settings, non-facility otherwise; a setting whose
 *   NA indicator is set is not priced (CMS prints "NA");
 * - only status A, R and T are payable (layout, "Status Code"); others return null with why;
 * - work GPCI: the 1.0 floor ran through 2026-01-31 (H.R. 5371 s. 6207, GPCI2026.csv note), so
 *   a date of service (`asOf`) on or before that uses the floored work GPCI, later ones do not;
 * - OPPS imaging cap (DRA 2005 s. 5102(b)): when the file carries OPPS PE/MP RVUs for the code,
 *   the amount is the lower of the PFS amount and the same formula with those RVUs;
 * - rounding: CMS multiplies unrounded products and rounds the final amount to the cent; we do
 *   the same in exact integer arithmetic (RVUs have 2 decimals, GPCIs 3, the CF 4), half-up.
 * Pure and synchronous over MedicareTables; no I/O.
 */
import type { MedicareTables, RvuRecord } from './medicare-tables.ts';

export type MedicareSetting = 'facility' | 'non-facility';

export interface MedicareAllowedInput {
  code: string;
  /** 26 (professional component), TC (technical component), 53 (discontinued); omit for global. */
  modifier?: string;
  zip5: string;
  setting: MedicareSetting;
  /** Fee schedule year; default the year of `asOf` (falls back to the newest year loaded). */
  year?: number;
  /** Date of service, ISO YYYY-MM-DD; default today. Decides the work GPCI floor. */
  asOf?: string;
  /** Qualifying APM participant: the QPP conversion factor (2026: 33.5675). */
  qpp?: boolean;
}

export interface MedicareAllowed {
  /** Dollars, rounded half-up to the cent; null when Medicare does not price it (see `reason`). */
  medicareAllowed: number | null;
  reason: string | null;
  code: string;
  modifier: string;
  setting: MedicareSetting;
  year: number | null;
  /** Human citation: file, release, locality, setting. */
  source: string;
  mac: string | null;
  locality: { mac: string; locality: string; name: string | null; state: string } | null;
  status: string | null;
  rvu: { work: number; pe: number; mp: number } | null;
  gpci: { work: number; pe: number; mp: number; workFloorApplied: boolean } | null;
  conversionFactor: number | null;
  oppsCapApplied: boolean;
}

/** Last date of service the 1.0 work GPCI floor applies to, by fee schedule year. */
export const WORK_GPCI_FLOOR_THROUGH: Readonly<Record<number, string>> = { 2026: '2026-01-31' };

const PAYABLE = new Set(['A', 'R', 'T']);

/** Why a status code is not paid, in plain words (RVU26B layout, Attachment A). */
const STATUS_REASON: Record<string, string> = {
  B: 'Medicare bundles this service into the payment for other services (status B); it has no separate fee.',
  C: 'Medicare contractors price this service case by case (status C); there is no national fee schedule amount.',
  D: 'The code was deleted from the fee schedule (status D).',
  E: 'Excluded from the physician fee schedule by regulation (status E).',
  F: 'The code was deleted or discontinued (status F).',
  G: 'Not valid for Medicare; Medicare uses another code (status G).',
  H: 'This component was deleted for this code (status H).',
  I: 'Not valid for Medicare; Medicare uses another code (status I).',
  J: 'Anesthesia services are paid from base and time units times the anesthesia conversion factor, not from RVUs (status J); no fee schedule amount is computed here.',
  M: 'A measurement code used for quality reporting only (status M); not paid.',
  N: 'Not covered by Medicare (status N).',
  P: 'Bundled or excluded: no separate fee schedule payment (status P).',
  X: 'Outside the physician fee schedule by statute (status X): for example clinical lab tests are paid under the Clinical Laboratory Fee Schedule and ambulance services under their own fee schedule.',
};

/** Place-of-service codes Medicare pays at the facility rate (CMS Claims Processing Manual ch. 12, 20.4.2). */
const FACILITY_POS = new Set(['02', '19', '21', '22', '23', '24', '26', '31', '34', '41', '42', '51', '52', '53', '56', '61']);

/** The PFS setting for a CMS place-of-service code ("11" office -> non-facility, "22" outpatient hospital -> facility). */
export function settingForPlaceOfService(pos: string): MedicareSetting {
  return FACILITY_POS.has(pos.padStart(2, '0')) ? 'facility' : 'non-facility';
}

const scaled = (x: number | null, scale: number): bigint => BigInt(Math.round((x ?? 0) * scale));

/** [(W x Gw) + (PE x Gpe) + (MP x Gmp)] x CF in exact integers, returned in cents (half-up). */
export function feeScheduleCents(rvu: { work: number; pe: number; mp: number }, gpci: { work: number; pe: number; mp: number }, cf: number): number {
  // RVUs x100, GPCIs x1000 -> products x1e5; CF x1e4 -> amount x1e9; cents = amount / 1e7.
  const sum = scaled(rvu.work, 100) * scaled(gpci.work, 1000) + scaled(rvu.pe, 100) * scaled(gpci.pe, 1000) + scaled(rvu.mp, 100) * scaled(gpci.mp, 1000);
  const amount = sum * scaled(cf, 10000);
  return Number((amount + 5_000_000n) / 10_000_000n);
}

function yearFor(tables: MedicareTables, input: MedicareAllowedInput, asOf: string): number | null {
  const wanted = input.year ?? Number(asOf.slice(0, 4));
  if (tables.rvuYears.includes(wanted)) return wanted;
  return tables.rvuYears.find((y) => y <= wanted) ?? tables.rvuYears[0] ?? null;
}

/** Today's date as YYYY-MM-DD (UTC). */
export function todayIso(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** The Medicare allowed amount for one code, locality and setting; never throws on a caller's input. */
export function medicareAllowed(tables: MedicareTables, input: MedicareAllowedInput): MedicareAllowed {
  const asOf = input.asOf ?? todayIso();
  const code = input.code.trim().toUpperCase();
  const modifier = (input.modifier ?? '').trim().toUpperCase();
  const base: MedicareAllowed = {
    medicareAllowed: null, reason: null, code, modifier, setting: input.setting, year: null,
    source: 'CMS Medicare Physician Fee Schedule', mac: null, locality: null, status: null, rvu: null, gpci: null,
    conversionFactor: null, oppsCapApplied: false,
  };
  const fail = (reason: string): MedicareAllowed => ({ ...base, reason });
  if (!tables.loaded) return fail('The Medicare fee schedule is not loaded in this data snapshot.');
  const year = yearFor(tables, input, asOf);
  if (year === null) return fail('No Medicare fee schedule year is loaded.');
  base.year = year;
  base.source = `CMS Medicare Physician Fee Schedule ${year}`;
  if (/^\d{3}$/.test(code)) return fail('MS-DRG hospital stays are paid to hospitals under the inpatient prospective payment system, not the physician fee schedule; no physician fee schedule anchor applies.');
  const rvu: RvuRecord | undefined = tables.rvu(year, code, modifier, input.qpp);
  if (!rvu) {
    if (modifier && tables.hasCode(year, code)) return fail(`Medicare publishes no separate amount for ${code} with modifier ${modifier}.`);
    return fail(`${code} is not on the ${year} Medicare physician fee schedule (for example lab tests are paid under the Clinical Laboratory Fee Schedule and drugs under the ASP drug pricing files).`);
  }
  base.status = rvu.status;
  base.source = `CMS Medicare Physician Fee Schedule ${year} (${rvu.release}${rvu.qpp ? ', QPP' : ''})`;
  if (!PAYABLE.has(rvu.status)) return fail(STATUS_REASON[rvu.status] ?? `Status ${rvu.status}: not separately payable under the fee schedule.`);
  const facility = input.setting === 'facility';
  if (facility ? rvu.f_na : rvu.nf_na) {
    return fail(`Medicare does not price ${code} in a ${facility ? 'facility (hospital, surgery center, nursing facility)' : 'non-facility (office)'} setting (NA indicator); ask for the ${facility ? 'non-facility' : 'facility'} amount instead.`);
  }
  const pe = (facility ? rvu.f_pe_rvu : rvu.nf_pe_rvu) ?? 0;
  const work = rvu.work_rvu ?? 0;
  const mp = rvu.mp_rvu ?? 0;
  if (work === 0 && pe === 0 && mp === 0) return fail(`Medicare contractors price ${code} locally (status ${rvu.status} with no national RVUs).`);
  const zip = tables.zip(input.zip5);
  if (!zip) return fail(`ZIP ${input.zip5} is not in the Medicare ZIP-to-locality file, so the payment locality is unknown.`);
  base.mac = zip.carrier;
  const gYear = tables.gpciYearFor(year, zip.carrier, zip.locality);
  const g = gYear === undefined ? undefined : tables.gpci(gYear, zip.carrier, zip.locality);
  if (!g) return fail(`No GPCI for Medicare carrier ${zip.carrier} locality ${zip.locality}.`);
  base.locality = { mac: g.mac, locality: g.locality, name: g.locality_name, state: g.state };
  const floorThrough = WORK_GPCI_FLOOR_THROUGH[g.year];
  const workFloorApplied = floorThrough === undefined ? true : asOf <= floorThrough;
  const workGpci = (workFloorApplied ? g.work_gpci : g.work_gpci_no_floor) ?? g.work_gpci ?? 1;
  const gpci = { work: workGpci, pe: g.pe_gpci ?? 1, mp: g.mp_gpci ?? 1, workFloorApplied };
  const cfRec = tables.conversionFactor(year, input.qpp ? 'mpfs_qpp' : 'mpfs');
  const cf = cfRec?.value ?? rvu.conversion_factor;
  if (!cf) return fail(`No ${year} conversion factor is loaded.`);
  let cents = feeScheduleCents({ work, pe, mp }, gpci, cf);
  const oppsPe = (facility ? rvu.opps_f_pe_rvu : rvu.opps_nf_pe_rvu) ?? 0;
  const oppsMp = rvu.opps_mp_rvu ?? 0;
  let oppsCapApplied = false;
  if (oppsPe > 0 || oppsMp > 0) {
    const capCents = feeScheduleCents({ work, pe: oppsPe, mp: oppsMp }, gpci, cf);
    if (capCents < cents) { cents = capCents; oppsCapApplied = true; }
  }
  return {
    ...base,
    medicareAllowed: cents / 100,
    rvu: { work, pe, mp },
    gpci,
    conversionFactor: cf,
    oppsCapApplied,
    // The county list CMS appends to some locality names is left out (answer size); carrier and locality identify it.
    source: `${base.source}, ${g.locality_name?.replace(/\s*\([^)]*\)\s*$/, '') ?? `locality ${g.locality}`} (carrier ${g.mac}, locality ${g.locality}), ${input.setting}${oppsCapApplied ? ', OPPS imaging cap applied' : ''}`,
  };
}

/** rate / medicareAllowed, to 2 decimals; null when either is missing or Medicare's is not positive. */
export function rateRatio(rate: number | null | undefined, allowed: number | null | undefined): number | null {
  if (rate == null || allowed == null || !(allowed > 0) || !Number.isFinite(rate)) return null;
  return Math.round((rate / allowed) * 100) / 100;
}

/** The spec's `medicareAnchor` ({source, medicareAllowed, rateRatio, year, setting}) or null when not priced. */
export function medicareAnchor(result: MedicareAllowed, rate?: number | null): { source: string; medicareAllowed: number; rateRatio: number | null; year: number; setting: string } | null {
  if (result.medicareAllowed === null || result.year === null) return null;
  return { source: result.source, medicareAllowed: result.medicareAllowed, rateRatio: rateRatio(rate, result.medicareAllowed), year: result.year, setting: result.setting };
}
