/**
 * Bearer authentication shared by REST and MCP (issue 2, item 9; RFC 6750 §3; RFC 9728 §5.1).
 * A missing token on a required route, or any invalid token, is a 401 whose WWW-Authenticate
 * header points at the protected-resource metadata so a client can start the OAuth flow.
 */
import type { Identity } from '../identity/identity.ts';
import type { AuthMode } from '../../engine/core/operation.ts';
import type { Caller } from '../../engine/core/context.ts';
import { AppError } from '../../engine/core/errors.ts';

function challenge(identity: Identity, invalid: boolean): string {
  const base = `Bearer resource_metadata="${identity.resourceMetadataUrl()}"`;
  return invalid ? `${base}, error="invalid_token", error_description="The access token is invalid or expired"` : base;
}

/** The 401 for a missing (invalid=false) or rejected (invalid=true) token. */
export function notAuthenticated(identity: Identity, invalid: boolean): AppError {
  return new AppError('not_authenticated',
    invalid ? 'The access token is invalid, expired or revoked; sign in again.' : 'Sign up or sign in to continue: send Authorization: Bearer <access token>.',
    { headers: { 'www-authenticate': challenge(identity, invalid) } });
}

/** Extracts the token from `Authorization: Bearer …`; undefined when the header is absent. */
export function bearerToken(header: string | undefined): string | undefined | null {
  if (header === undefined || header.trim() === '') return undefined;
  const m = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
  return m ? m[1]! : null; // null: present but malformed, treated as an invalid token
}

/**
 * The audiences a host accepts (RFC 8707 §2; RFC 9068 §4 "the resource server MUST validate the
 * aud"). The main host (REST `/api/*`, `/api/pricing/*`, MCP) accepts only tokens issued for
 * BASE_URL: a token a client obtained for the public pricing host must not unlock accounts. The
 * pricing host accepts its own audience and BASE_URL's (it serves public data; a main-host token
 * only lifts the anonymous rate limit there).
 */
export function acceptedAudiences(surface: 'main' | 'pricing', urls: { baseUrl: string; pricingUrl: string }): readonly string[] {
  return surface === 'main' ? [urls.baseUrl] : [urls.pricingUrl, urls.baseUrl];
}

/**
 * Resolves who is calling. `none` ignores credentials. `optional` accepts anonymous callers but
 * never downgrades a bad token to anonymous (a client that sent one wants to know it failed).
 * A valid token for another audience is refused like an invalid one (401 invalid_token).
 */
export async function resolveCaller(
  identity: Identity, mode: AuthMode, authorization: string | undefined, ip: string, audiences: readonly string[],
): Promise<Caller> {
  if (mode === 'none') return { kind: 'anonymous', ip };
  const token = bearerToken(authorization);
  if (token === undefined) {
    if (mode === 'required') throw notAuthenticated(identity, false);
    return { kind: 'anonymous', ip };
  }
  const verified = token === null ? null : await identity.verifyAccessToken(token, audiences);
  if (!verified) throw notAuthenticated(identity, true);
  return { kind: 'user', ip, userId: verified.userId, clientId: verified.clientId, scopes: verified.scopes };
}
