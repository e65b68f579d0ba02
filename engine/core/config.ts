import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { z } from 'zod';

function splitList(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** Every entry an IP address or a CIDR with a prefix length that fits its family. */
function allowlistOk(raw: string): boolean {
  return splitList(raw).every((entry) => {
    const [addr = '', bits] = entry.split('/');
    const fam = isIP(addr);
    if (!fam) return false;
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (fam === 4 ? 32 : 128));
  });
}

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
  /** ISO 3166-2 regions where care is offered now, comma separated (service-spec.md: US-CA). */
  CARE_REGIONS: z.string().regex(/^\s*[A-Za-z]{2}-[A-Za-z0-9]{1,3}\s*(,\s*[A-Za-z]{2}-[A-Za-z0-9]{1,3}\s*)*$/).default('US-CA'),
  /** How long a send with waitForReply (and wait_for_reply) waits for the next reply, in seconds. */
  CARE_REPLY_WAIT_SECONDS: z.coerce.number().int().min(1).max(55).default(55),
  /** OpenAI-compatible chat completions base URL for the LLM triage engine (unset: rules engine only). */
  TRIAGE_LLM_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Bearer key for TRIAGE_LLM_URL (optional: local servers may need none). */
  TRIAGE_LLM_API_KEY: z.string().min(1).optional(),
  /** Model name sent to TRIAGE_LLM_URL; required with it. */
  TRIAGE_LLM_MODEL: z.string().min(1).max(200).optional(),
  /** Timeout of one LLM triage call in ms. */
  TRIAGE_LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(20_000),
  /** Payments (issue 35): the embedded offline processor, or Stripe. */
  PAYMENT_PROCESSOR: z.enum(['embedded', 'stripe']).default('embedded'),
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_[A-Za-z0-9+/=]+$/).optional(),
  /** Tests only: a local stand-in for api.stripe.com. */
  STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).optional(),
  /** Price of one visit hold in cents (USD); default 4900 = $49.00. */
  VISIT_PRICE_CENTS: z.coerce.number().int().min(50).max(1_000_000).default(4900),
  /** Seconds a paid visit request waits for a clinician to accept before the hold is released (default 15 min). */
  MATCHING_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  /** The embedded pharmacy partner's pace: seconds between the steps of an order's lifecycle (docs/prescriptions.md). */
  PHARMACY_PARTNER_STEP_SECONDS: z.coerce.number().int().min(0).max(86_400).default(20),
  /** How often missed pharmacy-partner events are pulled (the reconciliation job); 0 turns the timer off. */
  PHARMACY_RECONCILE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(30),
  /** Payers' Patient Access APIs for health records, a JSON array (see RecordsPayerSchema); default: the embedded sandbox. */
  RECORDS_PAYERS: z.string().optional(),
  /** Serve the embedded sandbox payer under /sandbox-payer (on by default). */
  RECORDS_SANDBOX: z.enum(['on', 'off']).default('on'),
  /** 32-byte key (base64) that encrypts payer tokens at rest; generated under DATA_DIR/keys when absent. */
  RECORDS_TOKEN_KEY: z.string().regex(/^[A-Za-z0-9+/_-]{43}=?$/, '32 bytes, base64').optional(),
  /** Private addresses outbound requests may reach (a local webhook receiver, an internal mirror). */
  OUTBOUND_ALLOWLIST: z.string().refine(allowlistOk).optional(),
  /** Where media in conversations is kept (issue 39, item 3): files under DATA_DIR/media, or S3. */
  MEDIA_STORE: z.enum(['files', 's3']).default('files'),
  MEDIA_S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/).optional(),
  MEDIA_S3_REGION: z.string().regex(/^[a-z0-9-]{2,40}$/).default('us-east-1'),
  /** An S3-compatible endpoint (MinIO, a local server); default AWS. */
  MEDIA_S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  MEDIA_S3_FORCE_PATH_STYLE: z.enum(['on', 'off']).default('off'),
  MEDIA_S3_PREFIX: z.string().regex(/^[A-Za-z0-9!_.*'()/-]{0,200}$/).default('media/'),
  MEDIA_S3_ACCESS_KEY_ID: z.string().min(1).max(200).optional(),
  MEDIA_S3_SECRET_ACCESS_KEY: z.string().min(1).max(200).optional(),
});

