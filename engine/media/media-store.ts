/**
 * The media area's ports (issue 39, item 3): where media bytes live (`MediaStore`) and the one
 * outbound guard a `url` is fetched through. Wired by the composition root (api/app.ts) from
 * configuration; engine/core knows no area (declaration merging).
 */
import type { Outbound } from '../ports/outbound.ts';

declare module '../core/context.ts' {
  interface Ports {
    media?: MediaPorts;
  }
}

export interface MediaPorts {
  store: MediaStore;
  /** The process's outbound guard (engine/adapters/outbound-guard.ts): media `url`s go through it. */
  guard: Outbound;
}

/** How a signed URL asks the browser to show the file. */
export interface ReadUrlOptions {
  /** The stored, sniffed type: the response's Content-Type. */
  contentType: string;
  /** `inline` for images and video; `attachment` for anything else (a PDF opens as a download). */
  disposition: 'inline' | 'attachment';
  /** The download name (sanitised by the store). */
  fileName: string;
  /** Seconds the URL is valid from `now`. */
  expiresInSeconds: number;
  /** The service's clock (tests move it; the URL's expiry counts from here). */
  now: Date;
}

/**
 * Where media bytes are kept. Keys are `<conversationId>/<messageId>` (URL-safe characters only).
 * Files under DATA_DIR by default (URLs signed with the service's own key and served by
 * api/media/media.routes.ts), S3 by configuration (presigned GET URLs, served by S3).
 */
export interface MediaStore {
  readonly kind: 'files' | 's3';
  /** The origin signed URLs point at (for the console's CSP `img-src`). */
  readonly origin: string;
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Removes the bytes at `key`; removing bytes that are not there is not an error. */
  delete(key: string): Promise<void>;
  /** A URL anyone holding it may GET until it expires; the response carries the given type and disposition. */
  readUrl(key: string, o: ReadUrlOptions): Promise<string>;
  close(): Promise<void>;
}

/** `<conversationId>/<messageId>`: both are URL-safe ids (newId), checked again by every adapter. */
export const STORAGE_KEY_RE = /^[A-Za-z0-9_-]{1,100}\/[A-Za-z0-9_-]{1,100}$/;

export function storageKey(conversationId: string, messageId: string): string {
  const key = `${conversationId}/${messageId}`;
  if (!STORAGE_KEY_RE.test(key)) throw new Error(`not a media storage key: ${key}`);
  return key;
}
