/**
 * Linked coverage for pricing (issue 36, item 3): the plan identifiers of a patient's active
 * Coverage as imported from their insurer (payer, plan name, employer group name and number).
 * Pricing declares the port (engine/pricing/network-status.ports.ts, LinkedCoveragePort); this is
 * its implementation, wired in by the composition root, so pricing never imports records.
 */
import type { Db } from '../ports/db.ts';
import { sqlProfileStore } from '../profile/profile-store.ts';
import type { FhirResource } from './fhir-resource.ts';
import { coverageRow } from './records-rows.ts';
import { sqlRecordsStore } from './records-store.ts';

/** The plan identifiers pricing matches (the same fields as pricing's LinkedCoverage). */
export interface CoverageIdentifiers {
  payerName: string | null;
  employerName: string | null;
  planName: string | null;
  groupNumber: string | null;
  planKey: string | null;
  source: string;
}

const RANK: Record<string, number> = { active: 0, draft: 1 };

/** The coverage pricing should use: active first, then the latest start. */
function pick(rows: FhirResource[]): FhirResource | undefined {
  return [...rows].sort((a, b) => {
    const ra = RANK[String(a.status)] ?? 9;
    const rb = RANK[String(b.status)] ?? 9;
    if (ra !== rb) return ra - rb;
    const sa = String((a.period as { start?: string } | undefined)?.start ?? '');
    const sb = String((b.period as { start?: string } | undefined)?.start ?? '');
    return sa < sb ? 1 : sa > sb ? -1 : 0;
  })[0];
}

/** `linkedCoverage(userId, patientId)`: null when the patient is not the user's or nothing usable is linked. */
export function recordsLinkedCoverage(db: Db) {
  return {
    async linkedCoverage(userId: string, patientId: string | null): Promise<CoverageIdentifiers | null> {
      const profiles = sqlProfileStore(db);
      const patient = patientId === null
        ? (await profiles.listPatients(userId)).find((p) => p.relationship === 'self') ?? null
        : await profiles.getPatient(userId, patientId);
      if (!patient) return null;
      const store = sqlRecordsStore(db);
      const conn = await store.getConnection(patient.patientId);
      if (!conn || conn.generation === 0) return null;
      const chosen = pick((await store.resources(patient.patientId, conn.generation, ['Coverage'])).map((r) => r.resource));
      if (!chosen || (chosen.status !== 'active' && chosen.status !== 'draft')) return null;
      const c = coverageRow(chosen);
      const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
      return {
        payerName: str(c.payer),
        employerName: str(c.groupName),
        planName: str(c.planName),
        groupNumber: str(c.groupNumber),
        planKey: null,
        source: `Coverage ${chosen.id} imported from ${conn.payer_label} (last synced ${conn.last_synced_at?.toISOString().slice(0, 10) ?? 'unknown'})`,
      };
    },
  };
}
