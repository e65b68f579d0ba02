/**
 * Test fixtures write rates the readable way, one row per (price, provider group) with a
 * `group_key`; the snapshot contract (schemas/pricing-tables.ts RATES, GROUP_SETS) stores one row
 * per (price, provider-group SET) plus group_sets membership rows. withGroupSets converts the first
 * form into the second as the ingest does: rows identical except for group_key become ONE rates
 * row whose set holds all their groups (TiC lists such a price once with several
 * provider_references), keyed by groupSetKey (ingest/snapshot/keys.ts).
 */
import { groupSetKey } from '../../ingest/snapshot/keys.ts';
import type { Row } from './snapshot-builder.ts';

/** Stable JSON of a row without its group_key (key order sorted, so field order never matters). */
function priceKey(r: Row): string {
  return JSON.stringify(Object.keys(r).filter((k) => k !== 'group_key').sort().map((k) => [k, r[k] ?? null]));
}

/**
 * `rates` rows in the set layout and the group_sets rows they need. Rows that already carry a
 * group_set_key pass through unchanged; rows with a group_key are merged per identical price.
 * `groupSets` (rows already in the set layout) are kept, and duplicates removed.
 */
export function withGroupSets(rates: readonly Row[], groupSets: readonly Row[] = []): { rates: Row[]; group_sets: Row[] } {
  const out: Row[] = [];
  const byPrice = new Map<string, { row: Row; groups: string[] }>();
  for (const r of rates) {
    if (typeof r.group_key !== 'string') {
      out.push(r);
      continue;
    }
    const k = priceKey(r);
    const hit = byPrice.get(k);
    if (hit) hit.groups.push(r.group_key);
    else byPrice.set(k, { row: r, groups: [r.group_key] });
  }
  const sets = new Map<string, Row>();
  for (const s of groupSets) sets.set(`${String(s.group_set_key)}|${String(s.group_key)}`, s);
  for (const { row, groups } of byPrice.values()) {
    const { group_key: _dropped, ...price } = row;
    const key = groupSetKey(groups);
    out.push({ ...price, group_set_key: key });
    for (const g of new Set(groups)) sets.set(`${key}|${g}`, { group_set_key: key, group_key: g });
  }
  return { rates: out, group_sets: [...sets.values()] };
}
