/**
 * Outbound HTTP to URLs that callers or files supply (webhook deliveries, media fetched by URL),
 * as a port: the one guard of engine/adapters/outbound-guard.ts implements it. One guard per
 * process, created by the composition root (api/app.ts) and handed to handlers as
 * `ctx.ports.outbound` and to workers through the same ports.
 */
export interface OutboundRequestOptions {
  method?: 'GET' | 'POST' | 'HEAD' | 'PUT' | undefined;
  headers?: Record<string, string> | undefined;
  body?: string | Buffer | undefined;
  /** Whole-request time limit in ms (connect, headers and body), default 10 s. */
  timeoutMs?: number | undefined;
  /** Largest body read; more throws ResponseTooLargeError (default 8 MiB). */
  maxBytes?: number | undefined;
  /** Redirects followed, each re-checked by the guard (default 0: a 3xx is returned as it is). */
  maxRedirects?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, at most `maxBytes` (a larger one throws ResponseTooLargeError). */
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
}

/** An address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface Outbound {
  /** True when the guard refuses `address` (an IP literal). */
  isBlocked(address: string): boolean;
  /** True when `address` is private but OUTBOUND_ALLOWLIST lets it through (a local or internal receiver). */
  isAllowlisted(address: string): boolean;
  /** The problem with a URL's host before any DNS (IP literal in a blocked range, localhost), or undefined. */
  urlProblem(url: URL): string | undefined;
  /**
   * Resolves a URL's host and checks every address (save time); throws an error with code
   * ERR_BLOCKED_ADDRESS naming the address. Returns the addresses checked (the literal itself for an IP host).
   */
  check(url: URL): Promise<ResolvedAddress[]>;
  /** One request; its connection goes only to an address the guard checked at connect time. */
  request(url: string | URL, o?: OutboundRequestOptions): Promise<OutboundResponse>;
}

declare module '../core/context.ts' {
  interface Ports {
    /** The outbound guard (absent on the pricing-only host). */
    outbound?: Outbound;
  }
}
