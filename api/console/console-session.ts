/**
 * The clinician console's cookies (issue 35, item 4). The console is a first-party public OAuth
 * client of our own authorization server (authorization code + PKCE S256); after the code
 * exchange the access token lives only inside an AES-256-GCM sealed, HttpOnly, SameSite=Lax cookie
 * scoped to /console, with the session's CSRF token. Sealed (not just signed) so the bearer token
 * never sits readable in the browser; the key is derived from the OAuth server's cookie keys.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export const CONSOLE_CLIENT_ID = 'carebridge-console';
export const SESSION_COOKIE = 'cb_console';
export const AUTH_COOKIE = 'cb_console_auth';

/** The signed-in session: access token, its expiry (epoch ms) and the per-session CSRF token. */
export interface ConsoleSession { token: string; csrf: string; exp: number }
/** An authorization in flight: state and PKCE verifier, until the callback; `next`: where to land after. */
export interface PendingAuth { state: string; verifier: string; exp: number; next?: string }

export class CookieSealer {
  readonly #key: Buffer;
  constructor(secret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'carebridge', 'console-session-v1', 32));
  }
  seal(value: object): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([c.update(JSON.stringify(value), 'utf8'), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url');
  }
  /** The sealed value, or null when tampered with, foreign or expired (`exp` in epoch ms). */
  open<T extends { exp: number }>(sealed: string | undefined, now: number): T | null {
    if (!sealed || sealed.length > 4096) return null;
    try {
      const raw = Buffer.from(sealed, 'base64url');
      if (raw.length < 29) return null;
      const d = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(12, 28));
      const v = JSON.parse(Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8')) as T;
      return typeof v?.exp === 'number' && v.exp > now ? v : null;
    } catch {
      return null;
    }
  }
}

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function sameToken(a: unknown, b: string): boolean {
  if (typeof a !== 'string' || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** Reads one cookie from a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A session cookie scoped to `path` (default the console's; the care-job approval page scopes its own). */
export function setCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean, path = '/console'): string {
  return `${name}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The token checker the session needs (api/identity/identity.ts Identity.verifyAccessToken). */
export interface TokenVerifier {
  verifyAccessToken(token: string, accept?: string[]): Promise<{ userId: string; clientId: string; scopes: readonly string[] } | null>;
}

/**
 * The signed-in user behind a sealed session cookie, or null (no, bad or expired cookie, or a
 * token the OAuth server no longer accepts). Shared by the console pages and the care-team pages.
 */
export async function readSession(cookieHeader: string | undefined, cookie: string, sealer: CookieSealer, identity: TokenVerifier, baseUrl: string, now: number)
  : Promise<{ session: ConsoleSession; userId: string; clientId: string; scopes: readonly string[] } | null> {
  const session = sealer.open<ConsoleSession>(readCookie(cookieHeader, cookie), now);
  if (!session) return null;
  const v = await identity.verifyAccessToken(session.token, [baseUrl]);
  return v ? { session, userId: v.userId, clientId: v.clientId, scopes: v.scopes } : null;
}

/** A landing path after sign-in: only a path on this host under `prefix` (no open redirect). */
export function safeNext(next: unknown, prefix: string): string | undefined {
  return typeof next === 'string' && next.length <= 300 && next.startsWith(`${prefix}/`) && /^[A-Za-z0-9_\-/.~]+$/.test(next) && !next.includes('..') ? next : undefined;
}
