/**
 * Where CSV bytes come from (ingest/csv.ts reads them): local files (plain, gzip or a ZIP member,
 * recognised by magic bytes), http(s) URLs (undici; plain and gzip streamed, a ZIP downloaded to a
 * temp file first because its directory sits at the end), Readables and iterables of chunks.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { fetch } from 'undici';
import yauzl from 'yauzl';

/**
 * What a reader accepts: a local path (plain, .gz or .zip, detected by magic bytes), an http(s) URL
 * (plain or .gz streamed; a .zip is downloaded to a temp file first: ZIP needs random access), or
 * bytes/text.
 */
export type CsvInput = string | Readable | AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>;

/** A file that cannot be read as CSV at all (not a bad row: bad rows are the loaders' warnings). */
export class CsvError extends Error {
  override name = 'CsvError';
}

/** True for an http(s) URL. */
export function isUrl(s: string): boolean {
  return /^https?:\/\//i.test(s);
}

async function fetchOk(url: string): Promise<Readable> {
  let res;
  try {
    res = await fetch(url, { redirect: 'follow' });
  } catch (e) {
    throw new CsvError(`${url}: cannot fetch (${(e as Error).message})`);
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new CsvError(`${url}: HTTP ${res.status}`);
  }
  return Readable.fromWeb(res.body);
}

/**
 * Downloads a URL to a file under `dir` (default: a new temp directory) and returns its path: for
 * ZIP bundles, which need random access, and for a CLI that reads several members of one bundle.
 */
export async function downloadToFile(url: string, dir = mkdtempSync(join(tmpdir(), 'carebridge-dl-'))): Promise<string> {
  const name = basename(new URL(url).pathname) || 'download';
  const path = join(dir, name);
  await pipeline(await fetchOk(url), createWriteStream(path));
  return path;
}

async function openUrl(url: string, member?: RegExp): Promise<AsyncIterable<Buffer | Uint8Array>> {
  if (/\.zip$/i.test(new URL(url).pathname)) {
    const path = await downloadToFile(url);
    const dir = join(path, '..');
    const { stream } = await openZipMember(path, member).catch((e: unknown) => { rmSync(dir, { recursive: true, force: true }); throw e; });
    stream.once('close', () => rmSync(dir, { recursive: true, force: true }));
    return stream;
  }
  const body = await fetchOk(url);
  // gzip by magic bytes, as for files: peek at the first chunk, then replay it.
  const it = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await it.next();
  async function* replay(): AsyncGenerator<Buffer> {
    if (!first.done) yield first.value;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  }
  const bytes = Readable.from(replay(), { objectMode: false });
  if (!first.done && first.value[0] === 0x1f && first.value[1] === 0x8b) {
    const gz = createGunzip({ chunkSize: 1 << 20 });
    bytes.once('error', (e) => gz.destroy(e));
    return bytes.pipe(gz);
  }
  return bytes;
}

function isAsyncIterable(x: unknown): x is AsyncIterable<Buffer | Uint8Array | string> {
  return typeof x === 'object' && x !== null && Symbol.asyncIterator in x;
}

/** The ZIP member to read: matching `member` (or the only CSV), never a `*_fileheader.csv`. */
function pickMember(names: string[], member: RegExp | undefined, path: string): string {
  const candidates = names.filter((n) => !n.endsWith('/') && !/fileheader/i.test(n));
  const hits = member ? candidates.filter((n) => member.test(n.split('/').pop() ?? n)) : candidates.filter((n) => /\.(csv|txt)$/i.test(n));
  if (hits.length === 1) return hits[0]!;
  const what = member ? `member matching ${String(member)}` : 'CSV member';
  if (hits.length === 0) throw new CsvError(`${path}: no ${what} in the ZIP (members: ${names.join(', ') || 'none'})`);
  throw new CsvError(`${path}: ${hits.length} ${what}s in the ZIP (${hits.join(', ')}); name the one to read`);
}

/** True when the file starts with a ZIP local-file header (PK\x03\x04), whatever its extension. */
export async function isZipFile(path: string): Promise<boolean> {
  const fh = await open(path, 'r').catch((e: NodeJS.ErrnoException) => {
    throw new CsvError(`${path}: cannot open (${e.code ?? e.message})`);
  });
  const head = Buffer.alloc(4);
  try { await fh.read(head, 0, 4, 0); } finally { await fh.close(); }
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** Names of a ZIP file's members (central directory only; nothing is decompressed). */
export function listZipMembers(path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err) { reject(new CsvError(`${path}: not a readable ZIP file (${err.message})`)); return; }
      const names: string[] = [];
      zip.on('entry', (e: yauzl.Entry) => { names.push(e.fileName); zip.readEntry(); });
      zip.on('error', (e: Error) => reject(new CsvError(`${path}: ${e.message}`)));
      zip.on('end', () => resolve(names));
      zip.readEntry();
    });
  });
}

/** Opens one member of a ZIP file as a byte stream (yauzl; the central directory is read first). */
export function openZipMember(path: string, member?: RegExp): Promise<{ name: string; stream: Readable }> {
  return new Promise((resolve, reject) => {
    // autoClose off: it would close the file at the end of the directory, before the member is read.
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (err, zip) => {
      if (err) { reject(new CsvError(`${path}: not a readable ZIP file (${err.message})`)); return; }
      const entries: yauzl.Entry[] = [];
      zip.on('entry', (e: yauzl.Entry) => { entries.push(e); zip.readEntry(); });
      zip.on('error', (e: Error) => reject(new CsvError(`${path}: ${e.message}`)));
      zip.on('end', () => {
        let name: string;
        try { name = pickMember(entries.map((e) => e.fileName), member, path); } catch (e) { zip.close(); reject(e instanceof Error ? e : new CsvError(String(e))); return; }
        const entry = entries.find((e) => e.fileName === name)!;
        zip.openReadStream(entry, (err2, stream) => {
          if (err2) { zip.close(); reject(new CsvError(`${path}: cannot read member ${name} (${err2.message})`)); return; }
          stream.once('close', () => zip.close());
          resolve({ name, stream });
        });
      });
      zip.readEntry();
    });
  });
}

/**
 * Opens a CSV input as an async iterable of byte chunks: a path (ZIP and gzip recognised by their
 * magic bytes, whatever the extension), an http(s) URL, a Readable, or any iterable of chunks.
 */
export async function openCsvBytes(input: CsvInput, member?: RegExp): Promise<AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>> {
  if (typeof input !== 'string') {
    if (isAsyncIterable(input) || Symbol.iterator in input) return input;
    throw new CsvError('CSV input must be a path, a URL, a Readable or an async iterable');
  }
  if (isUrl(input)) return openUrl(input, member);
  const fh = await open(input, 'r').catch((e: NodeJS.ErrnoException) => {
    throw new CsvError(`${input}: cannot open (${e.code ?? e.message})`);
  });
  const head = Buffer.alloc(4);
  try { await fh.read(head, 0, 4, 0); } finally { await fh.close(); }
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) {
    return (await openZipMember(input, member)).stream;
  }
  const file = createReadStream(input, { highWaterMark: 1 << 20 });
  if (head[0] === 0x1f && head[1] === 0x8b) {
    const gz = createGunzip({ chunkSize: 1 << 20 });
    file.once('error', (e) => gz.destroy(e)); // pipe() does not forward a read error
    return file.pipe(gz);
  }
  return file;
}

