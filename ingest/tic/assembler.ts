/**
 * The half of a TiC parser that both front-ends share: it receives structural events (a top-level
 * field, one element of a streamed array, one negotiated_rates entry of an in_network item, ...)
 * with small materialised JSON values, normalises them (normalize.ts) and calls the TicSink.
 *
 * Front-end contract (fast-parser.ts and reference-parser.ts implement it identically; the
 * differential test holds them to it):
 * - The root must be an object (else `wrong_type`).
 * - Root keys in STREAMED_KEYS must hold arrays (else `wrong_type`); each element is materialised
 *   on its own and passed to `element()`, except `in_network`, whose elements must be objects and
 *   are walked key by key: `negotiated_rates` must be an array whose entries go one at a time to
 *   `rate()`; keys in ITEM_KEYS are materialised (`itemValue`); other keys are skipped unread
 *   (`itemSkipped`).
 * - Other root keys in TOP_KEYS are materialised (`topValue`); unknown root keys are skipped
 *   unread (`topSkipped`), so a hostile unknown field costs no memory.
 * Memory is therefore bounded by the largest single element / negotiated_rates entry, plus the
 * rates of one item whose billing code comes after its rates (buffered until the code is known).
 *
 * Provider records are built in assemble-providers.ts, table-of-contents / plan / allowed-amounts
 * records in assemble-toc.ts; the fast parser's shortcut for canonical entries is fast-rate.ts.
 */
import {
  TicParseError, type FileKind, type GroupRecord, type PriceRecord, type ProviderReferenceRecord, type RateRecord, type TicSink, type WarningKind,
} from './records.ts';
import * as N from './normalize.ts';
import { outOfNetwork, plan, planOf, tocStructure, unknownKeys, type Ctx } from './assemble-toc.ts';
import { group, groups, providerReference } from './assemble-providers.ts';
import { prepareRate, prepareReference, preparedEnd, type PreparedRate } from './fast-rate.ts';
import { patchRawIds } from './raw-ids.ts';
import { nextInRun, objectEnd, type OffloadStats, type Offloader, type RateHeader } from './offload.ts';

/** A negotiated_rates entry the fast parser already read (fast-rate.ts), waiting in `pending`. */
class Prepared {
  readonly p: PreparedRate;

  constructor(p: PreparedRate) {
    this.p = p;
  }
}

export type StreamedKey = 'in_network' | 'provider_references' | 'reporting_structure' | 'out_of_network' | 'reporting_plans' | 'provider_groups';

/** Root arrays streamed element by element. */
export const STREAMED_KEYS: ReadonlySet<string> = new Set<StreamedKey>(['in_network', 'provider_references', 'reporting_structure', 'out_of_network', 'reporting_plans', 'provider_groups']);
/** Root scalars (and the small network_name array) materialised whole. */
export const TOP_KEYS: ReadonlySet<string> = new Set(['reporting_entity_name', 'reporting_entity_type', 'plan_name', 'plan_id_type', 'plan_id', 'plan_market_type', 'plan_sponsor_name', 'issuer_name', 'last_updated_on', 'version', 'network_name']);
/** in_network item keys materialised whole (negotiated_rates is streamed). */
export const ITEM_KEYS: ReadonlySet<string> = new Set(['negotiation_arrangement', 'name', 'billing_code_type', 'billing_code_type_version', 'billing_code', 'description', 'bundled_codes', 'covered_services', 'severity_of_illness']);

const KIND_OF: Partial<Record<StreamedKey, FileKind>> = {
  in_network: 'in-network', provider_references: 'in-network', reporting_structure: 'table-of-contents',
  out_of_network: 'allowed-amounts', provider_groups: 'provider-reference',
};
const RATE_KEYS = new Set(['negotiated_prices', 'provider_references', 'provider_groups']);
const PRICE_KEYS = new Set(['negotiated_type', 'negotiated_rate', 'expiration_date', 'service_code', 'billing_class', 'setting', 'billing_code_modifier', 'additional_information']);
const CONTAINED_KEYS = new Set(['billing_code_type', 'billing_code_type_version', 'billing_code', 'description']);

