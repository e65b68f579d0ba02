/**
 * The JS half of staging one TiC file (the TicSink of records.ts): the dictionaries, the ids and the
 * rows of the staging tables, with no DuckDB in it. TicFileWriter (tic-file-writer.ts) is this
 * class with DuckDB appenders behind `rows` and the SQL of finish(); the parse helper
 * (parse-helper.ts) runs one in a worker thread with recording appenders whose rows the parse
 * thread then appends.
 *
 * A file is staged dictionary-encoded and unexploded (staged-layout.ts): an in_network item once,
 * each distinct price description once, each distinct provider_references list once (a "set"), and
 * per negotiated price four numbers, written like a provider group's NPIs straight to Parquet
 * (numeric-parquet.ts). Nothing is resolved while parsing: sets carry file-local reference ids and
 * finish() joins them with the references in SQL, so references may come before the rates, after
 * them, or never. The dictionaries are bounded: a full one is cleared, which only costs a repeated
 * entry.
 */
import { join } from 'node:path';
import type {
  AllowedAmountRecord, BundleRecord, FileHeader, GroupRecord, PlanRecord, PriceRecord, ProviderReferenceRecord, RateHints, RateRecord,
  TicSink, TocStructure, WarningKind,
} from '../tic/records.ts';
import { WarningTally, type WarningSummary } from '../report/warnings.ts';
import { fileKey, groupKey, isUrl, resolveLocation } from './keys.ts';
import { STAGE_TABLES, STAGED_NUMERIC, SEP, type StagedCounts } from './staged-layout.ts';
import { NumericParquetWriter, ROWS_PER_GROUP } from './numeric-parquet.ts';
import { NpiStageWriter } from './npi-stage.ts';
import { PriceDescriptions } from './price-attrs.ts';

/** A file a table of contents points to (fan-out; issue 3, item 1). */
export interface TocFileRef {
  location: string;
  fileType: 'in-network' | 'allowed-amounts';
}

export interface TicStagerOptions {
  /** The file as given (URL or path); its canonical form keys it. */
  src: string;
  /** Directory receiving the staged Parquet of this file. */
  dir: string;
  /** Called once per in-network / allowed-amounts location listed by a table of contents. */
  onTocFile?: (f: TocFileRef) => void;
}

/** What staging appends a row with: DuckDB's appender, or a RowRecorder. */
export interface RowAppender {
  appendInteger(v: number): void;
  appendVarchar(v: string): void;
  appendDouble(v: number): void;
  appendNull(): void;
  endRow(): void;
}

export type StageTable = keyof typeof STAGE_TABLES;

/** fileKeys kept by a stager at most (TicStager.fileKeyOf): a table of contents' distinct files are thousands. */
const FILE_KEYS_KEPT = 65_536;

/**
 * The ids a stager hands out (items, sets, price descriptions, groups, plans) start above `idBase`:
 * the parse helper's stager takes HELPER_ID_BASE, so its ids and the parse thread's never meet in
 * the file's staged tables.
 */
export const HELPER_ID_BASE = 1 << 30;
/** The first id of groups fetched again by `--resume` (remote-resume.ts): above any parse helper's. */
export const REFETCH_ID_BASE = HELPER_ID_BASE + (HELPER_ID_BASE >>> 1);

/** Joins a string list for staging; null stays null, [] becomes '' (kept apart: TiC cares). */
const joinList = (v: readonly string[] | null): string | null => (v === null ? null : v.join(SEP));

/** Bounded set: remembers recent group keys so a group referenced 10,000 times is staged once. */
const SEEN_CAP = 200_000;
/** Bounded dictionaries of price descriptions and provider_references lists (see the module comment). */
const ATTR_CAP = 100_000;
const SET_CAP = 100_000;
/** Slots of TicStager.keyOf (a power of two). */
const KEY_SLOTS = 1 << 16;
/** Slots of TicStager.setKeyOf (a power of two). */
const SET_KEY_SLOTS = 1 << 14;
/**
 * Characters the dictionary keys may hold in total: a hostile file can make every key long (a
 * provider_references list of 100,000 ids, megabyte network names), and a count cap alone would
 * then let 100,000 keys take gigabytes.
 */
