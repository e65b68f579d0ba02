/**
 * Writes the synthetic demo network (synthetic-network.ts) in the layouts real publishers use, so
 * the demo snapshot goes through the same loaders and parsers as production data:
 * - NPPES dissemination CSVs (NPPES_ReadMe_And_CodeValues.md: every field quoted, MM/DD/YYYY
 *   dates, 9-digit ZIPs, taxonomy slots with a primary switch) for the main, other-name and
 *   practice-location files;
 * - a Transparency in Coverage 2.x table of contents and one in-network rates file per network
 *   (CMS price-transparency-guide, schemas 2.x).
 * Deterministic: the same seed writes the same bytes (no clock, sorted output).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nppesCsvText } from '../nppes/write.ts';
import { demoRate, type Billing, type DemoNetwork, type SynthProvider } from './synthetic-network.ts';

/** Paths of the files written, for the pipeline step. */
export interface DemoFiles {
  dir: string;
  toc: string;
  inNetwork: string[];
  nppesMain: string;
  nppesOtherName: string;
  nppesPracticeLocation: string;
}

/** NPPES column headers of the three files, exactly as published (H5's constants). */
export interface NppesHeaders {
  main: readonly string[];
  otherName: readonly string[];
  practiceLocation: readonly string[];
}

/** NPPES CSV text (H5's writer: quoting, CRLF, and a typo in a column name is an error). */
const csv = nppesCsvText;

/** YYYY-MM-DD -> MM/DD/YYYY (NPPES date format). */
function nppesDate(iso: string | null): string {
  if (!iso) return '';
  const [y, m, d] = iso.split('-');
  return `${m}/${d}/${y}`;
}

function yn(v: boolean | null): string {
  return v === null ? '' : v ? 'Y' : 'N';
}

function mainRow(p: SynthProvider): Record<string, string> {
  const zip9 = `${p.zip}${String(p.npi % 10000).padStart(4, '0')}`;
  return {
    NPI: String(p.npi),
    'Entity Type Code': String(p.entityType),
    'Employer Identification Number (EIN)': '', // NPPES redacts EINs in the public file
    'Provider Organization Name (Legal Business Name)': p.orgName ?? '',
    'Provider Last Name (Legal Name)': p.lastName ?? '',
    'Provider First Name': p.firstName ?? '',
    'Provider Credential Text': p.credential ?? '',
    'Provider Other Organization Name': p.otherOrgName?.name ?? '',
    'Provider Other Organization Name Type Code': p.otherOrgName?.typeCode ?? '',
    'Provider First Line Business Mailing Address': p.address,
    'Provider Business Mailing Address City Name': p.city,
    'Provider Business Mailing Address State Name': 'CA',
    'Provider Business Mailing Address Postal Code': zip9,
    'Provider Business Mailing Address Country Code (If outside U.S.)': 'US',
    'Provider Business Mailing Address Telephone Number': p.phone,
    'Provider First Line Business Practice Location Address': p.address,
    'Provider Business Practice Location Address City Name': p.city,
    'Provider Business Practice Location Address State Name': 'CA',
    'Provider Business Practice Location Address Postal Code': zip9,
    'Provider Business Practice Location Address Country Code (If outside U.S.)': 'US',
    'Provider Business Practice Location Address Telephone Number': p.phone,
    'Provider Enumeration Date': nppesDate(p.enumerationDate),
    'Last Update Date': '01/05/2026',
    'NPI Deactivation Reason Code': p.deactivationDate ? 'DT' : '',
    'NPI Deactivation Date': nppesDate(p.deactivationDate),
    'Provider Sex Code': p.sex ?? '',
    'Healthcare Provider Taxonomy Code_1': p.taxonomy.code,
    'Provider License Number_1': p.entityType === 1 ? `A${String(p.npi).slice(-6)}` : '',
    'Provider License Number State Code_1': p.entityType === 1 ? 'CA' : '',
    'Healthcare Provider Primary Taxonomy Switch_1': 'Y',
    'Is Sole Proprietor': p.entityType === 1 ? yn(p.soleProprietor) : '',
    'Is Organization Subpart': p.entityType === 2 ? yn(p.subpart) : '',
    'Parent Organization LBN': p.parentOrgName ?? '',
    'Parent Organization TIN': p.parentOrgTin ?? '',
    'Certification Date': '01/05/2026',
  };
}