/**
 * Rates held while an item's code is unknown (it comes after them in a few writers' files). Real
 * items rarely have more than a few thousand rates; this bounds memory on hostile input.
 */
export const MAX_PENDING_RATES = 200_000;

const P_RATE = 'in_network[].negotiated_rates[]';
const P_PRICE = 'in_network[].negotiated_rates[].negotiated_prices[]';

/** What the front-ends call (see the module comment for when). */
export interface FrontEndEvents {
  topValue(key: string, value: unknown): void;
  topSkipped(key: string): void;
  arrayStart(key: StreamedKey): void;
  element(key: Exclude<StreamedKey, 'in_network'>, value: unknown): void;
  arrayEnd(key: StreamedKey, count: number): void;
  itemStart(): void;
  itemValue(key: string, value: unknown): void;
  itemSkipped(key: string): void;
  rate(value: unknown): void;
  /** A canonical entry read by fast-rate.ts: the same record `rate()` would make, without warnings. */
  ratePrepared(p: PreparedRate): void;
  /** A canonical provider_references entry read by fast-rate.ts (what `element()` would emit). */
  referencePrepared(r: ProviderReferenceRecord): void;
  /**
   * Whether the negotiated_rates entry (an object) starting now goes to the parse helper
   * (offload.ts): then the front-end captures its bytes and calls `rateBytes` instead of reading it,
   * unless that returns false (the helper declined the record).
   */
  takesRate(): boolean;
  /** The same for a provider_references element (an object); then `referenceBytes`. */
  takesReference(): boolean;
  rateBytes(bytes: Uint8Array, end: number): boolean;
  referenceBytes(bytes: Uint8Array, end: number): boolean;
  /** The longest run of records the helper takes at once (offload.ts Offloader.runBytes); 0: none. */
  runBytes(): number;
  /**
   * Instead of rateBytes: a run of negotiated_rates entries starting with the one starting now
   * (`bytes` from its `{` to the last one's `}`, ending at byte `end` of the file), `room` levels of
   * nesting left for each. False: declined.
   */
  rateRun(bytes: Uint8Array, end: number, room: number): boolean;
  /** The same for provider_references elements. */
  referenceRun(bytes: Uint8Array, end: number, room: number): boolean;
  ratesEnd(count: number): void;
  itemEnd(): void;
  end(): void;
}

export interface AssemblerStats {
  kind: FileKind | null;
  version: string | null;
  rates: number;
  prices: number;
  providerReferences: number;
  warnings: Record<WarningKind, number>;
}

export function emptyWarnings(): Record<WarningKind, number> {
  return { unpadded_code: 0, empty_array: 0, penny_rate: 0, unresolved_reference: 0, unknown_field: 0, type_coerced: 0,
    missing_field: 0, decimal_group_id: 0, tin_only_group: 0, remote_reference: 0, invalid_value: 0, skipped_record: 0 };
}

/**
 * The records of a run (offload.ts): each read by `fast` (which returns its end, or -1 when it is
 * not canonical), else its object's end found and its bytes handed to `general`; `at` gets each
 * record's end in the file (`start` + its end in `b`) before it is handed on, for errors' offsets
 * (`fast` sets it itself).
 */
function readRun(b: Uint8Array, start: number, room: number, at: (offset: number) => void,
  fast: (i: number, n: number) => number, general: (bytes: Uint8Array) => void): void {
  const n = b.length;
  let i = 0;
  for (;;) {
    let end = fast(i, n);
    if (end < 0) {
      end = objectEnd(b, i, room, start);
      at(start + end);
      general(b.subarray(i, end));
    }
    i = nextInRun(b, end, start);
    if (i === n) return;
  }
}

