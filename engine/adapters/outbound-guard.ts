/**
 * The one guard every outbound request to a URL a caller or a file supplied goes through (webhook
 * deliveries, media fetched by URL, payer files and their remote references). It refuses loopback,
 * RFC 1918 private, link-local (cloud metadata at 169.254.169.254), CGNAT, unique-local,
 * unspecified, multicast, documentation, benchmarking and reserved ranges, and the IPv4-mapped IPv6
 * forms of all of them.
 *
 * The check runs on the address the socket actually connects to: the guard's `lookup` replaces
 * dns.lookup in undici's connector, so a name that resolved to a public address when a URL was
 * saved and to a private one at delivery (DNS rebinding) is refused at delivery, and the connection
 * can never go to an address other than the one checked. IP-literal hosts skip DNS in Node, so
 * `assertUrl` checks them before connecting.
 *
 * `OUTBOUND_ALLOWLIST` (IPs or CIDRs) names private addresses a deployment may reach (a local test
 * receiver, an internal mirror); nothing else opens the guard.
 */
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent, request, type Dispatcher } from 'undici';
import pLimit from 'p-limit';
import type { Outbound, OutboundRequestOptions, OutboundResponse, ResolvedAddress } from '../ports/outbound.ts';

export type { OutboundRequestOptions, OutboundResponse } from '../ports/outbound.ts';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** RFC 6761 section 6.3: `localhost` and the names under it are loopback names. */
function isLocalhostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

function isLoopback(address: string): boolean {
  const a = unbracket(address);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a)?.[1];
  if (mapped) return loopback.check(mapped, 'ipv4');
  const fam = isIP(a);
  return fam === 4 ? loopback.check(a, 'ipv4') : fam === 6 && loopback.check(a, 'ipv6');
}

function unbracket(address: string): string {
  return address.replace(/^\[|\]$/g, '');
}

/** True when `address` (an IP literal) is private, loopback, link-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const a = unbracket(address);
  const fam = isIP(a);
  if (fam === 4) return blocked.check(a, 'ipv4');
  if (fam === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
    if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(a);
    if (hex) {
      const hi = parseInt(hex[1]!, 16);
      const lo = parseInt(hex[2]!, 16);
      return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
    }
    return blocked.check(a, 'ipv6');
  }
  return false;
}

/** A refused destination. Never retried; the message names the address and why. */
export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  readonly code = 'ERR_BLOCKED_ADDRESS';
}

/** Parses OUTBOUND_ALLOWLIST entries (IPs or CIDRs); throws naming the first bad entry. */
export function parseAllowlist(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const raw of entries) {
    const [addr = '', bits] = raw.trim().split('/');
    const fam = isIP(addr);
    if (!fam) throw new Error(`"${raw}" is not an IP address or CIDR`);
    const type = fam === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) {
      list.addAddress(addr, type);
      continue;
    }
    const prefix = Number(bits);
    if (!/^\d+$/.test(bits) || prefix > (fam === 4 ? 32 : 128)) throw new Error(`"${raw}" has a bad prefix length`);
    list.addSubnet(addr, prefix, type);
  }
  return list;
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

type LookupCb = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export interface OutboundGuardOptions {
  /** OUTBOUND_ALLOWLIST, parsed by config: private addresses that may be reached. */
  allowlist?: readonly string[] | undefined;
  /** DNS resolution (default: the system resolver); tests inject one to play DNS rebinding. */
  resolve?: Resolver | undefined;
  /** How many outbound requests run at once through this guard (default 64). */
  concurrency?: number | undefined;
  /** Appended to refusal messages (e.g. the flag that lifts the guard for a CLI run). */
  hint?: string | undefined;
}

export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  readonly code = 'ERR_RESPONSE_TOO_LARGE';
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The guard: the Outbound port (engine/ports/outbound.ts) plus its undici plumbing. */
export interface OutboundGuard extends Outbound {
  /** A dns.lookup replacement for undici's `connect.lookup` that refuses blocked addresses. */
  lookup(hostname: string, options: unknown, cb: LookupCb): void;
  /** An undici dispatcher whose every connection passes the guard (share it; it pools connections). */
  readonly dispatcher: Dispatcher;
  close(): Promise<void>;
}

