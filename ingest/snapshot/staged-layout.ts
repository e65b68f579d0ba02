/**
 * The per-file staging layout of an ingest in progress (staging/<id>/ under the pricing root):
 *
 *   run.json                       the inputs (hash used by --resume to find this staging dir)
 *   files/<file_key>/              one finished file: items, attrs, prices, sets, group_sets, groups,
 *                                  bundles, allowed_amounts, plans, plan_files (.parquet),
 *                                  group_npis.bin (npi-stage.ts) + done.json
 *   failed/<file_key>.json         a file that failed (byte offset and reason); retried on --resume
 *   tmp/                           DuckDB spill directory and staging database
 *   out/                           the snapshot being assembled; renamed to snapshots/<id>
 *
 * A file's directory is written under partial/<file_key> and renamed into place only after
 * done.json is written and fsync'ed, so a SIGKILL at any moment leaves either a complete file or
 * none (--resume redoes the latter). done.json lists each staged file's size: --resume also redoes
 * a file whose staged data is gone or of another size.
 *
 * A file is staged dictionary-encoded, the way TiC itself is written: an in_network item once
 * (items), each distinct price description once (attrs: everything of a negotiated_price but the
 * rate), each distinct provider_references list once (sets), and per price only four numbers
 * (prices: item_seq, set_id, attr_id, negotiated_rate), written straight to Parquet while the file
 * is parsed (numeric-parquet.ts) with no file_key column: the file's directory name is its file_key
 * (stagedScan adds it). A provider group's NPIs are 32-bit words of group_npis.bin (npi-stage.ts),
 * never text, read back by finalize in JS. Every other table is staged in DuckDB and COPYed at
 * finish(). When a parse helper read part of a large file (parse-helper.ts), its numbers are in
 * prices.1.parquet and group_npis.1.bin beside those, with ids from HELPER_ID_BASE up.
 */
import type { NumericColumn } from './numeric-parquet.ts';

/** Separator for string lists while staged (ASCII unit separator: never inside a code). */
export const SEP = '\u001f';

/** Staging table columns (unexploded, lists joined with SEP, NPIs joined with ','). */
export const STAGE_TABLES = {
  items: 'item_seq INTEGER, billing_code_type VARCHAR, billing_code VARCHAR, billing_code_type_version VARCHAR, name VARCHAR, negotiation_arrangement VARCHAR',
  attrs: 'attr_id INTEGER, negotiated_type VARCHAR, expiration_date VARCHAR, service_code VARCHAR, billing_class VARCHAR, setting VARCHAR, billing_code_modifier VARCHAR, additional_information VARCHAR',
  // A set's provider references: one row a set, the ids joined with SEP (finalize splits them);
  // set_refs only for a set with an id that itself holds SEP (one row an id).
  set_ref_lists: 'set_id INTEGER, ref_ids VARCHAR',
  set_refs: 'set_id INTEGER, ref_id VARCHAR',
  set_inline: 'set_id INTEGER, group_key VARCHAR',
  refs: 'ref_id VARCHAR, group_key VARCHAR, location VARCHAR',
  groups: 'gid INTEGER, group_key VARCHAR, tin_type VARCHAR, tin_value VARCHAR, network_names VARCHAR, business_name VARCHAR',
  bundles: 'negotiation_arrangement VARCHAR, parent_billing_code_type VARCHAR, parent_billing_code VARCHAR, kind VARCHAR, billing_code_type VARCHAR, billing_code VARCHAR, billing_code_type_version VARCHAR, description VARCHAR',
  allowed: 'billing_code_type VARCHAR, billing_code VARCHAR, name VARCHAR, tin_type VARCHAR, tin_value VARCHAR, service_code VARCHAR, billing_class VARCHAR, setting VARCHAR, allowed_amount DOUBLE, billing_code_modifier VARCHAR, npis VARCHAR, billed_charge DOUBLE',
  plans: 'plan_seq INTEGER, plan_name VARCHAR, plan_id_type VARCHAR, plan_id VARCHAR, plan_market_type VARCHAR, plan_sponsor_name VARCHAR, issuer_name VARCHAR',
  plan_links: 'plan_seq INTEGER, file_key VARCHAR, file_type VARCHAR, description VARCHAR',
} as const;

/** The staged tables written straight to Parquet (numeric-parquet.ts). */
export const STAGED_NUMERIC = {
  prices: [
    { name: 'item_seq', type: 'INT32' }, { name: 'set_id', type: 'INT32' },
    { name: 'attr_id', type: 'INT32', plain: true }, { name: 'negotiated_rate', type: 'DOUBLE', plain: true },
  ],
} as const satisfies Record<string, readonly NumericColumn[]>;

