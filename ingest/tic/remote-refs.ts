/**
 * Remote provider references (TiC provider_references[].location, schema 1.x; example file
 * cms-examples-v1/provider-reference/provider-reference.json: {provider_groups: [...], version}).
 *
 * Design: parseTic never fetches. It emits each remote reference as a ProviderReferenceRecord with
 * `location` set and no groups; the caller (the snapshot writer) collects those and, after the
 * parse, calls resolveRemoteReferences(). Each distinct URL is fetched once (however many
 * references point at it) through openSource (undici; gzip/zip, redirects and the SSRF guard apply:
 * these URLs come from payer files), streamed and capped in size like any source:
 * - concurrently: at most `concurrency` in all and `perHost` per host (p-limit each), so one slow
 *   payer host neither serialises the run (370 unreachable references took 153 s one after another,
 *   issue 37) nor is hammered;
 * - each with a time limit (headers, idle body, and the whole fetch) and ONE retry with backoff
 *   (network errors, 5xx, 429);
 * - a per-host circuit breaker: once a host fails DNS (or refuses connections) after its retry,
 *   every other reference to it fails at once with that reason instead of waiting its turn to
 *   fail the same way (838 references to a host that does not resolve took 391 s, issue 37).
 * A resolved URL yields, for every refId that pointed at it, a ProviderReferenceRecord with the
 * fetched groups and `location: null`. A URL that fails (404, timeout, refused address, invalid
 * JSON, open circuit) yields one `unresolved_reference` warning per refId with the URL and reason,
 * and `onUnresolved`; the ingest goes on (the writer keeps those prices, tic-file-writer.ts).
 * Records are emitted in input order.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import { openSource } from '../sources/open-source.ts';
import { parseTic } from './parse.ts';
import type { GroupRecord, ProviderReferenceRecord, TicSink } from './records.ts';

export interface RemoteRef { refId: string; location: string }

export interface ResolveOptions {
  /** Parallel fetches in all (default 16). */
  concurrency?: number;
  /** Parallel fetches per host (default 4). */
  perHost?: number;
  /** Per-URL time limit in ms, download and parse included (default 30 s). */
  timeoutMs?: number;
  /** Retries per URL on network errors / 5xx (default 1). */
  retries?: number;
  /** First backoff step in ms (default 250; doubled each retry, full jitter). */
  retryBaseMs?: number;
  /** Allow loopback/private targets (tests); default false (SSRF guard on). */
  allowPrivateNetwork?: boolean;
  signal?: AbortSignal;
  parser?: 'fast' | 'reference';
  /** Largest provider-reference file accepted, uncompressed bytes (default 256 MiB; its groups are held whole). */
  maxBytes?: number;
  /** Called once per URL that could not be resolved, with the reason. */
  onUnresolved?: (location: string, reason: string, refIds: readonly string[]) => void;
}

export interface ResolveStats { urls: number; fetched: number; resolvedRefs: number; unresolvedRefs: number; hostsFailed: number }

type Outcome = { ok: true; groups: GroupRecord[]; networkNames: string[] } | { ok: false; reason: string; hostDown: boolean };

/** Errors that say the host itself is unreachable (its other URLs would fail alike). */
const HOST_DOWN = /\b(ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NONAME|ENODATA|ECONNREFUSED|EHOSTUNREACH|ENETUNREACH)\b/;

/** Fetches one provider-reference file and returns its groups (warnings forwarded to `sink`). */
async function fetchOne(url: string, sink: Pick<TicSink, 'warning'>, o: ResolveOptions): Promise<Outcome> {
  const timeoutMs = o.timeoutMs ?? 30_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const tooBig = new AbortController();
  const maxBytes = o.maxBytes ?? 256 * 1024 * 1024;
  const signal = AbortSignal.any(o.signal ? [o.signal, timeout, tooBig.signal] : [timeout, tooBig.signal]);
  try {
    const src = await openSource(url, {
      signal, retries: o.retries ?? 1, retryBaseMs: o.retryBaseMs ?? 250, timeoutMs,
      allowPrivateNetwork: o.allowPrivateNetwork ?? false,
      onCompressedBytes: (n) => { if (n > maxBytes) tooBig.abort(); },
    });
    let rec: ProviderReferenceRecord | null = null;
    const collect: TicSink = {
      header: () => undefined, plan: () => undefined, tocStructure: () => undefined, rate: () => undefined,
      bundle: () => undefined, allowedAmount: () => undefined,
      providerReference: (r) => { rec = r; },
      warning: (k, path, ex) => sink.warning(k, `${url} ${path}`, ex),
    };
    await parseTic(src.stream, collect, {
      kindHint: 'provider-reference', signal, parser: o.parser,
      onBytes: (n) => { if (n > maxBytes) tooBig.abort(); },
    });
    if (tooBig.signal.aborted) return { ok: false, reason: `larger than ${maxBytes} bytes`, hostDown: false };
    const r = rec as ProviderReferenceRecord | null;
    return r ? { ok: true, groups: r.groups, networkNames: r.networkNames } : { ok: false, reason: 'no provider_groups', hostDown: false };
  } catch (e) {
    if (o.signal?.aborted) throw o.signal.reason;
    const reason = tooBig.signal.aborted ? `larger than ${maxBytes} bytes`
      : timeout.aborted ? `timeout after ${timeoutMs} ms` : (e as Error).message;
    return { ok: false, reason, hostDown: HOST_DOWN.test(reason) };
  }
}

