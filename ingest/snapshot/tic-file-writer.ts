/**
 * The TicSink that stages one TiC file into DuckDB (ingest/tic/records.ts is the contract).
 *
 * A file is staged dictionary-encoded and unexploded (staged-layout.ts): an in_network item once,
 * each distinct price description once, each distinct provider_references list once (a "set"), and
 * per negotiated price four numbers, written like a provider group's NPIs straight to Parquet
 * (numeric-parquet.ts). Nothing is resolved while parsing: sets carry file-local reference ids and
 * `finish()` joins them with the references in SQL, so references may come before the rates, after
 * them, or never, and memory stays bounded (DuckDB spills beyond its memory_limit) whatever the
 * order or size. The dictionaries in JS are bounded too: a full one is cleared, which only costs a
 * repeated entry.
 *
 * `finish()` writes the file's staged Parquet into `dir` (see staged-layout.ts); the run later
 * unions every finished file into the snapshot tables (tic-finalize.ts).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBAppender, DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type {
  AllowedAmountRecord, BundleRecord, FileHeader, GroupRecord, PlanRecord, PriceRecord, ProviderReferenceRecord, RateHints, RateRecord,
  TicSink, TocStructure, WarningKind,
} from '../tic/records.ts';
import { WarningTally, type WarningSummary } from '../report/warnings.ts';
import { fileKey, groupKey, resolveLocation } from './keys.ts';
import { lit } from './duck.ts';
import { STAGE_TABLES, STAGED_NUMERIC, SEP, type StagedCounts } from './staged-layout.ts';
import { NumericParquetWriter } from './numeric-parquet.ts';
import { PriceDescriptions } from './price-attrs.ts';
import { GROUP_SET_KEY_SQL } from './keys.ts';

/** A file a table of contents points to (fan-out; issue 3, item 1). */
export interface TocFileRef {
  location: string;
  fileType: 'in-network' | 'allowed-amounts';
}

export interface TicFileWriterOptions {
  /** The file as given (URL or path); its canonical form keys it. */
  src: string;
  /** Directory receiving the staged Parquet of this file. */
  dir: string;
  /** Called once per in-network / allowed-amounts location listed by a table of contents. */
  onTocFile?: (f: TocFileRef) => void;
}

export interface StagedFileResult {
  fileKey: string;
  header: FileHeader | null;
  counts: StagedCounts;
  warnings: WarningSummary;
}

/** Joins a string list for staging; null stays null, [] becomes '' (kept apart: TiC cares). */
const joinList = (v: readonly string[] | null): string | null => (v === null ? null : v.join(SEP));

/** Bounded set: remembers recent group keys so a group referenced 10,000 times is staged once. */
const SEEN_CAP = 200_000;
/** Bounded dictionaries of price descriptions and provider_references lists (see the module comment). */
const ATTR_CAP = 100_000;
const SET_CAP = 100_000;
/**
 * Characters the dictionary keys may hold in total: a hostile file can make every key long (a
 * provider_references list of 100,000 ids, megabyte network names), and a count cap alone would
 * then let 100,000 keys take gigabytes.
 */
const KEY_CHARS_CAP = 32 * 1024 * 1024;
/** Separates the refIds from the inline group keys in a set's dictionary key. */
const FS = '\u001e';

export class TicFileWriter implements TicSink {
  readonly fileKey: string;
  private readonly schema: string;
  private readonly ap = new Map<string, DuckDBAppender>();
  private headerRec: FileHeader | null = null;
  private readonly tally = new WarningTally();
  private readonly seenGroups = new Set<string>();
  private seenChars = 0;
  private setChars = 0;
  private itemSeq = 0;
  private setSeq = 0;
  private readonly attrs = new PriceDescriptions(ATTR_CAP, KEY_CHARS_CAP);
  private readonly setIds = new Map<string, number>();
  private prices!: NumericParquetWriter;
  private groupNpis!: NumericParquetWriter;
  private groupSeq = 0;
  private planSeq = 0;
  private lastItem = '';
  private readonly remote: { refId: string; location: string }[] = [];
  readonly counts: StagedCounts = {
    items: 0, rates: 0, prices: 0, provider_references: 0, groups: 0, bundles: 0, allowed_amounts: 0,
    plans: 0, toc_files: 0, rate_rows: 0, group_sets: 0, unresolved_references: 0, dropped_prices: 0,
  };

  private constructor(private readonly con: DuckDBConnection, private readonly o: TicFileWriterOptions) {
    this.fileKey = fileKey(o.src);
    this.schema = 'temp.main';
  }

