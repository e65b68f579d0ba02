/**
 * The default MediaStore: files under DATA_DIR/media, read through URLs this service signs with
 * its own key (HMAC-SHA256, DATA_DIR/keys/media-url.key, generated once, mode 0600, as the other
 * keys are). The URL carries its expiry and the response's type, disposition and file name, all
 * under the signature, so the serving route (api/media/media.routes.ts) needs no database read and
 * a changed byte of any of them is refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { dataDirKey } from '../../adapters/key-file.ts';
import { STORAGE_KEY_RE, type MediaStore, type ReadUrlOptions } from '../media-store.ts';

/** The path signed URLs are served under (api/media/media.routes.ts registers it). */
export const MEDIA_FILES_PATH = '/media/files';

/** The URL-signing key: generated once under DATA_DIR/keys; another process's wins a race. */
export function mediaUrlKey(dataDir: string): Buffer {
  return dataDirKey(dataDir, 'media-url.key');
}

export interface SignedParams { exp: string; ct: string; d: string; n: string; sig: string }

export type OpenResult =
  | {
    ok: true; size: number; contentType: string; disposition: 'inline' | 'attachment'; fileName: string;
    /** A strong entity tag: a stored file never changes (one key per message), so size and mtime name it. */
    etag: string;
    /** The file's bytes from `start` to `end` inclusive (the whole file without a range). */
    read(range?: { start: number; end: number }): Readable;
  }
  | { ok: false; why: 'bad_signature' | 'expired' | 'not_found' };

export class FileMediaStore implements MediaStore {
  readonly kind = 'files' as const;
  readonly origin: string;
  private readonly root: string;
  private readonly key: Buffer;

  constructor(o: { dataDir: string; baseUrl: string; key: Buffer }) {
    this.root = join(o.dataDir, 'media');
    this.origin = new URL(o.baseUrl).origin;
    this.key = o.key;
  }

  private path(key: string): string {
    // The pattern admits no `.`, `/` beyond the one separator, or `\`: nothing escapes the root.
    if (!STORAGE_KEY_RE.test(key)) throw new Error(`not a media storage key: ${key}`);
    return join(this.root, key);
  }

  private sign(key: string, exp: string, ct: string, d: string, n: string): string {
    return createHmac('sha256', this.key).update([key, exp, ct, d, n].join('\n')).digest('base64url');
  }

  async put(key: string, body: Buffer): Promise<void> {
    const file = this.path(key);
    await mkdir(dirname(file), { recursive: true });
    // Written beside, then renamed: a reader never sees half a file.
    const tmp = `${file}.${randomBytes(6).toString('hex')}.part`;
    await writeFile(tmp, body, { mode: 0o600 });
    await rename(tmp, file);
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async readUrl(key: string, o: ReadUrlOptions): Promise<string> {
    this.path(key);
    const exp = String(Math.floor(o.now.getTime() / 1000) + o.expiresInSeconds);
    const d = o.disposition === 'inline' ? 'i' : 'a';
    const q = new URLSearchParams({ exp, ct: o.contentType, d, n: o.fileName, sig: this.sign(key, exp, o.contentType, d, o.fileName) });
    return `${this.origin}${MEDIA_FILES_PATH}/${key}?${q.toString()}`;
  }

  /** Checks a signed URL's parameters at `now` and opens the file it names. */
  async open(key: string, p: Partial<SignedParams>, now: Date): Promise<OpenResult> {
    if (!STORAGE_KEY_RE.test(key) || !p.exp || !p.ct || !p.d || p.n === undefined || !p.sig) return { ok: false, why: 'bad_signature' };
    const want = Buffer.from(this.sign(key, p.exp, p.ct, p.d, p.n));
    const got = Buffer.from(p.sig);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return { ok: false, why: 'bad_signature' };
    if (!/^\d{1,12}$/.test(p.exp) || Number(p.exp) * 1000 <= now.getTime()) return { ok: false, why: 'expired' };
    const file = this.path(key);
    let st;
    try {
      st = await stat(file);
    } catch {
      return { ok: false, why: 'not_found' };
    }
    return {
      ok: true, size: st.size, contentType: p.ct, disposition: p.d === 'i' ? 'inline' : 'attachment', fileName: p.n,
      etag: `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`,
      read: (range) => createReadStream(file, range ? { start: range.start, end: range.end } : {}),
    };
  }

  async close(): Promise<void> {}
}