/** Normalises front-end events into TicSink calls (one instance per file). */
interface AssemblerOptions {
  kindHint?: FileKind | undefined;
  at: () => number;
  refId?: string | undefined;
  offload?: Offloader | null | undefined;
}

export class TicAssembler implements FrontEndEvents {
  readonly stats: AssemblerStats = { kind: null, version: null, rates: 0, prices: 0, providerReferences: 0, warnings: emptyWarnings() };
  private readonly top: Record<string, unknown> = {};
  private item: Record<string, unknown> = {};
  private header: RateHeader | null = null;
  private pending: unknown[] = [];
  private ratesArray = false;
  /** Whether a rate of the current item reached the sink here (a helper takes rates only after one). */
  private itemEmitted = false;
  private readonly td = new TextDecoder('utf-8');
  private readonly refGroups: GroupRecord[] = [];
  readonly warn: N.Warn;
  private readonly sink: TicSink;
  private readonly opts: AssemblerOptions;

  constructor(sink: TicSink, opts: AssemblerOptions) {
    this.sink = sink;
    this.opts = opts;
    this.warn = (kind, path, example) => {
      this.stats.warnings[kind]++;
      sink.warning(kind, path, example);
    };
  }

  private fail(message: string, reason: 'wrong_type' | 'wrong_kind' | 'too_long'): never {
    throw new TicParseError(message, this.opts.at(), reason);
  }

  private unknownKeys(o: Record<string, unknown>, known: ReadonlySet<string>, path: string): void {
    unknownKeys(o, known, path, this.warn);
  }

  private ctx(): Ctx {
    return { warn: this.warn, sink: this.sink, fail: (m, r) => this.fail(m, r) };
  }

  topValue(key: string, value: unknown): void { this.top[key] = value; }
  topSkipped(key: string): void { this.warn('unknown_field', '$', key); }

  arrayStart(key: StreamedKey): void {
    const implied = KIND_OF[key];
    if (!implied) return;
    const hint = this.opts.kindHint;
    if (hint && hint !== implied) this.fail(`expected a ${hint} file, found "${key}" (a ${implied} file)`, 'wrong_kind');
    if (this.stats.kind && this.stats.kind !== implied) this.fail(`"${key}" in a ${this.stats.kind} file`, 'wrong_kind');
    this.stats.kind = implied;
  }

  arrayEnd(key: StreamedKey, count: number): void {
    if (count === 0 && (key === 'in_network' || key === 'reporting_structure' || key === 'reporting_plans')) this.warn('empty_array', key, '[]');
  }

  element(key: Exclude<StreamedKey, 'in_network'>, value: unknown): void {
    switch (key) {
      case 'provider_references': {
        const r = providerReference(value, this.warn);
        if (r) this.referencePrepared(r);
        return;
      }
      case 'reporting_structure': return tocStructure(value, this.ctx());
      case 'out_of_network': return outOfNetwork(value, this.ctx());
      case 'reporting_plans': {
        const p = plan(value, 'reporting_plans[]', this.warn);
        if (p) this.sink.plan(p);
        return;
      }
      case 'provider_groups': {
        const g = group(value, 'provider_groups[]', this.warn);
        if (g) this.refGroups.push(g);
        return;
      }
    }
  }

  // ------------------------------------------------------------------ in_network items
  itemStart(): void {
    this.item = {};
    this.header = null;
    this.pending = [];
    this.ratesArray = false;
    this.itemEmitted = false;
  }

  itemValue(key: string, value: unknown): void { this.item[key] = value; }
  itemSkipped(key: string): void { this.warn('unknown_field', 'in_network[]', key); }

  rate(value: unknown): void {
    if (!N.isObj(value)) this.fail('a negotiated_rates entry is not an object', 'wrong_type');
    if (!this.header) {
      const it = this.item;
      if (it.billing_code_type !== undefined && it.billing_code !== undefined && it.negotiation_arrangement !== undefined) this.header = this.makeHeader();
    }
    if (this.header) this.emitRate(this.header, value);
    else this.hold(value);
  }

