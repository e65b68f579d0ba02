/**
 * openSource: a local path, file:// or http(s) URL as an async iterable of UNCOMPRESSED bytes.
 * Compression is recognised by magic bytes, never by extension (payers name gzip files ".json"):
 * - gzip (1f 8b): zlib gunzip with a 1 MiB chunkSize (shared/notes/json-throughput.md: the 16 KiB
 *   default costs 5x); concatenated members are read as one stream. A truncated or corrupt gzip
 *   fails with SourceError carrying the compressed and uncompressed byte offsets.
 * - zip (50 4b 03 04 / 50 4b 05 06): via yauzl (needs the central directory at the end, so a zip
 *   over HTTP is spooled to a temp file first). Exactly one file member is streamed (itself gunzipped
 *   if it is gzip); zero or several members fail with SourceError naming them: each TiC file must
 *   be given on its own so the report can account for it.
 * Local files are read 128 KiB at a time (the notes: 64-128 KiB reads are fastest for the scanner).
 * `sha256()` and `bytesRead()` describe the bytes as transferred (complete once fully read).
 */
import { createHash, type Hash } from 'node:crypto';
import { open, mkdtemp, rm, stat } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';
import yauzl from 'yauzl';
import { openHttp, type HttpOptions } from './http-source.ts';
import { SourceError } from './source-error.ts';

export { SourceError } from './source-error.ts';

export interface OpenSourceOptions extends HttpOptions {
  /** Called with the running total of transferred (compressed) bytes. */
  onCompressedBytes?: ((n: number) => void) | undefined;
}

export interface OpenedSource {
  stream: AsyncIterable<Uint8Array>;
  /** The final URL after redirects (or the absolute local path). */
  url: string;
  compression: 'none' | 'gzip' | 'zip';
  /** Hex sha256 of the transferred bytes (of what was read so far until the end). */
  sha256(): string;
  /** Transferred bytes read so far. */
  bytesRead(): number;
  /**
   * Transferred bytes in all when known up front: a local file's size, or the Content-Length of
   * the HTTP response (null when the server sends none, as with chunked encoding).
   */
  totalBytes: number | null;
}

const READ = 128 * 1024;
const GUNZIP_CHUNK = 1 << 20;
const READ_AHEAD = 16 * GUNZIP_CHUNK;

async function* readFile(path: string, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
  const fh = await open(path, 'r').catch((e: NodeJS.ErrnoException) => {
    throw new SourceError(`cannot open ${path}: ${e.code ?? e.message}`, e.code === 'ENOENT' ? 'not_found' : 'io');
  });
  // One read always in flight while the consumer parses the previous chunk (no idle CPU waiting on
  // the thread pool); each read gets its own buffer because consumers may keep chunks.
  const next = (): Promise<Uint8Array> => {
    const buf = Buffer.allocUnsafe(READ);
    return fh.read(buf, 0, READ, null).then((r) => buf.subarray(0, r.bytesRead));
  };
  let pending = next();
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const c = await pending;
      if (c.length === 0) return;
      pending = next();
      yield c;
    }
  } finally {
    await pending.catch(() => undefined);
    await fh.close();
  }
}

/** Counts and hashes bytes as they pass. */
class Meter {
  bytes = 0;
  private readonly hash: Hash = createHash('sha256');
  private digest: string | null = null;
  private readonly on: ((n: number) => void) | undefined;

  constructor(on?: (n: number) => void) {
    this.on = on;
  }
  add(c: Uint8Array): void {
    this.bytes += c.length;
    this.hash.update(c);
    this.on?.(this.bytes);
  }
  finish(): void { this.digest ??= this.hash.digest('hex'); }
  hex(): string { return this.digest ?? this.hash.copy().digest('hex'); }
  async *tap(it: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const c of it) {
      this.add(c);
      yield c;
    }
    this.finish();
  }
}

