/**
 * Remote provider references served by a real local HTTP server (127.0.0.1, port 0): one fine, one
 * 404, one slow (times out), one URL listed twice (fetched once), a gzip one, and the SSRF guard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { resolveRemoteReferences } from '../../ingest/tic/remote-refs.ts';
import { recorder, parseOk } from '../fixtures/tic/recorder.ts';

const refFile = (npi: number, tin: string) => JSON.stringify({ version: '1.4.0', provider_groups: [{ npi: [npi], tin: { type: 'ein', value: tin } }] });

let server: Server;
let base: string;
const hits: Record<string, number> = {};
const timers = new Set<NodeJS.Timeout>();
let inFlight = 0;
let maxInFlight = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits[path] = (hits[path] ?? 0) + 1;
    if (path.startsWith('/c/')) { // concurrency probe: answers after a moment, counting requests in flight
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const t = setTimeout(() => { timers.delete(t); inFlight--; res.writeHead(200); res.end(refFile(5555555555, '55-5555555')); }, 100);
      timers.add(t);
      return;
    }
    switch (path) {
      case '/ok.json': res.writeHead(200); res.end(refFile(1111111111, '11-1111111')); return;
      case '/dup.json': res.writeHead(200); res.end(refFile(2222222222, '22-2222222')); return;
      case '/gz.json': res.writeHead(200); res.end(gzipSync(refFile(3333333333, '33-3333333'))); return;
      case '/bad.json': res.writeHead(200); res.end('{"provider_groups":[{"npi":[1]'); return;
      case '/flaky.json': // 503 the first time, then fine: one retry answers it
        if (hits[path] === 1) { res.writeHead(503); res.end(); } else { res.writeHead(200); res.end(refFile(4444444444, '44-4444444')); }
        return;
      case '/down.json': res.writeHead(503); res.end(); return;
      case '/big.json': res.writeHead(200); res.end(JSON.stringify({ provider_groups: Array.from({ length: 2000 }, (_, i) => ({ npi: [1000000000 + i], tin: { type: 'ein', value: '55-5555555' } })) })); return;
      case '/slow.json': {
        res.writeHead(200);
        res.write('{"provider_groups":[');
        const t = setTimeout(() => { timers.delete(t); res.end(']}'); }, 60_000);
        timers.add(t);
        return;
      }
      default: res.writeHead(404); res.end('not found');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const t of timers) clearTimeout(t);
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

// Time limits long enough for a loaded machine's local answers; /slow.json answers only after the limit.
const opts = { allowPrivateNetwork: true, timeoutMs: 3000, retries: 0, concurrency: 4 };

describe('resolveRemoteReferences', () => {
  it('fine, 404, slow, duplicate URL: resolved ones become references, the others warn with the URL', async () => {
    const rec = recorder();
    const stats = await resolveRemoteReferences([
      { refId: '1', location: `${base}/ok.json` },
      { refId: '2', location: `${base}/missing.json` },
      { refId: '3', location: `${base}/slow.json` },
      { refId: '4', location: `${base}/dup.json` },
      { refId: '5', location: `${base}/dup.json` },
      { refId: '6', location: `${base}/gz.json` },
    ], rec.sink, opts);
    expect(hits['/dup.json']).toBe(1); // the same URL twice is fetched once
    expect(stats).toEqual({ urls: 5, fetched: 5, resolvedRefs: 4, unresolvedRefs: 2, hostsFailed: 0 });
    expect(rec.refs.map((r) => [r.refId, r.location, r.groups.map((g) => [g.tinValue, g.npis])])).toEqual([
      ['1', null, [['11-1111111', [1111111111]]]],
      ['4', null, [['22-2222222', [2222222222]]]],
      ['5', null, [['22-2222222', [2222222222]]]],
      ['6', null, [['33-3333333', [3333333333]]]],
    ]);
    const unresolved = rec.warnings.filter((w) => w.kind === 'unresolved_reference');
    expect(unresolved.map((w) => w.example)).toEqual([
      expect.stringMatching(new RegExp(`^${base}/missing\\.json \\(HTTP 404`)),
      expect.stringMatching(new RegExp(`^${base}/slow\\.json \\(timeout after 3000 ms\\)`)),
    ]);
    // input order is kept: 1, (2 warns), (3 warns), 4, 5, 6
    expect(rec.calls.filter((c) => c[0] !== 'warning' || c[1] === 'unresolved_reference').map((c) => c[0] === 'warning' ? 'w' : (c[1] as { refId: string }).refId))
      .toEqual(['1', 'w', 'w', '4', '5', '6']);
  });

  it('a remote file that is not valid JSON is unresolved, not fatal', async () => {
    const rec = recorder();
    const stats = await resolveRemoteReferences([{ refId: '9', location: `${base}/bad.json` }], rec.sink, opts);
    expect(stats.unresolvedRefs).toBe(1);
    expect(rec.warnings[0]!.example).toMatch(/bad\.json \(.*at byte \d+\)/);
  });

  it('SSRF guard: a payer file pointing at loopback is refused unless allowed', async () => {
    const rec = recorder();
    const stats = await resolveRemoteReferences([{ refId: '1', location: `${base}/ok.json` }], rec.sink, { ...opts, allowPrivateNetwork: false });
    expect(stats.unresolvedRefs).toBe(1);
    expect(rec.warnings[0]!.example).toMatch(/refusing/);
  });

  it('a remote file larger than maxBytes is unresolved (its groups would be held whole)', async () => {
    const rec = recorder();
    const stats = await resolveRemoteReferences([{ refId: '1', location: `${base}/ok.json` }], rec.sink, { ...opts, maxBytes: 10 });
    expect(stats.unresolvedRefs).toBe(1);
    expect(rec.warnings[0]!.example).toMatch(/larger than 10 bytes/);
  });

  it('never reads local files named by a payer file', async () => {
    const rec = recorder();
    const stats = await resolveRemoteReferences([{ refId: '1', location: '/etc/passwd' }, { refId: '2', location: 'file:///etc/hosts' }], rec.sink, opts);
    expect(stats.unresolvedRefs).toBe(2);
    expect(rec.warnings.map((w) => w.example)).toEqual(['/etc/passwd (not an http(s) URL)', 'file:///etc/hosts (not an http(s) URL)']);
  });

  it('end to end: parseTic leaves locations for the caller, who resolves them', async () => {
    const doc = JSON.stringify({
      reporting_entity_name: 'x', reporting_entity_type: 'y', last_updated_on: '2024-01-01', version: '1.0.0',
      provider_references: [{ provider_group_id: 1, location: `${base}/ok.json` }, { provider_group_id: 2, location: `${base}/missing.json` }],
      in_network: [{ negotiation_arrangement: 'ffs', name: 'n', billing_code_type: 'CPT', billing_code_type_version: '2024', billing_code: '99213', description: 'd',
        negotiated_rates: [{ provider_references: [1, 2], negotiated_prices: [{ negotiated_type: 'negotiated', negotiated_rate: 10, expiration_date: '2025-01-01', billing_class: 'institutional' }] }] }],
    });
    const parsed = await parseOk(doc);
    const remote = parsed.refs.filter((r) => r.location !== null).map((r) => ({ refId: r.refId, location: r.location! }));
    expect(remote).toEqual([{ refId: '1', location: `${base}/ok.json` }, { refId: '2', location: `${base}/missing.json` }]);
    const rec = recorder();
    await resolveRemoteReferences(remote, rec.sink, opts);
    expect(rec.refs.map((r) => r.refId)).toEqual(['1']);
    expect(rec.warnings.filter((w) => w.kind === 'unresolved_reference')).toHaveLength(1);
  });

  it('fetches concurrently, at most perHost at a time per host', async () => {
    const rec = recorder();
    const refs = Array.from({ length: 12 }, (_, i) => ({ refId: String(i), location: `${base}/c/${i}.json` }));
    const stats = await resolveRemoteReferences(refs, rec.sink, { ...opts, timeoutMs: 5000, concurrency: 16, perHost: 3 });
    expect(stats.resolvedRefs).toBe(12);
    expect(maxInFlight).toBe(3); // concurrent (not one after another), bounded per host
  });

  it('retries once: a 503 then an answer resolves; two 503s do not (two requests, no third)', async () => {
    const rec = recorder();
    const stats = await resolveRemoteReferences([{ refId: '1', location: `${base}/flaky.json` }, { refId: '2', location: `${base}/down.json` }], rec.sink,
      { ...opts, retries: undefined, retryBaseMs: 5 });
    expect(stats).toMatchObject({ resolvedRefs: 1, unresolvedRefs: 1 });
    expect(hits['/flaky.json']).toBe(2);
    expect(hits['/down.json']).toBe(2);
    expect(rec.warnings[0]!.example).toMatch(/down\.json \(HTTP 503/);
  });

  it('a host that refuses connections fails its other references at once (circuit breaker), with the reason', async () => {
    const gone = createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const closed = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
    await new Promise((r) => gone.close(r));
    const rec = recorder();
    const refs = [...Array.from({ length: 5 }, (_, i) => ({ refId: `d${i}`, location: `${closed}/r${i}.json` })), { refId: 'ok', location: `${base}/ok.json` }];
    const stats = await resolveRemoteReferences(refs, rec.sink, { ...opts, retryBaseMs: 5, perHost: 1 });
    expect(stats).toMatchObject({ urls: 6, fetched: 2, hostsFailed: 1, resolvedRefs: 1, unresolvedRefs: 5 });
    const reasons = rec.warnings.filter((w) => w.kind === 'unresolved_reference').map((w) => w.example);
    expect(reasons[0]).toMatch(/r0\.json \(.*ECONNREFUSED/);
    for (const r of reasons.slice(1)) expect(r).toMatch(new RegExp(`unreachable: .*ECONNREFUSED`));
  });

  it('a reference file is streamed and capped: past maxBytes of a larger body the fetch stops, unresolved', async () => {
    const rec = recorder();
    const stats = await resolveRemoteReferences([{ refId: '1', location: `${base}/big.json` }], rec.sink, { ...opts, maxBytes: 4096 });
    expect(stats.unresolvedRefs).toBe(1);
    expect(rec.warnings[0]!.example).toMatch(/larger than 4096 bytes/);
  });
});
