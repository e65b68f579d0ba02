/**
 * Reads a sandbox member's records straight from the sandbox payer's FHIR API (its own token,
 * every page of every search), for counts computed independently of the import and the views.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SandboxPayer } from '../../api/records/sandbox-payer.ts';
import { memberById } from '../../engine/records/sandbox/sandbox-members.ts';

type Res = Record<string, unknown> & { resourceType: string; id: string };

export async function sandboxToken(sandbox: SandboxPayer, memberId: string, redirectUri: string): Promise<{ token: string; patient: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const c = sandbox.checkAuthorize({
    client_id: 'carebridge', redirect_uri: redirectUri, response_type: 'code', state: 's', aud: sandbox.fhirBase,
    scope: 'launch/patient patient/*.rs', code_challenge_method: 'S256', code_challenge: createHash('sha256').update(verifier).digest('base64url'),
  });
  if (!c.ok) throw new Error(c.message);
  const code = new URL(sandbox.approve(sandbox.hold(c.request), memberById(memberId)!)).searchParams.get('code')!;
  const t = sandbox.token({ grant_type: 'authorization_code', client_id: 'carebridge', code, redirect_uri: redirectUri, code_verifier: verifier });
  return { token: t.body.access_token as string, patient: t.body.patient as string };
}

/** Every resource of `type` for the patient, following `next` links. */
export async function allPages(fhirBase: string, type: string, patient: string, token: string): Promise<Res[]> {
  const out: Res[] = [];
  let url: string | undefined = `${fhirBase}/${type}?patient=${patient}&_count=37`;
  while (url) {
    const r = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (!r.ok) throw new Error(`${url}: ${r.status}`);
    const b = await r.json() as { entry?: { resource: Res }[]; link?: { relation: string; url: string }[] };
    out.push(...(b.entry ?? []).map((e) => e.resource));
    url = b.link?.find((l) => l.relation === 'next')?.url;
  }
  return out;
}

const cat = (r: Res) => ((r.category as { coding: { code: string }[] }[] | undefined) ?? []).flatMap((c) => c.coding.map((x) => x.code));
const len = (v: unknown) => (Array.isArray(v) ? v.length : 0);

/** The view counts the API should report, from the bundles. */
export async function expectedCounts(fhirBase: string, patient: string, token: string): Promise<Record<string, number>> {
  const get = (t: string) => allPages(fhirBase, t, patient, token);
  const [cov, eob, cond, med, all, imm, obs, enc] = await Promise.all(
    ['Coverage', 'ExplanationOfBenefit', 'Condition', 'MedicationRequest', 'AllergyIntolerance', 'Immunization', 'Observation', 'Encounter'].map(get));
  return {
    coverage: cov!.length, coverage_class: cov!.reduce((n, c) => n + len(c.class), 0),
    problems: cond!.length, medication_request: med!.length, allergies: all!.length, immunizations: imm!.length,
    labs: obs!.filter((o) => cat(o).includes('laboratory')).length, vitals: obs!.filter((o) => cat(o).includes('vital-signs')).length,
    encounters: enc!.length, claims_header: eob!.length, claims_lines: eob!.reduce((n, e) => n + len(e.item), 0),
  };
}