  referencePrepared(r: ProviderReferenceRecord): void {
    this.stats.providerReferences++;
    this.sink.providerReference(r);
  }

  // ------------------------------------------------------------------ the parse helper (offload.ts)
  // A rate goes to the helper only once one of its item's rates reached the sink here: the item's
  // header is then known and the item is staged (and counted) by this thread, so the helper's
  // copy of it is a duplicate row that finalize merges by content.
  takesRate(): boolean {
    const off = this.opts.offload;
    return off != null && this.header !== null && this.itemEmitted && off.open(this.opts.at());
  }

  takesReference(): boolean {
    const off = this.opts.offload;
    return off != null && off.open(this.opts.at());
  }

  rateBytes(bytes: Uint8Array, end: number): boolean {
    return this.opts.offload!.rate(this.header!, bytes, end);
  }

  referenceBytes(bytes: Uint8Array, end: number): boolean {
    return this.opts.offload!.reference(bytes, end);
  }

  runBytes(): number {
    return this.opts.offload?.runBytes ?? 0;
  }

  rateRun(bytes: Uint8Array, end: number, room: number): boolean {
    return this.opts.offload!.rates?.(this.header!, bytes, end, room) ?? false;
  }

  referenceRun(bytes: Uint8Array, end: number, room: number): boolean {
    return this.opts.offload!.references?.(bytes, end, room) ?? false;
  }

  /**
   * In the helper: a run of negotiated_rates entries of the item `h` (fast-parser.ts handRun), each
   * read as rateFromBytes reads one; `start` is the run's first byte in the file, `at` set to each
   * entry's end as it is read. Throws RunError when the bytes are not exactly a comma-separated run
   * of objects, each within `room` levels.
   */
  ratesFromRun(h: RateHeader, b: Uint8Array, start: number, room: number, at: (offset: number) => void): void {
    readRun(b, start, room, at, (i, n) => {
      const p = prepareRate(b, i, n, true);
      if (p === null) return -1;
      const end = preparedEnd.at;
      at(start + end);
      this.emitPrepared(h, p);
      return end;
    }, (bytes) => this.emitRate(h, this.parseRecord(bytes)));
  }

  /** In the helper: a run of provider_references elements (as ratesFromRun). */
  referencesFromRun(b: Uint8Array, start: number, room: number, at: (offset: number) => void): void {
    readRun(b, start, room, at, (i, n) => {
      const r = prepareReference(b, i, n, true);
      if (r === null) return -1;
      const end = preparedEnd.at;
      at(start + end);
      this.referencePrepared(r);
      return end;
    }, (bytes) => this.element('provider_references', this.parseRecord(bytes)));
  }

  /** In the helper: a negotiated_rates entry of the item `h`, read as the front-end reads one. */
  rateFromBytes(h: RateHeader, bytes: Uint8Array): void {
    const p = prepareRate(bytes, 0, bytes.length);
    if (p !== null) this.emitPrepared(h, p);
    else this.emitRate(h, this.parseRecord(bytes));
  }

  /** In the helper: a provider_references element. */
  referenceFromBytes(bytes: Uint8Array): void {
    const r = prepareReference(bytes, 0, bytes.length);
    if (r !== null) this.referencePrepared(r);
    else this.element('provider_references', this.parseRecord(bytes));
  }

  /** A captured record the shortcut did not take (fast-parser.ts deliver()). */
  private parseRecord(bytes: Uint8Array): unknown {
    let v: unknown;
    try {
      v = JSON.parse(this.td.decode(bytes));
    } catch (e) {
      throw new TicParseError((e as Error).message, this.opts.at(), 'invalid_json');
    }
    patchRawIds(v, bytes);
    return v;
  }

