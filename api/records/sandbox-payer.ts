/**
 * The embedded sandbox payer's authorization server state (issue 36, item 2): a small, real
 * SMART App Launch 2 standalone-launch server, not a stub that always says yes. It checks the
 * client and its exact redirect URI, `aud`, PKCE S256, the `patient/*.rs` scope, single-use codes
 * (60 s), access tokens (1 h) and rotating refresh tokens. State is in memory: the sandbox
 * stands in for a payer's own servers, and a restart simply signs its members out.
 */
import { createHash, randomBytes } from 'node:crypto';
import { SANDBOX_PASSWORD, memberById, type SandboxMember } from '../../engine/records/sandbox/sandbox-members.ts';

export const SANDBOX_CLIENT_ID = 'carebridge';
const CODE_TTL_MS = 60_000;
const TOKEN_TTL_S = 3600;
const REQUEST_TTL_MS = 15 * 60_000;

/** A validated authorization request, waiting for the member to sign in. */
export interface PendingAuthorize {
  redirectUri: string;
  state: string;
  scope: string;
  codeChallenge: string;
  expiresAt: number;
}

interface Grant {
  patientId: string;
  scope: string;
  expiresAt: number;
}

export type AuthorizeCheck = { ok: true; request: PendingAuthorize } | { ok: false; redirect?: string; message: string };

const b64url = (b: Buffer) => b.toString('base64url');
const token = () => b64url(randomBytes(32));

/** SMART v2 read/search scopes this sandbox grants; v1 `.read` is accepted too. */
export function grantsRead(scope: string, type: string): boolean {
  return scope.split(' ').some((s) => /^patient\/(\*|[A-Za-z]+)\.(rs|r|read|\*)$/.test(s) && (s.startsWith('patient/*.') || s.startsWith(`patient/${type}.`)));
}

export class SandboxPayer {
  private readonly requests = new Map<string, PendingAuthorize>();
  private readonly codes = new Map<string, PendingAuthorize & { patientId: string }>();
  private readonly access = new Map<string, Grant>();
  private readonly refresh = new Map<string, Omit<Grant, 'expiresAt'>>();
  readonly fhirBase: string;
  readonly redirectUris: readonly string[];
  private readonly now: () => number;

  constructor(a: { baseUrl: string; redirectUris: readonly string[]; now?: () => number }) {
    this.fhirBase = `${a.baseUrl}/sandbox-payer/fhir`;
    this.redirectUris = a.redirectUris;
    this.now = a.now ?? Date.now;
  }

  private sweep(): void {
    const t = this.now();
    for (const m of [this.requests, this.codes, this.access] as Map<string, { expiresAt: number }>[]) {
      for (const [k, v] of m) if (v.expiresAt < t) m.delete(k);
    }
  }

