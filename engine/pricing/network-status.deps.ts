/**
 * What network-status takes from the other pricing modules (catalog, payers, Medicare, words;
 * H6's catalog.ts, payers.ts, medicare.ts, words.ts), narrowed to the calls it makes. The wiring
 * (network-status.wiring.ts) binds these to the real modules; the handler sees only this shape.
 */
import type { z } from 'zod';
import type {
  MedicareAnchorSchema, MedicareBlockSchema, MedicareStatusSchema, PatientShareSchema, ServiceSchema, SupportedServiceSchema,
} from './pricing.schema.ts';
import type { PayerInfo } from './plan-resolution.types.ts';

export type Service = z.infer<typeof ServiceSchema>;
export type SupportedService = z.infer<typeof SupportedServiceSchema>;
export type MedicareAnchor = z.infer<typeof MedicareAnchorSchema>;
export type MedicareBlock = z.infer<typeof MedicareBlockSchema>;
export type MedicareStatus = z.infer<typeof MedicareStatusSchema>;
export type PatientShare = z.infer<typeof PatientShareSchema>;

export interface NetworkStatusHelpers {
  resolvePayer(name: string): Promise<PayerInfo | null>;
  listPayers(): Promise<PayerInfo[]>;
  /** Maps a TiC reporting_entity_name to its registry payer (synchronous once loaded). */
  entityResolver(): Promise<(reportingEntityName: string) => PayerInfo | null>;
  /** The catalog entry, or null when the code is not a catalog code. */
  serviceFor(code: string): Promise<Service | null>;
  /** The code's type in the catalog (CPT | HCPCS | MS-DRG). */
  codeType(code: string): Promise<string | null>;
  supportedServices(): Promise<SupportedService[]>;
  /** Related catalog codes for a `code` ask's options. */
  relatedOptions(code: string): Promise<(string | Record<string, unknown>)[]>;
  /** `modifier`: '26' (professional component) or 'TC' (technical component) anchors on that RVU row; '' or absent, the global row. */
  medicareAnchor(a: { code: string; zip5: string | null; setting: 'facility' | 'non-facility'; rate: number | null; modifier?: string }): Promise<MedicareAnchor | null>;
  /** The `medicare` block: non-null when the payer is Medicare or Medicare numbers are shown. */
  medicareBlock(a: { payerKey: string | null; payerName: string | null; hasCode: boolean }): Promise<MedicareBlock | null>;
  /** Statuses for every match at once (PECOS enrollment, opt-out list). */
  medicareStatuses(npis: readonly number[]): Promise<Map<number, MedicareStatus>>;
  patientShare(a: { payerKey: string | null; rate: number | null; medicareAllowed: number | null; medicare: MedicareBlock | null; status: MedicareStatus | null }): Promise<PatientShare | null>;
  words: {
    methodology(): string;
    /** One line pointing to include: ["definitions"] for the full text. */
    methodologyShort(): string;
    disclaimer(): string;
    billingEvidenceDefinitions(): Record<string, unknown>;
    signalDefinitions(): Record<string, unknown>;
    networkNote(a: { matchTier: string; payerLabel: string | null; dataAvailable?: boolean | null }): string;
    rateFetchNote(a: { dataVintage: string; synthetic: boolean; hasCode: boolean }): string;
  };
}