  /** Adds the helper's counts (offload.ts) to this file's. */
  addHelperStats(h: OffloadStats): void {
    this.stats.rates += h.rates;
    this.stats.prices += h.prices;
    this.stats.providerReferences += h.providerReferences;
    for (const [k, n] of Object.entries(h.warnings)) this.stats.warnings[k as WarningKind] += n;
  }

  ratePrepared(p: PreparedRate): void {
    if (!this.header) {
      const it = this.item;
      if (it.billing_code_type !== undefined && it.billing_code !== undefined && it.negotiation_arrangement !== undefined) this.header = this.makeHeader();
    }
    if (this.header) this.emitPrepared(this.header, p);
    else this.hold(new Prepared(p));
  }

  /** Buffers a rate until its item's billing code is known (bounded: MAX_PENDING_RATES). */
  private hold(r: unknown): void {
    if (this.pending.length >= MAX_PENDING_RATES) {
      this.fail(`an in_network item with more than ${MAX_PENDING_RATES} negotiated_rates before its billing_code_type, billing_code and negotiation_arrangement`, 'too_long');
    }
    this.pending.push(r);
  }

  private emitPrepared(h: RateHeader, p: PreparedRate): void {
    if (p.warnings) for (const [kind, path, example] of p.warnings) this.warn(kind, path, example);
    const rec: RateRecord = {
      billingCodeType: h.type, billingCode: h.code, billingCodeTypeVersion: h.version, name: h.name,
      negotiationArrangement: h.arrangement, refIds: p.refIds, inlineGroups: p.inlineGroups, prices: p.prices,
    };
    this.stats.rates++;
    this.stats.prices += p.prices.length;
    this.itemEmitted = true;
    this.sink.rate(rec, { descriptionHashes: p.descriptionHashes, descriptionKeys: p.descriptionKeys, refsKey: p.refsKey });
  }

  ratesEnd(count: number): void {
    this.ratesArray = true;
    if (count === 0) this.warn('empty_array', `${P_RATE.slice(0, -2)}`, '[]');
  }

  itemEnd(): void {
    const h = this.header ?? this.makeHeader();
    if (!this.ratesArray) this.warn('missing_field', 'in_network[]', 'negotiated_rates');
    if (h) {
      for (const r of this.pending) {
        if (r instanceof Prepared) this.emitPrepared(h, r.p);
        else this.emitRate(h, r);
      }
    }
    else if (this.pending.length) this.warn('skipped_record', P_RATE, `${this.pending.length} rates without a billing code`);
    this.pending = [];
    if (h) {
      this.bundle(h, 'bundled_codes');
      this.bundle(h, 'covered_services');
    }
  }

  /** Builds the item's code header; null (with warnings) when the code itself is missing. */
  private makeHeader(): RateHeader | null {
    const it = this.item;
    const type = N.codeType(it.billing_code_type, 'in_network[].billing_code_type', this.warn);
    if (type === null) this.warn('missing_field', 'in_network[]', 'billing_code_type');
    const code = N.billingCode(type ?? '', it.billing_code, 'in_network[].billing_code', this.warn);
    if (code === null) this.warn('missing_field', 'in_network[]', 'billing_code');
    let arrangement = N.enumLower(it.negotiation_arrangement, N.ARRANGEMENTS, 'in_network[].negotiation_arrangement', this.warn);
    if (arrangement === null) {
      this.warn('missing_field', 'in_network[]', 'negotiation_arrangement');
      arrangement = 'ffs';
    }
    const name = N.str(it.name, 'in_network[].name', this.warn);
    const version = N.str(it.billing_code_type_version, 'in_network[].billing_code_type_version', this.warn);
    if (type === null || code === null) return null;
    return { type, code, version, name, arrangement };
  }