/** The Parquet files of one finished file (beside them group_npis.bin, npi-stage.ts). */
export const STAGED_FILES = ['items', 'attrs', 'prices', 'sets', 'group_sets', 'groups', 'bundles', 'allowed_amounts', 'plans', 'plan_files'] as const;

/**
 * The staged NPIs of a file's parse thread, of its parse helper and of the remote references
 * fetched again by `--resume` (npi-stage.ts; remote-resume.ts), in gid order.
 */
export const STAGED_NPI_FILES = ['group_npis.bin', 'group_npis.1.bin', 'group_npis.2.bin'] as const;

export interface StagedCounts {
  items: number;
  /** negotiated_rates[] entries. */
  rates: number;
  /** negotiated_prices[] entries. */
  prices: number;
  provider_references: number;
  /**
   * provider groups staged (before cross-file de-duplication; a group written inline in rates that
   * both parse threads read, parse-helper.ts, is staged and counted by each).
   */
  groups: number;
  bundles: number;
  allowed_amounts: number;
  plans: number;
  /** in-network / allowed-amounts locations listed (tables of contents). */
  toc_files: number;
  /** prices this file contributes to `rates` (one row per price and provider-group set) before de-duplication. */
  rate_rows: number;
  /** distinct provider-group sets (resolved provider_references lists) its prices name. */
  group_sets: number;
  /** distinct provider_group_ids referenced by rates but never defined with a group. */
  unresolved_references: number;
  /** prices not stored because their rate's provider references name no group and no remote location. */
  dropped_prices: number;
  /**
   * remote provider references (distinct ids) whose location could not be fetched: the file is
   * `partial` while any remain (`--resume` fetches them again). Absent in layouts before 7.
   */
  unresolved_remote_references: number;
  /** prices kept with a group set that holds an unresolved remote reference (of rate_rows). */
  unresolved_prices: number;
}

/**
 * Version of this staged layout, written into done.json: `--resume` redoes a file staged by another
 * version (session 1's staging had no items/attrs/sets; version 2 had NPI lists in groups.parquet
 * instead of group_npis.parquet: finalize would not find what it reads; version 3 had file_key
 * columns in prices.parquet and group_npis.parquet, and only the prices of resolved sets; version 4
 * had no prices.1.parquet / group_npis.1.parquet from the parse helper, which it would not read;
 * version 5 had the NPIs in group_npis.parquet, not group_npis.bin; version 6 dropped the prices of
 * unresolved remote references, and its group_sets had no location column).
 */
export const STAGED_LAYOUT_VERSION = 7;

/** How a file's remote provider references were fetched (remote-refs.ts ResolveStats, with the time it took). */
export interface RemoteFetch { urls: number; fetched: number; resolvedRefs: number; unresolvedRefs: number; hostsFailed: number; seconds: number }

/** done.json: written last, the proof a file is complete. */
export interface DoneMarker {
  /** STAGED_LAYOUT_VERSION of the writer that staged the file (absent: version 1). */
  layout?: number;
  fileKey: string;
  src: string;
  /** Size and mtime of a local file when it was read (a changed file is not skipped on --resume). */
  size: number | null;
  mtimeMs: number | null;
  bytes: number;
  uncompressedBytes: number;
  sha256: string | null;
  kind: string;
  header: unknown;
  counts: StagedCounts;
  warnings: unknown;
  seconds: number;
  finishedAt: string;
  /** Bytes of records the parse helper read (absent: none). */
  helperBytes?: number;
  /** The file's remote provider references as last fetched (absent: none). */
  remote?: RemoteFetch | null;
  /** Parsed a second time without runs of records (process-file.ts). */
  reparsed?: boolean;
  /** Each staged file's bytes (absent: not checked): `--resume` reads a file again if one is gone or of another size. */
  staged?: Record<string, number>;
}

/** The columns of an in_network item (items) and of a price description (attrs), in a fixed order. */
export const ITEM_COLUMNS = ['billing_code_type', 'billing_code', 'billing_code_type_version', 'name', 'negotiation_arrangement'] as const;
export const ATTR_COLUMNS = [
  'negotiated_type', 'expiration_date', 'service_code', 'billing_class', 'setting', 'billing_code_modifier', 'additional_information',
] as const;

/**
 * SQL for a 128-bit content hash of some columns (md5 of the columns joined with a separator, NULL
 * kept apart from ''): identical items or price descriptions from different files get the same
 * hash, so the cross-file de-duplication groups narrow numbers instead of wide text columns.
 */
export function contentHashSql(columns: readonly string[], alias?: string): string {
  const parts = columns.map((c) => `coalesce(CAST(${alias ? `${alias}.` : ''}${c} AS VARCHAR), chr(0))`);
  return `md5_number(concat_ws(chr(30), ${parts.join(', ')}))`;
}
