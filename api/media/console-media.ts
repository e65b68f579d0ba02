/**
 * The media of a conversation as the clinician console shows it (issue 35, item 4; issue 39,
 * item 3): a signed URL per media message, read through provider_media_url (so the console gets
 * no access the provider API would not give); images inline, video and PDFs as links. With the S3
 * store the images come from S3's origin, which the page's CSP then names in `img-src`.
 */
import { PAGE_HEADERS } from '../web/render.ts';
import type { MediaStore } from '../../engine/media/media-store.ts';

export interface ConsoleMediaItem { url: string; inline: boolean; label: string }

type Message = { id: string; type: string; fileName?: string };

/** Signed URLs for the media messages among `messages` (a media whose URL cannot be made is left out). */
export async function consoleMedia(messages: readonly Message[], read: (messageId: string) => Promise<{ url: string; contentType: string }>): Promise<Record<string, ConsoleMediaItem>> {
  const out: Record<string, ConsoleMediaItem> = {};
  for (const m of messages) {
    if (m.type === 'text') continue;
    try {
      const r = await read(m.id);
      const label = m.type === 'photo' ? 'photo' : m.type === 'video' ? `video (${r.contentType})` : (m.fileName ?? `file (${r.contentType})`);
      out[m.id] = { url: r.url, inline: m.type === 'photo', label };
    } catch {
      // An upload not yet completed, or a failed one: the message text says what was sent.
    }
  }
  return out;
}

/** The page's CSP with the media store's origin allowed for images, when it is not our own. */
export function consoleMediaHeaders(store: MediaStore | undefined, baseUrl: string): Record<string, string> {
  if (!store || store.origin === new URL(baseUrl).origin) return {};
  const csp = PAGE_HEADERS['content-security-policy']!.replace("img-src 'self' data:", `img-src 'self' data: ${store.origin}`);
  return { 'content-security-policy': csp };
}
