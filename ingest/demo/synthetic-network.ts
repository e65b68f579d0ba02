/**
 * The deterministic SYNTHETIC California network of the demo snapshot (issue 4, item 11): clinics,
 * clinicians, provider groups (TINs) and their negotiated rates under two networks of one fictional
 * payer. Pure data, no I/O: synthetic-files.ts writes it in the published layouts (NPPES CSV, TiC
 * 2.x JSON) and the real ingest pipeline reads those files like any other.
 *
 * Every scenario the engine must handle has a named instance here (see DEMO_SCENARIO): a
 * multi-TIN clinician (billing partitioned), a facility fee next to a professional fee, a
 * deactivated NPI still listed by the payer, a DBA brand name, two same-named clinics in
 * different ZIPs, an organization subpart, plans with employer sponsors, a clinic in no network.
 */
import { between, cents, npiWithCheckDigit } from './prng.ts';

export interface DemoSeed {
  payer: { key: string; reportingEntityName: string; label: string; acceptedNames: string[]; issuerName: string; lastUpdatedOn: string };
  networks: { key: string; networkName: string; file: string; multiplier: [number, number]; share: number }[];
  plans: { network: string; planName: string; planIdType: string; planId: string; market: string; sponsor: string | null }[];
  cities: { city: string; zip: string; street: string; factor: number }[];
  clinicNames: string[];
  firstNames: string[];
  lastNames: string[];
  taxonomies: Record<string, { code: string; description: string }>;
  codeSets: Record<string, string[]>;
  medicareNational: { global: Record<string, number>; professional26: Record<string, number>; facilityProfessional: Record<string, number> };
}

/** A provider in NPPES terms (NPPES_ReadMe_And_CodeValues.md); synthetic-files.ts maps it to the 330 columns. */
export interface SynthProvider {
  npi: number;
  entityType: 1 | 2;
  orgName: string | null;
  lastName: string | null;
  firstName: string | null;
  credential: string | null;
  /** Other organization name with its type code (3 = doing business as). */
  otherOrgName: { name: string; typeCode: '3' | '4' | '5' } | null;
  address: string;
  city: string;
  zip: string;
  phone: string;
  taxonomy: { code: string; description: string };
  ein: string | null;
  soleProprietor: boolean | null;
  subpart: boolean | null;
  parentOrgName: string | null;
  parentOrgTin: string | null;
  enumerationDate: string;
  deactivationDate: string | null;
  sex: 'F' | 'M' | null;
  secondaryLocations: { address: string; city: string; zip: string; phone: string }[];
}

/** How a group bills a code: professional (office or facility setting) or an institutional facility fee. */
type Billing = 'office' | 'professional26' | 'facilityProfessional' | 'institutional';

export interface SynthGroup {
  tin: string;
  businessName: string;
  npis: number[];
  city: string;
  factor: number;
  codes: { code: string; billing: Billing }[];
  /** Network keys the group belongs to. */
  networks: string[];
}

export interface DemoNetwork {
  seed: DemoSeed;
  providers: SynthProvider[];
  groups: SynthGroup[];
}

/** The named cases, for the docs, the tests and the README's example call. */
export const DEMO_SCENARIO = {
  clinic: 'Poppyfield Family Medicine',
  clinicZip: '94103',
  dbaBrand: 'QuickCare Bayview',
  sameNamedClinic: 'Sunrise Family Clinic',
  imagingCenter: 'Golden Gate Imaging Center',
  hospital: 'St. Brendan Community Hospital',
  outOfNetworkClinic: 'Sierra Vista Medical Group',
  employer: 'Pacific Tile & Stone Co.',
} as const;

let nextBase = 0;
function npi(): number {
  // 9-digit bases in a block starting 155500000; the check digit makes each a well-formed NPI.
  nextBase += 1;
  return npiWithCheckDigit(155_500_000 + nextBase * 7);
}

function phone(i: number): string {
  return `415555${String(1000 + i).slice(-4)}`;
}

interface Builder {
  seed: DemoSeed;
  providers: SynthProvider[];
  groups: SynthGroup[];
}

function city(seed: DemoSeed, zip: string): DemoSeed['cities'][number] {
  const c = seed.cities.find((x) => x.zip === zip);
  if (!c) throw new Error(`demo seed has no city with ZIP ${zip}`);
  return c;
}

