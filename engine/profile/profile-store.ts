/**
 * Profile storage port (STYLE.md 3): accounts (created by sign-up, read here), patients and terms
 * acceptances. Every patient lookup is scoped by account id, so one user can never address another
 * user's patient: a foreign id simply is not found.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../ports/db.ts';
import type { Demographics, Patient } from './profile.schema.ts';

export interface AccountRow {
  id: string;
  email: string;
}

export interface Acceptance {
  termsVersion: string;
  privacyVersion: string;
  acceptedAt: Date;
}

/** Demographic columns a caller may change; `null` clears, absent keeps. */
export type DemographicsPatch = Partial<Demographics>;

export interface ProfileStore {
  getAccount(accountId: string): Promise<AccountRow | null>;
  /** The account holder's own patient row, created when sign-up did not (idempotent, race-safe). */
  ensureSelfPatient(accountId: string): Promise<Patient>;
  /** Self first, then dependents by creation time. */
  listPatients(accountId: string): Promise<Patient[]>;
  getPatient(accountId: string, patientId: string): Promise<Patient | null>;
  countDependents(accountId: string): Promise<number>;
  /** Row-locks the account for the rest of the transaction (serialises dependent creation). */
  lockAccount(accountId: string): Promise<void>;
  createDependent(accountId: string, patch: DemographicsPatch): Promise<Patient>;
  /** Null when the patient does not belong to the account. */
  updatePatient(accountId: string, patientId: string, patch: DemographicsPatch): Promise<Patient | null>;
  latestAcceptance(accountId: string): Promise<Acceptance | null>;
  recordAcceptance(accountId: string, termsVersion: string, privacyVersion: string, at: Date): Promise<Acceptance>;
}

/** snake_case column for each demographics field; the only names that ever reach SQL text. */
const COLUMNS = {
  givenName: 'given_name',
  familyName: 'family_name',
  birthDate: 'birth_date',
  sex: 'sex',
  phone: 'phone',
  addressLine1: 'address_line1',
  addressLine2: 'address_line2',
  city: 'city',
  state: 'state',
  postalCode: 'postal_code',
} as const satisfies Record<keyof Demographics, string>;

const SELECT_PATIENT = `SELECT id, relationship, given_name, family_name, to_char(birth_date, 'YYYY-MM-DD') AS birth_date,
  sex, phone, address_line1, address_line2, city, state, postal_code FROM patients`;

// Rows coming back from storage are parsed too (STYLE.md 2).
const str = z.string().nullable();
const PatientRowSchema = z.object({
  id: z.string(),
  relationship: z.enum(['self', 'dependent']),
  given_name: str, family_name: str, birth_date: str, sex: str, phone: str,
  address_line1: str, address_line2: str, city: str, state: str, postal_code: str,
});

function toPatient(raw: Record<string, unknown>): Patient {
  const r = PatientRowSchema.parse(raw);
  return {
    patientId: r.id,
    relationship: r.relationship,
    demographics: {
      givenName: r.given_name, familyName: r.family_name, birthDate: r.birth_date, sex: r.sex, phone: r.phone,
      addressLine1: r.address_line1, addressLine2: r.address_line2, city: r.city, state: r.state, postalCode: r.postal_code,
    },
  };
}

/** UUIDs, the same form sign-up gives the self patient (engine/identity/accounts.ts). */
function newPatientId(): string {
  return randomUUID();
}

/** The SQL implementation over the Db port (PostgreSQL dialect; PGlite or a real server). */
export function sqlProfileStore(db: Db): ProfileStore {
  const getSelf = async (accountId: string) => {
    const r = await db.query(`${SELECT_PATIENT} WHERE account_id = $1 AND relationship = 'self'`, [accountId]);
    return r.rows[0] ? toPatient(r.rows[0]) : null;
  };
  return {
    async getAccount(accountId) {
      const r = await db.query<{ id: string; email: string }>('SELECT id, email FROM accounts WHERE id = $1', [accountId]);
      return r.rows[0] ?? null;
    },
    async ensureSelfPatient(accountId) {
      const existing = await getSelf(accountId);
      if (existing) return existing;
      // The partial unique index patients_one_self makes a concurrent second insert a no-op.
      await db.query(
        `INSERT INTO patients (id, account_id, relationship) VALUES ($1, $2, 'self')
         ON CONFLICT (account_id) WHERE relationship = 'self' DO NOTHING`,
        [newPatientId(), accountId],
      );
      const self = await getSelf(accountId);
      if (!self) throw new Error('self patient missing after insert');
      return self;
    },
    async listPatients(accountId) {
      const r = await db.query(
        `${SELECT_PATIENT} WHERE account_id = $1 ORDER BY (relationship = 'self') DESC, created_at, id`, [accountId]);
      return r.rows.map(toPatient);
    },
    async getPatient(accountId, patientId) {
      const r = await db.query(`${SELECT_PATIENT} WHERE account_id = $1 AND id = $2`, [accountId, patientId]);
      return r.rows[0] ? toPatient(r.rows[0]) : null;
    },
    async countDependents(accountId) {
      const r = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM patients WHERE account_id = $1 AND relationship = 'dependent'`, [accountId]);
      return r.rows[0]?.n ?? 0;
    },
    async lockAccount(accountId) {
      await db.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
    },
    async createDependent(accountId, patch) {
      const id = newPatientId();
      const keys = (Object.keys(COLUMNS) as (keyof Demographics)[]).filter((k) => patch[k] !== undefined);
      const cols = ['id', 'account_id', 'relationship', ...keys.map((k) => COLUMNS[k])];
      const vals = [id, accountId, 'dependent', ...keys.map((k) => patch[k])];
      await db.query(
        `INSERT INTO patients (${cols.join(', ')}) VALUES (${vals.map((_, i) => `$${i + 1}`).join(', ')})`, vals);
      const created = await this.getPatient(accountId, id);
      if (!created) throw new Error('dependent missing after insert');
      return created;
    },
    async updatePatient(accountId, patientId, patch) {
      const keys = (Object.keys(COLUMNS) as (keyof Demographics)[]).filter((k) => patch[k] !== undefined);
      const sets = keys.map((k, i) => `${COLUMNS[k]} = $${i + 3}`);
      sets.push('updated_at = now()');
      const r = await db.query(
        `UPDATE patients SET ${sets.join(', ')} WHERE account_id = $1 AND id = $2`,
        [accountId, patientId, ...keys.map((k) => patch[k])]);
      if (r.rowCount === 0) return null;
      return this.getPatient(accountId, patientId);
    },
    async latestAcceptance(accountId) {
      const r = await db.query<{ terms_version: string; privacy_version: string; accepted_at: Date | string }>(
        `SELECT terms_version, privacy_version, accepted_at FROM terms_acceptances
         WHERE account_id = $1 ORDER BY accepted_at DESC, id DESC LIMIT 1`, [accountId]);
      const row = r.rows[0];
      return row ? { termsVersion: row.terms_version, privacyVersion: row.privacy_version, acceptedAt: new Date(row.accepted_at) } : null;
    },
    async recordAcceptance(accountId, termsVersion, privacyVersion, at) {
      await db.query(
        'INSERT INTO terms_acceptances (account_id, terms_version, privacy_version, accepted_at) VALUES ($1, $2, $3, $4)',
        [accountId, termsVersion, privacyVersion, at.toISOString()]);
      return { termsVersion, privacyVersion, acceptedAt: at };
    },
  };
}
