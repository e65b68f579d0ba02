/**
 * Independent row counts of TiC in-network files for the ingest tests: JSON.parse (never the
 * ingest's parser) and plain JS, following the CMS schema directly. Remote references (`location`)
 * count as unresolved (tests run offline): a member of their sets that stands for the location. Values are compared as written; the only normalisations
 * applied are the ones that cannot change distinctness (case of the code type, NPI 0 = TIN only).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

type J = Record<string, unknown>;

/** Text of a JSON scalar (objects as JSON). */
const S = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

export interface TicCounts {
  prices: number;
  /** price x distinct resolved group of its rate, summed (what a per-group table would hold). */
  explodedRows: number;
  /** prices whose rate resolves to at least one group (rate_rows before de-duplication). */
  resolvedPrices: number;
  /** distinct (item, price, group set) rows over all files given (the `rates` table row count). */
  distinctRows: number;
  /** distinct provider-group sets named by resolved prices or rates (group_set_key values). */
  sets: number;
  /** distinct groups (tin type, tin value, sorted distinct NPIs) over all files. */
  groups: number;
  /** NPI -> group pairs (group_members). */
  members: number;
  /** distinct billing codes. */
  codes: number;
}

function readJson(path: string): J {
  const buf = readFileSync(path);
  return JSON.parse((buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf).toString('utf8')) as J;
}

function groupKeyOf(g: J): { key: string; npis: number[] } {
  const tin = (g.tin ?? {}) as J;
  const raw = (Array.isArray(g.npi) ? g.npi : []) as unknown[];
  const npis = [...new Set(raw.map((n) => Number(n)).filter((n) => n !== 0))].sort((a, b) => a - b);
  return { key: `${S(tin.type ?? '').toLowerCase()}|${S(tin.value ?? '')}|${npis.join(',')}`, npis };
}

const list = (v: unknown): string => (Array.isArray(v) ? v.map(String).join(',') : v === undefined || v === null ? '<null>' : S(v));

/** Counts over several in-network files, as one ingest would store them. */
export function countInNetwork(paths: string[]): TicCounts {
  const c: TicCounts = { prices: 0, explodedRows: 0, resolvedPrices: 0, distinctRows: 0, sets: 0, groups: 0, members: 0, codes: 0 };
  const rows = new Set<string>();
  const sets = new Set<string>();
  const groups = new Map<string, number>();
  const codes = new Set<string>();
  for (const path of paths) {
    const doc = readJson(path);
    const refs = new Map<string, string[]>();
    for (const r of (doc.provider_references ?? []) as J[]) {
      const keys: string[] = [];
      for (const g of (r.provider_groups ?? []) as J[]) {
        const k = groupKeyOf(g);
        groups.set(k.key, k.npis.length);
        keys.push(k.key);
      }
      // A remote reference cannot be fetched offline: the ingest keeps its prices with one member
      // standing for its location (issue 37), which is no provider group.
      if (!keys.length && typeof r.location === 'string') keys.push(`unresolved|${r.location}`);
      if (keys.length) refs.set(String(r.provider_group_id), [...(refs.get(String(r.provider_group_id)) ?? []), ...keys]);
    }
    for (const item of (doc.in_network ?? []) as J[]) {
      const type = S(item.billing_code_type).toUpperCase();
      codes.add(`${type}|${S(item.billing_code)}`);
      const itemKey = [type, item.billing_code, item.billing_code_type_version, item.name, item.negotiation_arrangement].map(S).join('|');
      for (const rate of (item.negotiated_rates ?? []) as J[]) {
        const gk = new Set<string>();
        for (const id of (rate.provider_references ?? []) as unknown[]) for (const k of refs.get(String(id)) ?? []) gk.add(k);
        for (const g of (rate.provider_groups ?? []) as J[]) {
          const k = groupKeyOf(g);
          groups.set(k.key, k.npis.length);
          gk.add(k.key);
        }
        const set = [...gk].sort().join(';');
        if (gk.size) sets.add(set);
        for (const p of (rate.negotiated_prices ?? []) as J[]) {
          c.prices++;
          c.explodedRows += gk.size;
          if (gk.size === 0) continue;
          c.resolvedPrices++;
          const pk = [p.negotiated_type, p.negotiated_rate, p.expiration_date, list(p.service_code), p.billing_class, p.setting ?? '<null>',
            list(p.billing_code_modifier), p.additional_information ?? '<null>'].map(S).join('|');
          rows.add(`${itemKey}|${pk}|${set}`);
        }
      }
    }
  }
  c.distinctRows = rows.size;
  c.sets = sets.size;
  c.groups = groups.size;
  c.members = [...groups.values()].reduce((a, b) => a + b, 0);
  c.codes = codes.size;
  return c;
}
