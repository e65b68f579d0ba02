/**
 * Security headers on every response (issue 38, item 6; OWASP ASVS 5 V3.4, OWASP Secure Headers):
 * one onRequest hook sets them on the raw Node response, so they also reach responses Fastify
 * does not write itself (oidc-provider's pages and JSON, which hijack the reply; MCP, written by
 * the SDK). A route that sends its own value (the care and sign-in pages' stricter CSP) wins,
 * because headers passed to writeHead override those set earlier with setHeader.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../engine/core/config.ts';
import { PAGE_HEADERS } from './web/render.ts';

/**
 * The default policy: nothing loads, nothing frames us, no <base> tricks. Inline styles are allowed
 * for the server-rendered pages. No `form-action`: oidc-provider's form_post page posts to the
 * client's redirect_uri on another origin, and browsers also apply form-action to the redirect
 * after a form post (the logout confirm, the sign-in forms).
 */
export const DEFAULT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

/** One year (the HSTS preload list's minimum); no includeSubDomains: other hosts are the operator's. */
export const HSTS_VALUE = 'max-age=31536000';

/** The headers set on every response for this configuration. */
export function securityHeaders(config: Pick<Config, 'baseUrl'>): Readonly<Record<string, string>> {
  return Object.freeze({
    'content-security-policy': DEFAULT_CSP,
    'x-frame-options': PAGE_HEADERS['x-frame-options']!,
    'referrer-policy': PAGE_HEADERS['referrer-policy']!,
    'x-content-type-options': PAGE_HEADERS['x-content-type-options']!,
    // HSTS is ignored over plain http (RFC 6797 §8.1); sent only when the public origin is https.
    ...(config.baseUrl.startsWith('https:') ? { 'strict-transport-security': HSTS_VALUE } : {}),
  });
}

/** Adds the security headers to every response of `app`. */
export function registerSecurityHeaders(app: FastifyInstance, config: Pick<Config, 'baseUrl'>): void {
  const headers = Object.entries(securityHeaders(config));
  app.addHook('onRequest', (_req, reply, done) => {
    for (const [k, v] of headers) reply.raw.setHeader(k, v);
    done();
  });
}

/**
 * `csp` with a `script-src` allowing exactly the inline scripts of `html` by their SHA-256 (CSP 3
 * hash sources). oidc-provider's form_post page auto-submits with one inline script; any other
 * script stays blocked.
 */
export function cspWithScriptHashes(csp: string, html: string): string {
  const hashes = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)]
    .map((m) => `'sha256-${createHash('sha256').update(m[1]!, 'utf8').digest('base64')}'`);
  if (hashes.length === 0) return csp;
  const rest = csp.split(';').map((d) => d.trim()).filter((d) => d && !d.startsWith('script-src'));
  return [...rest, `script-src ${[...new Set(hashes)].join(' ')}`].join('; ');
}
