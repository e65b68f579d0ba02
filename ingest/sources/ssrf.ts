/**
 * SSRF guard for the URLs an ingest fetches: above all those that come from payer files (remote
 * provider references, table-of-contents entries): a hostile file must not make the nightly job
 * fetch http://169.254.169.254/ (cloud metadata) or an internal service. It covers the command
 * line's URLs too; `carebridge ingest tic --allow-private-network` (an internal mirror) turns it
 * off for a whole run. The check runs on the address the socket actually connects to
 * (a custom DNS lookup for the undici connector), so DNS rebinding between check and connect is
 * impossible. IP-literal hosts are checked before connecting (Node skips lookup for them).
 *
 * The ranges (engine/adapters/outbound-guard.ts): loopback, RFC 1918 private, link-local (RFC 3927 / fe80::/10), CGNAT (RFC 6598),
 * unique-local (RFC 4193), unspecified, multicast, reserved and benchmarking ranges, and IPv4-mapped
 * IPv6 forms of all of them.
 */
import { isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockedAddressError, isPrivateAddress } from '../../engine/adapters/outbound-guard.ts';

// One list of refused ranges for the whole service (engine/adapters/outbound-guard.ts).
export { BlockedAddressError, isPrivateAddress };

type LookupCb = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup replacement that refuses private addresses (for undici's `connect.lookup`). */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number } | number | undefined, cb: LookupCb): void {
  const opts = typeof options === 'object' && options !== null ? options : {};
  dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
    if (err) { cb(err, []); return; }
    const list = addresses;
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) {
      cb(new BlockedAddressError(`refusing ${hostname}: resolves to non-public address ${bad.address} (SSRF guard; 'carebridge ingest tic --allow-private-network' allows it)`), []);
      return;
    }
    if (opts.all) cb(null, list);
    else cb(null, list[0]?.address ?? '', list[0]?.family);
  });
}

/** Throws BlockedAddressError when a URL's host is an IP literal in a blocked range. */
export function assertPublicUrl(url: URL): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isPrivateAddress(host)) {
    throw new BlockedAddressError(`refusing ${url.href}: ${host} is not a public address (SSRF guard; 'carebridge ingest tic --allow-private-network' allows it)`);
  }
  if (host === 'localhost' || host.endsWith('.localhost')) throw new BlockedAddressError(`refusing ${url.href}: localhost (SSRF guard; 'carebridge ingest tic --allow-private-network' allows it)`);
}
