/**
 * Text lines of a reference file (plain or gzip, detected by magic bytes), streamed. CMS fixed-width
 * files end lines with CRLF (ZIP5) or LF (PPRRVU); both are handled by readline.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';

async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await fh.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/** Opens a path as a byte stream, gunzipping when the file is gzip. */
export async function openText(path: string): Promise<Readable> {
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  return (await isGzip(path)) ? file.pipe(createGunzip()) : file;
}

/** Every line of the file, without its line end. */
export async function* textLines(path: string): AsyncGenerator<string> {
  const rl = createInterface({ input: await openText(path), crlfDelay: Infinity });
  for await (const line of rl) yield line;
}

/** 1-based inclusive column slice, as CMS layouts number positions ("Status Code 58-58"). */
export function cols(line: string, from: number, to: number): string {
  return line.slice(from - 1, to).trim();
}

/** A numeric field; blank -> null (CMS leaves RVU fields blank on some non-payable rows). */
export function num(s: string): number | null {
  if (s === '') return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** Finds a file in `dir` whose name matches `re`, preferring the plain file over a .gz copy. */
export function pickFile(names: string[], re: RegExp): string | undefined {
  const hits = names.filter((n) => re.test(n)).sort((a, b) => Number(a.endsWith('.gz')) - Number(b.endsWith('.gz')) || a.localeCompare(b));
  return hits[0];
}
