/**
 * GET /api/pricing.v1, the pricing API index (service-spec.md, Pricing and Versioning): name,
 * apiVersion, dataVintage of the current snapshot (null when none is published), region, auth,
 * docs, endpoints, rateLimits, disclaimer, terms, contact. Answers without a snapshot so an
 * operator can see the state.
 */
import type { HandlerContext } from '../core/context.ts';
import { contactFor, disclaimer } from './words.ts';

/** The anonymous per-IP limits (service-spec.md, Limits), as the index reports them. */
export const PRICING_RATE_LIMIT_WORDS = {
  anonymous: {
    'network-status': { requests: 20, per: 'minute', key: 'client IP' },
    'provider-evidence': { requests: 60, per: 'minute', key: 'client IP' },
  },
  authenticated: 'A valid bearer token is not counted against the anonymous limits; the service applies general abuse limits.',
  onLimit: 'HTTP 429 with {error, message, field, retryAfterSeconds} and a Retry-After header.',
} as const;

export interface PricingIndexResponse {
  name: string;
  apiVersion: string;
  dataVintage: string | null;
  region: string;
  auth: string;
  docs: Record<string, unknown>;
  endpoints: Record<string, unknown>[];
  rateLimits: Record<string, unknown>;
  disclaimer: string;
  terms: string;
  contact: string;
}

/** Handler for GET /api/pricing.v1. */
export async function pricingIndex(ctx: HandlerContext): Promise<PricingIndexResponse> {
  const snap = ctx.ports.pricing?.snapshot() ?? null;
  const p = ctx.urls.pricingUrl;
  const b = ctx.urls.baseUrl;
  const vintage = snap ? `${snap.dataVintage}${snap.synthetic ? ' (includes SYNTHETIC demo data)' : ''}` : null;
  return {
    name: 'carebridge pricing',
    apiVersion: 'v1',
    dataVintage: vintage,
    region: 'United States (prices and networks from US health insurers\' Transparency in Coverage files; Medicare figures national, per locality)',
    auth: `Optional on ${p}/api/pricing.v1: anonymous calls resolve the plan from planHints only and are rate limited per IP; an OAuth 2 bearer token (authorization server metadata at ${b}/.well-known/oauth-authorization-server) adds linked-coverage plan matching and family-member patientId. ${b}/api/pricing/* requires a bearer token.`,
    docs: {
      openapi: `${b}/api/openapi.json`,
      mcp: `${b}/.well-known/mcp.json`,
      payers: `${p}/api/pricing.v1/payers`,
      consumerRules: 'Read plan.basis before quoting; relay every note-style field and the disclaimer as written; answer needsMoreInfo asks; inNetwork false means not found in the published files, never a hard out-of-network verdict; null means unknown (networkStatus says why).',
      snapshot: snap ? { id: snap.id, createdAt: snap.createdAt, synthetic: snap.synthetic } : null,
    },
    endpoints: [
      { method: 'GET', path: '/api/pricing.v1', host: p, auth: 'optional', purpose: 'this index' },
      { method: 'POST', path: '/api/pricing.v1/network-status', host: p, auth: 'optional', purpose: 'network status, negotiated rates, patient share and Medicare anchors for a named provider', rateLimit: '20 per minute per IP (anonymous)' },
      { method: 'POST', path: '/api/pricing.v1/provider-evidence', host: p, auth: 'optional', purpose: 'public-data evidence about one provider by NPI', rateLimit: '60 per minute per IP (anonymous)' },
      { method: 'GET', path: '/api/pricing.v1/payers', host: p, auth: 'optional', purpose: 'payers covered and the names planHints.payerName accepts' },
      { method: 'POST', path: '/api/pricing/network-status', host: b, auth: 'bearer required', purpose: 'network status with linked coverage and patientId' },
      { method: 'POST', path: '/api/pricing/provider-evidence', host: b, auth: 'bearer required', purpose: 'provider evidence with patientId' },
    ],
    rateLimits: { ...PRICING_RATE_LIMIT_WORDS },
    disclaimer: disclaimer(),
    terms: 'Information service only: estimates from public price-transparency files and federal data, not a quote, coverage decision or medical advice. Do not resell the data as a guarantee of price or network status; relay the disclaimer and notes with any figure.',
    contact: contactFor(b),
  };
}
