/**
 * Opens a TiC source for the ingest through openSource (ingest/sources: local path or http(s) URL;
 * plain, gzip or zip by magic bytes; retries, Range resume and the SSRF guard), plus the size
 * when it is known up front (a local file's, or an HTTP response's Content-Length) for progress ETA.
 */
import { openSource } from '../sources/open-source.ts';

export interface OpenedInput {
  stream: AsyncIterable<Uint8Array>;
  bytesRead(): number;
  /** sha256 of the bytes as transferred; complete once the stream has been read to its end. */
  sha256(): string | null;
  totalBytes: number | null;
  close(): void;
}

export interface InputOptions {
  signal?: AbortSignal;
  allowPrivateNetwork?: boolean;
}

/** Opens `src`; throws SourceError (reason, offsets) when it cannot be opened. */
export async function openInput(src: string, o: InputOptions = {}): Promise<OpenedInput> {
  const s = await openSource(src, { signal: o.signal, allowPrivateNetwork: o.allowPrivateNetwork });
  return {
    stream: s.stream,
    bytesRead: () => s.bytesRead(),
    sha256: () => s.sha256(),
    totalBytes: s.totalBytes,
    close: () => undefined, // the iteration's own finally closes the file / socket
  };
}
