/**
 * The contract between a TiC parser (fast scanner or the stream-json reference parser) and the
 * snapshot writer. A parser reads one file and calls the sink in document order; it never resolves
 * provider references itself: rates carry file-local reference ids and the writer joins them with
 * the groups at finalize time, so references may come before, after, or never (bounded memory
 * whatever the order). Values are already normalised (see schemas/pricing-tables.ts for the rules).
 *
 * The differential test compares the exact sequence of sink calls of both parsers.
 */

export type FileKind = 'table-of-contents' | 'in-network' | 'allowed-amounts' | 'provider-reference';

/** Top-level scalars of a file (whatever order they appear in; emitted once, at end of file). */
export interface FileHeader {
  kind: FileKind;
  reportingEntityName: string | null;
  reportingEntityType: string | null;
  /** 1.x single-plan header fields (also 2.x in-network single plan). */
  planName: string | null;
  planIdType: string | null;
  planId: string | null;
  planMarketType: string | null;
  planSponsorName: string | null;
  issuerName: string | null;
  lastUpdatedOn: string | null; // YYYY-MM-DD
  version: string | null;
}

/** A reporting plan (TOC reporting_plans[] or in-network 2.x reporting_plans / 1.x header). */
export interface PlanRecord {
  planName: string | null;
  planIdType: string | null;
  planId: string | null;
  planMarketType: string | null;
  planSponsorName: string | null;
  issuerName: string | null;
}

/** One TOC reporting_structure[] entry: the plans and the files they publish. */
export interface TocStructure {
  plans: PlanRecord[];
  inNetworkFiles: { description: string | null; location: string }[];
  allowedAmountFile: { description: string | null; location: string } | null;
}

export interface GroupRecord {
  tinType: string | null; // 'ein' | 'npi'
  tinValue: string | null;
  businessName: string | null;
  npis: number[]; // [0] in 1.x means TIN-only: emitted as []
  networkNames: string[];
}

/**
 * A provider_references[] entry. `refId` is the provider_group_id as written (string, so the
 * decimal 690.64462 survives). Either `groups` (inline) or `location` (remote URL to fetch).
 */
export interface ProviderReferenceRecord {
  refId: string;
  groups: GroupRecord[];
  networkNames: string[];
  location: string | null;
}

export interface PriceRecord {
  negotiatedType: string;
  negotiatedRate: number;
  expirationDate: string | null;
  serviceCode: string[] | null;
  billingClass: string;
  setting: string | null;
  billingCodeModifier: string[] | null;
  additionalInformation: string | null;
}

/** One negotiated_rates[] entry of one in_network item. */
export interface RateRecord {
  billingCodeType: string;
  billingCode: string;
  billingCodeTypeVersion: string | null;
  name: string | null;
  negotiationArrangement: string;
  /** provider_references ids (strings as written). */
  refIds: string[];
  /** Inline provider_groups in this negotiated_rates entry (2.x and some 1.x writers). */
  inlineGroups: GroupRecord[];
  prices: PriceRecord[];
}

/**
 * What a front-end computed anyway and hands the sink to save it work; never changes what the
 * records say. `descriptionHashes[i]` belongs to `prices[i]`: a 32-bit hash of the bytes its
 * description (every field but negotiated_rate) was written with. A bucket hint only: equal hashes
 * do not prove equal descriptions (compare the fields), and equal descriptions written differently
 * (other key order, "1" for "01") may hash apart.
 */
export interface RateHints {
  descriptionHashes: readonly number[];
  /**
   * `descriptionKeys[i]` belongs to `prices[i]` when given: a number naming its description exactly
   * among the prices the same front-end (on the same thread) gave: equal keys are equal
   * descriptions; 0 names none.
   */
  descriptionKeys?: readonly number[];
  /**
   * When given and above 0: a number naming the rate's provider_references list exactly among the
   * lists the same front-end (on the same thread) gave: equal keys are equal lists.
   */
  refsKey?: number;
}

export interface BundleRecord {
  negotiationArrangement: string;
  parentBillingCodeType: string;
  parentBillingCode: string;
  kind: 'bundled_codes' | 'covered_services';
  billingCodeType: string;
  billingCode: string;
  billingCodeTypeVersion: string | null;
  description: string | null;
}

export interface AllowedAmountRecord {
  billingCodeType: string;
  billingCode: string;
  name: string | null;
  tinType: string | null;
  tinValue: string | null;
  serviceCode: string[] | null;
  billingClass: string | null;
  setting: string | null;
  allowedAmount: number;
  billingCodeModifier: string[] | null;
  npis: number[];
  billedCharge: number | null;
}

export type WarningKind =
  | 'unpadded_code'
  | 'empty_array'
  | 'penny_rate'
  | 'unresolved_reference'
  | 'unknown_field'
  | 'type_coerced'
  | 'missing_field'
  | 'decimal_group_id'
  | 'tin_only_group'
  | 'remote_reference'
  /** A value outside the schema's enum/format/range (kept normalised, or nulled when meaningless). */
  | 'invalid_value'
  /** A record dropped because it could not be used (e.g. a price without a rate); see the path. */
  | 'skipped_record';

export interface TicSink {
  header(h: FileHeader): void;
  plan(p: PlanRecord): void;
  tocStructure(s: TocStructure): void;
  providerReference(r: ProviderReferenceRecord): void;
  /** `hints` (optional): what the front-end already computed; see RateHints. */
  rate(r: RateRecord, hints?: RateHints): void;
  bundle(b: BundleRecord): void;
  allowedAmount(a: AllowedAmountRecord): void;
  /** A deviation worth reporting; `path` is the JSON path, `example` a short sample value. */
  warning(kind: WarningKind, path: string, example: string): void;
}

/** Why a file could not be parsed (stable codes for the report; the message says the detail). */
export type TicParseErrorReason =
  | 'invalid_json'
  | 'truncated'
  | 'too_long' // a string, key or number longer than maxStringBytes
  | 'too_deep' // nesting deeper than maxDepth
  | 'wrong_type' // a value whose type makes the file or record unusable
  | 'wrong_kind'; // not the kind of TiC file the caller asked for, or not a TiC file

/** A parse failure: which byte of the (uncompressed) stream, and why. */
export class TicParseError extends Error {
  override name = 'TicParseError';
  readonly byteOffset: number;
  readonly reason: TicParseErrorReason;

  constructor(message: string, byteOffset: number, reason: TicParseErrorReason = 'invalid_json') {
    super(`${message} at byte ${byteOffset}`);
    this.byteOffset = byteOffset;
    this.reason = reason;
  }
}
