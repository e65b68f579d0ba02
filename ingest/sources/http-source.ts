/**
 * HTTP(S) download as a byte stream (undici), built for multi-GB payer files over flaky links:
 * - redirects followed by hand (at most 5), so every hop passes the SSRF guard;
 * - the request is retried on network errors, 5xx and 429 with exponential backoff + full jitter;
 * - a body that breaks mid-way is resumed with `Range: bytes=<received>-` (+ `If-Range` with the
 *   ETag): a 206 whose Content-Range starts at that byte continues the stream; a 200 means the server
 *   ignores ranges, so the download restarts and the bytes already delivered are skipped (if the ETag
 *   changed meanwhile the source is refused rather than spliced from two versions).
 */
import { Agent, request, type Dispatcher } from 'undici';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertPublicUrl, BlockedAddressError, guardedLookup } from './ssrf.ts';
import { SourceError } from './source-error.ts';

export interface HttpOptions {
  signal?: AbortSignal | undefined;
  /** Retries per request / per resume (default 4). */
  retries?: number | undefined;
  /** First backoff step in ms (default 500; doubled each retry, full jitter). */
  retryBaseMs?: number | undefined;
  /** Headers and idle-body timeout in ms (default 60 s). */
  timeoutMs?: number | undefined;
  /** Allow loopback/private/link-local targets (default false: SSRF guard on). */
  allowPrivateNetwork?: boolean | undefined;
  /** A p-limit style limiter wrapped around each request (connection + headers). */
  fetchLimit?: (<T>(fn: () => Promise<T>) => Promise<T>) | undefined;
  maxRedirects?: number | undefined;
}

export interface HttpBody {
  url: string;
  contentLength: number | null;
  body: AsyncIterable<Uint8Array>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function backoff(base: number, attempt: number): number {
  return Math.random() * base * 2 ** attempt; // "full jitter" (AWS architecture blog, 2015)
}

function retryable(e: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return false;
  if (e instanceof BlockedAddressError) return false;
  if (e instanceof SourceError) return e.retryable;
  return true; // socket resets, timeouts, DNS hiccups
}

/** Opens `src` over HTTP(S): resolves once a 2xx response's headers arrived (errors are thrown here). */
export async function openHttp(src: string, o: HttpOptions = {}): Promise<HttpBody> {
  const retries = o.retries ?? 4;
  const base = o.retryBaseMs ?? 500;
  const timeout = o.timeoutMs ?? 60_000;
  const agent = new Agent({
    connect: o.allowPrivateNetwork ? {} : { lookup: guardedLookup as never },
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  const limit = o.fetchLimit ?? (<T>(fn: () => Promise<T>) => fn());

  /** One request with redirects; throws SourceError for HTTP statuses. */
  const once = async (url: string, headers: Record<string, string>): Promise<{ url: string; res: Dispatcher.ResponseData }> => {
    let current = new URL(url);
    for (let hop = 0; ; hop++) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:') throw new SourceError(`unsupported URL scheme ${current.protocol} (${current.href})`, 'http', { retryable: false });
      if (!o.allowPrivateNetwork) assertPublicUrl(current);
      const res = await limit(() => request(current, { dispatcher: agent, method: 'GET', headers, signal: o.signal }));
      if (REDIRECTS.has(res.statusCode)) {
        await res.body.dump();
        const loc = res.headers.location;
        if (typeof loc !== 'string') throw new SourceError(`HTTP ${res.statusCode} without Location from ${current.href}`, 'http', { retryable: false });
        if (hop >= (o.maxRedirects ?? 5)) throw new SourceError(`too many redirects (> ${o.maxRedirects ?? 5}) from ${url}`, 'http', { retryable: false });
        current = new URL(loc, current);
        continue;
      }
      if (res.statusCode >= 200 && res.statusCode < 300) return { url: current.href, res };
      await res.body.dump();
      const again = res.statusCode >= 500 || res.statusCode === 429 || res.statusCode === 408;
      throw new SourceError(`HTTP ${res.statusCode} from ${current.href}`, 'http', { retryable: again, status: res.statusCode });
    }
  };

  const withRetry = async (url: string, headers: Record<string, string>): Promise<{ url: string; res: Dispatcher.ResponseData }> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(url, headers);
      } catch (e) {
        if (attempt >= retries || !retryable(e, o.signal)) throw e;
        await sleep(backoff(base, attempt), undefined, { signal: o.signal });
      }
    }
  };

  let first: { url: string; res: Dispatcher.ResponseData };
  try {
    first = await withRetry(src, { 'accept-encoding': 'identity' });
  } catch (e) {
    await agent.close().catch(() => undefined);
    if (e instanceof SourceError || e instanceof BlockedAddressError || o.signal?.aborted) throw e;
    throw new SourceError(`cannot fetch ${src}: ${(e as Error).message}`, 'network', { retryable: false });
  }
  const finalUrl = first.url;
  const etag = typeof first.res.headers.etag === 'string' ? first.res.headers.etag : null;
  const lenHeader = first.res.headers['content-length'];
  const contentLength = typeof lenHeader === 'string' && /^\d+$/.test(lenHeader) ? Number(lenHeader) : null;

  async function* body(): AsyncGenerator<Uint8Array> {
    let res = first.res;
    let received = 0;
    let skip = 0; // bytes of a restarted (200) response that were already delivered
    let resumes = 0;
    try {
      for (;;) {
        try {
          for await (const chunk of res.body as AsyncIterable<Buffer>) {
            let c: Buffer = chunk;
            if (skip > 0) {
              if (c.length <= skip) { skip -= c.length; continue; }
              c = c.subarray(skip);
              skip = 0;
            }
            received += c.length;
            yield c;
          }
          if (contentLength !== null && received < contentLength && skip === 0) {
            throw new SourceError(`connection closed after ${received} of ${contentLength} bytes`, 'network', { retryable: true });
          }
          return;
        } catch (e) {
          if (o.signal?.aborted) throw o.signal.reason;
          if (!retryable(e, o.signal) || resumes >= retries) {
            throw e instanceof SourceError ? e : new SourceError(`download of ${finalUrl} failed after ${received} bytes: ${(e as Error).message}`, 'network', { retryable: false });
          }
          res.body.destroy();
          await sleep(backoff(base, resumes), undefined, { signal: o.signal });
          resumes++;
          const headers: Record<string, string> = { 'accept-encoding': 'identity', range: `bytes=${received}-` };
          if (etag) headers['if-range'] = etag;
          const next = await withRetry(finalUrl, headers);
          res = next.res;
          const cr = res.headers['content-range'];
          if (res.statusCode === 206 && typeof cr === 'string' && cr.startsWith(`bytes ${received}-`)) skip = 0;
          else {
            const et = typeof res.headers.etag === 'string' ? res.headers.etag : null;
            if (etag && et && et !== etag) throw new SourceError(`${finalUrl} changed during the download (ETag ${etag} -> ${et})`, 'network', { retryable: false });
            if (res.statusCode === 206) { // a range we did not ask for: restart from zero
              res.body.destroy();
              res = (await withRetry(finalUrl, { 'accept-encoding': 'identity' })).res;
            }
            skip = received;
          }
        }
      }
    } finally {
      res.body.destroy();
      await agent.close().catch(() => undefined);
    }
  }

  return { url: finalUrl, contentLength, body: body() };
}