  /** Checks an authorization request (RFC 6749 §4.1.2.1: a bad client or redirect URI is never redirected to). */
  checkAuthorize(q: Record<string, string | undefined>): AuthorizeCheck {
    if (q.client_id !== SANDBOX_CLIENT_ID) return { ok: false, message: 'Unknown client_id: this sandbox knows only the carebridge client.' };
    if (!q.redirect_uri || !this.redirectUris.includes(q.redirect_uri)) return { ok: false, message: 'redirect_uri is not registered for this client.' };
    const back = (error: string, description: string) => {
      const u = new URL(q.redirect_uri!);
      u.searchParams.set('error', error);
      u.searchParams.set('error_description', description);
      if (q.state) u.searchParams.set('state', q.state);
      return { ok: false as const, redirect: u.toString(), message: description };
    };
    if (q.response_type !== 'code') return back('unsupported_response_type', 'response_type must be code');
    if (!q.state) return back('invalid_request', 'state is required');
    if (q.code_challenge_method !== 'S256' || !q.code_challenge || !/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge)) return back('invalid_request', 'PKCE with code_challenge_method S256 is required');
    if (q.aud !== this.fhirBase) return back('invalid_request', `aud must be this server's FHIR base URL (${this.fhirBase})`);
    const scope = q.scope ?? '';
    if (!scope.split(' ').includes('launch/patient') || !grantsRead(scope, 'Patient')) return back('invalid_scope', 'scope must include launch/patient and patient/*.rs');
    this.sweep();
    return { ok: true, request: { redirectUri: q.redirect_uri, state: q.state, scope, codeChallenge: q.code_challenge, expiresAt: this.now() + REQUEST_TTL_MS } };
  }

  /** Keeps a checked request for the sign-in form; returns its id (the form's hidden field). */
  hold(r: PendingAuthorize): string {
    const id = token();
    this.requests.set(id, r);
    return id;
  }

  pending(id: string): PendingAuthorize | undefined {
    const r = this.requests.get(id);
    return r && r.expiresAt >= this.now() ? r : undefined;
  }

  /** The member if the credentials are right. */
  signIn(memberId: string, password: string): SandboxMember | undefined {
    const m = memberById(memberId);
    return m && password === SANDBOX_PASSWORD ? m : undefined;
  }

  /** Ends the request with a code for this member; returns the redirect. */
  approve(id: string, m: SandboxMember): string {
    const r = this.requests.get(id)!;
    this.requests.delete(id);
    const code = token();
    this.codes.set(code, { ...r, patientId: m.patientId, expiresAt: this.now() + CODE_TTL_MS });
    const u = new URL(r.redirectUri);
    u.searchParams.set('code', code);
    u.searchParams.set('state', r.state);
    return u.toString();
  }

  deny(id: string): string | undefined {
    const r = this.requests.get(id);
    if (!r) return undefined;
    this.requests.delete(id);
    const u = new URL(r.redirectUri);
    u.searchParams.set('error', 'access_denied');
    u.searchParams.set('error_description', 'The member did not approve sharing');
    u.searchParams.set('state', r.state);
    return u.toString();
  }

  private issue(patientId: string, scope: string, rotateFrom?: string) {
    if (rotateFrom) this.refresh.delete(rotateFrom);
    const access = token();
    const refresh = token();
    this.access.set(access, { patientId, scope, expiresAt: this.now() + TOKEN_TTL_S * 1000 });
    this.refresh.set(refresh, { patientId, scope });
    return { access_token: access, token_type: 'Bearer', expires_in: TOKEN_TTL_S, scope, patient: patientId, refresh_token: refresh };
  }

  /** The token endpoint (RFC 6749 §4.1.3, §6; RFC 7636 §4.6). */
  token(f: Record<string, string | undefined>): { status: number; body: Record<string, unknown> } {
    const err = (error: string, d: string, status = 400) => ({ status, body: { error, error_description: d } });
    if (f.client_id !== SANDBOX_CLIENT_ID) return err('invalid_client', 'unknown client_id', 401);
    if (f.grant_type === 'authorization_code') {
      const c = f.code ? this.codes.get(f.code) : undefined;
      if (f.code) this.codes.delete(f.code);
      if (!c || c.expiresAt < this.now()) return err('invalid_grant', 'the code is unknown, used or expired');
      if (f.redirect_uri !== c.redirectUri) return err('invalid_grant', 'redirect_uri does not match the authorization request');
      const challenge = f.code_verifier ? b64url(createHash('sha256').update(f.code_verifier).digest()) : '';
      if (challenge !== c.codeChallenge) return err('invalid_grant', 'PKCE verification failed');
      return { status: 200, body: this.issue(c.patientId, c.scope) };
    }
    if (f.grant_type === 'refresh_token') {
      const r = f.refresh_token ? this.refresh.get(f.refresh_token) : undefined;
      if (!r) return err('invalid_grant', 'unknown refresh token');
      return { status: 200, body: this.issue(r.patientId, r.scope, f.refresh_token) };
    }
    return err('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }

  /** The grant behind a bearer token, or undefined. */
  grant(authorization: string | undefined): Grant | undefined {
    const m = /^Bearer (\S+)$/i.exec(authorization ?? '');
    const g = m ? this.access.get(m[1]!) : undefined;
    return g && g.expiresAt >= this.now() ? g : undefined;
  }

  /** Tests only: forget every token (as a payer revoking access would). */
  revokeAll(): void {
    this.access.clear();
    this.refresh.clear();
  }
}
