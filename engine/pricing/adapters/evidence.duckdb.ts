/**
 * EvidenceStore over the current snapshot (SnapshotDb views named after the tables of
 * schemas/pricing-tables.ts). NPIs are validated integers before they reach SQL; codes are bound
 * as parameters.
 */
import { withDisplayName } from '../network-status.ports.ts';
import type { EnrollmentRow, EvidenceProviderRow, EvidenceStore, ExclusionRow, OptOutRow, VolumeRow } from '../evidence.ports.ts';
import type { SnapshotDb } from './snapshot.duckdb.ts';

/** A SQL IN-list of NPIs; only 10-digit integers get through. */
function npiList(npis: readonly number[]): string {
  const ok = [...new Set(npis.filter((n) => Number.isInteger(n) && n >= 1e9 && n < 1e10))];
  return ok.length ? ok.join(', ') : 'NULL';
}

export class DuckEvidenceStore implements EvidenceStore {
  private readonly db: SnapshotDb;

  constructor(db: SnapshotDb) {
    this.db = db;
  }

  hasRows(table: string): boolean {
    return this.db.hasRows(table);
  }

  async provider(npi: number): Promise<EvidenceProviderRow | null> {
    const rows = await this.db.query<EvidenceProviderRow>(
      `SELECT npi, entity_type, name, city, state, zip5, taxonomy, taxonomy_description, deactivation_date
       FROM providers WHERE npi = ${npiList([npi])} LIMIT 1`);
    // NPPES blanks a deactivated NPI's whole row: give it a display name rather than print null.
    return rows[0] ? withDisplayName(rows[0]) : null;
  }

  async exclusions(npi: number): Promise<ExclusionRow[]> {
    return this.db.query<ExclusionRow>(
      `SELECT npi, last_name, first_name, business_name, general, specialty, excl_type, excl_date, rein_date, waiver_date, waiver_state, state
       FROM leie WHERE npi = ${npiList([npi])} ORDER BY excl_date DESC NULLS LAST`);
  }

  async optOuts(npis: readonly number[]): Promise<OptOutRow[]> {
    return this.db.query<OptOutRow>(
      `SELECT npi, optout_effective_date, optout_end_date, specialty FROM medicare_optout WHERE npi IN (${npiList(npis)})`);
  }

  async enrollments(npis: readonly number[]): Promise<EnrollmentRow[]> {
    return this.db.query<EnrollmentRow>(
      `SELECT npi, enrlmt_id, provider_type_desc, state FROM pecos_enrollment WHERE npi IN (${npiList(npis)})`);
  }

  async volume(npi: number, code: string): Promise<VolumeRow[]> {
    // Peers: providers of the same type and state billing the same code in the same year and
    // place of service. cume_dist = share of peers with as many services or fewer.
    return this.db.query<VolumeRow>(
      `WITH mine AS (
         SELECT * FROM puf_provider_service WHERE npi = ${npiList([npi])} AND hcpcs = $code
       ), peers AS (
         SELECT p.npi, p.year, p.place_of_service, p.provider_type, p.state, p.tot_srvcs
         FROM puf_provider_service p
         JOIN (SELECT DISTINCT year, place_of_service, provider_type, state FROM mine) m
           ON p.year = m.year AND p.place_of_service IS NOT DISTINCT FROM m.place_of_service
          AND p.provider_type IS NOT DISTINCT FROM m.provider_type AND p.state IS NOT DISTINCT FROM m.state
         WHERE p.hcpcs = $code
       ), ranked AS (
         SELECT npi, year, place_of_service,
           cume_dist() OVER w AS cd, count(*) OVER (PARTITION BY year, place_of_service, provider_type, state) AS n
         FROM peers WINDOW w AS (PARTITION BY year, place_of_service, provider_type, state ORDER BY tot_srvcs)
       )
       SELECT m.year, m.hcpcs, m.place_of_service, m.provider_type, m.state, m.tot_benes, m.tot_srvcs, m.avg_allowed_amount,
         round(r.cd * 100) AS peer_pctl, r.n AS peer_count
       FROM mine m JOIN ranked r ON r.npi = m.npi AND r.year = m.year AND r.place_of_service IS NOT DISTINCT FROM m.place_of_service
       ORDER BY m.year DESC, m.place_of_service`,
      { code });
  }

  /** Codes the provider billed to Medicare, most services first (for a `code` ask's options). */
  async billedCodes(npi: number, limit: number): Promise<string[]> {
    const rows = await this.db.query<{ hcpcs: string }>(
      `SELECT hcpcs FROM puf_provider_service WHERE npi = ${npiList([npi])} GROUP BY hcpcs ORDER BY sum(tot_srvcs) DESC NULLS LAST LIMIT ${Math.max(1, Math.min(100, Math.trunc(limit)))}`);
    return rows.map((r) => r.hcpcs);
  }
}
