/**
 * HTTP range requests on a served media file (RFC 9110, section 14: Range, Content-Range,
 * If-Range), so a video can be scrubbed and a download resumed. One byte range is served: a
 * `bytes=a-b`, `bytes=a-` or `bytes=-n`. A header this does not serve as a range (another unit,
 * several ranges, a malformed one, or an If-Range that does not match) gets the whole file (200),
 * which RFC 9110 allows ("a server MAY ignore the Range header field"); a range that starts past
 * the end, or `bytes=-0`, is unsatisfiable (416, its Content-Range naming the file's size).
 */

/** What to send for a request's Range header on a file of `size` bytes. */
export type RangeAnswer =
  | { kind: 'whole' }
  | { kind: 'part'; start: number; end: number }
  | { kind: 'unsatisfiable' };

const ONE_RANGE = /^bytes=(\d*)-(\d*)$/i;

/**
 * Reads `range` (the Range header) against a file of `size` bytes. `ifRange` is the If-Range
 * header and `etag` the file's current entity tag: a range is served only when If-Range is absent
 * or names that tag (a strong comparison; a date never matches, as we send no Last-Modified).
 */
export function parseRange(range: string | undefined, size: number, ifRange?: string, etag?: string): RangeAnswer {
  if (range === undefined) return { kind: 'whole' };
  if (ifRange !== undefined && (etag === undefined || ifRange.trim() !== etag)) return { kind: 'whole' };
  const m = ONE_RANGE.exec(range.trim());
  if (!m) return { kind: 'whole' };
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // bytes=-n: the last n bytes (all of a shorter file); -0 selects nothing.
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'whole' }; // not a valid range: ignored (RFC 9110, 14.1.1)
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
