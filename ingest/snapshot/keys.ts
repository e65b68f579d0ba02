/**
 * Stable keys of the snapshot tables (schemas/pricing-tables.ts): file_key, plan_key, group_key.
 * Keys are content-derived (sha256), so two shards or two runs over the same input agree on them
 * and `snapshot merge` can union shard outputs without renumbering.
 */
import { createHash, hash, type Hash } from 'node:crypto';
import { isAbsolute, resolve, dirname } from 'node:path';
import type { PlanRecord } from '../tic/records.ts';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** True for http(s) URLs; everything else is a local path. */
export function isUrl(src: string): boolean {
  return /^https?:\/\//i.test(src);
}

/**
 * The canonical form of a source: URLs keep scheme, host (lower-cased by URL), path and query
 * (some payers tell files apart only by query) and lose the fragment; local paths become absolute.
 * Used for de-duplicating a table of contents' files and for deterministic sharding.
 */
export function canonicalSource(src: string): string {
  if (isUrl(src)) {
    const u = new URL(src);
    u.hash = '';
    return u.toString();
  }
  return resolve(src);
}

/** A location found inside a table of contents, resolved against the TOC's own location. */
export function resolveLocation(location: string, tocSrc: string): string {
  if (isUrl(location)) return canonicalSource(location);
  if (isUrl(tocSrc)) return canonicalSource(new URL(location, tocSrc).toString());
  if (location.startsWith('file://')) return resolve(new URL(location).pathname);
  return isAbsolute(location) ? location : resolve(dirname(resolve(tocSrc)), location);
}

/** source_files.file_key: first 16 hex digits of sha256 of the canonical URL or absolute path. */
export function fileKey(src: string): string {
  return sha(canonicalSource(src)).slice(0, 16);
}

/** plans.plan_key: (reporting_entity_name, plan_id_type, plan_id, plan_name, plan_market_type). */
export function planKey(reportingEntityName: string | null, p: PlanRecord): string {
  return sha(JSON.stringify([reportingEntityName, p.planIdType?.toUpperCase() ?? null, p.planId, p.planName, p.planMarketType])).slice(0, 32);
}

/**
 * The last hash groupKey made, kept alive so that the Hash class's map is: a parse helper thread
 * has no other Hash, and at each full collection its map was freed and groupKey and Hash's methods
 * deoptimised and compiled again (as fast-rate.ts's Reader; measured 2026-11-23).
 */
const LIVE: { hash: Hash | null } = { hash: null };

/**
 * provider_groups.group_key: (tin_type, tin_value, sorted distinct NPIs). Returns the key and the
 * sorted distinct NPIs (the stored form; up to SCRATCH_KEEP of them a view valid until the next
 * call). The NPIs are hashed as their little-endian float64 bytes (no string is built for a
 * 50,000-NPI group).
 */
export function groupKey(tinType: string | null, tinValue: string | null, npis: readonly number[]): { key: string; npis: Float64Array } {
  const prefix = `${tinType?.toLowerCase() ?? ''}|${tinValue ?? ''}|`;
  const distinct = sortedDistinct(npis);
  // The NPIs are sorted into OUT after PREFIX_ROOM bytes, where the prefix is written just before
  // them: one buffer hashed in one call (crypto.hash), no Hash object. A longer prefix, or a list
  // with its own array, is hashed as before. Measured 2026-11-24 on 150 k groups of the benchmark
  // generator's sizes (23 M NPIs), 8 rounds alternating in one process: 5.8 CPU-seconds in all
  // against 9.4 with a Float64Array and a Hash a group.
  const prefixBytes = Buffer.byteLength(prefix);
  if (distinct.buffer === OUT.buffer && prefixBytes <= PREFIX_ROOM) {
    const at = PREFIX_ROOM - prefixBytes;
    OUT_BYTES.write(prefix, at);
    return { key: hash('sha256', OUT_BYTES.subarray(at, PREFIX_ROOM + distinct.byteLength), 'hex').slice(0, 32), npis: distinct };
  }
  const h = createHash('sha256');
  LIVE.hash = h;
  const key = h.update(prefix).update(new Uint8Array(distinct.buffer, distinct.byteOffset, distinct.byteLength)).digest('hex').slice(0, 32);
  return { key, npis: distinct };
}

