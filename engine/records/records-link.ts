/**
 * Linking a patient to a payer (issue 36, item 2): `startLink` makes the authorization URL the
 * user opens (state and PKCE verifier kept server-side: the state only as its hash, the verifier
 * encrypted); `completeLink` handles the payer's redirect back, exchanges the code, stores the
 * tokens encrypted and starts the first import.
 */
import type { HandlerContext } from '../core/context.ts';
import { AppError } from '../core/errors.ts';
import { requireAccount } from '../profile/onboarding.ts';
import type { Clock } from '../ports/clock.ts';
import type { Db } from '../ports/db.ts';
import type { RecordsPorts } from './records.ports.ts';
import { sqlRecordsStore } from './records-store.ts';
import { authorizationUrl, exchangeCode, randomToken, sha256 } from './smart-client.ts';

/** How long the authorization URL works (the user signs in at the payer meanwhile). */
export const LINK_TTL_MS = 15 * 60_000;

export function recordsPorts(ctx: HandlerContext): RecordsPorts {
  const p = ctx.ports.records;
  if (!p) throw new AppError('upstream_unavailable', 'Health records are not served by this process.');
  return p;
}

/** The caller's patient: `patientId` of their own family, else the account holder. Foreign ids are plain 404s. */
export async function resolvePatient(ctx: HandlerContext, patientId: string | undefined): Promise<{ accountId: string; patientId: string }> {
  const { store, account } = await requireAccount(ctx);
  if (patientId === undefined) return { accountId: account.id, patientId: (await store.ensureSelfPatient(account.id)).patientId };
  const p = await store.getPatient(account.id, patientId);
  if (!p) throw new AppError('not_found', 'No patient with this patientId on your account; GET /api/profile lists them.', { field: 'patientId' });
  return { accountId: account.id, patientId: p.patientId };
}

export async function startLink(ctx: HandlerContext, input: { patientId?: string; payer?: string }) {
  const ports = recordsPorts(ctx);
  const who = await resolvePatient(ctx, input.patientId);
  const payer = input.payer === undefined ? ports.payers[0] : ports.payers.find((p) => p.key === input.payer);
  if (!payer) {
    const known = ports.payers.map((p) => p.key).join(', ') || 'none configured';
    throw new AppError('invalid_request', `Unknown payer "${input.payer ?? ''}"; configured payers: ${known}.`, { field: 'payer' });
  }
  const state = randomToken();
  const verifier = randomToken();
  const expiresAt = new Date(ctx.ports.clock.now().getTime() + LINK_TTL_MS);
  await sqlRecordsStore(ctx.ports.db).saveLinkRequest(sha256(state), {
    accountId: who.accountId, patientId: who.patientId, payerKey: payer.key, verifierEnc: ports.box.seal(verifier),
  }, expiresAt);
  return {
    authorizationUrl: authorizationUrl(payer, { state, verifier, redirectUri: ports.redirectUri }),
    payer: { key: payer.key, label: payer.label },
    patientId: who.patientId,
    expiresAt: expiresAt.toISOString(),
    agentInstructions: [
      'Give authorizationUrl to the user to open in their own browser; do not open it yourself: they sign in at their insurer and approve sharing.',
      'The link works once, for 15 minutes. When they are done, the import starts; call GET /api/health-records (section summary) until connection.syncInProgress is false.',
    ],
  };
}

export interface CallbackDeps {
  db: Db;
  clock: Clock;
  ports: RecordsPorts;
}

export type CallbackResult = { ok: true; payerLabel: string } | { ok: false; title: string; message: string };

/** The payer's redirect back to us (`/records/callback?code=&state=` or `?error=&state=`). */
export async function completeLink(q: { code?: string; state?: string; error?: string; error_description?: string }, deps: CallbackDeps): Promise<CallbackResult> {
  if (!q.state) return { ok: false, title: 'This link is not complete', message: 'The insurer sent you back without the state of the request. Ask your agent for a new link.' };
  const store = sqlRecordsStore(deps.db);
  const req = await store.takeLinkRequest(sha256(q.state), deps.clock.now());
  if (!req) return { ok: false, title: 'This link has expired', message: 'Links work once, for 15 minutes. Ask your agent for a new link to connect your insurer.' };
  const payer = deps.ports.payers.find((p) => p.key === req.payerKey);
  if (!payer) return { ok: false, title: 'This insurer is no longer available', message: 'Ask your agent for a new link.' };
  if (q.error || !q.code) {
    const why = q.error === 'access_denied' ? 'You chose not to share your records.' : `The insurer reported: ${q.error_description ?? q.error ?? 'no authorization code'}.`;
    return { ok: false, title: 'Your insurer was not connected', message: `${why} Nothing was imported. Ask your agent for a new link to try again.` };
  }
  try {
    const verifier = deps.ports.box.open(req.verifierEnc);
    const t = await exchangeCode(payer, { code: q.code, verifier, redirectUri: deps.ports.redirectUri }, deps.ports.client, deps.clock);
    if (!t.patient) return { ok: false, title: 'Your insurer was not connected', message: 'The insurer did not say which member record was shared (no patient in its answer). Nothing was imported.' };
    await store.upsertConnection({
      patientId: req.patientId, accountId: req.accountId, payerKey: payer.key, payerLabel: payer.label,
      fhirPatientId: t.patient, tokensEnc: deps.ports.box.seal(JSON.stringify(t.tokens)), scope: t.scope,
    });
  } catch {
    return { ok: false, title: 'Your insurer was not connected', message: 'The insurer did not accept the sign-in (the code may have expired). Ask your agent for a new link to try again.' };
  }
  deps.ports.startSync(req.patientId);
  return { ok: true, payerLabel: payer.label };
}