  private emitRate(h: RateHeader, r: unknown): void {
    if (!N.isObj(r)) return;
    this.unknownKeys(r, RATE_KEYS, P_RATE);
    const refIds: string[] = [];
    const rawRefs = r.provider_references;
    if (rawRefs !== undefined && rawRefs !== null) {
      const arr = Array.isArray(rawRefs) ? rawRefs : [rawRefs];
      if (!Array.isArray(rawRefs)) this.warn('type_coerced', `${P_RATE}.provider_references`, N.sample(rawRefs));
      if (arr.length === 0) this.warn('empty_array', `${P_RATE}.provider_references`, '[]');
      for (const x of arr) {
        const id = N.refId(x, `${P_RATE}.provider_references`, this.warn);
        if (id !== null) refIds.push(id);
      }
    }
    const inlineGroups = groups(r.provider_groups, `${P_RATE}.provider_groups`, this.warn);
    if (refIds.length === 0 && inlineGroups.length === 0) {
      this.warn('missing_field', P_RATE, 'provider_references');
      this.warn('skipped_record', P_RATE, 'a rate without providers');
      return;
    }
    const rawPrices = r.negotiated_prices;
    if (rawPrices === undefined || rawPrices === null) {
      this.warn('missing_field', P_RATE, 'negotiated_prices');
      this.warn('skipped_record', P_RATE, 'a rate without prices');
      return;
    }
    if (!Array.isArray(rawPrices)) this.fail('negotiated_prices is not an array', 'wrong_type');
    const prices: PriceRecord[] = [];
    for (const p of rawPrices) {
      const pr = this.price(p);
      if (pr) prices.push(pr);
    }
    if (prices.length === 0) {
      if (rawPrices.length === 0) this.warn('empty_array', `${P_RATE}.negotiated_prices`, '[]');
      this.warn('skipped_record', P_RATE, 'a rate without usable prices');
      return;
    }
    const rec: RateRecord = {
      billingCodeType: h.type, billingCode: h.code, billingCodeTypeVersion: h.version, name: h.name,
      negotiationArrangement: h.arrangement, refIds, inlineGroups, prices,
    };
    this.stats.rates++;
    this.stats.prices += prices.length;
    this.itemEmitted = true;
    this.sink.rate(rec);
  }

  private price(p: unknown): PriceRecord | null {
    if (!N.isObj(p)) this.fail('a negotiated_prices entry is not an object', 'wrong_type');
    this.unknownKeys(p, PRICE_KEYS, P_PRICE);
    const w = this.warn;
    const rawRate = p.negotiated_rate;
    if (typeof rawRate === 'object' && rawRate !== null) this.fail('negotiated_rate is not a number', 'wrong_type');
    const rate = N.num(rawRate, `${P_PRICE}.negotiated_rate`, w);
    if (rate === null) {
      w(rawRate === undefined || rawRate === null ? 'missing_field' : 'invalid_value', `${P_PRICE}.negotiated_rate`, N.sample(rawRate ?? 'negotiated_rate'));
      w('skipped_record', P_PRICE, 'a price without negotiated_rate');
      return null;
    }
    if (rate > 0 && rate <= 0.01) w('penny_rate', `${P_PRICE}.negotiated_rate`, String(rate));
    else if (rate <= 0) w('invalid_value', `${P_PRICE}.negotiated_rate`, String(rate));
    const type = N.enumLower(p.negotiated_type, N.NEGOTIATED_TYPES, `${P_PRICE}.negotiated_type`, w);
    if (type === null) {
      w('missing_field', P_PRICE, 'negotiated_type');
      w('skipped_record', P_PRICE, 'a price without negotiated_type');
      return null;
    }
    let billingClass = N.enumLower(p.billing_class, N.BILLING_CLASSES, `${P_PRICE}.billing_class`, w);
    if (billingClass === null) {
      w('missing_field', P_PRICE, 'billing_class');
      billingClass = '';
    }
    if (p.expiration_date === undefined) w('missing_field', P_PRICE, 'expiration_date');
    return {
      negotiatedType: type,
      negotiatedRate: rate,
      expirationDate: N.date(p.expiration_date, `${P_PRICE}.expiration_date`, w),
      serviceCode: N.serviceCodes(p.service_code, `${P_PRICE}.service_code`, w),
      billingClass,
      setting: N.enumLower(p.setting, N.SETTINGS, `${P_PRICE}.setting`, w),
      billingCodeModifier: N.strings(p.billing_code_modifier, `${P_PRICE}.billing_code_modifier`, w),
      additionalInformation: N.str(p.additional_information, `${P_PRICE}.additional_information`, w),
    };
  }