/** Bytes before sortedDistinct's output in OUT, for groupKey's prefix (a TIN type and value: a few dozen bytes). */
const PREFIX_ROOM = 256;
/**
 * sortedDistinct's output for lists up to SCRATCH_KEEP NPIs, after PREFIX_ROOM bytes (a view of
 * it is valid until the next call): a Float64Array a group beyond 8 NPIs is an ArrayBuffer of its
 * own outside V8's heap, 134 k of them a GiB to allocate and sweep.
 */
let OUT = new Float64Array(PREFIX_ROOM / 8 + 1024);
let OUT_BYTES = Buffer.from(OUT.buffer);

const SCRATCH_KEEP = 1 << 20;
let scratch = new Uint32Array(1024);
let scratch2 = new Uint32Array(1024);

/** Lists at least this long are radix-sorted (sortU32); shorter ones by the typed array's own sort. */
const RADIX_MIN = 256;
const HIST = new Uint32Array(3 << 11);

/**
 * `a` ascending, in place: an LSD radix sort over three 11-bit digits (a pass skipped where every
 * value has the same digit), through `tmp` (as long as `a`). V8's TypedArray sort (std::sort)
 * took ~0.8 CPU-seconds of the 1 GiB benchmark file's parse (20.8 M NPIs, most of them in groups
 * of 100-8,000); measured 2026-11-23 on 5 M NPIs in groups of the generator's sizes: 0.18-0.19
 * CPU-seconds that way, 0.06-0.08 with the lists of 256 or more radix-sorted.
 */
function sortU32(a: Uint32Array, tmp: Uint32Array): void {
  const n = a.length;
  HIST.fill(0);
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    HIST[v & 2047]!++;
    HIST[2048 + ((v >>> 11) & 2047)]!++;
    HIST[4096 + (v >>> 22)]!++;
  }
  let src = a, dst = tmp;
  for (let d = 0; d < 3; d++) {
    if (HIST[(d << 11) + ((src[0]! >>> (d * 11)) & 2047)] === n) continue;
    radixPass(src, dst, d << 11, d * 11);
    const x = src; src = dst; dst = x;
  }
  if (src !== a) a.set(src);
}

/**
 * One pass of sortU32 over the digit at `shift` (its histogram at HIST[base..]). A function of its
 * own so that no loop nests in another: V8 compiled the nested form for on-stack replacement and
 * left it at the inner loop's exit ~36 times a 1 GiB file (measured 2026-11-23).
 */
function radixPass(src: Uint32Array, dst: Uint32Array, base: number, shift: number): void {
  prefixSums(base);
  scatter(src, dst, base, shift);
}

// radixPass's two loops are functions of their own: V8 optimized it while the first ran, and then
// left it at the second's first property access ("insufficient type feedback") ~45 times a 1 GiB
// file (--trace-deopt, 2026-11-23).
function prefixSums(base: number): void {
  for (let k = 0, sum = 0; k < 2048; k++) { const c = HIST[base + k]!; HIST[base + k] = sum; sum += c; }
}

function scatter(src: Uint32Array, dst: Uint32Array, base: number, shift: number): void {
  for (let i = 0; i < src.length; i++) { const v = src[i]!; dst[HIST[base + ((v >>> shift) & 2047)]!++] = v; }
}

/**
 * The NPIs ascending, without repeats and without the 1.x "TIN only" marker 0. Real NPIs (10 digits
 * starting 1 or 2) fit in 32 bits, and a Uint32Array sorts faster than a Float64Array: measured
 * 2026-11-22 on 134,520 groups of 155 NPIs, 0.6 s against 0.95 s. A list already in order is not
 * sorted again. Anything else (an 11-digit "NPI", a fraction) takes the float64 sort. Up to
 * SCRATCH_KEEP NPIs the result is a view of OUT, valid until the next call.
 */