function org(b: Builder, name: string, zip: string, tax: string, extra: Partial<SynthProvider> = {}): SynthProvider {
  const c = city(b.seed, zip);
  const p: SynthProvider = {
    npi: npi(), entityType: 2, orgName: name, lastName: null, firstName: null, credential: null, otherOrgName: null,
    address: `${100 + (b.providers.length * 37) % 900} ${c.street}`, city: c.city, zip, phone: phone(b.providers.length),
    taxonomy: b.seed.taxonomies[tax]!, ein: null, soleProprietor: null, subpart: false, parentOrgName: null, parentOrgTin: null,
    enumerationDate: '2012-04-02', deactivationDate: null, sex: null, secondaryLocations: [], ...extra,
  };
  b.providers.push(p);
  return p;
}

function person(b: Builder, zip: string, tax: string, credential: string, extra: Partial<SynthProvider> = {}): SynthProvider {
  const i = b.providers.length;
  const c = city(b.seed, zip);
  const p: SynthProvider = {
    npi: npi(), entityType: 1, orgName: null,
    lastName: b.seed.lastNames[(i * 7) % b.seed.lastNames.length]!.toUpperCase(),
    firstName: b.seed.firstNames[(i * 5) % b.seed.firstNames.length]!.toUpperCase(),
    credential, otherOrgName: null,
    address: `${200 + (i * 53) % 800} ${c.street}`, city: c.city, zip, phone: phone(i),
    taxonomy: b.seed.taxonomies[tax]!, ein: null, soleProprietor: false, subpart: null, parentOrgName: null, parentOrgTin: null,
    enumerationDate: '2015-09-14', deactivationDate: null, sex: i % 2 ? 'M' : 'F', secondaryLocations: [], ...extra,
  };
  b.providers.push(p);
  return p;
}

function group(b: Builder, tin: string, name: string, zip: string, members: SynthProvider[], codes: SynthGroup['codes'], networks: string[]): SynthGroup {
  const c = city(b.seed, zip);
  const g: SynthGroup = { tin, businessName: name, npis: members.map((m) => m.npi), city: c.city, factor: c.factor, codes, networks };
  b.groups.push(g);
  return g;
}

const as = (codes: string[], billing: Billing): SynthGroup['codes'] => codes.map((code) => ({ code, billing }));

