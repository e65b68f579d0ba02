/**
 * Minimal typings for oidc-provider 9 (the package ships none and @types/oidc-provider is not
 * installed). Only what api/identity uses is declared; see the library's docs/README.md for the
 * full configuration reference.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** A stored model payload (token, code, session, client, grant …). */
  export interface AdapterPayload {
    [key: string]: unknown;
    jti?: string;
    grantId?: string;
    userCode?: string;
    uid?: string;
    consumed?: unknown;
  }

  /** The storage adapter contract (docs: "adapter"). One instance per model name. */
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface ClientModel {
    clientId: string;
    clientName?: string;
    clientUri?: string;
    applicationType: 'web' | 'native';
    clientAuthMethod: string;
    redirectUris: string[];
    grantTypeAllowed(type: string): boolean;
  }

  export interface ClientStatic {
    find(id: string): Promise<ClientModel | undefined>;
    prototype: ClientModel & { redirectUriAllowed(value: string): boolean };
  }

  export interface GrantModel {
    jti?: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface GrantStatic {
    new (init: { accountId: string; clientId: string }): GrantModel;
    find(id: string): Promise<GrantModel | undefined>;
  }

  export interface AccessTokenModel {
    jti: string;
    accountId: string;
    clientId: string;
    grantId?: string;
    scope?: string;
    aud?: string | string[];
    exp?: number;
    isExpired: boolean;
    consumed?: unknown;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId: string; uid: string; cookie: string };
    grantId?: string;
    lastSubmission?: Record<string, unknown>;
  }

  /** The `ctx` oidc-provider hands to configuration helpers (a Koa context with `oidc`). */
  export interface OidcContext {
    oidc: {
      route?: string;
      client?: ClientModel;
      params?: Record<string, unknown>;
      result?: { consent?: { grantId?: string } };
      session?: { grantIdFor(clientId: string): string | undefined };
      [key: string]: unknown;
    };
    type: string;
    body: unknown;
    set(name: string, value: string): void;
    status: number;
    [key: string]: unknown;
  }

  export interface ErrorOut {
    error: string;
    error_description?: string;
    [key: string]: unknown;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    proxy: boolean;
    maxIpsCount: number;
    readonly issuer: string;
    readonly Client: ClientStatic;
    readonly Grant: GrantStatic;
    readonly AccessToken: { find(value: string): Promise<AccessTokenModel | undefined> };
    readonly Session: unknown;
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    use(middleware: (ctx: OidcContext, next: () => Promise<void>) => Promise<void>): void;
  }

  type OidcErrorClass = new (description?: string, detail?: string) => Error & { status: number; error: string; error_description?: string };
  export const errors: {
    InvalidTarget: OidcErrorClass;
    InvalidRequest: OidcErrorClass;
    InvalidGrant: OidcErrorClass;
    InvalidClientMetadata: OidcErrorClass;
    InvalidRedirectUri: OidcErrorClass;
    AccessDenied: OidcErrorClass;
    [name: string]: OidcErrorClass | undefined;
  };

  export namespace interactionPolicy {
    class Check {
      static readonly REQUEST_PROMPT: true;
      static readonly NO_NEED_TO_PROMPT: false;
      constructor(reason: string, description: string, error: string, check: (ctx: OidcContext) => boolean | Promise<boolean>);
    }
    interface Prompt {
      name: string;
      checks: Check[];
    }
    interface Policy extends Array<Prompt> {
      get(name: string): Prompt | undefined;
    }
    function base(): Policy;
  }
}