const KEY_CHARS_CAP = 32 * 1024 * 1024;
/** Separates the refIds from the inline group keys in a set's dictionary key. */
const FS = '\u001e';

export class TicStager implements TicSink {
  readonly fileKey: string;
  protected headerRec: FileHeader | null = null;
  protected readonly tally = new WarningTally();
  private readonly seenGroups = new Set<string>();
  private seenChars = 0;
  private setChars = 0;
  private itemSeq: number;
  private setSeq: number;
  private readonly attrs = new PriceDescriptions(ATTR_CAP, KEY_CHARS_CAP);
  /**
   * The attr ids of descriptions by the front-end's key (RateHints.descriptionKeys), direct-mapped:
   * a price whose key is here skips attrOf's lookup. An id stays that description's in the staged
   * data even after the dictionary is emptied.
   */
  private readonly keyOf = new Float64Array(KEY_SLOTS);
  private readonly keyAttr = new Int32Array(KEY_SLOTS);
  private readonly setIds = new Map<string, number>();
  /**
   * The set ids of provider_references lists by the front-end's key (RateHints.refsKey),
   * direct-mapped: a rate without inline groups whose key is here skips setOf's join and lookup.
   * An id stays that set's in the staged data even after setIds is emptied.
   */
  private readonly setKeyOf = new Float64Array(SET_KEY_SLOTS);
  private readonly setKeyId = new Int32Array(SET_KEY_SLOTS);
  protected readonly prices: NumericParquetWriter;
  protected readonly groupNpis: NpiStageWriter;
  private groupSeq: number;
  private planSeq: number;
  private lastItem = '';
  protected readonly remote: { refId: string; location: string }[] = [];
  readonly counts: StagedCounts = {
    items: 0, rates: 0, prices: 0, provider_references: 0, groups: 0, bundles: 0, allowed_amounts: 0,
    plans: 0, toc_files: 0, rate_rows: 0, group_sets: 0, unresolved_references: 0, dropped_prices: 0, unresolved_remote_references: 0, unresolved_prices: 0,
  };

  private readonly idBase: number;
  private readonly countItems: boolean;

  /**
   * `rows(name)` is where a staging table's rows go; the prices are written to
   * `<dir>/prices.parquet` and the NPIs to `<dir>/group_npis.bin`. The parse helper's stager
   * (`helper`, parse-helper.ts) differs in four ways: its ids start at HELPER_ID_BASE; it writes
   * prices.1.parquet and group_npis.1.bin, the Parquet's zstd columns compressed
   * on its own thread; and it does not count items, which the parse thread stages too (a rate goes
   * to the helper only after one of its item's rates was staged here), so that counts.items counts
   * each item once.
   */
  protected readonly o: TicStagerOptions;
  private readonly rows: (name: StageTable) => RowAppender;

  protected constructor(o: TicStagerOptions, rows: (name: StageTable) => RowAppender, helper: boolean | 'refetch' = false, idBase?: number) {
    this.o = o;
    this.rows = rows;
    this.fileKey = fileKey(o.src);
    // 'refetch': the remote references `--resume` fetches again (remote-resume.ts), from `idBase`
    // up (REFETCH_ID_BASE or past an earlier resume's), into group_npis.2.bin.
    this.idBase = idBase ?? (helper === 'refetch' ? REFETCH_ID_BASE : helper ? HELPER_ID_BASE : 0);
    this.countItems = !helper;
    this.itemSeq = this.setSeq = this.groupSeq = this.planSeq = this.idBase;
    const suffix = helper === 'refetch' ? '.2' : helper ? '.1' : '';
    this.prices = new NumericParquetWriter(join(o.dir, `prices${suffix}.parquet`), STAGED_NUMERIC.prices, ROWS_PER_GROUP, helper !== false);
    this.groupNpis = new NpiStageWriter(join(o.dir, `group_npis${suffix}.bin`));
  }

  private vc(ap: RowAppender, v: string | null | undefined): void {
    if (v === null || v === undefined) ap.appendNull();
    else ap.appendVarchar(v);
  }

  header(h: FileHeader): void {
    this.headerRec = h;
  }