  /**
   * Creates the staging tables and their appenders on a connection of its own. They are TEMP
   * tables (the connection's own, gone with it): no catalog change or commit reaches the database
   * file's write-ahead log, which cost small files ~10 ms each (100 files of 190 KB: 8.5-9.7 s ->
   * 7.8-8.2 s, measured 2026-11-22).
   */
  static async create(instance: DuckDBInstance, o: TicFileWriterOptions): Promise<TicFileWriter> {
    const con = await instance.connect();
    const w = new TicFileWriter(con, o);
    for (const [name, cols] of Object.entries(STAGE_TABLES)) {
      await con.run(`CREATE TEMP TABLE ${name} (${cols})`);
      w.ap.set(name, await con.createAppender(name, 'main', 'temp'));
    }
    // The two tables of numbers (a price, an NPI per row) go straight to the staged Parquet.
    rmSync(o.dir, { recursive: true, force: true });
    mkdirSync(o.dir, { recursive: true });
    w.prices = new NumericParquetWriter(join(o.dir, 'prices.parquet'), STAGED_NUMERIC.prices);
    w.groupNpis = new NumericParquetWriter(join(o.dir, 'group_npis.parquet'), STAGED_NUMERIC.group_npis);
    return w;
  }

  private a(name: keyof typeof STAGE_TABLES): DuckDBAppender {
    return this.ap.get(name)!;
  }

  private vc(ap: DuckDBAppender, v: string | null | undefined): void {
    if (v === null || v === undefined) ap.appendNull();
    else ap.appendVarchar(v);
  }

  header(h: FileHeader): void {
    this.headerRec = h;
  }

  private stagePlan(p: PlanRecord): number {
    const ap = this.a('plans');
    const seq = ++this.planSeq;
    ap.appendInteger(seq);
    this.vc(ap, p.planName); this.vc(ap, p.planIdType); this.vc(ap, p.planId); this.vc(ap, p.planMarketType);
    this.vc(ap, p.planSponsorName); this.vc(ap, p.issuerName);
    ap.endRow();
    this.counts.plans++;
    return seq;
  }

  private link(planSeq: number, location: string, fileType: string, description: string | null): void {
    const ap = this.a('plan_links');
    ap.appendInteger(planSeq);
    ap.appendVarchar(fileKey(location));
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
    for (const f of s.inNetworkFiles) files.push({ location: resolveLocation(f.location, this.o.src), fileType: 'in-network', description: f.description });
    if (s.allowedAmountFile) {
      files.push({ location: resolveLocation(s.allowedAmountFile.location, this.o.src), fileType: 'allowed-amounts', description: s.allowedAmountFile.description });
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
    const ap = this.a('groups');
    ap.appendInteger(gid);
    ap.appendVarchar(key);
    this.vc(ap, g.tinType); this.vc(ap, g.tinValue);
    ap.appendVarchar(networks.join(SEP));
    this.vc(ap, g.businessName);
    ap.endRow();
    // The NPIs as (gid, npi) rows of numbers, straight into the staged Parquet: a 1 GB file lists
    // 20 million of them. As text they cost seconds in JS and again to split in SQL; as one DOUBLE[]
    // list value per group through DuckDB's appender, 1.2 s more of finish() and 100-200 MB more RSS
    // than as rows; as one BIGINT[] list per group in our own Parquet, 1-2 s more overall and more
    // RSS (unnesting them for group_members cost more than listing rows). Measured 2026-11-22;
    // finalize builds the lists (tic-finalize.ts writeProviderGroups).
    const [gids, vals] = this.groupNpis.cols as [Int32Array, Float64Array];
    for (let k = 0; k < npis.length; k++) {
      const i = this.groupNpis.next();
      gids[i] = gid; vals[i] = npis[k]!;
    }
    this.counts.groups++;
    return key;
  }

  providerReference(r: ProviderReferenceRecord): void {
    this.counts.provider_references++;
    const ap = this.a('refs');
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
      const ap = this.a('items');
      ap.appendInteger(++this.itemSeq);
      ap.appendVarchar(r.billingCodeType); ap.appendVarchar(r.billingCode);
      this.vc(ap, r.billingCodeTypeVersion); this.vc(ap, r.name); ap.appendVarchar(r.negotiationArrangement);
      ap.endRow();
      this.counts.items++;
    }
    this.counts.rates++;
    if (r.prices.length === 0 && r.refIds.length === 0 && r.inlineGroups.length === 0) return;
    const setId = this.setOf(r);
    const ch = this.prices;
    const [item, set, attr, rate] = ch.cols as [Int32Array, Int32Array, Int32Array, Float64Array];
    const itemSeq = this.itemSeq;
    const hashes = hints?.descriptionHashes;
    for (let k = 0; k < r.prices.length; k++) {
      const p = r.prices[k]!;
      const i = ch.next();
      item[i] = itemSeq; set[i] = setId; attr[i] = this.attrOf(p, hashes?.[k]); rate[i] = p.negotiatedRate;
    }
    this.counts.prices += r.prices.length;
  }