/** Builds the network from the seed. Deterministic: no clock, no randomness beyond keyed hashes. */
export function buildDemoNetwork(seed: DemoSeed): DemoNetwork {
  nextBase = 0;
  const b: Builder = { seed, providers: [], groups: [] };
  const S = seed.codeSets;
  const both = ['ppo', 'hmo'];

  // Primary care clinic with four clinicians; one clinician's NPI is deactivated but still listed.
  const poppy = org(b, 'POPPYFIELD FAMILY MEDICINE', '94103', 'clinic', { ein: '941000001' });
  const alvarez = person(b, '94103', 'familyMedicine', 'MD', { firstName: 'MARIA', lastName: 'ALVAREZ' });
  const pcp = [alvarez, person(b, '94103', 'familyMedicine', 'MD'), person(b, '94103', 'nursePractitioner', 'NP')];
  const deactivated = person(b, '94103', 'internalMedicine', 'MD', { firstName: 'ROBERT', lastName: 'BRENNAN', deactivationDate: '2025-09-30' });
  group(b, '94-1000001', 'Poppyfield Family Medicine', '94103', [poppy, ...pcp, deactivated], as(S.primary!, 'office'), both);

  // Multi-TIN clinician: Dr. Alvarez also bills through a second practice in Oakland.
  const manz = org(b, 'MANZANITA PRIMARY CARE MEDICAL GROUP', '94612', 'clinic', { ein: '941000008' });
  alvarez.secondaryLocations.push({ address: '1400 BROADWAY', city: 'OAKLAND', zip: '94612', phone: '5105550140' });
  group(b, '94-1000008', 'Manzanita Primary Care Medical Group', '94612', [manz, alvarez, person(b, '94612', 'familyMedicine', 'DO')], as(S.primary!, 'office'), ['ppo']);

  // DBA brand: legal name differs from the name on the door.
  const bayview = org(b, 'BAYVIEW MEDICAL ASSOCIATES, INC.', '94110', 'urgentCare', { ein: '941000002', otherOrgName: { name: 'QUICKCARE BAYVIEW', typeCode: '3' } });
  group(b, '94-1000002', 'Bayview Medical Associates, Inc.', '94110', [bayview, person(b, '94110', 'familyMedicine', 'MD')], as(['99202', '99203', '99213', '99214', '93000'], 'office'), ['ppo']);

  // Two clinics with the same name in different ZIPs (and TINs, and rates).
  const sunF = org(b, 'SUNRISE FAMILY CLINIC', '93721', 'clinic', { ein: '771000003' });
  group(b, '77-1000003', 'Sunrise Family Clinic', '93721', [sunF, person(b, '93721', 'familyMedicine', 'MD')], as(S.primary!, 'office'), both);
  const sunS = org(b, 'SUNRISE FAMILY CLINIC', '92101', 'clinic', { ein: '331000004' });
  group(b, '33-1000004', 'Sunrise Family Clinic', '92101', [sunS, person(b, '92101', 'familyMedicine', 'MD')], as(S.primary!, 'office'), ['ppo']);

  // Facility fee + professional fee: an imaging center bills the technical (institutional) part,
  // radiologists bill the read (modifier 26); one radiologist reads for two groups (two TINs).
  const ggi = org(b, 'GOLDEN GATE IMAGING CENTER', '94103', 'imagingCenter', { ein: '941000005' });
  group(b, '94-1000005', 'Golden Gate Imaging Center', '94103', [ggi], as(S.imaging!, 'institutional'), both);
  const tanaka = person(b, '94103', 'radiology', 'MD', { firstName: 'LINH', lastName: 'TANAKA' });
  const rads = [tanaka, person(b, '94103', 'radiology', 'MD'), person(b, '94110', 'radiology', 'DO')];
  const mrmg = org(b, 'MISSION RADIOLOGY MEDICAL GROUP', '94103', 'radiologyGroup', { ein: '941000006' });
  group(b, '94-1000006', 'Mission Radiology Medical Group', '94103', [mrmg, ...rads], as(S.imaging!, 'professional26'), both);
  const bip = org(b, 'BAY IMAGING PARTNERS', '94110', 'radiologyGroup', { ein: '941000007' });
  group(b, '94-1000007', 'Bay Imaging Partners', '94110', [bip, tanaka, person(b, '94110', 'radiology', 'MD')], as(S.imaging!, 'professional26'), ['ppo']);

  // Hospital outpatient department (a subpart) + the gastroenterologists who bill professionally.
  const hosp = org(b, 'ST. BRENDAN COMMUNITY HOSPITAL', '94612', 'hospital', { ein: '941000009' });
  const endo = org(b, 'ST. BRENDAN COMMUNITY HOSPITAL ENDOSCOPY CENTER', '94612', 'hospital', {
    subpart: true, parentOrgName: 'ST. BRENDAN COMMUNITY HOSPITAL', parentOrgTin: '941000009',
  });
  group(b, '94-1000009', 'St. Brendan Community Hospital', '94612', [hosp, endo], [...as(S.gi!, 'institutional'), ...as(['70551', '73721', '74177'], 'institutional')], both);
  const gis = [person(b, '94612', 'gastroenterology', 'MD'), person(b, '94704', 'gastroenterology', 'MD')];
  const ebdh = org(b, 'EAST BAY DIGESTIVE HEALTH MEDICAL GROUP', '94612', 'gastroGroup', { ein: '941000010' });
  group(b, '94-1000010', 'East Bay Digestive Health Medical Group', '94612', [ebdh, ...gis], as(S.gi!, 'facilityProfessional'), both);

  // Specialty organizations across Southern California.
  const lab = org(b, 'CHAPARRAL CLINICAL LABORATORY', '90012', 'lab', { ein: '951000011' });
  group(b, '95-1000011', 'Chaparral Clinical Laboratory', '90012', [lab], as(S.lab!, 'office'), both);
  const pt = org(b, 'LIVE OAK PHYSICAL THERAPY', '91101', 'ptClinic', { ein: '951000012' });
  group(b, '95-1000012', 'Live Oak Physical Therapy', '91101', [pt, person(b, '91101', 'physicalTherapy', 'DPT')], as(S.pt!, 'office'), ['ppo']);
  const couns = org(b, 'ARROYO SECO COUNSELING', '91101', 'clinic', { ein: '951000013' });
  group(b, '95-1000013', 'Arroyo Seco Counseling', '91101', [couns, person(b, '91101', 'psychology', 'PHD'), person(b, '90802', 'psychology', 'PSYD')], as(S.behavioral!, 'office'), both);
  const ortho = org(b, 'COASTLINE ORTHOPAEDIC ASSOCIATES', '92618', 'clinic', { ein: '951000014' });
  group(b, '95-1000014', 'Coastline Orthopaedic Associates', '92618', [ortho, person(b, '92618', 'orthopedics', 'MD')], [...as(['99203', '99213'], 'office'), ...as(['29881'], 'facilityProfessional')], ['ppo']);

  // A clinic the payer does not list: the engine must say "not found", never "out of network".
  const sv = org(b, 'SIERRA VISTA MEDICAL GROUP', '95814', 'clinic', { ein: '681000015' });
  person(b, '95814', 'internalMedicine', 'MD');
  void sv;

  // Filler primary-care clinics in the remaining cities, so searches have realistic neighbours.
  const filler = ['95113', '95814', '90012', '90802', '92103', '93101', '94704'];
  filler.forEach((zip, i) => {
    const c = city(seed, zip);
    const name = `${seed.clinicNames[i % seed.clinicNames.length]!.toUpperCase()} MEDICAL GROUP`;
    const tin = `${String(60 + i)}-20000${String(i).padStart(2, '0')}`;
    const o = org(b, `${name} OF ${c.city}`, zip, 'clinic', { ein: tin.replace('-', '') });
    const docs = [person(b, zip, 'familyMedicine', 'MD'), person(b, zip, 'internalMedicine', 'MD')];
    group(b, tin, `${name} of ${c.city}`, zip, [o, ...docs], as(S.primary!, 'office'), between(`hmo|${tin}`, 0, 1) < 0.6 ? both : ['ppo']);
  });

  // Community pharmacies (NUCC 3336C0003X) around San Francisco and the East Bay, in no payer's
  // network: GET /api/pharmacies lists them by distance (issue 36, item 1). Added last, so the NPIs
  // above keep their values. One chain has two stores under one legal name, as NPPES lists chains.
  for (const [name, zip] of DEMO_PHARMACIES) org(b, name, zip, 'pharmacy');

  return { seed, providers: b.providers, groups: b.groups };
}

