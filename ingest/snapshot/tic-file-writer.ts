/**
 * The TicSink that stages one TiC file into DuckDB (ingest/tic/records.ts is the contract): a
 * TicStager (tic-stager.ts: dictionaries, ids, rows) whose rows go to DuckDB appenders on TEMP
 * tables of its own connection, and finish(), which resolves references in SQL and writes the
 * file's staged Parquet into `dir` (see staged-layout.ts); the run later unions every finished
 * file into the snapshot tables (tic-finalize.ts).
 *
 * Memory stays bounded whatever the order or size of the file: DuckDB spills beyond its
 * memory_limit, the numeric rows go straight to Parquet, and the stager's dictionaries are bounded.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBAppender, DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { FileHeader } from '../tic/records.ts';
import type { WarningSummary } from '../report/warnings.ts';
import { ZSTD, lit } from './duck.ts';
import { STAGE_TABLES, type StagedCounts } from './staged-layout.ts';
import { GROUP_SET_KEY_SQL, pickPlansSql, planKeyRanges, unresolvedGroupKeySql } from './keys.ts';
import { TicStager, type StageTable, type TicStagerOptions } from './tic-stager.ts';
import { replayRows, type HelperStaged } from './stage-rows.ts';

export type { TocFileRef } from './tic-stager.ts';
export interface TicFileWriterOptions extends TicStagerOptions {
  /** Staged plans per range of plan keys (keys.ts PLANS_PER_RANGE; tests make it small). */
  plansPerRange?: number;
}

export interface StagedFileResult {
  fileKey: string;
  header: FileHeader | null;
  counts: StagedCounts;
  warnings: WarningSummary;
}

/** Counts a parse helper's stager adds to the file's (items are the parse thread's alone, see TicStager). */
const HELPER_COUNTS = ['rates', 'prices', 'provider_references', 'groups'] as const;

export class TicFileWriter extends TicStager {
  private readonly schema = 'temp.main';
  private readonly ap: Map<string, DuckDBAppender>;
  /** Numeric Parquet files a parse helper wrote into `dir` (absorb()). */
  private readonly helperPrices: string[] = [];

  private readonly con: DuckDBConnection;

  private readonly opts: TicFileWriterOptions;

  private constructor(con: DuckDBConnection, o: TicFileWriterOptions, ap: Map<string, DuckDBAppender>) {
    super(o, (name) => ap.get(name)!);
    this.opts = o;
    this.con = con;
    this.ap = ap;
  }

  /**
   * Creates the staging tables and their appenders on a connection of its own. They are TEMP
   * tables (the connection's own, gone with it): no catalog change or commit reaches the database
   * file's write-ahead log, which cost small files ~10 ms each (100 files of 190 KB: 8.5-9.7 s ->
   * 7.8-8.2 s, measured 2026-11-22).
   */
  static async create(instance: DuckDBInstance, o: TicFileWriterOptions): Promise<TicFileWriter> {
    const con = await instance.connect();
    const ap = new Map<string, DuckDBAppender>();
    for (const [name, cols] of Object.entries(STAGE_TABLES)) {
      await con.run(`CREATE TEMP TABLE ${name} (${cols})`);
      ap.set(name, await con.createAppender(name, 'main', 'temp'));
    }
    // The prices and NPIs go straight to their staged files (numeric-parquet.ts, npi-stage.ts).
    rmSync(o.dir, { recursive: true, force: true });
    mkdirSync(o.dir, { recursive: true });
    return new TicFileWriter(con, o, ap);
  }

  /** Appends rows a parse helper's stager recorded (RowRecorder) to this file's staging tables. */
  appendRecorded(table: StageTable, values: readonly (string | number | null)[]): void {
    replayRows(this.ap.get(table)!, STAGE_TABLES[table], values);
  }

  /**
   * Takes in what a parse helper staged besides its rows (appended as they came): its counts,
   * warnings, remote references and numeric Parquet files.
   */
  absorb(h: HelperStaged): void {
    for (const k of HELPER_COUNTS) this.counts[k] += h.counts[k];
    this.tally.merge(h.warnings);
    this.remote.push(...h.remote);
    this.helperPrices.push(h.pricesPath);
  }

  private closed = false;

  private closeAppenders(): void {
    for (const ap of this.ap.values()) {
      try { ap.closeSync(); } catch { /* a failed file's half row: its data is dropped anyway */ }
    }
    this.ap.clear();
  }