  /** The set id of a rate's provider references and inline groups (staged the first time seen). */
  private setOf(r: RateRecord): number {
    const inline = r.inlineGroups.map((g) => this.stageGroup(g, []));
    const key = inline.length ? `${r.refIds.join(SEP)}${FS}${inline.join(SEP)}` : r.refIds.join(SEP);
    let id = this.setIds.get(key);
    if (id !== undefined) return id;
    if (this.setIds.size >= SET_CAP || this.setChars > KEY_CHARS_CAP) { this.setIds.clear(); this.setChars = 0; }
    id = ++this.setSeq;
    this.setIds.set(key, id);
    this.setChars += key.length;
    const refs = this.a('set_refs');
    for (const ref of r.refIds) { refs.appendInteger(id); refs.appendVarchar(ref); refs.endRow(); }
    const inl = this.a('set_inline');
    for (const g of inline) { inl.appendInteger(id); inl.appendVarchar(g); inl.endRow(); }
    return id;
  }

  /** The attr id of a price's description (everything but the rate), staged the first time seen. */
  private attrOf(p: PriceRecord, hash: number | undefined): number {
    const got = hash === undefined ? this.attrs.idOf(p) : this.attrs.idOf(p, hash);
    if (got > 0) return got;
    const id = -got;
    const ap = this.a('attrs');
    ap.appendInteger(id);
    ap.appendVarchar(p.negotiatedType); this.vc(ap, p.expirationDate); this.vc(ap, joinList(p.serviceCode)); ap.appendVarchar(p.billingClass);
    this.vc(ap, p.setting); this.vc(ap, joinList(p.billingCodeModifier)); this.vc(ap, p.additionalInformation);
    ap.endRow();
    return id;
  }

  bundle(b: BundleRecord): void {
    const ap = this.a('bundles');
    ap.appendVarchar(b.negotiationArrangement); ap.appendVarchar(b.parentBillingCodeType); ap.appendVarchar(b.parentBillingCode);
    ap.appendVarchar(b.kind); ap.appendVarchar(b.billingCodeType); ap.appendVarchar(b.billingCode);
    this.vc(ap, b.billingCodeTypeVersion); this.vc(ap, b.description);
    ap.endRow();
    this.counts.bundles++;
  }