/** The demo's pharmacies: [legal name, ZIP]. */
export const DEMO_PHARMACIES: readonly (readonly [string, string])[] = [
  ['MISSION STREET PHARMACY', '94110'], ['VALENCIA APOTHECARY', '94110'], ['GOLDEN POPPY DRUG', '94103'],
  ['CASTRO CORNER PHARMACY', '94114'], ['POLK STREET PHARMACY', '94109'], ['GOLDEN POPPY DRUG', '94117'],
  ['IRVING STREET PHARMACY', '94122'], ['BROADWAY COMMUNITY PHARMACY', '94612'], ['TELEGRAPH AVENUE PHARMACY', '94704'],
];

/** Medicare-relative base for a code billed a given way (dollars, before locality and multiplier). */
function base(seed: DemoSeed, code: string, billing: Billing): number {
  const m = seed.medicareNational;
  const g = m.global[code];
  if (g === undefined) throw new Error(`demo seed has no Medicare base for ${code}`);
  switch (billing) {
    case 'office': return g;
    case 'professional26': return m.professional26[code] ?? g * 0.35;
    case 'facilityProfessional': return m.facilityProfessional[code] ?? g * 0.5;
    // A facility fee: hospital outpatient and freestanding centre charges run well above the professional fee.
    case 'institutional': return g * 2.6;
  }
}

/** The negotiated rate of a group for a code under a network: Medicare-relative, locality-scaled, keyed by TIN. */
export function demoRate(net: DemoNetwork, networkKey: string, g: SynthGroup, code: string, billing: Billing): number {
  const n = net.seed.networks.find((x) => x.key === networkKey);
  if (!n) throw new Error(`unknown demo network ${networkKey}`);
  const mult = between(`${networkKey}|${g.tin}|${code}|${billing}`, n.multiplier[0], n.multiplier[1]);
  return cents(base(net.seed, code, billing) * g.factor * mult);
}

export type { Billing };
