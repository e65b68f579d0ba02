/**
 * Opens a TiC source for the ingest: the bytes to parse (uncompressed), how many bytes were read
 * as transferred, and their sha256 (source_files.bytes / sha256).
 *
 * Local files, plain or gzip (detected by magic bytes), read in 1 MiB chunks and gunzipped with a
 * 1 MiB chunkSize (shared/notes/json-throughput.md: the zlib default costs 5x).
 */
import { createReadStream, openSync, readSync, closeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createGunzip } from 'node:zlib';
import { isUrl } from './keys.ts';

export interface OpenedInput {
  stream: AsyncIterable<Uint8Array>;
  bytesRead(): number;
  /** sha256 of the bytes as transferred; complete once the stream has been read to its end. */
  sha256(): string | null;
  totalBytes: number | null;
  close(): void;
}

const CHUNK = 1 << 20;

function isGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(2);
    return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** Opens a local path (URLs: see openSource in ingest/sources when available). */
export async function openInput(src: string, signal?: AbortSignal): Promise<OpenedInput> {
  if (isUrl(src)) throw Object.assign(new Error(`cannot fetch ${src}: URL sources are not wired yet`), { reason: 'unsupported' });
  const raw = createReadStream(src, { highWaterMark: CHUNK, signal });
  const hash = createHash('sha256');
  let read = 0;
  let digest: string | null = null;
  raw.on('data', (c: string | Buffer) => { read += c.length; hash.update(c); });
  raw.on('end', () => { digest = hash.digest('hex'); });
  const gz = isGzip(src);
  const stream = gz ? raw.pipe(createGunzip({ chunkSize: CHUNK })) : raw;
  if (gz) raw.on('error', (e) => stream.destroy(e));
  return {
    stream,
    bytesRead: () => read,
    sha256: () => digest,
    totalBytes: null,
    close: () => { raw.destroy(); stream.destroy(); },
  };
}