/**
 * One payer's SMART on FHIR Patient Access endpoints (issue 36, item 2). `clientSecret` only for a
 * confidential client registration; public clients rely on PKCE alone.
 */
const RecordsPayerSchema = z.object({
  key: z.string().regex(/^[a-z0-9-]{1,40}$/),
  label: z.string().min(1).max(200),
  fhirBaseUrl: z.url({ protocol: /^https?$/ }),
  authorizeUrl: z.url({ protocol: /^https?$/ }),
  tokenUrl: z.url({ protocol: /^https?$/ }),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1).optional(),
  scope: z.string().min(1).default('launch/patient openid fhirUser offline_access patient/*.rs'),
}).strict();
export type RecordsPayer = z.output<typeof RecordsPayerSchema>;

/** The embedded sandbox payer's key; its endpoints live under BASE_URL/sandbox-payer. */
export const SANDBOX_PAYER_KEY = 'sandbox';

function sandboxPayer(baseUrl: string): RecordsPayer {
  return {
    key: SANDBOX_PAYER_KEY,
    label: 'Golden Poppy Health Plan (synthetic demo sandbox)',
    fhirBaseUrl: `${baseUrl}/sandbox-payer/fhir`,
    authorizeUrl: `${baseUrl}/sandbox-payer/authorize`,
    tokenUrl: `${baseUrl}/sandbox-payer/token`,
    clientId: 'carebridge',
    scope: 'launch/patient openid fhirUser offline_access patient/*.rs',
  };
}

