/**
 * The service catalog (issue 4, item 8): plain-language names, categories, who a code applies
 * to, price and Medicare notes, related codes. Built from the snapshot's service_catalog rows
 * (or the repo's shipped data/catalog/service-catalog.json when the snapshot has none) by the
 * reference adapter, once per snapshot; lookups are synchronous. Never AMA CPT descriptors.
 */

/** service_catalog row (schemas/pricing-tables.ts SERVICE_CATALOG). */
export interface CatalogEntry {
  code: string;
  code_type: string;
  name: string;
  category: string;
  sources: string[];
  applies_to: string | null;
  related_codes: string[] | null;
  related_when: string[] | null;
  name_source?: string | null;
}

export interface RelatedCode { code: string; name: string; when: string }

/** The spec's `service` object. */
export interface Service {
  code: string;
  name: string;
  category: string;
  appliesTo: string;
  priceNote: string;
  medicareNote: string;
  relatedCodes: RelatedCode[];
}

export interface SupportedService { code: string; name: string; category: string }

function priceNoteFor(e: CatalogEntry): string {
  if (e.code_type === 'MS-DRG') return 'Insurers publish MS-DRG prices as a case rate for the whole hospital stay (sometimes a percentage or a per-day rate); surgeons, anesthesia and other clinicians bill separately, so the total is higher.';
  switch (e.category) {
    case 'Radiology': return "A published rate may be global (the scan and the radiologist's reading), professional only (modifier 26: the reading) or technical only (TC: equipment and staff); a hospital may bill the technical part as a facility fee.";
    case 'Laboratory & Pathology': return 'Lab prices vary widely between labs; drawing the sample and the visit that ordered the test are billed separately.';
    case 'Evaluation & Management': return "The rate is the clinician's fee; a hospital-owned clinic may add a separate facility fee.";
    case 'Anesthesia': return 'Anesthesia is usually paid per unit (base units plus time), so a published rate may be per unit rather than per case.';
    case 'Drugs & Biologics': return 'Drug rates are usually per billing unit (for example per 10 mg), not per dose; giving the drug is billed separately.';
    default: return "The rate is the clinician's or facility's fee for this service; when it is done in a hospital or surgery center, a facility fee and anesthesia are usually billed separately.";
  }
}

function medicareNoteFor(e: CatalogEntry): string {
  if (e.code_type === 'MS-DRG') return 'Medicare pays hospitals for inpatient stays under its inpatient prospective payment system; no physician fee schedule anchor applies.';
  switch (e.category) {
    case 'Laboratory & Pathology': return 'Medicare pays most lab tests under the Clinical Laboratory Fee Schedule, not the physician fee schedule; an anchor appears only when the physician fee schedule prices the code (for example a pathologist\'s reading).';
    case 'Anesthesia': return 'Medicare pays anesthesia from base and time units times the anesthesia conversion factor ($20.4976 in 2026); no fee schedule amount is computed here.';
    case 'Drugs & Biologics': return 'Medicare Part B pays drugs at average sales price plus 6%, not under the physician fee schedule; no anchor is shown.';
    default: return "medicareAnchor: what Original Medicare allows in the provider's locality (Physician Fee Schedule); a reference point, not the patient's price.";
  }
}

/** Canonical catalog code candidates for what a caller typed ("MS-DRG 470", "1960", "0470", "70551"). */
export function codeCandidates(raw: string): string[] {
  const c = raw.trim().toUpperCase().replace(/^MS-?DRG\s*/, '');
  const out = [c];
  if (/^\d{4}$/.test(c)) out.push(`0${c}`);
  if (/^0\d{3}$/.test(c)) out.push(c.slice(1));
  if (/^\d{1,2}$/.test(c)) out.push(c.padStart(3, '0'));
  return out;
}

/** Synchronous catalog lookups for one snapshot. */
export class ServiceCatalog {
  private readonly byCode = new Map<string, CatalogEntry>();

  constructor(entries: readonly CatalogEntry[]) {
    for (const e of entries) this.byCode.set(e.code.toUpperCase(), e);
  }

  get size(): number {
    return this.byCode.size;
  }

  /** The catalog entry for a code as typed, or undefined. */
  entry(code: string): CatalogEntry | undefined {
    for (const c of codeCandidates(code)) {
      const e = this.byCode.get(c);
      if (e) return e;
    }
    return undefined;
  }

  /** The canonical catalog code for what was typed ("1960" -> "01960"), or null. */
  canonical(code: string): string | null {
    return this.entry(code)?.code ?? null;
  }

  isCatalogCode(code: string): boolean {
    return this.entry(code) !== undefined;
  }

  /** The spec's `service` object, or null for a code outside the catalog. */
  serviceFor(code: string): Service | null {
    const e = this.entry(code);
    if (!e) return null;
    return {
      code: e.code,
      name: e.name,
      category: e.category,
      appliesTo: e.applies_to ?? '',
      priceNote: priceNoteFor(e),
      medicareNote: medicareNoteFor(e),
      relatedCodes: this.relatedOptions(e.code),
    };
  }

  /** Related catalog codes with when each applies (also the `options` of a `code` ask for an unpriced code). */
  relatedOptions(code: string): RelatedCode[] {
    const e = this.entry(code);
    if (!e) return [];
    const codes = e.related_codes ?? [];
    const when = e.related_when ?? [];
    const out: RelatedCode[] = [];
    codes.forEach((c, i) => {
      const r = this.byCode.get(c.toUpperCase());
      if (r) out.push({ code: r.code, name: r.name, when: when[i] ?? '' });
    });
    return out;
  }

  /** `supportedServices[]`: every catalog code, optionally one category, in code order. */
  supportedServices(opts: { category?: string } = {}): SupportedService[] {
    const out: SupportedService[] = [];
    for (const e of this.byCode.values()) {
      if (opts.category && e.category !== opts.category) continue;
      out.push({ code: e.code, name: e.name, category: e.category });
    }
    return out.sort((a, b) => a.code.localeCompare(b.code));
  }
}
