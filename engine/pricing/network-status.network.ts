/**
 * Network membership and rates for a batch of matched NPIs (issue 4, item 4). An NPI is in the
 * plan's network when a provider group listing it (group_members), or a TIN-only group under its
 * own NPI or its parent organization's TIN, is referenced by one of the resolved plan's in-network
 * files (group_files ∩ plan_files). Not found is "not found", never a hard out-of-network verdict.
 */
import type { CodeRef, FilePlanRow, GroupRow, NetworkPort, ProviderRow, RateRow } from './network-status.ports.ts';

export interface NpiNetwork {
  /** Every group listing the NPI (any file). */
  groups: string[];
  /** Groups referenced by an in-scope file. */
  scopedGroups: string[];
  /** In-scope files evidencing membership. */
  files: string[];
  /** Rate rows for the code in scope, across the NPI's groups. */
  rates: RateRow[];
  /** Other payers whose files list the NPI (registry key, or `entity:<reporting entity>` when unregistered). */
  otherPayers: { payerKey: string; reportingEntity: string | null }[];
}

export interface BatchNetwork {
  byNpi: Map<number, NpiNetwork>;
  groups: Map<string, GroupRow>;
  groupFiles: Map<string, string[]>;
}

/**
 * Evaluates membership for every NPI at once (one query per table, partition-pruned).
 * `scopeFiles` null means "every file" (no plan resolved).
 */
export async function evaluateNetwork(
  providers: ProviderRow[],
  scopeFiles: Set<string> | null,
  code: CodeRef | null,
  network: NetworkPort,
  payerKey: string | null,
  payerOf: (r: FilePlanRow) => string,
): Promise<BatchNetwork> {
  const npis = providers.map((p) => p.npi);

  // TIN-only groups (npi: [0] in TiC 1.x, or a TIN with no NPI list): the NPI itself as TIN, or the parent's TIN.
  const tinOf = new Map<string, number[]>();
  for (const p of providers) {
    for (const t of [String(p.npi), p.parent_org_tin]) {
      if (!t) continue;
      tinOf.set(t, [...(tinOf.get(t) ?? []), p.npi]);
    }
  }
  const [members, tinGroups] = await Promise.all([network.groupsForNpis(npis), network.groupsForTins([...tinOf.keys()])]);
  const groupsOf = new Map<number, Set<string>>(npis.map((n) => [n, new Set<string>()]));
  for (const m of members) groupsOf.get(m.npi)?.add(m.group_key);
  for (const g of tinGroups) for (const n of tinOf.get(g.tin_value ?? '') ?? []) groupsOf.get(n)?.add(g.group_key);

  const allGroups = [...new Set([...groupsOf.values()].flatMap((s) => [...s]))];
  const [groupRows, [gf, filePlans], rates] = await Promise.all([
    network.groups(allGroups),
    network.groupFiles(allGroups).then(async (rows) => [rows, await network.filePlans([...new Set(rows.map((r) => r.file_key))])] as const),
    code ? network.rates(code, allGroups) : Promise.resolve([] as RateRow[]),
  ]);
  const groups = new Map(groupRows.map((g) => [g.group_key, g]));
  const groupFiles = new Map<string, string[]>();
  for (const r of gf) groupFiles.set(r.group_key, [...(groupFiles.get(r.group_key) ?? []), r.file_key]);

  const plansOfFile = new Map<string, FilePlanRow[]>();
  for (const r of filePlans) plansOfFile.set(r.file_key, [...(plansOfFile.get(r.file_key) ?? []), r]);

  const inScope = (f: string): boolean => scopeFiles === null || scopeFiles.has(f);
  const ratesByGroup = new Map<string, RateRow[]>();
  for (const r of rates) {
    if (!r.file_keys.some(inScope)) continue;
    ratesByGroup.set(r.group_key, [...(ratesByGroup.get(r.group_key) ?? []), r]);
  }

  const byNpi = new Map<number, NpiNetwork>();
  for (const p of providers) {
    const gs = [...(groupsOf.get(p.npi) ?? [])];
    const files = new Set<string>();
    const scoped: string[] = [];
    const other = new Map<string, string | null>();
    for (const g of gs) {
      const fs = groupFiles.get(g) ?? [];
      let hit = false;
      for (const f of fs) {
        if (inScope(f)) {
          files.add(f);
          hit = true;
        }
        for (const fp of plansOfFile.get(f) ?? []) {
          const k = payerOf(fp);
          if (k !== payerKey) other.set(k, fp.reporting_entity_name);
        }
      }
      if (hit) scoped.push(g);
    }
    // Rates are attached to groups; a group counts only when it is in scope.
    const rs = scoped.flatMap((g) => ratesByGroup.get(g) ?? []);
    byNpi.set(p.npi, {
      groups: gs, scopedGroups: scoped, files: [...files], rates: rs,
      otherPayers: [...other].map(([payerKey, reportingEntity]) => ({ payerKey, reportingEntity })),
    });
  }
  return { byNpi, groups, groupFiles };
}
