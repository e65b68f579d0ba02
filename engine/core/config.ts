import { resolve } from 'node:path';
import { z } from 'zod';

/**
 * Configuration, parsed once from the environment and frozen (STYLE.md 6). Nothing else reads
 * `process.env`. A bad value stops start-up with one line naming the variable (issue 2, item 3).
 */
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  PRICING_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** PEM or JWK-set JSON of the OAuth signing keys; generated under DATA_DIR when absent. */
  OIDC_JWKS: z.string().min(1).optional(),
  /** Secrets for oidc-provider's cookie signing, comma separated; generated under DATA_DIR when absent. */
  COOKIE_KEYS: z.string().min(1).optional(),
  /** Extra Origins allowed to call the MCP endpoint, comma separated (the service's own are always allowed). */
  MCP_ALLOWED_ORIGINS: z.string().optional(),
  /** Trust X-Forwarded-For from this many proxies (rate limits key on client IP). */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  /** Outgoing mail (verification, password reset); without it mail goes to DATA_DIR/mail. */
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  /** Sender address of that mail; default no-reply@ the BASE_URL host. */
  MAIL_FROM: z.string().min(3).max(320).optional(),
});

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly baseUrl: string;
  readonly pricingUrl: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  readonly oidcJwks: string | undefined;
  readonly cookieKeys: readonly string[] | undefined;
  readonly mcpAllowedOrigins: readonly string[];
  readonly trustProxy: number;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** What each variable accepts, for the one-line error. */
const ACCEPTS: Record<string, string> = {
  PORT: 'an integer from 0 to 65535',
  HOST: 'a host name or IP address',
  BASE_URL: 'an http(s) origin such as https://carebridge.example',
  PRICING_URL: 'an http(s) origin such as https://pricing.carebridge.example',
  DATA_DIR: 'a directory path',
  DATABASE_URL: 'a postgres:// or postgresql:// connection URL',
  LOG_LEVEL: 'one of fatal, error, warn, info, debug, trace, silent',
  TRUST_PROXY: 'an integer from 0 to 10',
  SMTP_URL: 'an smtp:// or smtps:// URL such as smtp://user:pass@mail.example:587',
  MAIL_FROM: 'a sender address such as carebridge <no-reply@carebridge.example>',
};

function origin(u: string): string {
  return new URL(u).origin;
}

/** Parses the environment. Throws ConfigError with one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const picked = Object.fromEntries(
    Object.keys(EnvSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]),
  );
  const parsed = EnvSchema.safeParse(picked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`${name}=${JSON.stringify(picked[name] ?? '')} is invalid: expected ${ACCEPTS[name] ?? issue.message}`);
  }
  const e = parsed.data;
  const hostForUrl = e.HOST === '0.0.0.0' || e.HOST === '::' ? '127.0.0.1' : e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST;
  const local = `http://${hostForUrl}:${e.PORT}`;
  const baseUrl = origin(e.BASE_URL ?? local);
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    pricingUrl: origin(e.PRICING_URL ?? baseUrl),
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    logLevel: e.LOG_LEVEL,
    oidcJwks: e.OIDC_JWKS,
    cookieKeys: e.COOKIE_KEYS?.split(',').map((s) => s.trim()).filter(Boolean),
    mcpAllowedOrigins: (e.MCP_ALLOWED_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean).map(origin),
    trustProxy: e.TRUST_PROXY,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? `carebridge <no-reply@${new URL(baseUrl).hostname}>`,
  });
}