  private bundle(h: RateHeader, kind: 'bundled_codes' | 'covered_services'): void {
    const raw = this.item[kind];
    if (raw === undefined || raw === null) return;
    const path = `in_network[].${kind}`;
    if (!Array.isArray(raw)) {
      this.warn('invalid_value', path, N.sample(raw));
      return;
    }
    if (raw.length === 0) this.warn('empty_array', path, '[]');
    for (const c of raw) {
      if (!N.isObj(c)) {
        this.warn('invalid_value', `${path}[]`, N.sample(c));
        continue;
      }
      this.unknownKeys(c, CONTAINED_KEYS, `${path}[]`);
      const type = N.codeType(c.billing_code_type, `${path}[].billing_code_type`, this.warn);
      const code = N.billingCode(type ?? '', c.billing_code, `${path}[].billing_code`, this.warn);
      if (type === null || code === null) {
        this.warn('missing_field', `${path}[]`, type === null ? 'billing_code_type' : 'billing_code');
        this.warn('skipped_record', `${path}[]`, N.sample(c));
        continue;
      }
      this.sink.bundle({
        negotiationArrangement: h.arrangement, parentBillingCodeType: h.type, parentBillingCode: h.code, kind,
        billingCodeType: type, billingCode: code,
        billingCodeTypeVersion: N.str(c.billing_code_type_version, `${path}[].billing_code_type_version`, this.warn),
        description: N.str(c.description, `${path}[].description`, this.warn),
      });
    }
  }

  // ------------------------------------------------------------------ end of file
  end(): void {
    const top = this.top;
    if (!this.stats.kind) {
      if (this.opts.kindHint) this.stats.kind = this.opts.kindHint;
      else this.fail('not a Transparency-in-Coverage file: no in_network, provider_references, reporting_structure, out_of_network or provider_groups', 'wrong_kind');
    }
    const kind = this.stats.kind;
    const w = this.warn;
    if (kind === 'provider-reference') {
      this.stats.providerReferences++;
      this.sink.providerReference({
        refId: this.opts.refId ?? '', groups: this.refGroups.splice(0), location: null,
        networkNames: N.strings(top.network_name, 'network_name', w, false) ?? [],
      });
    } else {
      if (top.reporting_entity_name === undefined) w('missing_field', '$', 'reporting_entity_name');
      if (top.last_updated_on === undefined) w('missing_field', '$', 'last_updated_on');
    }
    if (top.version === undefined) w('missing_field', '$', 'version');
    const hp = planOf(top, '$', false, this.warn);
    if ((kind === 'in-network' || kind === 'allowed-amounts') && (hp.planName !== null || hp.planId !== null)) this.sink.plan(hp);
    const version = N.str(top.version, 'version', w);
    this.stats.version = version;
    this.sink.header({
      kind,
      reportingEntityName: N.str(top.reporting_entity_name, 'reporting_entity_name', w),
      reportingEntityType: N.str(top.reporting_entity_type, 'reporting_entity_type', w),
      planName: hp.planName, planIdType: hp.planIdType, planId: hp.planId, planMarketType: hp.planMarketType,
      planSponsorName: hp.planSponsorName, issuerName: hp.issuerName,
      lastUpdatedOn: N.date(top.last_updated_on, 'last_updated_on', w),
      version,
    });
  }
}
