/**
 * File names for media responses: a Content-Disposition a browser cannot be tricked by (RFC 6266:
 * an ASCII `filename` fallback with quotes, controls and path characters removed, and the full
 * name as RFC 8187 `filename*`), and a default name from the type.
 */
const EXT: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp', 'image/heic': 'heic', 'image/heif': 'heif',
  'image/avif': 'avif', 'image/bmp': 'bmp', 'image/tiff': 'tiff', 'video/mp4': 'mp4', 'video/quicktime': 'mov', 'video/webm': 'webm',
  'video/3gpp': '3gp', 'video/x-matroska': 'mkv', 'application/pdf': 'pdf',
};

/** A caller's file name made safe to store and show: no path, no control characters, at most 200 characters. */
export function cleanFileName(name: string): string {
  const base = name.replace(/[\u0000-\u001f\u007f]/g, '').split(/[\\/]/).pop() ?? '';
  return base.trim().slice(0, 200) || 'file';
}

/** The name a download gets when the sender gave none. */
export function defaultFileName(messageId: string, contentType: string): string {
  return `${messageId}.${EXT[contentType] ?? 'bin'}`;
}

/** `inline` or `attachment` with a safe ASCII `filename` and the exact name as `filename*` (RFC 6266, RFC 8187). */
export function contentDisposition(disposition: 'inline' | 'attachment', fileName: string): string {
  const clean = cleanFileName(fileName);
  const ascii = clean.normalize('NFKD').replace(/[^\x20-\x7e]/g, '').replace(/["\\%;]/g, '_').trim() || 'file';
  const star = encodeURIComponent(clean).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${star}`;
}