  private stagePlan(p: PlanRecord): number {
    const ap = this.rows('plans');
    const seq = ++this.planSeq;
    ap.appendInteger(seq);
    this.vc(ap, p.planName); this.vc(ap, p.planIdType); this.vc(ap, p.planId); this.vc(ap, p.planMarketType);
    this.vc(ap, p.planSponsorName); this.vc(ap, p.issuerName);
    ap.endRow();
    this.counts.plans++;
    return seq;
  }

  /**
   * fileKey of the locations a table of contents lists, kept: it lists the same few thousand files
   * again and again, each with every plan of its reporting structure (a SHA-256 and a URL parse per
   * link took ~4.5 of 21 s staging 500,000 structures of 2 plans and 4 files, 2026-11-24).
   */
  private readonly fileKeys = new Map<string, string>();

  private fileKeyOf(location: string): string {
    let k = this.fileKeys.get(location);
    if (k === undefined) {
      if (this.fileKeys.size >= FILE_KEYS_KEPT) this.fileKeys.clear();
      k = fileKey(location);
      this.fileKeys.set(location, k);
    }
    return k;
  }

  /** (plan, file) links staged. */
  protected links = 0;

  private link(planSeq: number, location: string, fileType: string, description: string | null): void {
    this.links++;
    const ap = this.rows('plan_links');
    ap.appendInteger(planSeq);
    ap.appendVarchar(this.fileKeyOf(location));
    ap.appendVarchar(fileType);
    this.vc(ap, description);
    ap.endRow();
  }

  /** A plan declared inside an in-network / allowed-amounts file publishes this very file. */
  plan(p: PlanRecord): void {
    this.link(this.stagePlan(p), this.o.src, '', null);
  }

  tocStructure(s: TocStructure): void {
    const files: { location: string; fileType: TocFileRef['fileType']; description: string | null }[] = [];
    for (const f of s.inNetworkFiles) {
      const location = this.tocLocation(f.location, 'reporting_structure.in_network_files.location');
      if (location !== null) files.push({ location, fileType: 'in-network', description: f.description });
    }
    if (s.allowedAmountFile) {
      const location = this.tocLocation(s.allowedAmountFile.location, 'reporting_structure.allowed_amount_file.location');
      if (location !== null) files.push({ location, fileType: 'allowed-amounts', description: s.allowedAmountFile.description });
    }
    for (const p of s.plans) {
      const seq = this.stagePlan(p);
      for (const f of files) this.link(seq, f.location, f.fileType, f.description);
    }
    for (const f of files) {
      this.counts.toc_files++;
      this.o.onTocFile?.({ location: f.location, fileType: f.fileType });
    }
  }

  /**
   * A listed file's location, resolved against the table of contents. One read from a URL lists
   * only http(s) files (relative ones resolved against its URL): a `file:` location there would
   * have the job read a local file on a remote file's word (remote provider references are held
   * to the same, remote-refs.ts). Such an entry is skipped with a warning, and null returned.
   */
  private tocLocation(location: string, path: string): string | null {
    const resolved = resolveLocation(location, this.o.src);
    if (!isUrl(this.o.src) || isUrl(resolved)) return resolved;
    this.tally.add('skipped_record', path, `${location} (a table of contents read from a URL may list only http(s) files)`);
    return null;
  }

  /** Stages a group once (per bounded memory of recent keys) and returns its key. */
  private stageGroup(g: GroupRecord, extraNetworks: readonly string[]): string {
    const { key, npis } = groupKey(g.tinType, g.tinValue, g.npis);
    const networks = extraNetworks.length ? [...new Set([...g.networkNames, ...extraNetworks])] : g.networkNames;
    const seenKey = networks.length ? `${key}|${networks.join(SEP)}` : key;
    if (this.seenGroups.has(seenKey)) return key;
    if (this.seenGroups.size >= SEEN_CAP || this.seenChars > KEY_CHARS_CAP) { this.seenGroups.clear(); this.seenChars = 0; }
    this.seenGroups.add(seenKey);
    this.seenChars += seenKey.length;
    const gid = ++this.groupSeq;
    const ap = this.rows('groups');
    ap.appendInteger(gid);
    ap.appendVarchar(key);
    this.vc(ap, g.tinType); this.vc(ap, g.tinValue);
    ap.appendVarchar(networks.join(SEP));
    this.vc(ap, g.businessName);
    ap.endRow();
    // The NPIs as words of a binary file (npi-stage.ts), read back by finalize in JS: a 1 GB file
    // lists 20 million of them. As text they cost seconds in JS and again to split in SQL; as one
    // DOUBLE[] list value per group through DuckDB's appender, 1.2 s more of finish() and 100-200 MB
    // more RSS; as (gid, npi) rows of Parquet, 7 s of finalize in DuckDB (measured 2026-11-22).
    this.groupNpis.add(gid, npis);
    this.counts.groups++;
    return key;
  }

