/**
 * The import of one patient's records from their payer (issue 36, item 2): a plain function the
 * sync runner (and, once the platform's queue lands, a job) calls. It pages through the FHIR
 * search bundles (`link[relation=next]`), validates each resource against the R4 definitions,
 * writes the import into a staging generation, and swaps it in in one transaction at the end.
 * A sync that fails half-way drops its staging rows and keeps the last good data.
 */
import type { Logger } from 'pino';
import type { Clock } from '../ports/clock.ts';
import { fhirProblem, type FhirResource } from './fhir-resource.ts';
import { PayerHttpError, type PayerClient, type RecordsPayer, type SecretBox, type TokenSet } from './records.ports.ts';
import { sortDateOf } from './records-rows.ts';
import type { ConnectionRow, RecordsStore, StoredResource } from './records-store.ts';
import { refreshTokens } from './smart-client.ts';

/** What is imported, in this order (CARIN Blue Button and US Core resources of a Patient Access API). */
export const IMPORT_TYPES = [
  'Coverage', 'ExplanationOfBenefit', 'Condition', 'MedicationRequest', 'AllergyIntolerance', 'Immunization', 'Observation', 'Encounter',
] as const;

export interface SyncDeps {
  store: RecordsStore;
  client: PayerClient;
  box: SecretBox;
  payers: readonly RecordsPayer[];
  clock: Clock;
  log: Logger;
  /** Bundle page size asked of the payer (`_count`). */
  pageSize?: number;
  /** A guard against a payer whose `next` links never end. */
  maxPagesPerType?: number;
}

export type SyncOutcome = 'ok' | 'failed' | 'needs_relink' | 'busy' | 'no_connection';

export interface SyncResult {
  outcome: SyncOutcome;
  imported: number;
  invalid: number;
  note: string | null;
}

/** A `next` link must stay under the payer's FHIR base: never follow one elsewhere. */
function underBase(url: string, base: string): boolean {
  const b = base.endsWith('/') ? base : `${base}/`;
  return url.startsWith(b);
}

function refersTo(r: FhirResource, fhirPatientId: string): boolean {
  if (r.resourceType === 'Patient') return r.id === fhirPatientId;
  const refs = [r.patient, r.subject, r.beneficiary].map((x) => (x as { reference?: unknown } | undefined)?.reference);
  return refs.some((x) => typeof x === 'string' && (x === `Patient/${fhirPatientId}` || x.endsWith(`/Patient/${fhirPatientId}`)));
}

interface Counters { imported: number; invalid: number; firstInvalid: string | null; foreign: number }

function accept(r: unknown, fhirPatientId: string, c: Counters): StoredResource | null {
  const problem = fhirProblem(r);
  if (problem) {
    c.invalid += 1;
    c.firstInvalid ??= problem;
    return null;
  }
  const res = r as FhirResource;
  if (!refersTo(res, fhirPatientId)) {
    // A resource about someone else is never stored under this patient.
    c.foreign += 1;
    return null;
  }
  c.imported += 1;
  return { resource: res, sortAt: sortDateOf(res) };
}

async function accessToken(conn: ConnectionRow, payer: RecordsPayer, deps: SyncDeps): Promise<string> {
  const tokens = JSON.parse(deps.box.open(conn.tokens_enc)) as TokenSet;
  const soon = deps.clock.now().getTime() + 60_000;
  if (tokens.expiresAt === null || tokens.expiresAt > soon) return tokens.accessToken;
  if (!tokens.refreshToken) throw new PayerHttpError(401, payer.tokenUrl, 'the access token expired and the payer gave no refresh token');
  const fresh = await refreshTokens(payer, tokens.refreshToken, deps.client, deps.clock);
  await deps.store.updateTokens(conn.patient_id, deps.box.seal(JSON.stringify(fresh.tokens)));
  return fresh.tokens.accessToken;
}

