/**
 * NPI -> provider groups (group_members), held in memory once per snapshot when the table is
 * small enough: two typed arrays sorted by (npi, group_ref) searched by bisection, and the
 * group_ref -> group_key names of provider_groups. The Parquet lookup it replaces (the NPI's
 * bucket file joined to the in-memory group_refs table) cost ~2 ms of CPU a request on the
 * 50 M-row benchmark snapshot (1.2 M members), the bisection microseconds
 * (docs/performance-log.md, 2026-11-28).
 */
import type { SnapshotDb } from './snapshot.duckdb.ts';
import { perSnapshot } from './network-tables.duckdb.ts';

/**
 * group_members rows up to which the index is held in memory: 12 bytes a row (a Float64 NPI and
 * an Int32 group_ref), so 60 MB at the limit, plus the build's transient strings. Above it the
 * Parquet is read per request (network.duckdb.ts).
 */
export const GROUP_MEMBERS_IN_MEMORY = 5_000_000;

/** The sorted member pairs and the group names by group_ref. */
export interface MembersIndex {
  npis: Float64Array;
  refs: Int32Array;
  keyOfRef: Map<number, string>;
}

/**
 * Reads group_members as a few large strings (one JS object per row costs ~17 us), ordered by
 * (npi, group_ref): the order the bucket files hold them in, so a lookup lists an NPI's groups as
 * the Parquet read did. Null (the Parquet path answers) for a snapshot whose members carry
 * group_key (written before group_ref) or hold more rows than its manifest says.
 */
export const membersIndex = perSnapshot(async (db): Promise<MembersIndex | null> => {
  const n = db.rowCount('group_members');
  const cols = await db.query<{ column_name: string }>('SELECT column_name FROM (DESCRIBE SELECT * FROM group_members)');
  if (!cols.some((c) => c.column_name === 'group_ref')) return null;
  const npis = new Float64Array(n);
  const refs = new Int32Array(n);
  let i = 0;
  // Slices of the NPI range in order, each aggregated in (npi, group_ref) order.
  const slices = 16;
  const bounds = await db.query<{ lo: number | null; hi: number | null }>('SELECT min(npi) AS lo, max(npi) AS hi FROM group_members');
  const lo = bounds[0]?.lo ?? 0;
  const width = Math.max(1, Math.ceil(((bounds[0]?.hi ?? 0) - lo + 1) / slices));
  for (let s = 0; s < slices && n > 0; s++) {
    const [row] = await db.query<{ s: string | null }>(`SELECT string_agg(npi::VARCHAR || ',' || group_ref::VARCHAR, ';' ORDER BY npi, group_ref) AS s
      FROM group_members WHERE npi >= ${lo + s * width} AND npi < ${lo + (s + 1) * width}`);
    for (const item of row?.s ? row.s.split(';') : []) {
      const cut = item.indexOf(',');
      // More rows than the manifest counts: not sized for them, so the Parquet path answers.
      if (i >= n) return null;
      npis[i] = Number(item.slice(0, cut));
      refs[i] = Number(item.slice(cut + 1));
      i++;
    }
  }
  const names = await db.query<{ s: string | null }>(`SELECT string_agg(group_ref::VARCHAR || chr(31) || group_key, chr(30)) AS s FROM provider_groups GROUP BY group_ref % 16`);
  const keyOfRef = new Map<number, string>();
  for (const { s } of names) {
    for (const item of s ? s.split('\u001e') : []) {
      const cut = item.indexOf('\u001f');
      keyOfRef.set(Number(item.slice(0, cut)), item.slice(cut + 1));
    }
  }
  return { npis: npis.subarray(0, i), refs: refs.subarray(0, i), keyOfRef };
});

/** Whether the open snapshot's members are small enough for membersIndex. */
export function membersInMemory(db: SnapshotDb, limit = GROUP_MEMBERS_IN_MEMORY): boolean {
  const n = db.rowCount('group_members');
  return n > 0 && n <= limit;
}

/** First position whose NPI is >= npi. */
function lowerBound(a: Float64Array, npi: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < npi) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The (npi, group_key) rows of these NPIs, by NPI ascending then group_ref (group_key order), as
 * the SQL join over the bucket files returns them; a member whose group_ref names no group is
 * dropped, as the join drops it.
 */
export function membersOf(index: MembersIndex, npis: readonly number[]): { npi: number; group_key: string }[] {
  const out: { npi: number; group_key: string }[] = [];
  for (const npi of [...new Set(npis.filter((n) => Number.isSafeInteger(n)))].sort((a, b) => a - b)) {
    for (let i = lowerBound(index.npis, npi); i < index.npis.length && index.npis[i] === npi; i++) {
      const key = index.keyOfRef.get(index.refs[i]!);
      if (key !== undefined) out.push({ npi, group_key: key });
    }
  }
  return out;
}