/** Builds the guard. One per process is enough: it owns a connection pool and a concurrency limit. */
export function createOutboundGuard(o: OutboundGuardOptions = {}): OutboundGuard {
  const allowed = parseAllowlist(o.allowlist ?? []);
  const hint = o.hint ? ` (${o.hint})` : '';
  const resolver: Resolver = o.resolve ?? ((host) => new Promise((res, rej) => {
    dnsLookup(host, { all: true }, (err, addrs) => (err ? rej(err) : res(addrs)));
  }));
  const limit = pLimit(o.concurrency ?? 64);

  const isBlocked = (address: string): boolean => {
    const a = unbracket(address);
    if (!isPrivateAddress(a)) return false;
    const fam = isIP(a);
    return !(fam && allowed.check(a, fam === 4 ? 'ipv4' : 'ipv6'));
  };

  const isAllowlisted = (address: string): boolean => {
    const a = unbracket(address);
    return isPrivateAddress(a) && !isBlocked(a);
  };

  const urlProblem = (url: URL): string | undefined => {
    const host = unbracket(url.hostname).toLowerCase().replace(/\.$/, '');
    if (isIP(host)) return isBlocked(host) ? `${host} is a private, loopback or reserved address` : undefined;
    // A name (localhost included) is decided by its addresses: screen(), at check and at connect.
    return undefined;
  };

  const refuse = (what: string) => new BlockedAddressError(`refusing ${what}${hint}`);

  /**
   * The addresses of `host` a connection may use, or a refusal. A name with any refused address
   * is refused whole (a public name that also answers a private address is how rebinding
   * starts). A localhost name must resolve to loopback only, and keeps those of its addresses
   * OUTBOUND_ALLOWLIST opens: allowlisting 127.0.0.1 opens `localhost` even where it also
   * resolves to ::1, and without the allowlist it stays refused.
   */
  const screen = (host: string, addrs: readonly LookupAddress[]): LookupAddress[] => {
    if (isLocalhostName(host)) {
      const odd = addrs.find((a) => !isLoopback(a.address));
      if (odd) throw refuse(`${host}: a localhost name resolves to ${odd.address}, not a loopback address`);
      const open = addrs.filter((a) => !isBlocked(a.address));
      if (addrs.length && !open.length) {
        throw refuse(`${host}: localhost is not a public host (${addrs.map((a) => a.address).join(', ')} not on OUTBOUND_ALLOWLIST)`);
      }
      return open;
    }
    const bad = addrs.find((a) => isBlocked(a.address));
    if (bad) throw refuse(`${host}: it resolves to ${bad.address}, a private, loopback or reserved address`);
    return [...addrs];
  };

  const check = async (url: URL): Promise<ResolvedAddress[]> => {
    const problem = urlProblem(url);
    if (problem) throw refuse(`${url.host}: ${problem}`);
    const host = unbracket(url.hostname);
    if (isIP(host)) return [{ address: host, family: isIP(host) }];
    const addrs = screen(host, await resolver(host));
    if (addrs.length === 0) throw refuse(`${host}: it resolves to no address`);
    return addrs;
  };

  const lookup = (hostname: string, options: unknown, cb: LookupCb): void => {
    const opts = typeof options === 'object' && options !== null ? options as { all?: boolean } : {};
    resolver(hostname).then((all) => {
      let list: LookupAddress[];
      try {
        list = screen(hostname, all);
      } catch (e) {
        cb(e as BlockedAddressError, []);
        return;
      }
      if (list.length === 0) { cb(Object.assign(new Error(`${hostname} resolves to no address`), { code: 'ENOTFOUND' }), []); return; }
      if (opts.all) cb(null, list);
      else cb(null, list[0]!.address, list[0]!.family);
    }, (err: NodeJS.ErrnoException) => cb(err, []));
  };

  const dispatcher = new Agent({ connect: { lookup: lookup }, connections: 16 });

  const once = async (url: URL, ro: OutboundRequestOptions, signal: AbortSignal) => {
    const problem = urlProblem(url);
    if (problem) throw refuse(`${url.host}: ${problem}`);
    const res = await request(url, {
      method: ro.method ?? 'GET',
      headers: ro.headers,
      body: ro.body,
      dispatcher,
      signal,
    });
    return res;
  };

  const doRequest = async (input: string | URL, ro: OutboundRequestOptions = {}): Promise<OutboundResponse> => {
    const maxBytes = ro.maxBytes ?? 8 * 1024 * 1024;
    const signal = ro.signal
      ? AbortSignal.any([ro.signal, AbortSignal.timeout(ro.timeoutMs ?? 10_000)])
      : AbortSignal.timeout(ro.timeoutMs ?? 10_000);
    let url = new URL(input);
    for (let hop = 0; ; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse(`${url.protocol} URLs: only http and https are fetched`);
      const res = await once(url, ro, signal);
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && typeof location === 'string' && hop < (ro.maxRedirects ?? 0)) {
        await res.body.dump();
        url = new URL(location, url);
        continue;
      }
      const discard = () => {
        res.body.on('error', () => {}); // the abort we cause is not news
        res.body.destroy();
      };
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        discard();
        throw new ResponseTooLargeError(`the response is ${declared} bytes, more than the ${maxBytes} allowed`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          discard();
          throw new ResponseTooLargeError(`the response is more than the ${maxBytes} bytes allowed`);
        }
        chunks.push(chunk);
      }
      return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), url: url.href };
    }
  };

  return {
    isBlocked,
    isAllowlisted,
    urlProblem,
    check,
    lookup,
    dispatcher,
    request: (url, ro) => limit(() => doRequest(url, ro)),
    close: () => dispatcher.close(),
  };
}
