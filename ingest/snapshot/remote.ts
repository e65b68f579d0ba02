/**
 * Remote provider references (TiC provider_references[].location): fetched after the parse by
 * resolveRemoteReferences (ingest/tic/remote-refs.ts: each URL once, concurrently per host, a
 * circuit breaker per host) and fed back into the file's writer as ordinary references, so the
 * per-file join resolves them. Those that fail stay in the writer as locations: finish() keeps
 * their prices with an unresolved member (tic-file-writer.ts) and the file is partial.
 */
import { resolveRemoteReferences, type ResolveOptions, type ResolveStats } from '../tic/remote-refs.ts';
import type { TicFileWriter } from './tic-file-writer.ts';

/** The fetch settings a run may tune (tests shorten timeouts and backoff). */
export type RemoteTuning = Pick<ResolveOptions, 'concurrency' | 'perHost' | 'timeoutMs' | 'retries' | 'retryBaseMs' | 'maxBytes'>;

export interface RemoteOptions {
  signal?: AbortSignal | undefined;
  allowPrivateNetwork?: boolean | undefined;
  parser?: 'fast' | 'reference' | undefined;
  tuning?: RemoteTuning | undefined;
}

/** Resolves the writer's remote references; failures become `unresolved_reference` warnings. */
export async function resolveRemote(w: TicFileWriter, o: RemoteOptions = {}): Promise<ResolveStats | null> {
  const remote = w.remoteReferences();
  if (remote.length === 0) return null;
  return resolveRemoteReferences(remote, w, { ...o.tuning, signal: o.signal, allowPrivateNetwork: o.allowPrivateNetwork, parser: o.parser });
}
