/**
 * Remote provider references (TiC provider_references[].location, schema 1.x; example file
 * cms-examples-v1/provider-reference/provider-reference.json: {provider_groups: [...], version}).
 *
 * Design: parseTic never fetches. It emits each remote reference as a ProviderReferenceRecord with
 * `location` set and no groups; the caller (the snapshot writer) collects those and, after the
 * parse, calls resolveRemoteReferences(). Each distinct URL is fetched once (however many
 * references point at it), at most `concurrency` at a time (p-limit), each with a timeout and
 * retries, through openSource (so gzip/zip, redirects and the SSRF guard apply: these URLs come
 * from payer files). A resolved URL yields, for every refId that pointed at it, a
 * ProviderReferenceRecord with the fetched groups and `location: null` (resolved). A URL that
 * fails (404, timeout, refused address, invalid JSON) yields one `unresolved_reference` warning per
 * refId with the URL and the reason; the ingest goes on. Records are emitted in input order.
 */
import pLimit from 'p-limit';
import { openSource } from '../sources/open-source.ts';
import { parseTic } from './parse.ts';
import type { GroupRecord, ProviderReferenceRecord, TicSink } from './records.ts';

export interface RemoteRef { refId: string; location: string }

export interface ResolveOptions {
  /** Parallel fetches (default 8). */
  concurrency?: number;
  /** Per-URL time limit in ms, download and parse included (default 30 s). */
  timeoutMs?: number;
  /** Retries per URL on network errors / 5xx (default 2). */
  retries?: number;
  retryBaseMs?: number;
  /** Allow loopback/private targets (tests); default false (SSRF guard on). */
  allowPrivateNetwork?: boolean;
  signal?: AbortSignal;
  parser?: 'fast' | 'reference';
  /** Largest provider-reference file accepted, uncompressed bytes (default 256 MiB; its groups are held whole). */
  maxBytes?: number;
}

export interface ResolveStats { urls: number; fetched: number; resolvedRefs: number; unresolvedRefs: number }

type Outcome = { ok: true; groups: GroupRecord[]; networkNames: string[] } | { ok: false; reason: string };

/** Fetches one provider-reference file and returns its groups (warnings forwarded to `sink`). */
async function fetchOne(url: string, sink: Pick<TicSink, 'warning'>, o: ResolveOptions): Promise<Outcome> {
  // A location comes from the payer's file: only http(s), never a local path or file: URL (that
  // would let a published file read the ingest machine's disk).
  if (!/^https?:\/\//i.test(url)) return { ok: false, reason: 'not an http(s) URL' };
  const timeout = AbortSignal.timeout(o.timeoutMs ?? 30_000);
  const tooBig = new AbortController();
  const maxBytes = o.maxBytes ?? 256 * 1024 * 1024;
  const signal = AbortSignal.any(o.signal ? [o.signal, timeout, tooBig.signal] : [timeout, tooBig.signal]);
  try {
    const src = await openSource(url, {
      signal, retries: o.retries ?? 2, retryBaseMs: o.retryBaseMs ?? 250, timeoutMs: o.timeoutMs ?? 30_000,
      allowPrivateNetwork: o.allowPrivateNetwork ?? false,
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
    if (tooBig.signal.aborted) return { ok: false, reason: `larger than ${maxBytes} bytes` };
    const r = rec as ProviderReferenceRecord | null;
    return r ? { ok: true, groups: r.groups, networkNames: r.networkNames } : { ok: false, reason: 'no provider_groups' };
  } catch (e) {
    if (o.signal?.aborted) throw o.signal.reason;
    const reason = tooBig.signal.aborted ? `larger than ${maxBytes} bytes`
      : timeout.aborted ? `timeout after ${o.timeoutMs ?? 30_000} ms` : (e as Error).message;
    return { ok: false, reason };
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
  const limit = pLimit(opts.concurrency ?? 8);
  const urls = [...byUrl.keys()];
  const stats: ResolveStats = { urls: urls.length, fetched: 0, resolvedRefs: 0, unresolvedRefs: 0 };
  const results: (Outcome | undefined)[] = new Array<Outcome | undefined>(urls.length);
  let next = 0;
  // Emit in input order as soon as the head of the line is ready (deterministic output).
  const flush = (): void => {
    while (next < urls.length && results[next] !== undefined) {
      const url = urls[next]!;
      const out = results[next]!;
      results[next] = undefined;
      for (const refId of byUrl.get(url) ?? []) {
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
  await Promise.all(urls.map((url, i) => limit(async () => {
    const out = await fetchOne(url, sink, opts);
    stats.fetched++;
    results[i] = out;
    flush();
  })));
  flush();
  return stats;
}