/** Pages through one search; stages each page as it arrives. */
async function importType(type: string, conn: ConnectionRow, payer: RecordsPayer, token: string, gen: number, c: Counters, deps: SyncDeps): Promise<void> {
  const base = payer.fhirBaseUrl.replace(/\/$/, '');
  let url: string | null = `${base}/${type}?patient=${encodeURIComponent(conn.fhir_patient_id)}&_count=${deps.pageSize ?? 50}`;
  const seen = new Set<string>();
  for (let page = 1; url; page++) {
    if (page > (deps.maxPagesPerType ?? 2000) || seen.has(url)) throw new Error(`${type} search paging did not end (page ${page})`);
    seen.add(url);
    const bundle = await deps.client.getJson(url, token).catch((e: unknown) => {
      if (e instanceof PayerHttpError) throw new PayerHttpError(e.status, e.url, `${type} page ${page}: ${e.message}`);
      throw new Error(`${type} page ${page}: ${(e as Error).message}`);
    }) as { resourceType?: unknown; entry?: unknown; link?: unknown };
    if (bundle?.resourceType !== 'Bundle') throw new Error(`${type} page ${page}: the payer answered with something other than a FHIR Bundle`);
    const rows: StoredResource[] = [];
    for (const e of Array.isArray(bundle.entry) ? bundle.entry as { resource?: unknown; search?: { mode?: string } }[] : []) {
      // `include` and `outcome` entries are not matches of this search.
      if (e.search?.mode && e.search.mode !== 'match') continue;
      const row = accept(e.resource, conn.fhir_patient_id, c);
      if (row) rows.push(row);
    }
    await deps.store.stageResources(conn.patient_id, gen, rows);
    const next = (Array.isArray(bundle.link) ? bundle.link as { relation?: string; url?: string }[] : []).find((l) => l.relation === 'next')?.url ?? null;
    if (next && !underBase(next, base)) throw new Error(`${type} page ${page}: the next link leaves the payer's FHIR endpoint; not followed`);
    url = next;
  }
}

function when(d: Date | null): string {
  return d ? d.toISOString() : 'never';
}

/** Imports the patient's records; never throws for a payer's failure (it is recorded on the connection). */
export async function syncRecords(patientId: string, deps: SyncDeps): Promise<SyncResult> {
  const conn = await deps.store.getConnection(patientId);
  if (!conn) return { outcome: 'no_connection', imported: 0, invalid: 0, note: null };
  const gen = await deps.store.claimSync(patientId, deps.clock.now());
  if (gen === null) return { outcome: 'busy', imported: 0, invalid: 0, note: null };
  const c: Counters = { imported: 0, invalid: 0, firstInvalid: null, foreign: 0 };
  const kept = conn.generation > 0 ? `The records shown are still those of the last good sync (${when(conn.last_synced_at)}).` : 'No records have been imported yet.';
  const payer = deps.payers.find((p) => p.key === conn.payer_key);
  if (!payer) {
    const note = `The payer "${conn.payer_key}" is no longer configured on this server. ${kept}`;
    await deps.store.failSync(patientId, gen, 'failed', note);
    return { outcome: 'failed', imported: 0, invalid: 0, note };
  }
  try {
    const token = await accessToken(conn, payer, deps);
    const base = payer.fhirBaseUrl.replace(/\/$/, '');
    const patient = await deps.client.getJson(`${base}/Patient/${encodeURIComponent(conn.fhir_patient_id)}`, token);
    const p = accept(patient, conn.fhir_patient_id, c);
    if (!p) throw new Error(`the payer's Patient resource was not valid (${c.firstInvalid ?? 'another patient'})`);
    await deps.store.stageResources(patientId, gen, [p]);
    for (const type of IMPORT_TYPES) await importType(type, conn, payer, token, gen, c, deps);
    const notes = [
      c.invalid ? `${c.invalid} resource${c.invalid === 1 ? '' : 's'} failed FHIR R4 validation and ${c.invalid === 1 ? 'was' : 'were'} left out (first: ${c.firstInvalid}).` : null,
      c.foreign ? `${c.foreign} resource${c.foreign === 1 ? '' : 's'} about another patient ${c.foreign === 1 ? 'was' : 'were'} left out.` : null,
    ].filter(Boolean);
    const note = notes.length ? notes.join(' ') : null;
    await deps.store.commitSync(patientId, gen, deps.clock.now(), note);
    deps.log.info({ patientId, payer: payer.key, imported: c.imported, invalid: c.invalid }, 'health records synced');
    return { outcome: 'ok', imported: c.imported, invalid: c.invalid, note };
  } catch (e) {
    const relink = e instanceof PayerHttpError && (e.status === 401 || e.status === 403);
    const why = (e as Error).message;
    const note = relink
      ? `${payer.label} refused our access (${why}). Link the insurer again (POST /api/health-records/link). ${kept}`
      : `The sync failed: ${why}. ${kept} Try again later (POST /api/health-records/sync).`;
    await deps.store.failSync(patientId, gen, relink ? 'needs_relink' : 'failed', note);
    deps.log.warn({ patientId, payer: payer.key, err: why }, 'health records sync failed');
    return { outcome: relink ? 'needs_relink' : 'failed', imported: 0, invalid: c.invalid, note };
  }
}