  allowedAmount(x: AllowedAmountRecord): void {
    const ap = this.a('allowed');
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

  private closed = false;

  private closeAppenders(): void {
    for (const ap of this.ap.values()) {
      try { ap.closeSync(); } catch { /* a failed file's half row: its data is dropped anyway */ }
    }
    this.ap.clear();
  }

  /**
   * Resolves references and writes the file's staged Parquet into `dir`. Rates whose provider
   * references resolve to no group cannot say which provider the price is for, so they are
   * dropped and counted (warning `unresolved_reference`, counts.dropped_prices).
   */
  async finish(): Promise<StagedFileResult> {
    try {
      return await this.finishSteps();
    } catch (err) {
      throw new Error(`staging ${this.step}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** What finish() was doing (named in its errors). */
  private step = 'flush';

  private async finishSteps(): Promise<StagedFileResult> {
    const h = this.headerRec;
    // A 1.x file names its single plan in the header: that plan publishes this file.
    if (h && (h.planName || h.planId) && h.kind !== 'table-of-contents') {
      this.plan({ planName: h.planName, planIdType: h.planIdType, planId: h.planId, planMarketType: h.planMarketType,
        planSponsorName: h.planSponsorName, issuerName: h.issuerName });
    }
    await this.prices.close();
    await this.groupNpis.close();
    for (const ap of this.ap.values()) ap.flushSync(); // surfaces an append error here, not swallowed
    this.closeAppenders();
    const s = this.schema;
    const con = this.con;
    mkdirSync(this.o.dir, { recursive: true });
    this.step = 'resolving references';
    await con.run(`CREATE TEMP TABLE set_groups AS
      SELECT DISTINCT set_id, group_key FROM (
        SELECT sr.set_id, r.group_key FROM ${s}.set_refs sr JOIN ${s}.refs r ON r.ref_id = sr.ref_id WHERE r.group_key IS NOT NULL
        UNION ALL SELECT set_id, group_key FROM ${s}.set_inline)`);
    // Referenced ids with no group: never defined (reported here) or remote and not fetched
    // (resolveRemoteReferences already reported those with the URL and reason).
    const unresolved = await con.runAndReadAll(`SELECT ref_id, count(*) AS n,
        bool_or(EXISTS (SELECT 1 FROM ${s}.refs r WHERE r.ref_id = sr.ref_id AND r.location IS NOT NULL)) AS remote
      FROM ${s}.set_refs sr
      WHERE NOT EXISTS (SELECT 1 FROM ${s}.refs r WHERE r.ref_id = sr.ref_id AND r.group_key IS NOT NULL)
      GROUP BY ref_id ORDER BY min(set_id)`);
    const allUnresolved = unresolved.getRows();
    this.counts.unresolved_references = allUnresolved.length;
    const unresolvedRows = allUnresolved.filter((r) => r[2] !== true);
    for (const [i, row] of unresolvedRows.entries()) {
      if (i >= 3) { this.tally.add('unresolved_reference', '', '', unresolvedRows.length - 3); break; }
      this.tally.add('unresolved_reference', 'negotiated_rates[].provider_references[]', `provider_group_id ${String(row[0])} (in ${String(row[1])} provider_references lists)`);
    }
    // One key per set, from its members: a streaming aggregate (keys.ts groupSetKey), no lists.
    await con.run(`CREATE TEMP TABLE sets AS SELECT set_id, ${GROUP_SET_KEY_SQL} AS group_set_key FROM ${s}.set_groups GROUP BY set_id`);
    const prices = `read_parquet(${lit(this.prices.path)})`;
    const [sets, rows] = (await con.runAndReadAll(`SELECT (SELECT count(DISTINCT group_set_key) FROM ${s}.sets),
      (SELECT count(*) FROM ${prices} SEMI JOIN ${s}.sets USING (set_id))`)).getRows()[0]!;
    this.counts.group_sets = Number(sets);
    this.counts.rate_rows = Number(rows);
    this.counts.dropped_prices = this.counts.prices - this.counts.rate_rows;
    if (this.counts.dropped_prices > 0) {
      this.tally.add('dropped_prices_without_provider', 'in_network[].negotiated_rates[]',
        `${this.counts.dropped_prices} prices whose provider references resolve to no provider group were not stored`);
    }
    this.step = 'writing staged Parquet';
    const fk = lit(this.fileKey);
    const ren = h?.reportingEntityName ?? null;
    const copy = (name: string, select: string): Promise<unknown> =>
      con.run(`COPY (${select}) TO ${lit(join(this.o.dir, `${name}.parquet`))} (FORMAT parquet, COMPRESSION zstd)`);
    await copy('items', `SELECT ${fk} AS file_key, * FROM ${s}.items`);
    await copy('attrs', `SELECT ${fk} AS file_key, * FROM ${s}.attrs`);
    // prices.parquet and group_npis.parquet are written already (numeric-parquet.ts); prices whose
    // set resolved to no group (counted above) are left out by finalize's join with the sets.
    await copy('sets', `SELECT ${fk} AS file_key, * FROM ${s}.sets`);
    await copy('group_sets', `SELECT DISTINCT k.group_set_key, g.group_key FROM ${s}.set_groups g JOIN ${s}.sets k USING (set_id)`);
    await copy('groups', `SELECT ${fk} AS file_key, * FROM ${s}.groups`);
    await copy('bundles', `SELECT ${fk} AS file_key, * FROM ${s}.bundles`);
    await copy('allowed_amounts', `SELECT ${fk} AS file_key, * FROM ${s}.allowed`);
    // plan_key = sha256 of the JSON array (reporting_entity_name, PLAN_ID_TYPE, plan_id, plan_name,
    // plan_market_type), computed here because the reporting entity arrives with the header, last.
    const planKeySql = `substr(sha256(to_json([${ren === null ? 'NULL' : lit(ren)}, upper(plan_id_type), plan_id, plan_name, plan_market_type])), 1, 32)`;
    await copy('plans', `SELECT DISTINCT ON (plan_key) * FROM (SELECT ${planKeySql} AS plan_key,
      ${ren === null ? 'NULL' : lit(ren)}::VARCHAR AS reporting_entity_name,
      ${h?.reportingEntityType == null ? 'NULL' : lit(h.reportingEntityType)}::VARCHAR AS reporting_entity_type,
      plan_name, upper(plan_id_type) AS plan_id_type, plan_id, plan_market_type, plan_sponsor_name, issuer_name
      FROM ${s}.plans)`);
    const ownType = h?.kind === 'allowed-amounts' ? 'allowed-amounts' : 'in-network';
    await copy('plan_files', `SELECT DISTINCT ${planKeySql} AS plan_key, l.file_key,
      CASE WHEN l.file_type = '' THEN ${lit(ownType)} ELSE l.file_type END AS file_type, l.description
      FROM ${s}.plan_links l JOIN ${s}.plans USING (plan_seq)`);
    await this.drop();
    return { fileKey: this.fileKey, header: h, counts: { ...this.counts }, warnings: this.tally.entries };
  }

  /**
   * Drops the staging tables: closing the connection discards its TEMP tables (after finish, or when
   * the file failed; then its numeric Parquet is removed too).
   */
  async drop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closeAppenders();
    try {
      await Promise.all([this.prices.abort(), this.groupNpis.abort()]);
    } finally {
      this.con.closeSync();
    }
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