/** MEDIA_STORE=s3: the bucket and how to reach it. */
export interface MediaS3Config {
  readonly bucket: string;
  readonly region: string;
  readonly endpoint: string | undefined;
  readonly forcePathStyle: boolean;
  readonly prefix: string;
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
}

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
  readonly careRegions: readonly string[];
  readonly careReplyWaitMs: number;
  /** MATCHING_TIMEOUT_SECONDS: how long a paid request waits for a clinician. */
  readonly matchingTimeoutSeconds: number;
  /** PHARMACY_PARTNER_STEP_SECONDS and PHARMACY_RECONCILE_SECONDS (engine/prescriptions). */
  readonly pharmacy: { readonly stepSeconds: number; readonly reconcileSeconds: number };
  /** The LLM triage engine, when TRIAGE_LLM_URL and TRIAGE_LLM_MODEL are set (issue 34, item 3). */
  readonly triageLlm: { readonly url: string; readonly apiKey: string | undefined; readonly model: string; readonly timeoutMs: number } | undefined;
  readonly payments: {
    readonly processor: 'embedded' | 'stripe';
    readonly stripeSecretKey: string | undefined;
    readonly stripeWebhookSecret: string | undefined;
    readonly stripeApiBase: string | undefined;
    readonly visitPriceCents: number;
    /** ISO 4217, lower case as Stripe writes it. The service serves US regions. */
    readonly currency: 'usd';
  };
  /** Payers a user can link health records from; the first is the default. */
  readonly recordsPayers: readonly RecordsPayer[];
  readonly recordsSandbox: boolean;
  readonly recordsTokenKey: string | undefined;
  /** OUTBOUND_ALLOWLIST: IPs and CIDRs the outbound guard lets through although private. */
  readonly outboundAllowlist: readonly string[];
  /** MEDIA_STORE: files under DATA_DIR/media (default), or S3 (`mediaS3` set). */
  readonly mediaStore: 'files' | 's3';
  readonly mediaS3: MediaS3Config | undefined;
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
  CARE_REGIONS: 'comma-separated ISO 3166-2 codes such as US-CA',
  CARE_REPLY_WAIT_SECONDS: 'an integer from 1 to 55',
  TRIAGE_LLM_URL: 'an http(s) base URL of an OpenAI-compatible API, such as https://api.openai.com/v1',
  TRIAGE_LLM_MODEL: 'a model name; set it together with TRIAGE_LLM_URL',
  TRIAGE_LLM_TIMEOUT_MS: 'an integer from 100 to 120000 (milliseconds)',
  PAYMENT_PROCESSOR: 'embedded or stripe',
  STRIPE_SECRET_KEY: 'a Stripe secret key (sk_test_… or sk_live_…); required with PAYMENT_PROCESSOR=stripe',
  STRIPE_WEBHOOK_SECRET: 'a Stripe webhook signing secret (whsec_…); required with PAYMENT_PROCESSOR=stripe',
  STRIPE_API_BASE: 'an http(s) URL such as http://127.0.0.1:12111',
  VISIT_PRICE_CENTS: 'an integer number of cents from 50 to 1000000',
  MATCHING_TIMEOUT_SECONDS: 'an integer number of seconds from 1 to 86400',
  PHARMACY_PARTNER_STEP_SECONDS: 'an integer number of seconds from 0 to 86400',
  PHARMACY_RECONCILE_SECONDS: 'an integer number of seconds from 0 (off) to 86400',
  RECORDS_PAYERS: 'a JSON array of {key, label, fhirBaseUrl, authorizeUrl, tokenUrl, clientId, clientSecret?, scope?}',
  RECORDS_SANDBOX: 'on or off',
  RECORDS_TOKEN_KEY: '32 bytes in base64',
  OUTBOUND_ALLOWLIST: 'comma-separated IP addresses or CIDRs such as 127.0.0.1,10.1.0.0/16',
  MEDIA_STORE: 'files or s3',
  MEDIA_S3_BUCKET: 'an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens); required with MEDIA_STORE=s3',
  MEDIA_S3_REGION: 'an AWS region such as us-east-1',
  MEDIA_S3_ENDPOINT: 'an http(s) URL of an S3-compatible server such as http://127.0.0.1:9000',
  MEDIA_S3_FORCE_PATH_STYLE: 'on or off',
  MEDIA_S3_PREFIX: 'an object key prefix such as media/',
  MEDIA_S3_ACCESS_KEY_ID: 'an access key id; set it together with MEDIA_S3_SECRET_ACCESS_KEY',
  MEDIA_S3_SECRET_ACCESS_KEY: 'a secret access key; set it together with MEDIA_S3_ACCESS_KEY_ID',
};

function parsePayers(raw: string | undefined, baseUrl: string, sandbox: boolean): RecordsPayer[] {
  // The value is not echoed: it may hold a client secret.
  const fail = () => new ConfigError(`RECORDS_PAYERS is invalid: expected ${ACCEPTS.RECORDS_PAYERS}, keys unique`);
  if (raw === undefined) return sandbox ? [sandboxPayer(baseUrl)] : [];
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw fail();
  }
  const r = z.array(RecordsPayerSchema).max(50).safeParse(json);
  if (!r.success) throw fail();
  if (new Set(r.data.map((p) => p.key)).size !== r.data.length) throw fail();
  return r.data;
}

function origin(u: string): string {
  return new URL(u).origin;
}

/** Variables whose values are secrets (or URLs that may carry a password): never echoed in an error. */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD|OIDC_JWKS|COOKIE_KEYS|RECORDS_PAYERS|DATABASE_URL|SMTP_URL/;