/** Pulls the first chunk(s) until `n` bytes are known; returns them and an iterator over everything. */
async function peek(it: AsyncIterable<Uint8Array>, n: number): Promise<{ head: Uint8Array; all: AsyncIterable<Uint8Array> }> {
  const iter = it[Symbol.asyncIterator]();
  const got: Uint8Array[] = [];
  let len = 0;
  let done = false;
  while (len < n) {
    const r = await iter.next();
    if (r.done) { done = true; break; }
    got.push(r.value);
    len += r.value.length;
  }
  const head = Buffer.concat(got);
  async function* all(): AsyncGenerator<Uint8Array> {
    try {
      for (const g of got) yield g;
      if (done) return;
      for (;;) {
        const r = await iter.next();
        if (r.done) return;
        yield r.value;
      }
    } finally {
      if (!done) await iter.return?.();
    }
  }
  return { head, all: all() };
}

const isGzip = (h: Uint8Array): boolean => h[0] === 0x1f && h[1] === 0x8b;
const isZip = (h: Uint8Array): boolean => h[0] === 0x50 && h[1] === 0x4b && ((h[2] === 3 && h[3] === 4) || (h[2] === 5 && h[3] === 6));

/**
 * Iterates a stream while letting it run up to `max` bytes ahead of the consumer: zlib inflates on
 * the thread pool while the parser works, instead of waiting to be asked for each chunk (a pull
 * per chunk costs a thread hand-off, which on a loaded 2-core machine stalls both).
 */
async function* readAhead(s: Readable, max: number): AsyncGenerator<Buffer> {
  const q: Buffer[] = [];
  let queued = 0;
  let ended = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  s.on('data', (c: Buffer) => {
    q.push(c);
    queued += c.length;
    if (queued > max) s.pause();
    wake?.();
  });
  s.once('end', () => { ended = true; wake?.(); });
  s.once('error', (e) => { failure = e; wake?.(); });
  for (;;) {
    const c = q.shift();
    if (c !== undefined) {
      queued -= c.length;
      if (s.isPaused() && queued < max / 2) s.resume();
      yield c;
      continue;
    }
    if (failure !== null) throw failure;
    if (ended) return;
    await new Promise<void>((r) => { wake = r; });
    wake = null;
  }
}

/** Gunzips with 1 MiB output chunks; maps zlib errors to SourceError with offsets. */
async function* gunzip(raw: AsyncIterable<Uint8Array>, compressed: () => number, label: string): AsyncGenerator<Uint8Array> {
  const z = createGunzip({ chunkSize: GUNZIP_CHUNK });
  const src = Readable.from(raw, { objectMode: false });
  const done = pipeline(src, z).catch(() => undefined); // errors surface through the iteration below
  let out = 0;
  try {
    for await (const c of readAhead(z, READ_AHEAD)) {
      out += c.length;
      yield c;
    }
  } catch (e) {
    if (e instanceof SourceError) throw e;
    const err = e as NodeJS.ErrnoException;
    const truncated = err.code === 'Z_BUF_ERROR' || /unexpected end/i.test(err.message);
    throw new SourceError(
      `${label}: ${truncated ? 'truncated gzip' : 'corrupt gzip'} (${err.message}) after ${compressed()} compressed / ${out} uncompressed bytes`,
      truncated ? 'truncated_gzip' : 'corrupt_gzip', { byteOffset: out, compressedOffset: compressed() });
  } finally {
    src.destroy();
    z.destroy();
    await done;
  }
}

async function maybeGunzip(it: AsyncIterable<Uint8Array>, compressed: () => number, label: string): Promise<{ stream: AsyncIterable<Uint8Array>; gz: boolean }> {
  const p = await peek(it, 2);
  return isGzip(p.head) ? { stream: gunzip(p.all, compressed, label), gz: true } : { stream: p.all, gz: false };
}