  providerReference(r: ProviderReferenceRecord): void {
    this.counts.provider_references++;
    const ap = this.rows('refs');
    if (r.location !== null && r.groups.length === 0) {
      ap.appendVarchar(r.refId); ap.appendNull(); ap.appendVarchar(r.location); ap.endRow();
      this.remote.push({ refId: r.refId, location: r.location });
      return;
    }
    for (const g of r.groups) {
      const key = this.stageGroup(g, r.networkNames);
      ap.appendVarchar(r.refId); ap.appendVarchar(key); this.vc(ap, r.location); ap.endRow();
    }
  }

  rate(r: RateRecord, hints?: RateHints): void {
    const itemId = `${r.billingCodeType}\u0000${r.billingCode}\u0000${r.billingCodeTypeVersion}\u0000${r.name}\u0000${r.negotiationArrangement}`;
    if (itemId !== this.lastItem) {
      this.lastItem = itemId;
      const ap = this.rows('items');
      ap.appendInteger(++this.itemSeq);
      ap.appendVarchar(r.billingCodeType); ap.appendVarchar(r.billingCode);
      this.vc(ap, r.billingCodeTypeVersion); this.vc(ap, r.name); ap.appendVarchar(r.negotiationArrangement);
      ap.endRow();
      if (this.countItems) this.counts.items++;
    }
    this.counts.rates++;
    if (r.prices.length === 0 && r.refIds.length === 0 && r.inlineGroups.length === 0) return;
    const setId = this.setOf(r, hints?.refsKey ?? 0);
    const ch = this.prices;
    const [item, set, attr, rate] = ch.cols as [Int32Array, Int32Array, Int32Array, Float64Array];
    const itemSeq = this.itemSeq;
    const hashes = hints?.descriptionHashes, keys = hints?.descriptionKeys;
    const keyOf = this.keyOf, keyAttr = this.keyAttr;
    for (let k = 0; k < r.prices.length; k++) {
      const p = r.prices[k]!;
      const i = ch.next();
      // A description the front-end named before (descriptionKeys): its attr id again, no lookup.
      const key = keys?.[k] ?? 0, slot = key & (KEY_SLOTS - 1);
      let a: number;
      if (key > 0 && keyOf[slot] === key) a = keyAttr[slot]!;
      else {
        a = this.attrOf(p, hashes?.[k]);
        if (key > 0) { keyOf[slot] = key; keyAttr[slot] = a; }
      }
      item[i] = itemSeq; set[i] = setId; attr[i] = a; rate[i] = p.negotiatedRate;
    }
    this.counts.prices += r.prices.length;
  }

  /** The set id of a rate's provider references and inline groups (staged the first time seen); `refsKey`: RateHints.refsKey. */
  private setOf(r: RateRecord, refsKey: number): number {
    const slot = refsKey & (SET_KEY_SLOTS - 1);
    const keyed = refsKey > 0 && r.inlineGroups.length === 0;
    if (keyed && this.setKeyOf[slot] === refsKey) return this.setKeyId[slot]!;
    const id = this.setOfRefs(r);
    if (keyed) { this.setKeyOf[slot] = refsKey; this.setKeyId[slot] = id; }
    return id;
  }