/** The value as the one-line error shows it: quoted, or `(hidden, N characters)` for a secret. */
function shown(name: string, value: string | undefined): string {
  if (value === undefined) return '""';
  return SECRET_NAME.test(name) ? `(hidden, ${value.length} characters)` : JSON.stringify(value);
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
    throw new ConfigError(`${name}=${shown(name, picked[name])} is invalid: expected ${ACCEPTS[name] ?? issue.message}`);
  }
  const e = parsed.data;
  if (e.TRIAGE_LLM_URL && !e.TRIAGE_LLM_MODEL) {
    throw new ConfigError(`TRIAGE_LLM_MODEL="" is invalid: expected ${ACCEPTS.TRIAGE_LLM_MODEL}`);
  }
  if (e.PAYMENT_PROCESSOR === 'stripe') {
    for (const name of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const) {
      if (!e[name]) throw new ConfigError(`${name}="" is invalid: expected ${ACCEPTS[name]}`);
    }
  }
  if (e.MEDIA_STORE === 's3' && !e.MEDIA_S3_BUCKET) throw new ConfigError(`MEDIA_S3_BUCKET="" is invalid: expected ${ACCEPTS.MEDIA_S3_BUCKET}`);
  if (Boolean(e.MEDIA_S3_ACCESS_KEY_ID) !== Boolean(e.MEDIA_S3_SECRET_ACCESS_KEY)) {
    const missing = e.MEDIA_S3_ACCESS_KEY_ID ? 'MEDIA_S3_SECRET_ACCESS_KEY' : 'MEDIA_S3_ACCESS_KEY_ID';
    throw new ConfigError(`${missing}="" is invalid: expected ${ACCEPTS[missing]}`);
  }
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
    careRegions: Object.freeze(e.CARE_REGIONS.split(',').map((r) => r.trim().toUpperCase()).filter(Boolean)),
    careReplyWaitMs: e.CARE_REPLY_WAIT_SECONDS * 1000,
    matchingTimeoutSeconds: e.MATCHING_TIMEOUT_SECONDS,
    pharmacy: Object.freeze({ stepSeconds: e.PHARMACY_PARTNER_STEP_SECONDS, reconcileSeconds: e.PHARMACY_RECONCILE_SECONDS }),
    triageLlm: e.TRIAGE_LLM_URL && e.TRIAGE_LLM_MODEL
      ? Object.freeze({ url: e.TRIAGE_LLM_URL, apiKey: e.TRIAGE_LLM_API_KEY, model: e.TRIAGE_LLM_MODEL, timeoutMs: e.TRIAGE_LLM_TIMEOUT_MS })
      : undefined,
    payments: Object.freeze({
      processor: e.PAYMENT_PROCESSOR,
      stripeSecretKey: e.STRIPE_SECRET_KEY,
      stripeWebhookSecret: e.STRIPE_WEBHOOK_SECRET,
      stripeApiBase: e.STRIPE_API_BASE,
      visitPriceCents: e.VISIT_PRICE_CENTS,
      currency: 'usd' as const,
    }),
    recordsPayers: Object.freeze(parsePayers(e.RECORDS_PAYERS, baseUrl, e.RECORDS_SANDBOX === 'on')),
    recordsSandbox: e.RECORDS_SANDBOX === 'on',
    recordsTokenKey: e.RECORDS_TOKEN_KEY,
    outboundAllowlist: Object.freeze(splitList(e.OUTBOUND_ALLOWLIST)),
    mediaStore: e.MEDIA_STORE,
    mediaS3: e.MEDIA_STORE === 's3' && e.MEDIA_S3_BUCKET
      ? Object.freeze({
        bucket: e.MEDIA_S3_BUCKET, region: e.MEDIA_S3_REGION, endpoint: e.MEDIA_S3_ENDPOINT, forcePathStyle: e.MEDIA_S3_FORCE_PATH_STYLE === 'on',
        prefix: e.MEDIA_S3_PREFIX, accessKeyId: e.MEDIA_S3_ACCESS_KEY_ID, secretAccessKey: e.MEDIA_S3_SECRET_ACCESS_KEY,
      })
      : undefined,
  });
}