/** Lists a zip's members and streams the single file member. */
function openZip(path: string, label: string): Promise<AsyncIterable<Uint8Array>> {
  return new Promise((resolve, reject) => {
    // autoClose off: it would close the file after the directory, before the member is read.
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (err, zip) => {
      if (err) { reject(new SourceError(`${label}: not a readable zip (${err.message})`, 'zip')); return; }
      const entries: yauzl.Entry[] = [];
      zip.on('entry', (e: yauzl.Entry) => { entries.push(e); zip.readEntry(); });
      zip.on('error', (e: Error) => { zip.close(); reject(new SourceError(`${label}: corrupt zip (${e.message})`, 'zip')); });
      zip.on('end', () => {
        const files = entries.filter((e) => !e.fileName.endsWith('/') && !e.fileName.startsWith('__MACOSX/'));
        if (files.length !== 1) {
          zip.close();
          const names = files.map((e) => e.fileName).join(', ');
          reject(new SourceError(files.length === 0 ? `${label}: the zip has no file member`
            : `${label}: the zip has ${files.length} members (${names}); give each TiC file on its own`, 'zip'));
          return;
        }
        zip.openReadStream(files[0]!, (e2, stream) => {
          if (e2) { zip.close(); reject(new SourceError(`${label}: cannot read ${files[0]!.fileName} (${e2.message})`, 'zip')); return; }
          stream.once('close', () => zip.close());
          resolve((async function* () {
            try {
              for await (const c of stream as AsyncIterable<Buffer>) yield c;
            } catch (e) {
              throw new SourceError(`${label}: zip member ${files[0]!.fileName}: ${(e as Error).message}`, 'zip');
            } finally {
              stream.destroy();
            }
          })());
        });
      });
      zip.readEntry();
    });
  });
}

/**
 * Opens a TiC source. Errors opening it (404, refused address, missing file, zip with several
 * members) are thrown here as SourceError; errors while reading are thrown by the iteration.
 */
export async function openSource(src: string, opts: OpenSourceOptions = {}): Promise<OpenedSource> {
  const meter = new Meter(opts.onCompressedBytes);
  const compressed = (): number => meter.bytes;
  const isHttp = /^https?:\/\//i.test(src);
  let url: string;
  let raw: AsyncIterable<Uint8Array>;
  let localPath: string | null = null;
  let totalBytes: number | null;
  if (isHttp) {
    const h = await openHttp(src, opts);
    url = h.url;
    raw = h.body;
    totalBytes = h.contentLength;
  } else {
    localPath = src.startsWith('file:') ? fileURLToPath(src) : src;
    const st = await stat(localPath).catch((e: NodeJS.ErrnoException) => {
      throw new SourceError(`cannot open ${localPath}: ${e.code ?? e.message}`, e.code === 'ENOENT' ? 'not_found' : 'io');
    });
    if (!st.isFile()) throw new SourceError(`${localPath} is not a file`, 'io');
    url = localPath;
    raw = readFile(localPath, opts.signal);
    totalBytes = st.size;
  }
  const p = await peek(raw, 4);
  const base = { url, sha256: () => meter.hex(), bytesRead: () => meter.bytes, totalBytes };
  if (isGzip(p.head)) return { ...base, compression: 'gzip', stream: gunzip(meter.tap(p.all), compressed, url) };
  if (!isZip(p.head)) return { ...base, compression: 'none', stream: meter.tap(p.all) };

  // zip: yauzl needs random access. Local files are opened in place (hashed in a first pass);
  // downloads are spooled to a private temp directory, removed when the stream ends.
  let zipPath = localPath;
  let tmp: string | null = null;
  if (zipPath === null) {
    tmp = await mkdtemp(join(tmpdir(), 'carebridge-zip-'));
    zipPath = join(tmp, 'source.zip');
    await pipeline(Readable.from(meter.tap(p.all)), createWriteStream(zipPath));
  } else {
    for await (const c of meter.tap(p.all)) void c;
  }
  try {
    const member = await openZip(zipPath, url);
    const { stream } = await maybeGunzip(member, compressed, url);
    const cleanup = tmp;
    async function* own(): AsyncGenerator<Uint8Array> {
      try {
        yield* stream;
      } finally {
        if (cleanup) await rm(cleanup, { recursive: true, force: true });
      }
    }
    return { ...base, compression: 'zip', stream: own() };
  } catch (e) {
    if (tmp) await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}