/** Writes the three NPPES files. Header names come from the published layout, never re-typed here. */
function writeNppes(dir: string, net: DemoNetwork, headers: NppesHeaders): Pick<DemoFiles, 'nppesMain' | 'nppesOtherName' | 'nppesPracticeLocation'> {
  const providers = [...net.providers].sort((a, b) => a.npi - b.npi);
  const nppesMain = join(dir, 'npidata_pfile_20050523-20260111.csv');
  const nppesOtherName = join(dir, 'othername_pfile_20050523-20260111.csv');
  const nppesPracticeLocation = join(dir, 'pl_pfile_20050523-20260111.csv');
  writeFileSync(nppesMain, csv(headers.main, providers.map(mainRow)), 'latin1');
  const [onNpi, onName, onType] = headers.otherName;
  writeFileSync(nppesOtherName, csv(headers.otherName, providers.filter((p) => p.otherOrgName).map((p) => ({
    [onNpi!]: String(p.npi), [onName!]: p.otherOrgName!.name, [onType!]: p.otherOrgName!.typeCode,
  }))), 'latin1');
  // pl_pfile columns by position: NPI, line 1, line 2, city, state, postal code, country, phone, …
  const pl = headers.practiceLocation;
  writeFileSync(nppesPracticeLocation, csv(pl, providers.flatMap((p) => p.secondaryLocations.map((l) => ({
    [pl[0]!]: String(p.npi), [pl[1]!]: l.address, [pl[3]!]: l.city, [pl[4]!]: 'CA', [pl[5]!]: `${l.zip}0000`, [pl[6]!]: 'US', [pl[7]!]: l.phone,
  })))), 'latin1');
  return { nppesMain, nppesOtherName, nppesPracticeLocation };
}

/** How each billing mode is published in TiC 2.x negotiated_prices. */
function priceFields(billing: Billing): Record<string, unknown> {
  switch (billing) {
    case 'office': return { billing_class: 'professional', setting: 'outpatient', service_code: ['11'] };
    case 'professional26': return { billing_class: 'professional', setting: 'outpatient', service_code: ['11', '22', '24'], billing_code_modifier: ['26'] };
    case 'facilityProfessional': return { billing_class: 'professional', setting: 'outpatient', service_code: ['22', '24'] };
    case 'institutional': return { billing_class: 'institutional', setting: 'outpatient' };
  }
}

/** One in-network rates file (TiC 2.x) for a network. */
function inNetworkFile(net: DemoNetwork, networkKey: string): unknown {
  const n = net.seed.networks.find((x) => x.key === networkKey)!;
  const groups = net.groups.filter((g) => g.networks.includes(networkKey));
  const refs = groups.map((g, i) => ({
    provider_group_id: i + 1,
    network_name: [n.networkName],
    provider_groups: [{ npi: g.npis, tin: { type: 'ein', value: g.tin, business_name: g.businessName } }],
  }));
  const byCode = new Map<string, { provider_references: number[]; negotiated_prices: unknown[] }[]>();
  groups.forEach((g, i) => {
    for (const { code, billing } of g.codes) {
      const list = byCode.get(code) ?? [];
      list.push({
        provider_references: [i + 1],
        negotiated_prices: [{
          negotiated_type: 'negotiated',
          negotiated_rate: demoRate(net, networkKey, g, code, billing),
          expiration_date: '9999-12-31',
          ...priceFields(billing),
        }],
      });
      byCode.set(code, list);
    }
  });
  const codes = [...byCode.keys()].sort();
  return {
    reporting_entity_name: net.seed.payer.reportingEntityName,
    reporting_entity_type: 'health insurance issuer',
    last_updated_on: net.seed.payer.lastUpdatedOn,
    version: '2.0.0',
    provider_references: refs,
    in_network: codes.map((code) => ({
      negotiation_arrangement: 'ffs',
      name: `Service ${code} (synthetic demo rate)`,
      billing_code_type: 'CPT',
      billing_code_type_version: '2026',
      billing_code: code,
      description: 'Synthetic demo rate: fictional payer and providers, not a real contract.',
      negotiated_rates: byCode.get(code),
    })),
  };
}

/** The table of contents: plans (with employer sponsors) grouped by the network file they use. */
function tableOfContents(net: DemoNetwork, locate: (file: string) => string): unknown {
  return {
    reporting_entity_name: net.seed.payer.reportingEntityName,
    reporting_entity_type: 'health insurance issuer',
    last_updated_on: net.seed.payer.lastUpdatedOn,
    version: '2.0.0',
    reporting_structure: net.seed.networks.map((n) => ({
      reporting_plans: net.seed.plans.filter((p) => p.network === n.key).map((p) => ({
        plan_name: p.planName,
        plan_id_type: p.planIdType,
        plan_id: p.planId,
        plan_market_type: p.market,
        ...(p.sponsor ? { plan_sponsor_name: p.sponsor } : {}),
        issuer_name: net.seed.payer.issuerName,
      })),
      in_network_files: [{ description: n.networkName, location: locate(n.file) }],
    })),
  };
}

/**
 * Writes every synthetic file into `dir`. `locate` turns a file name into the location written in
 * the table of contents (default: the bare file name, which the ingest resolves against the table
 * of contents' own directory, so the file's bytes do not depend on where it is written).
 */
export function writeDemoFiles(dir: string, net: DemoNetwork, headers: NppesHeaders, locate?: (file: string) => string): DemoFiles {
  mkdirSync(dir, { recursive: true });
  const where = locate ?? ((f: string) => f);
  const inNetwork = net.seed.networks.map((n) => {
    const path = join(dir, n.file);
    writeFileSync(path, JSON.stringify(inNetworkFile(net, n.key)));
    return path;
  });
  const toc = join(dir, 'golden-poppy_index.json');
  writeFileSync(toc, JSON.stringify(tableOfContents(net, where), null, 1));
  return { dir, toc, inNetwork, ...writeNppes(dir, net, headers) };
}
