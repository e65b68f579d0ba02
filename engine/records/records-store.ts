/**
 * Health-records storage over the Db port (PostgreSQL dialect; PGlite or a real server). Every
 * read is scoped by patient id, and callers resolve the patient through the profile store first
 * (scoped by account), so one user can never reach another user's records.
 */
import { z } from 'zod';
import type { Db } from '../ports/db.ts';
import type { FhirResource } from './fhir-resource.ts';

/** A sync still marked running after this long is taken as dead (its process stopped). */
export const STALE_SYNC_MS = 10 * 60_000;

const ts = z.union([z.date(), z.string()]).nullable().transform((v) => (v === null ? null : new Date(v)));
const ConnectionRowSchema = z.object({
  patient_id: z.string(),
  account_id: z.string(),
  payer_key: z.string(),
  payer_label: z.string(),
  fhir_patient_id: z.string(),
  tokens_enc: z.string(),
  scope: z.string().nullable(),
  generation: z.number().int(),
  imported_at: ts,
  last_synced_at: ts,
  sync_status: z.string().nullable(),
  sync_note: z.string().nullable(),
  sync_started_at: ts,
});
export type ConnectionRow = z.output<typeof ConnectionRowSchema>;

export interface LinkRequestRow {
  accountId: string;
  patientId: string;
  payerKey: string;
  verifierEnc: string;
}

/** A resource as stored: its JSON and the date it sorts by. */
export interface StoredResource {
  resource: FhirResource;
  sortAt: string | null;
}

const CONNECTION_COLS = `patient_id, account_id, payer_key, payer_label, fhir_patient_id, tokens_enc, scope, generation,
  imported_at, last_synced_at, sync_status, sync_note, sync_started_at`;

export interface RecordsStore {
  saveLinkRequest(stateHash: string, r: LinkRequestRow, expiresAt: Date): Promise<void>;
  /** Deletes and returns the request (single use); null when unknown or expired. */
  takeLinkRequest(stateHash: string, now: Date): Promise<LinkRequestRow | null>;
  /** Creates or replaces the patient's connection (a relink keeps the imported data until the next sync swaps it). */
  upsertConnection(c: { patientId: string; accountId: string; payerKey: string; payerLabel: string; fhirPatientId: string; tokensEnc: string; scope: string | null }): Promise<void>;
  getConnection(patientId: string): Promise<ConnectionRow | null>;
  updateTokens(patientId: string, tokensEnc: string): Promise<void>;
  /**
   * Marks a sync as running unless one already is (and is not stale); returns the generation the
   * sync should write, or null when another sync holds it.
   */
  claimSync(patientId: string, now: Date): Promise<number | null>;
  /** Writes staged resources of `generation` (multi-row insert). */
  stageResources(patientId: string, generation: number, rows: StoredResource[]): Promise<void>;
  /** In one transaction: shows `generation`, drops every other, records success. */
  commitSync(patientId: string, generation: number, now: Date, note: string | null): Promise<void>;
  /** Drops the staged generation and records the failure; the shown data stays. */
  failSync(patientId: string, generation: number, status: 'failed' | 'needs_relink', note: string): Promise<void>;
  /** The shown resources of these types, unordered. */
  resources(patientId: string, generation: number, types: readonly string[]): Promise<StoredResource[]>;
  /** Count of shown resources per type. */
  countByType(patientId: string, generation: number): Promise<Map<string, number>>;
}

