import { AppError } from '../core/errors.ts';
import type { Outbound } from '../ports/outbound.ts';

/**
 * The pattern check of a webhook URL before any DNS (service-spec.md, Webhooks: "private addresses
 * and localhost rejected"): an absolute http(s) URL without credentials whose host is not a
 * special-use name (`.local`, `.internal`, `.home.arpa`: RFC 6762, RFC 8375) or another single
 * label. `localhost` and `*.localhost` pass to the outbound guard, which resolves them and refuses
 * their loopback addresses unless OUTBOUND_ALLOWLIST names them (checkWebhookUrl), so the
 * allowlist decides for a name as it does for 127.0.0.1.
 */
export function webhookUrlProblem(raw: string): string | undefined {
  const url = URL.parse(raw);
  if (!url) return 'must be an absolute URL';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https';
  if (url.username || url.password) return 'must not contain a user name or password';
  // WHATWG parsing already turned 2130706433, 0x7f.1 and friends into dotted IPv4.
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const loopbackName = host === 'localhost' || host.endsWith('.localhost');
  if (!loopbackName && (/\.(local|internal|home\.arpa)$/.test(host) || !host.includes('.') && !host.startsWith('['))) {
    return 'must be a public host name, not a local name';
  }
  return undefined;
}

const rejected = (why: string) => new AppError('invalid_request', `webhookUrl ${why}.`, { field: 'webhookUrl', code: 'webhook_url_rejected' });

/**
 * The save-time check: the pattern check, then the host resolved and every address checked by
 * the outbound guard (private, loopback, link-local, CGNAT, reserved refused; OUTBOUND_ALLOWLIST
 * opens named ones). No connection is made to a refused URL. https is required, except for a
 * destination whose every address is on OUTBOUND_ALLOWLIST (a local receiver, an internal
 * deployment): the delivery carries a bearer token. Deliveries check again at connect time.
 */
export async function checkWebhookUrl(raw: string, outbound: Outbound): Promise<URL> {
  const problem = webhookUrlProblem(raw);
  if (problem) throw rejected(problem);
  const url = new URL(raw);
  let addresses;
  try {
    addresses = await outbound.check(url);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ERR_BLOCKED_ADDRESS') throw rejected(`must not point at a private, loopback or reserved address (${(e as Error).message.replace(/^refusing /, '')})`);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') throw rejected(`host ${url.hostname} does not resolve`);
    throw e;
  }
  if (url.protocol === 'http:' && !addresses.every((a) => outbound.isAllowlisted(a.address))) throw rejected('must use https');
  return url;
}
