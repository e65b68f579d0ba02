/**
 * The sandbox payer behaves like a SMART server, not a stub (STYLE.md, fakes that behave): it
 * refuses a wrong client, redirect URI, audience or PKCE verifier, a reused code, a token for
 * another patient; it pages its searches; and every synthetic resource is valid FHIR R4.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SandboxPayer } from '../../api/records/sandbox-payer.ts';
import { search } from '../../api/records/sandbox-fhir.ts';
import { fhirProblem } from '../../engine/records/fhir-resource.ts';
import { memberById, SANDBOX_MEMBERS, SANDBOX_PASSWORD } from '../../engine/records/sandbox/sandbox-members.ts';
import { memberResources } from '../../engine/records/sandbox/sandbox-resources.ts';

const REDIRECT = 'http://app.test/records/callback';
const verifier = 'v'.repeat(50);
const challenge = createHash('sha256').update(verifier).digest('base64url');

function sandbox() {
  const s = new SandboxPayer({ baseUrl: 'http://app.test', redirectUris: [REDIRECT] });
  const query = { client_id: 'carebridge', redirect_uri: REDIRECT, response_type: 'code', state: 'st', aud: s.fhirBase, scope: 'launch/patient patient/*.rs', code_challenge_method: 'S256', code_challenge: challenge };
  return { s, query };
}

function codeFor(s: SandboxPayer, query: Record<string, string>, memberId = 'GP100001'): string {
  const c = s.checkAuthorize(query);
  if (!c.ok) throw new Error(c.message);
  return new URL(s.approve(s.hold(c.request), memberById(memberId)!)).searchParams.get('code')!;
}

describe('sandbox authorization server', () => {
  it('refuses a bad client or redirect URI without redirecting, and other mistakes by redirecting with an error', () => {
    const { s, query } = sandbox();
    for (const bad of [{ client_id: 'evil' }, { redirect_uri: 'http://evil.test/cb' }]) {
      const r = s.checkAuthorize({ ...query, ...bad });
      expect(r.ok).toBe(false);
      expect(!r.ok && r.redirect).toBeFalsy();
    }
    for (const bad of [{ aud: 'http://other/fhir' }, { code_challenge_method: 'plain' }, { scope: 'openid' }, { response_type: 'token' }]) {
      const r = s.checkAuthorize({ ...query, ...bad });
      expect(r.ok).toBe(false);
      expect(!r.ok && r.redirect).toMatch(/^http:\/\/app\.test\/records\/callback\?error=/);
    }
  });

  it('checks the password; codes are single use and bound to the PKCE verifier and redirect URI', () => {
    const { s, query } = sandbox();
    expect(s.signIn('GP100001', 'wrong')).toBeUndefined();
    expect(s.signIn('gp100001', SANDBOX_PASSWORD)?.memberId).toBe('GP100001');
    const code = codeFor(s, query);
    expect(s.token({ grant_type: 'authorization_code', client_id: 'carebridge', code, redirect_uri: REDIRECT, code_verifier: 'w'.repeat(50) }).status).toBe(400);
    // The failed try consumed the code.
    expect(s.token({ grant_type: 'authorization_code', client_id: 'carebridge', code, redirect_uri: REDIRECT, code_verifier: verifier }).body.error).toBe('invalid_grant');
    const code2 = codeFor(s, query);
    const ok = s.token({ grant_type: 'authorization_code', client_id: 'carebridge', code: code2, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(ok.body).toMatchObject({ token_type: 'Bearer', patient: 'gp-100001', scope: 'launch/patient patient/*.rs' });
    const refreshed = s.token({ grant_type: 'refresh_token', client_id: 'carebridge', refresh_token: ok.body.refresh_token as string });
    expect(refreshed.status).toBe(200);
    // Refresh tokens rotate.
    expect(s.token({ grant_type: 'refresh_token', client_id: 'carebridge', refresh_token: ok.body.refresh_token as string }).status).toBe(400);
  });

  it('a token reads its own patient only; searches page with next links', () => {
    const grant = { patientId: 'gp-100001', scope: 'patient/*.rs' };
    expect(search('http://app.test/sandbox-payer/fhir', 'Observation', { patient: 'gp-100002' }, grant).status).toBe(403);
    expect(search('http://app.test/sandbox-payer/fhir', 'Observation', { patient: 'gp-100001' }, { ...grant, scope: 'patient/Coverage.rs' }).status).toBe(403);
    const first = search('http://app.test/sandbox-payer/fhir', 'Observation', { patient: 'gp-100001', _count: '100' }, grant).body as { total: number; entry: unknown[]; link: { relation: string; url: string }[] };
    expect(first.entry).toHaveLength(100);
    expect(first.link.find((l) => l.relation === 'next')?.url).toContain('_offset=100');
  });
});

describe('sandbox data', () => {
  it('is deterministic and every resource is valid FHIR R4', () => {
    for (const m of SANDBOX_MEMBERS) {
      const all = memberResources(m);
      const problems = all.map((r) => [r.id, fhirProblem(r)]).filter(([, p]) => p !== null);
      expect(problems).toEqual([]);
      expect(new Set(all.map((r) => `${r.resourceType}/${r.id}`)).size).toBe(all.length);
    }
  });
});