function sortedDistinct(npis: readonly number[]): Float64Array {
  const len = npis.length;
  // The scratch array is kept between calls up to SCRATCH_KEEP; a larger list gets its own.
  if (scratch.length < len && len <= SCRATCH_KEEP) scratch = new Uint32Array(Math.min(SCRATCH_KEEP, Math.max(len, scratch.length * 2)));
  let u: Uint32Array | null = len <= scratch.length ? scratch.subarray(0, len) : new Uint32Array(len);
  const copied = copyU32(npis, u);
  if (copied < 0) u = null;
  if (u !== null && copied === 0) {
    if (len < RADIX_MIN) u.sort();
    else {
      if (scratch2.length < len && len <= SCRATCH_KEEP) scratch2 = new Uint32Array(Math.min(SCRATCH_KEEP, Math.max(len, scratch2.length * 2)));
      sortU32(u, len <= scratch2.length ? scratch2.subarray(0, len) : new Uint32Array(len));
    }
  }
  const sorted: Uint32Array | Float64Array = u === null ? Float64Array.from(npis).sort() : u;
  if (len > SCRATCH_KEEP) {
    const own = new Float64Array(len);
    return own.subarray(0, distinctNonZero(sorted, own));
  }
  if (OUT.length < PREFIX_ROOM / 8 + len) {
    OUT = new Float64Array(PREFIX_ROOM / 8 + Math.min(SCRATCH_KEEP, Math.max(len, 2 * (OUT.length - PREFIX_ROOM / 8))));
    OUT_BYTES = Buffer.from(OUT.buffer);
  }
  const out = OUT.subarray(PREFIX_ROOM / 8, PREFIX_ROOM / 8 + len);
  return out.subarray(0, distinctNonZero(sorted, out));
}

// sortedDistinct's loops are functions of their own: a long list made V8 compile it for on-stack
// replacement inside its first loop, and the code after that loop, compiled before it had run,
// left for the interpreter at its first property access on every long list (~147 times a 1 GiB
// file in 2 of 3 runs, measured 2026-11-23 with `--trace-deopt`).

/** Copies `npis` into `u`: -1 if one is not a 32-bit unsigned integer, 1 if they ascend, else 0. */
function copyU32(npis: readonly number[], u: Uint32Array): number {
  let ascending = 1;
  for (let i = 0; i < npis.length; i++) {
    const v = npis[i]!;
    if (!(v >= 0 && v <= 0xffffffff && v === Math.floor(v))) return -1;
    u[i] = v;
    if (i > 0 && v < npis[i - 1]!) ascending = 0;
  }
  return ascending;
}

/** The distinct non-zero values of sorted `a` into `out`; returns how many. */
function distinctNonZero(a: Uint32Array | Float64Array, out: Float64Array): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!;
    if (v === 0 || (n > 0 && out[n - 1] === v)) continue;
    out[n++] = v;
  }
  return n;
}

// Every branch of sortedDistinct taken once now, so that V8 compiles it with feedback for all of
// them: compiled while only short lists had come, it deoptimised at each long list's first use of
// the radix branch, ~300 times a 1 GiB file, and stayed compiled (measured 2026-11-23).
for (const n of [RADIX_MIN + 1, 3]) sortedDistinct(Array.from({ length: n }, (_, i) => 1_000_000_000 + ((i * 7) % n)));
sortedDistinct([2, 1.5]);

/**
 * group_sets.group_set_key: the XOR of the members' md5 digests (an order-free set hash, so SQL
 * computes it with a streaming `bit_xor(md5_number(group_key))` aggregate: no per-set list to hold
 * or sort), as 32 hex digits of the 128-bit little-endian number DuckDB's md5_number reads. Keys
 * are sha256-derived, so nobody picks members to make two sets collide. The ingest computes it in
 * SQL (GROUP_SET_KEY_SQL); tests and benchmarks use this.
 */
export function groupSetKey(groupKeys: readonly string[]): string {
  const x = new Uint8Array(16);
  for (const k of new Set(groupKeys)) {
    const d = createHash('md5').update(k).digest();
    for (let i = 0; i < 16; i++) x[i]! ^= d[i]!;
  }
  return Buffer.from(x.reverse()).toString('hex');
}

/** SQL aggregate of the same key over DISTINCT (set, group_key) rows. */
export const GROUP_SET_KEY_SQL = "lower(lpad(hex(bit_xor(md5_number(group_key))), 32, '0'))";

/** Deterministic shard of a source: sha256(canonical) mod n. */
export function shardOf(src: string, n: number): number {
  return Number(BigInt('0x' + sha(canonicalSource(src)).slice(0, 12)) % BigInt(n));
}

