import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../../engine/core/config.ts';
import type { Clock } from '../../engine/ports/clock.ts';
import type { Db } from '../../engine/ports/db.ts';
import type { Mailer } from '../../engine/ports/mailer.ts';

/** What a verified bearer token says about its holder. */
export interface VerifiedToken {
  userId: string;
  clientId: string;
  scopes: string[];
  /** Audience (resource indicator) the token was issued for. */
  audience: string | string[] | undefined;
  expiresAt: number;
}

/**
 * The OAuth 2.1 authorization server (oidc-provider) and its bearer verification, as one unit the
 * app mounts. Implemented in this folder (issue 2, item 8).
 */
export interface Identity {
  /** Mounts /oauth/*, sign-up/sign-in/consent pages and the discovery documents on the main host. */
  mount(app: FastifyInstance): Promise<void>;
  /**
   * Verifies an access token; null when missing, expired, revoked or foreign. `accept` lists the
   * audiences the calling host takes (api/rest/auth.ts acceptedAudiences); default: any of this
   * service's (BASE_URL, PRICING_URL).
   */
  verifyAccessToken(token: string, accept?: readonly string[]): Promise<VerifiedToken | null>;
  /** RFC 9728 protected-resource metadata URL, for WWW-Authenticate. */
  resourceMetadataUrl(): string;
  close(): Promise<void>;
}

export interface IdentityDeps {
  config: Config;
  db: Db;
  log: Logger;
  /** Default: openMailer(config) (SMTP_URL, else the DATA_DIR/mail outbox). */
  mailer?: Mailer;
  clock?: Clock;
}
