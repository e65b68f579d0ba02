/**
 * The health-records area's ports (STYLE.md 3), added to the handler context by declaration
 * merging. The composition root (api/app.ts) builds them: the payers from configuration, the
 * undici FHIR client (adapters/fhir-client.undici.ts), the token box, and the sync runner.
 */
import type { RecordsPayer } from '../core/config.ts';

export type { RecordsPayer } from '../core/config.ts';

/** Tokens the payer's authorization server issued for one patient. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  /** Epoch milliseconds, or null when the server gave no lifetime. */
  expiresAt: number | null;
}

/** An HTTP answer other than 2xx from a payer (its status drives the sync note). */
export class PayerHttpError extends Error {
  override name = 'PayerHttpError';
  readonly status: number;
  readonly url: string;
  constructor(status: number, url: string, message: string) {
    super(message);
    this.status = status;
    this.url = url;
  }
}

/**
 * Outbound calls to payers. The adapter refuses any URL that is not under a configured payer's
 * endpoints (a `next` link elsewhere is an error, never followed), and times every call out.
 */
export interface PayerClient {
  /** GET a FHIR JSON document with the bearer token. */
  getJson(url: string, accessToken: string): Promise<unknown>;
  /** POST a form to a token endpoint (authorization_code or refresh_token grant); the JSON answer. */
  postForm(url: string, form: Record<string, string>): Promise<unknown>;
}

/** Symmetric encryption of secrets at rest (PKCE verifiers, payer tokens). */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

export interface RecordsPorts {
  payers: readonly RecordsPayer[];
  client: PayerClient;
  box: SecretBox;
  /** Where payers send the browser back (`{BASE_URL}/records/callback`). */
  redirectUri: string;
  /** Starts a sync of this patient's connection in the background (a job once the platform's queue lands). */
  startSync(patientId: string): void;
}

declare module '../core/context.ts' {
  interface Ports {
    records?: RecordsPorts;
  }
}
