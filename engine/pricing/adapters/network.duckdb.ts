/**
 * NetworkPort over a snapshot's TiC tables (schemas/pricing-tables.ts): plans, files, provider
 * groups and their members here; rates, provider-group sets and typical-rate distributions in
 * rates.duckdb.ts; SQL helpers and the per-snapshot in-memory tables in network-tables.duckdb.ts.
 * Every group_members query filters npi_bucket (partition) AND npi (sort key): a lookup touches a
 * handful of row groups, not the table.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GROUP_MEMBERS } from '../../../schemas/pricing-tables.ts';
import { tableDir } from '../../../schemas/snapshot-layout.ts';
import type { SnapshotDb } from './snapshot.duckdb.ts';
import type { FilePlanRow, GroupRow, LinkedCoverage, NetworkPort, PlanRow } from '../network-status.ports.ts';
import { chunked, groupMaps, memTable, perSnapshot, sqlNumList, sqlStr, sqlStrList } from './network-tables.duckdb.ts';
import { codeHasRows, localDistribution, ratesForGroups, warmRateSets } from './rates.duckdb.ts';
import { membersIndex, membersInMemory, membersOf } from './group-members.duckdb.ts';

export { groupKeyRange, memTable } from './network-tables.duckdb.ts';
export { warmDistributions } from './rates.duckdb.ts';

const PLAN_COLS = 'plan_key, reporting_entity_name, reporting_entity_type, plan_name, plan_id_type, plan_id, plan_market_type, plan_sponsor_name, issuer_name, payer_key';

/** group_members rows of these NPI buckets, read from their partition directories directly. */
function membersFrom(db: SnapshotDb, buckets: number[]): string | null {
  const dir = db.current()?.dir;
  if (!dir) return 'group_members';
  const parts = buckets.map((b) => join(tableDir(dir, GROUP_MEMBERS), `npi_bucket=${b}`)).filter((d) => existsSync(d)).map((d) => sqlStr(join(d, '*.parquet')));
  return parts.length ? `read_parquet([${parts.join(', ')}])` : null;
}

/**
 * Whether group_members rows name their group by group_ref (snapshots written since 2026-11-22) or
 * carry its group_key (earlier ones): the view shows group_ref only in the first case.
 */
const membersByRef = perSnapshot(async (db): Promise<boolean> =>
  (await db.query<{ n: number }>("SELECT count(*)::INTEGER AS n FROM (DESCRIBE SELECT * FROM group_members) WHERE column_name = 'group_ref'"))[0]?.n === 1);

/** group_ref -> group_key, in memory (the member lookups join it). */
const groupRefs = (db: SnapshotDb): Promise<string> => memTable(db, 'mem_group_refs', 'SELECT group_ref, group_key FROM provider_groups ORDER BY group_ref');

/** Options of createNetworkPort. */
export interface NetworkPortOptions {
  /**
   * Answer NPI and rates lookups with the general SQL over the snapshot's Parquet (the paths
   * before the 2026-11-28 latency work) instead of the in-memory member index and the direct rates
   * read: same answers, more CPU; tests compare the two.
   */
  plainSql?: boolean;
}

