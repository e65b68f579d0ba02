/**
 * Media given as a `url` (service-spec.md, POST …/media: a public HTTPS URL the service downloads;
 * no credentials; never a private or reserved address; under 8 MB). Fetched through the process's
 * one outbound guard, which checks the address each connection really goes to (DNS rebinding)
 * and re-checks every redirect, so a private address is refused before any connection is made.
 */
import { isIP } from 'node:net';
import { AppError } from '../core/errors.ts';
import { BlockedAddressError, ResponseTooLargeError } from '../adapters/outbound-guard.ts';
import type { Outbound } from '../ports/outbound.ts';
import { MEDIA_MAX_BYTES } from './media.schema.ts';
import { tooLarge } from './media-content.ts';

const FETCH_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 3;

function bad(reason: string, code: string): AppError {
  return new AppError('invalid_request', `url: ${reason}`, { field: 'url', code });
}

/** The URL's problems that need no network: scheme, credentials, a refused address literal. */
export function checkMediaUrl(raw: string, guard: Outbound): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('not a valid absolute URL.', 'invalid_url');
  }
  if (url.username || url.password) throw bad('the URL must need no credentials (no user:password@).', 'credentials_in_url');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Plain http only to a private address the operator opened with OUTBOUND_ALLOWLIST (a local
  // test server, an internal mirror): the public internet is fetched over https.
  const allowedPrivate = isIP(host) !== 0 && guard.isAllowlisted(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowedPrivate)) throw bad('only https URLs are fetched.', 'https_required');
  const problem = guard.urlProblem(url);
  if (problem) throw bad(`refused: ${problem}.`, 'blocked_address');
  return url;
}

/** Downloads the media at `raw` (at most 8 MB, 3 redirects, 15 s). */
export async function fetchMedia(raw: string, guard: Outbound): Promise<Buffer> {
  const url = checkMediaUrl(raw, guard);
  let res;
  try {
    res = await guard.request(url, { maxBytes: MEDIA_MAX_BYTES, maxRedirects: MAX_REDIRECTS, timeoutMs: FETCH_TIMEOUT_MS });
  } catch (e) {
    if (e instanceof BlockedAddressError) throw bad(`refused: ${e.message.replace(/^refusing /, '')}.`, 'blocked_address');
    if (e instanceof ResponseTooLargeError) throw tooLarge('url');
    const why = e instanceof Error && e.name === 'TimeoutError' ? 'it did not answer in time' : 'it could not be reached';
    throw new AppError('media_fetch_failed', `url: ${why}.`, { field: 'url', code: 'unreachable' });
  }
  if (res.status !== 200) {
    const code = res.status >= 300 && res.status < 400 ? 'too_many_redirects' : 'http_status';
    throw new AppError('media_fetch_failed', `url: the server answered HTTP ${res.status}, not 200.`, { field: 'url', code, extra: { upstreamStatus: res.status } });
  }
  return res.body;
}