export function sqlRecordsStore(db: Db): RecordsStore {
  return {
    async saveLinkRequest(stateHash, r, expiresAt) {
      await db.query('DELETE FROM records_link_requests WHERE expires_at < now()');
      await db.query(
        `INSERT INTO records_link_requests (state_hash, account_id, patient_id, payer_key, verifier_enc, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [stateHash, r.accountId, r.patientId, r.payerKey, r.verifierEnc, expiresAt.toISOString()]);
    },
    async takeLinkRequest(stateHash, now) {
      const r = await db.query<{ account_id: string; patient_id: string; payer_key: string; verifier_enc: string; expires_at: Date | string }>(
        'DELETE FROM records_link_requests WHERE state_hash = $1 RETURNING account_id, patient_id, payer_key, verifier_enc, expires_at', [stateHash]);
      const row = r.rows[0];
      if (!row || new Date(row.expires_at).getTime() < now.getTime()) return null;
      return { accountId: row.account_id, patientId: row.patient_id, payerKey: row.payer_key, verifierEnc: row.verifier_enc };
    },
    async upsertConnection(c) {
      await db.query(
        `INSERT INTO records_connections (patient_id, account_id, payer_key, payer_label, fhir_patient_id, tokens_enc, scope)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (patient_id) DO UPDATE SET account_id = EXCLUDED.account_id, payer_key = EXCLUDED.payer_key,
           payer_label = EXCLUDED.payer_label, fhir_patient_id = EXCLUDED.fhir_patient_id, tokens_enc = EXCLUDED.tokens_enc,
           scope = EXCLUDED.scope, linked_at = now(), updated_at = now()`,
        [c.patientId, c.accountId, c.payerKey, c.payerLabel, c.fhirPatientId, c.tokensEnc, c.scope]);
    },
    async getConnection(patientId) {
      const r = await db.query(`SELECT ${CONNECTION_COLS} FROM records_connections WHERE patient_id = $1`, [patientId]);
      return r.rows[0] ? ConnectionRowSchema.parse(r.rows[0]) : null;
    },
    async updateTokens(patientId, tokensEnc) {
      await db.query('UPDATE records_connections SET tokens_enc = $2, updated_at = now() WHERE patient_id = $1', [patientId, tokensEnc]);
    },
    async claimSync(patientId, now) {
      const stale = new Date(now.getTime() - STALE_SYNC_MS).toISOString();
      const r = await db.query<{ generation: number }>(
        `UPDATE records_connections SET sync_started_at = $2, updated_at = now()
         WHERE patient_id = $1 AND (sync_started_at IS NULL OR sync_started_at < $3) RETURNING generation`,
        [patientId, now.toISOString(), stale]);
      const g = r.rows[0]?.generation;
      if (g === undefined) return null;
      // Leftovers of a sync that died before it committed or cleaned up.
      await db.query('DELETE FROM records_resources WHERE patient_id = $1 AND generation > $2', [patientId, g]);
      return g + 1;
    },
    async stageResources(patientId, generation, rows) {
      // Multi-row insert, 200 rows a statement (5 parameters each).
      for (let i = 0; i < rows.length; i += 200) {
        const chunk = rows.slice(i, i + 200);
        const params: unknown[] = [];
        const values = chunk.map((row, k) => {
          params.push(row.resource.resourceType, row.resource.id, row.sortAt, JSON.stringify(row.resource));
          const b = k * 4;
          return `($1, $2, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}::jsonb)`;
        });
        await db.query(
          `INSERT INTO records_resources (patient_id, generation, resource_type, resource_id, sort_at, resource)
           VALUES ${values.join(', ')}
           ON CONFLICT (patient_id, generation, resource_type, resource_id) DO UPDATE SET sort_at = EXCLUDED.sort_at, resource = EXCLUDED.resource`,
          [patientId, generation, ...params]);
      }
    },
    async commitSync(patientId, generation, now, note) {
      await db.transaction(async (tx) => {
        await tx.query(
          `UPDATE records_connections SET generation = $2, imported_at = COALESCE(imported_at, $3), last_synced_at = $3,
             sync_status = 'ok', sync_note = $4, sync_started_at = NULL, updated_at = now() WHERE patient_id = $1`,
          [patientId, generation, now.toISOString(), note]);
        await tx.query('DELETE FROM records_resources WHERE patient_id = $1 AND generation <> $2', [patientId, generation]);
      });
    },
    async failSync(patientId, generation, status, note) {
      await db.transaction(async (tx) => {
        await tx.query('DELETE FROM records_resources WHERE patient_id = $1 AND generation = $2', [patientId, generation]);
        await tx.query(
          `UPDATE records_connections SET sync_status = $2, sync_note = $3, sync_started_at = NULL, updated_at = now() WHERE patient_id = $1`,
          [patientId, status, note]);
      });
    },
    async resources(patientId, generation, types) {
      const r = await db.query<{ resource: FhirResource | string; sort_at: string | null }>(
        'SELECT resource, sort_at FROM records_resources WHERE patient_id = $1 AND generation = $2 AND resource_type = ANY($3::text[])',
        [patientId, generation, [...types]]);
      return r.rows.map((row) => ({
        resource: typeof row.resource === 'string' ? JSON.parse(row.resource) as FhirResource : row.resource,
        sortAt: row.sort_at,
      }));
    },
    async countByType(patientId, generation) {
      const r = await db.query<{ resource_type: string; n: number }>(
        'SELECT resource_type, count(*)::int AS n FROM records_resources WHERE patient_id = $1 AND generation = $2 GROUP BY resource_type',
        [patientId, generation]);
      return new Map(r.rows.map((x) => [x.resource_type, x.n]));
    },
  };
}