/**
 * price_terms.terms_id numbers the distinct combinations of terms in the order of this SQL key (a
 * JSON object of the typed columns, so NULL and [] stay apart), densely over the combinations the
 * stored rates rows name: a run and a merge of its shards number the same terms alike.
 */
export const TERMS_KEY_SQL = `to_json({${['negotiated_type', 'expiration_date', 'service_code', 'billing_class', 'setting', 'billing_code_modifier', 'additional_information']
  .map((c) => `'${c}': "${c}"`).join(', ')}})`;

/**
 * One row per plan_key of `from` (a query with the plans' columns) when files describe the same
 * plan differently (plan_key leaves the sponsor and issuer out): the one that names them, then the
 * smallest, so that the same inputs always give the same row (rows of one key that tie are alike
 * in every column). DuckDB plans this window as an aggregate of row numbers (arg_min), where
 * DISTINCT ON aggregated every column, and a filter on plan_key outside it reaches the scan, so it
 * runs in ranges of keys (keyRanges, PLANS_PER_RANGE).
 */
export function pickPlansSql(from: string): string {
  return `SELECT * FROM (${from}) QUALIFY row_number() OVER (PARTITION BY plan_key
    ORDER BY plan_sponsor_name NULLS LAST, issuer_name NULLS LAST, reporting_entity_type NULLS LAST) = 1`;
}

/**
 * Staged plans per statement that picks one per plan_key (pickPlansSql), and a quarter of the
 * (plan, file) links per statement that keeps each once: beyond these, ranges of plan keys. A
 * table of contents can stage millions of both (500,000 reporting structures of two plans and four
 * files each: 1 M plans, 4 M links), and one DISTINCT ON over 1 M staged plans ran out of DuckDB's
 * 256 MB beside the staged tables (measured 2026-11-24, 1 run in 4; the file failed).
 */
export const PLANS_PER_RANGE = 250_000;

/** Ranges of plan_key (keyRanges) for `plans` staged plans and `links` staged links. */
export function planKeyRanges(plans: number, links: number, perRange = PLANS_PER_RANGE): string[] {
  return keyRanges('plan_key', Math.max(Math.ceil(plans / perRange), Math.ceil(links / (4 * perRange))));
}

/**
 * SQL conditions on `column` (a group or plan key) splitting the key space into `n` consecutive
 * ranges, in key order. Such keys are hex digits of a SHA-256 (groupKey, and the plans'
 * plan_key), so ranges of the first four digits split them evenly; the first range has no lower
 * bound and the last no upper one, so every string (NULL aside) falls in exactly one whatever it
 * holds.
 *
 * Statements whose aggregate or DISTINCT spans every group (or every (set, group) pair) run once
 * per range: DuckDB's hash aggregate needs memory in proportion to its groups. Measured 2026-11-23
 * on the 5 GiB benchmark file (638 k groups, 1.29 M group_sets rows): the group pick alone failed
 * under a 192 MB memory_limit, and beside the rates under 256 MB; `SELECT DISTINCT` of the
 * group_sets pairs under 128 MB (530 k pairs under 96 MB).
 */
export function keyRanges(column: string, n: number): string[] {
  const parts = Math.max(1, Math.min(n, 0x10000));
  // Four hex digits: a literal without quotes to escape.
  const bound = (i: number): string => `'${Math.floor((i * 0x10000) / parts).toString(16).padStart(4, '0')}'`;
  return Array.from({ length: parts }, (_, i) => {
    const lo = i === 0 ? null : `${column} >= ${bound(i)}`;
    const hi = i === parts - 1 ? null : `${column} < ${bound(i + 1)}`;
    return [lo, hi].filter((c) => c !== null).join(' AND ') || 'true';
  });
}

/**
 * The member key that stands, in a group set, for a remote provider reference that could not be
 * fetched (issue 37): 32 hex digits of sha256('unresolved-reference|' + location), so the same
 * location gets the same key in every file, run and shard, and never a real group's (whose input
 * starts with a TIN type). It names no provider_groups row; group_sets carries the location.
 */
export function unresolvedGroupKey(location: string): string {
  return sha(`unresolved-reference|${location}`).slice(0, 32);
}

/** unresolvedGroupKey in SQL, over a column or expression holding the location. */
export const unresolvedGroupKeySql = (location: string): string => `substr(sha256('unresolved-reference|' || ${location}), 1, 32)`;