  /**
   * Resolves references and writes the file's staged Parquet into `dir`. A price whose remote
   * reference could not be fetched is kept, its set holding a member that stands for the
   * location (counts.unresolved_prices); rates whose provider references name nothing at all
   * (ids never defined) cannot say which provider the price is for, so they are dropped and
   * counted (warning `unresolved_reference`, counts.dropped_prices).
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
    this.groupNpis.close();
    for (const ap of this.ap.values()) ap.flushSync(); // surfaces an append error here, not swallowed
    this.closeAppenders();
    const s = this.schema;
    const con = this.con;
    mkdirSync(this.o.dir, { recursive: true });
    this.step = 'resolving references';
    // Every (set, referenced id), the joined lists split.
    await con.run(`CREATE TEMP TABLE set_ref_rows AS SELECT set_id, ref_id FROM ${s}.set_refs
      UNION ALL SELECT set_id, unnest(string_split(ref_ids, chr(31))) AS ref_id FROM ${s}.set_ref_lists`);
    // Remote references that stayed unresolved (their fetch failed, remote.ts): each stands in its
    // sets for the providers it would have named, as one member keyed by its location
    // (unresolvedGroupKey), so their prices are kept (issue 37) and the set is marked by the
    // location it carries. A referenced id never defined at all still resolves to nothing.
    await con.run(`CREATE TEMP TABLE unresolved_refs AS SELECT ref_id, max(location) AS location FROM ${s}.refs
      GROUP BY ref_id HAVING count(group_key) = 0 AND max(location) IS NOT NULL`);
    await con.run(`CREATE TEMP TABLE set_groups AS
      SELECT DISTINCT set_id, group_key, location FROM (
        SELECT sr.set_id, r.group_key, NULL::VARCHAR AS location FROM ${s}.set_ref_rows sr JOIN ${s}.refs r ON r.ref_id = sr.ref_id WHERE r.group_key IS NOT NULL
        UNION ALL SELECT set_id, group_key, NULL FROM ${s}.set_inline
        UNION ALL SELECT sr.set_id, ${unresolvedGroupKeySql('u.location')}, u.location FROM ${s}.set_ref_rows sr JOIN unresolved_refs u ON u.ref_id = sr.ref_id)`);
    // Referenced ids with no group: never defined (reported here) or remote and not fetched
    // (resolveRemoteReferences already reported those with the URL and reason).
    const unresolved = await con.runAndReadAll(`SELECT ref_id, count(*) AS n,
        bool_or(EXISTS (SELECT 1 FROM ${s}.refs r WHERE r.ref_id = sr.ref_id AND r.location IS NOT NULL)) AS remote
      FROM ${s}.set_ref_rows sr
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
    await con.run(`CREATE TEMP TABLE sets AS SELECT set_id, ${GROUP_SET_KEY_SQL} AS group_set_key, bool_or(location IS NOT NULL) AS unresolved
      FROM ${s}.set_groups GROUP BY set_id`);
    const prices = `read_parquet([${[this.prices.path, ...this.helperPrices].map(lit).join(', ')}])`;
    const [sets, rows, kept, remote] = (await con.runAndReadAll(`SELECT (SELECT count(DISTINCT group_set_key) FROM ${s}.sets),
      count(*), count(*) FILTER (WHERE s.unresolved), (SELECT count(*) FROM unresolved_refs)
      FROM ${prices} p JOIN ${s}.sets s USING (set_id)`)).getRows()[0]!;
    this.counts.group_sets = Number(sets);
    this.counts.rate_rows = Number(rows);
    this.counts.unresolved_prices = Number(kept);
    this.counts.unresolved_remote_references = Number(remote);
    this.counts.dropped_prices = this.counts.prices - this.counts.rate_rows;
    if (this.counts.dropped_prices > 0) {
      this.tally.add('dropped_prices_without_provider', 'in_network[].negotiated_rates[]',
        `${this.counts.dropped_prices} prices whose provider references name no provider group and no remote location were not stored`);
    }
    this.step = 'writing staged Parquet';
    const fk = lit(this.fileKey);
    const ren = h?.reportingEntityName ?? null;
    const copy = (name: string, select: string): Promise<unknown> =>
      con.run(`COPY (${select}) TO ${lit(join(this.o.dir, `${name}.parquet`))} (FORMAT parquet, ${ZSTD})`);
    await copy('items', `SELECT ${fk} AS file_key, * FROM ${s}.items`);
    await copy('attrs', `SELECT ${fk} AS file_key, * FROM ${s}.attrs`);
    // prices.parquet and group_npis.bin are written already (numeric-parquet.ts, npi-stage.ts); prices whose
    // set resolved to no group (counted above) are left out by finalize's join with the sets.
    await copy('sets', `SELECT ${fk} AS file_key, set_id, group_set_key FROM ${s}.sets`);
    // Each key's members once, from one of its sets: a key is its members' hash, so the sets of one
    // key have the same members, and set_groups is distinct. A DISTINCT over the join of every set
    // instead ran out of DuckDB's 256 MB on a 40 GiB file (10.1 M pairs, 2026-11-23).
    await copy('group_sets', `SELECT k.group_set_key, g.group_key, g.location FROM ${s}.set_groups g
      JOIN (SELECT min(set_id) AS set_id, group_set_key FROM ${s}.sets GROUP BY group_set_key) k USING (set_id)`);
    // The unresolved remote references, for `--resume` to fetch again (remote-resume.ts).
    if (this.counts.unresolved_remote_references > 0) await copy('unresolved_refs', 'SELECT ref_id, location FROM unresolved_refs ORDER BY ref_id');
    await copy('groups', `SELECT ${fk} AS file_key, * FROM ${s}.groups`);
    await copy('bundles', `SELECT ${fk} AS file_key, * FROM ${s}.bundles`);
    await copy('allowed_amounts', `SELECT ${fk} AS file_key, * FROM ${s}.allowed`);
    // plan_key = sha256 of the JSON array (reporting_entity_name, PLAN_ID_TYPE, plan_id, plan_name,
    // plan_market_type), computed here because the reporting entity arrives with the header, last.
    // Then one row per plan_key, and each (plan, file) link once. A table of contents that staged
    // many (keys.ts planKeyRanges) has each plan's key computed once into a table, and both picked
    // per range of plan keys into tables that one COPY each writes; a file with a few plans (most:
    // an in-network file names one) takes one COPY each, as many small files do not pay the extra
    // statements.
    const planKeySql = `substr(sha256(to_json([${ren === null ? 'NULL' : lit(ren)}, upper(plan_id_type), plan_id, plan_name, plan_market_type])), 1, 32)`;
    const ranges = planKeyRanges(this.counts.plans, this.links, this.opts.plansPerRange);
    const keyed = ranges.length > 1;
    if (keyed) await con.run(`CREATE TEMP TABLE plan_keys AS SELECT plan_seq, ${planKeySql} AS plan_key FROM ${s}.plans`);
    const key = keyed ? 'k.plan_key' : `${planKeySql} AS plan_key`;
    const planFrom = keyed ? `${s}.plans JOIN plan_keys k USING (plan_seq)` : `${s}.plans`;
    const linkFrom = `${s}.plan_links l JOIN ${keyed ? 'plan_keys k' : `${s}.plans`} USING (plan_seq)`;
    const plans = pickPlansSql(`SELECT ${key}, ${ren === null ? 'NULL' : lit(ren)}::VARCHAR AS reporting_entity_name,
      ${h?.reportingEntityType == null ? 'NULL' : lit(h.reportingEntityType)}::VARCHAR AS reporting_entity_type,
      plan_name, upper(plan_id_type) AS plan_id_type, plan_id, plan_market_type, plan_sponsor_name, issuer_name
      FROM ${planFrom}`);
    const ownType = h?.kind === 'allowed-amounts' ? 'allowed-amounts' : 'in-network';
    const planFiles = `SELECT DISTINCT ${key}, l.file_key,
      CASE WHEN l.file_type = '' THEN ${lit(ownType)} ELSE l.file_type END AS file_type, l.description
      FROM ${linkFrom}`;
    if (!keyed) {
      await copy('plans', `${plans} ORDER BY plan_key`);
      await copy('plan_files', planFiles);
    } else {
      for (const [i, where] of ranges.entries()) {
        const into = (t: string): string => (i === 0 ? `CREATE TEMP TABLE ${t} AS` : `INSERT INTO ${t}`);
        await con.run(`${into('plans_out')} SELECT * FROM (${plans}) WHERE ${where}`);
        await con.run(`${into('plan_files_out')} SELECT * FROM (${planFiles}) WHERE ${where}`);
      }
      await copy('plans', 'SELECT * FROM plans_out ORDER BY plan_key');
      await copy('plan_files', 'SELECT * FROM plan_files_out');
    }
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
      this.groupNpis.abort();
      await this.prices.abort();
    } finally {
      this.con.closeSync();
    }
  }
}
