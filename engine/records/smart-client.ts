/**
 * Our side of a SMART App Launch 2 standalone launch (https://hl7.org/fhir/smart-app-launch/):
 * authorization code with PKCE S256, `aud` = the payer's FHIR base, and the token response's
 * `patient` launch context naming the member's FHIR Patient id.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../ports/clock.ts';
import { PayerHttpError, type PayerClient, type RecordsPayer, type TokenSet } from './records.ports.ts';

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256(s: string): string {
  return createHash('sha256').update(s).digest('base64url');
}

/** The URL the user opens at the payer (RFC 6749 §4.1.1, RFC 7636, SMART `aud`). */
export function authorizationUrl(payer: RecordsPayer, a: { state: string; verifier: string; redirectUri: string }): string {
  const u = new URL(payer.authorizeUrl);
  u.search = new URLSearchParams({
    response_type: 'code',
    client_id: payer.clientId,
    redirect_uri: a.redirectUri,
    scope: payer.scope,
    state: a.state,
    aud: payer.fhirBaseUrl,
    code_challenge: sha256(a.verifier),
    code_challenge_method: 'S256',
  }).toString();
  return u.toString();
}

const TokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().regex(/^bearer$/i),
  expires_in: z.number().int().positive().optional(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
  patient: z.string().min(1).optional(),
});

export interface TokenResult {
  tokens: TokenSet;
  scope: string | null;
  patient: string | null;
}

async function tokenRequest(payer: RecordsPayer, form: Record<string, string>, client: PayerClient, clock: Clock): Promise<TokenResult> {
  const body = { ...form, client_id: payer.clientId, ...(payer.clientSecret ? { client_secret: payer.clientSecret } : {}) };
  const parsed = TokenResponseSchema.safeParse(await client.postForm(payer.tokenUrl, body));
  if (!parsed.success) throw new PayerHttpError(502, payer.tokenUrl, 'the payer\'s token response was not a bearer token response');
  const t = parsed.data;
  return {
    tokens: {
      accessToken: t.access_token,
      refreshToken: t.refresh_token ?? null,
      expiresAt: t.expires_in ? clock.now().getTime() + t.expires_in * 1000 : null,
    },
    scope: t.scope ?? null,
    patient: t.patient ?? null,
  };
}

/** Exchanges the authorization code (with the PKCE verifier). */
export function exchangeCode(payer: RecordsPayer, a: { code: string; verifier: string; redirectUri: string }, client: PayerClient, clock: Clock): Promise<TokenResult> {
  return tokenRequest(payer, { grant_type: 'authorization_code', code: a.code, redirect_uri: a.redirectUri, code_verifier: a.verifier }, client, clock);
}

/** Refreshes the access token; a payer that rotates refresh tokens sends a new one. */
export async function refreshTokens(payer: RecordsPayer, refreshToken: string, client: PayerClient, clock: Clock): Promise<TokenResult> {
  const r = await tokenRequest(payer, { grant_type: 'refresh_token', refresh_token: refreshToken }, client, clock);
  return { ...r, tokens: { ...r.tokens, refreshToken: r.tokens.refreshToken ?? refreshToken } };
}