/** Builds the NetworkPort. Local distributions are memoised per snapshot (same code, files and state repeat across calls). */
export function createNetworkPort(db: SnapshotDb, opts: NetworkPortOptions = {}): NetworkPort {
  const plainSql = opts.plainSql ?? false;
  // Small per-snapshot caches: plan lookups repeat for every request naming the same payer, and
  // TIN-only groups (TiC 1.x `npi: [0]`) are few, so they are held in memory instead of scanning
  // provider_groups per request.
  let cacheSnapshot: string | null = null;
  const cache = new Map<string, Promise<unknown>>();
  const cached = <T>(key: string, load: () => Promise<T>): Promise<T> => {
    const snap = db.current()?.id ?? null;
    if (snap !== cacheSnapshot || cache.size > 5000) {
      cache.clear();
      cacheSnapshot = snap;
    }
    let p = cache.get(key) as Promise<T> | undefined;
    if (!p) {
      p = load();
      p.catch(() => cache.delete(key));
      cache.set(key, p);
    }
    return p;
  };
  const tinOnly = (): Promise<Map<string, GroupRow[]>> => cached('tin-only', async () => {
    const rows = await db.query<GroupRow>('SELECT group_key, tin_type, tin_value, business_name, network_names FROM provider_groups WHERE len(npis) = 0');
    const m = new Map<string, GroupRow[]>();
    for (const r of rows) if (r.tin_value) m.set(r.tin_value, [...(m.get(r.tin_value) ?? []), r]);
    return m;
  });
  return {
    // No coverage store exists yet (insurance connections are a later issue): always null.
    async linkedCoverage(_userId: string, _patientId: string | null): Promise<LinkedCoverage | null> {
      return null;
    },
    plansForPayer(payerKey, names) {
      const lower = names.map((n) => n.toLowerCase());
      return cached(`plans:${payerKey}:${lower.join('|')}`, () => db.query<PlanRow>(`SELECT ${PLAN_COLS} FROM plans WHERE payer_key = ${sqlStr(payerKey)} OR lower(reporting_entity_name) IN (${sqlStrList(lower)}) ORDER BY plan_key`));
    },
    async allPlans() {
      return db.query<PlanRow>(`SELECT ${PLAN_COLS} FROM plans ORDER BY plan_key`);
    },
    async entityFiles(names) {
      if (!names.length) return [];
      const lower = names.map((n) => n.toLowerCase());
      return cached(`entity-files:${lower.join('|')}`, async () => (await db.query<{ file_key: string }>(`SELECT DISTINCT file_key FROM source_files WHERE lower(reporting_entity_name) IN (${sqlStrList(lower)}) AND file_type = 'in-network' AND status = 'complete'`)).map((x) => x.file_key));
    },
    async newestFileDate(fileKeys) {
      if (!fileKeys.length) return null;
      const keys = [...new Set(fileKeys)].sort();
      return cached(`file-date:${keys.join(',')}`, async () => {
        const rows = await chunked(keys, (p) => db.query<{ d: string | null }>(`SELECT strftime(max(last_updated_on), '%Y-%m-%d') AS d FROM source_files WHERE file_key IN (${sqlStrList(p)})`));
        return rows.map((r) => r.d).filter((d): d is string => !!d).sort().at(-1) ?? null;
      });
    },
    async planFiles(planKeys) {
      if (!planKeys.length) return [];
      const keys = [...planKeys].sort();
      return cached(`plan-files:${keys.join(',')}`, () => chunked(keys, (p) => db.query<{ plan_key: string; file_key: string }>(`SELECT DISTINCT plan_key, file_key FROM plan_files WHERE plan_key IN (${sqlStrList(p)}) AND file_type = 'in-network'`)));
    },
    async groupsForNpis(npis) {
      if (!npis.length) return [];
      const index = !plainSql && membersInMemory(db) ? await membersIndex(db) : null;
      if (index) return membersOf(index, npis);
      const buckets = [...new Set(npis.filter((n) => Number.isSafeInteger(n)).map((n) => n % 64))];
      const from = membersFrom(db, buckets);
      if (!from) return [];
      if (!(await membersByRef(db))) return db.query(`SELECT npi, group_key FROM ${from} WHERE npi IN (${sqlNumList(npis)})`);
      return db.query(`SELECT m.npi, g.group_key FROM ${from} m JOIN "${await groupRefs(db)}" g ON g.group_ref = m.group_ref WHERE m.npi IN (${sqlNumList(npis)})`);
    },
    async groupsForTins(tins) {
      if (!tins.length) return [];
      const m = await tinOnly();
      return tins.flatMap((t) => m.get(t) ?? []);
    },
    async groups(groupKeys) {
      if (!groupKeys.length) return [];
      const m = (await groupMaps(db)).groups;
      return [...new Set(groupKeys)].flatMap((k) => m.get(k) ?? []);
    },
    async groupFiles(groupKeys) {
      if (!groupKeys.length) return [];
      const m = (await groupMaps(db)).files;
      return [...new Set(groupKeys)].flatMap((k) => (m.get(k) ?? []).map((file_key) => ({ group_key: k, file_key })));
    },
    async filePlans(fileKeys) {
      if (!fileKeys.length) return [];
      // Per snapshot and file set: a provider's files repeat across requests (the same payer's few
      // files), and the three-table join costs ~4 ms a call.
      const keys = [...new Set(fileKeys)].sort();
      // Files no plan maps to (a 1.x file without plan fields, a TOC not ingested) still name their reporting entity.
      return cached(`file-plans:${keys.join(',')}`, () => db.query<FilePlanRow>(`SELECT DISTINCT sf.file_key, pf.plan_key, p.payer_key, coalesce(p.reporting_entity_name, sf.reporting_entity_name) AS reporting_entity_name
        FROM source_files sf LEFT JOIN plan_files pf ON pf.file_key = sf.file_key LEFT JOIN plans p ON p.plan_key = pf.plan_key
        WHERE sf.file_key IN (${sqlStrList(keys)})`));
    },
    rates(code, groupKeys) {
      return ratesForGroups(db, code, groupKeys, plainSql);
    },
    codeHasRates(code) {
      // Per snapshot: the answer cannot change until a new snapshot is published.
      return cached(`has-rates:${code.types.join(',')}:${code.code}`, () => codeHasRows(db, code));
    },
    localDistribution(code, fileKeys, state) {
      return localDistribution(db, code, fileKeys, state);
    },
    hasRows(table) {
      return db.hasRows(table);
    },
  };
}

/** Builds the per-snapshot in-memory tables (group maps, set states) so the first requests do not pay for them. */
export async function warmNetworkPort(db: SnapshotDb): Promise<void> {
  await Promise.all([groupMaps(db), warmRateSets(db), membersInMemory(db) ? membersIndex(db) : null]);
}