/** The host a location names, or null when it is not an http(s) URL (never fetched). */
function hostOf(location: string): string | null {
  // A location comes from the payer's file: only http(s), never a local path or file: URL (that
  // would let a published file read the ingest machine's disk).
  if (!/^https?:\/\//i.test(location)) return null;
  try {
    return new URL(location).host.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Resolves remote references into `sink.providerReference` records (see the module comment).
 * Rejects only when `opts.signal` aborts.
 */
export async function resolveRemoteReferences(refs: readonly RemoteRef[], sink: Pick<TicSink, 'providerReference' | 'warning'>, opts: ResolveOptions = {}): Promise<ResolveStats> {
  const byUrl = new Map<string, string[]>();
  for (const r of refs) {
    const ids = byUrl.get(r.location);
    if (ids) ids.push(r.refId);
    else byUrl.set(r.location, [r.refId]);
  }
  const limit = pLimit(opts.concurrency ?? 16);
  const hostLimits = new Map<string, LimitFunction>();
  /** Hosts whose circuit is open, with the reason their first failure gave. */
  const down = new Map<string, string>();
  const urls = [...byUrl.keys()];
  const stats: ResolveStats = { urls: urls.length, fetched: 0, resolvedRefs: 0, unresolvedRefs: 0, hostsFailed: 0 };
  const results: (Outcome | undefined)[] = new Array<Outcome | undefined>(urls.length);
  let next = 0;
  // Emit in input order as soon as the head of the line is ready (deterministic output).
  const flush = (): void => {
    while (next < urls.length && results[next] !== undefined) {
      const url = urls[next]!;
      const out = results[next]!;
      results[next] = undefined;
      const ids = byUrl.get(url) ?? [];
      if (!out.ok) opts.onUnresolved?.(url, out.reason, ids);
      for (const refId of ids) {
        if (out.ok) {
          stats.resolvedRefs++;
          sink.providerReference({ refId, groups: out.groups, networkNames: out.networkNames, location: null });
        } else {
          stats.unresolvedRefs++;
          sink.warning('unresolved_reference', 'provider_references[].location', `${url} (${out.reason})`);
        }
      }
      next++;
    }
  };
  /** URLs settled (their outcome taken) and started (their fetch begun). */
  const settled = new Uint8Array(urls.length);
  const started = new Uint8Array(urls.length);
  const settle = (i: number, out: Outcome): void => {
    if (settled[i]) return;
    settled[i] = 1;
    results[i] = out;
    flush();
  };
  const hosts = urls.map(hostOf);
  await Promise.all(urls.map((url, i) => {
    const host = hosts[i]!;
    if (host === null) {
      settle(i, { ok: false, reason: 'not an http(s) URL', hostDown: false });
      return Promise.resolve();
    }
    let hostLimit = hostLimits.get(host);
    if (!hostLimit) hostLimits.set(host, hostLimit = pLimit(opts.perHost ?? 4));
    return hostLimit(() => limit(async () => {
      if (settled[i]) return; // failed with its host while queued
      started[i] = 1;
      const out = await fetchOne(url, sink, opts);
      stats.fetched++;
      if (!out.ok && out.hostDown && !down.has(host)) {
        down.set(host, out.reason);
        stats.hostsFailed++;
        // The host's URLs not yet started fail now, with the reason, instead of each waiting for a
        // slot to fail the same way (their queued tasks then return at once).
        const why: Outcome = { ok: false, reason: `host ${host} unreachable: ${out.reason}`, hostDown: true };
        for (let j = 0; j < urls.length; j++) if (j !== i && hosts[j] === host && !started[j]) settle(j, why);
      }
      settle(i, out);
    }));
  }));
  flush();
  return stats;
}
