/**
 * The pattern check a webhook URL must pass before it is kept (service-spec.md, Webhooks: "private
 * addresses and localhost rejected"). https only (the delivery carries a bearer token); no
 * credentials in the URL; the host must not be a name or literal address that points inside:
 * loopback, private (RFC 1918, RFC 4193), link-local, carrier-grade NAT, unspecified, multicast
 * or reserved ranges, `localhost` and the special-use names `.localhost`, `.local`, `.internal`,
 * `.home.arpa` (RFC 6761, RFC 8375). A public name that resolves to a private address is caught
 * by the delivery side (the webhooks area resolves and checks again before connecting).
 */
export function webhookUrlProblem(raw: string): string | undefined {
  const url = URL.parse(raw);
  if (!url) return 'must be an absolute URL';
  if (url.protocol !== 'https:') return 'must use https';
  if (url.username || url.password) return 'must not contain a user name or password';
  // WHATWG parsing already turned 2130706433, 0x7f.1 and friends into dotted IPv4.
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || /\.(localhost|local|internal|home\.arpa)$/.test(host) || !host.includes('.') && !host.startsWith('[')) {
    return 'must be a public host name, not localhost or a local name';
  }
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  if (v4 && isPrivateV4(v4.slice(1).map(Number))) return 'must not point at a private, loopback or reserved address';
  if (host.startsWith('[') && isPrivateV6(host.slice(1, -1))) return 'must not point at a private, loopback or reserved address';
  return undefined;
}

function isPrivateV4([a = 0, b = 0]: number[]): boolean {
  return a === 0 || a === 10 || a === 127 || a >= 224
    || (a === 100 && b >= 64 && b <= 127) // carrier-grade NAT
    || (a === 169 && b === 254) // link-local (cloud metadata)
    || (a === 172 && b >= 16 && b <= 31)
    || (a === 192 && b === 168)
    || (a === 192 && b === 0) // IETF protocol assignments and TEST-NET-1 neighbours
    || (a === 198 && (b === 18 || b === 19)); // benchmarking
}

function isPrivateV6(addr: string): boolean {
  const a = addr.toLowerCase();
  if (a === '::' || a === '::1') return true;
  // IPv4-mapped (::ffff:a.b.c.d, which WHATWG prints as ::ffff:xxxx:xxxx): check the IPv4 part.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    return isPrivateV4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  }
  return /^f[cd]/.test(a) || /^fe[89ab]/.test(a) || a.startsWith('ff') || a.startsWith('64:ff9b:') || a.startsWith('2001:db8:');
}