  private setOfRefs(r: RateRecord): number {
    // No array for a rate without inline groups (most of them): map() made an empty one per rate,
    // whose elements kind differs from an array of keys', and setOf, compiled on one kind, was
    // deoptimised at the other (once or twice per parse thread on the 1 GiB benchmark file).
    const inline = r.inlineGroups.length > 0 ? r.inlineGroups.map((g) => this.stageGroup(g, [])) : null;
    const key = inline ? `${r.refIds.join(SEP)}${FS}${inline.join(SEP)}` : r.refIds.join(SEP);
    let id = this.setIds.get(key);
    if (id !== undefined) return id;
    if (this.setIds.size >= SET_CAP || this.setChars > KEY_CHARS_CAP) { this.setIds.clear(); this.setChars = 0; }
    id = ++this.setSeq;
    this.setIds.set(key, id);
    this.setChars += key.length;
    // One row a set, its ids joined (split again in SQL by finish()): a row per (set, id) was ~2.9 M
    // appender rows for the 1 GiB benchmark file's 272 k sets, ~0.4 CPU-seconds of the parse
    // threads (measured 2026-11-23). An id holding SEP itself keeps a row of its own.
    if (r.refIds.length > 0) {
      if (!r.refIds.some((x) => x.includes(SEP))) {
        const lists = this.rows('set_ref_lists');
        lists.appendInteger(id); lists.appendVarchar(inline ? r.refIds.join(SEP) : key); lists.endRow();
      } else {
        const refs = this.rows('set_refs');
        for (const ref of r.refIds) { refs.appendInteger(id); refs.appendVarchar(ref); refs.endRow(); }
      }
    }
    if (inline) {
      const inl = this.rows('set_inline');
      for (const g of inline) { inl.appendInteger(id); inl.appendVarchar(g); inl.endRow(); }
    }
    return id;
  }

  /** The attr id of a price's description (everything but the rate), staged the first time seen. */
  private attrOf(p: PriceRecord, hash: number | undefined): number {
    const got = hash === undefined ? this.attrs.idOf(p) : this.attrs.idOf(p, hash);
    if (got > 0) return got + this.idBase;
    const id = this.idBase - got;
    const ap = this.rows('attrs');
    ap.appendInteger(id);
    ap.appendVarchar(p.negotiatedType); this.vc(ap, p.expirationDate); this.vc(ap, joinList(p.serviceCode)); ap.appendVarchar(p.billingClass);
    this.vc(ap, p.setting); this.vc(ap, joinList(p.billingCodeModifier)); this.vc(ap, p.additionalInformation);
    ap.endRow();
    return id;
  }

  bundle(b: BundleRecord): void {
    const ap = this.rows('bundles');
    ap.appendVarchar(b.negotiationArrangement); ap.appendVarchar(b.parentBillingCodeType); ap.appendVarchar(b.parentBillingCode);
    ap.appendVarchar(b.kind); ap.appendVarchar(b.billingCodeType); ap.appendVarchar(b.billingCode);
    this.vc(ap, b.billingCodeTypeVersion); this.vc(ap, b.description);
    ap.endRow();
    this.counts.bundles++;
  }

  allowedAmount(x: AllowedAmountRecord): void {
    const ap = this.rows('allowed');
    ap.appendVarchar(x.billingCodeType); ap.appendVarchar(x.billingCode); this.vc(ap, x.name);
    this.vc(ap, x.tinType); this.vc(ap, x.tinValue); this.vc(ap, joinList(x.serviceCode));
    this.vc(ap, x.billingClass); this.vc(ap, x.setting); ap.appendDouble(x.allowedAmount);
    this.vc(ap, joinList(x.billingCodeModifier)); ap.appendVarchar(x.npis.join(','));
    if (x.billedCharge === null) ap.appendNull(); else ap.appendDouble(x.billedCharge);
    ap.endRow();
    this.counts.allowed_amounts++;
  }

  warning(kind: WarningKind, path: string, example: string): void {
    this.tally.add(kind, path, example);
  }

  /** provider_references given only by `location`, to fetch after the parse. */
  remoteReferences(): readonly { refId: string; location: string }[] {
    return this.remote;
  }

  /** The warnings so far (for a failed file's report). */
  warnings(): WarningSummary {
    return this.tally.entries;
  }
}
