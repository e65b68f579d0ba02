/**
 * Remote provider references (TiC provider_references[].location): fetched after the parse by
 * resolveRemoteReferences (ingest/tic/remote-refs.ts: each URL once, bounded concurrency) and fed
 * back into the file's writer as ordinary references, so the per-file join resolves them.
 */
import { resolveRemoteReferences } from '../tic/remote-refs.ts';
import type { TicFileWriter } from './tic-file-writer.ts';

export interface RemoteOptions {
  signal?: AbortSignal;
  allowPrivateNetwork?: boolean;
  parser?: 'fast' | 'reference';
}

/** Resolves the writer's remote references; failures become `unresolved_reference` warnings. */
export async function resolveRemote(w: TicFileWriter, o: RemoteOptions = {}): Promise<void> {
  const remote = w.remoteReferences();
  if (remote.length === 0) return;
  await resolveRemoteReferences(remote, w, { signal: o.signal, allowPrivateNetwork: o.allowPrivateNetwork, parser: o.parser });
}
