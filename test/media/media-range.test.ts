/** parseRange (engine/media/media-range.ts): the three single-range forms, 416 and what is ignored (RFC 9110, section 14). */
import { describe, expect, it } from 'vitest';
import { parseRange } from '../../engine/media/media-range.ts';

describe('parseRange on a 100-byte file', () => {
  it.each([
    ['bytes=0-0', { kind: 'part', start: 0, end: 0 }],
    ['bytes=10-19', { kind: 'part', start: 10, end: 19 }],
    ['bytes=90-500', { kind: 'part', start: 90, end: 99 }],
    ['bytes=95-', { kind: 'part', start: 95, end: 99 }],
    ['bytes=-10', { kind: 'part', start: 90, end: 99 }],
    ['bytes=-1000', { kind: 'part', start: 0, end: 99 }],
    [' BYTES=1-2 ', { kind: 'part', start: 1, end: 2 }],
    ['bytes=100-', { kind: 'unsatisfiable' }],
    ['bytes=200-300', { kind: 'unsatisfiable' }],
    ['bytes=-0', { kind: 'unsatisfiable' }],
    ['bytes=5-2', { kind: 'whole' }],
    ['bytes=-', { kind: 'whole' }],
    ['bytes=0-1,3-4', { kind: 'whole' }],
    ['items=0-1', { kind: 'whole' }],
    ['bytes=a-b', { kind: 'whole' }],
  ] as const)('%s', (range, want) => {
    expect(parseRange(range, 100)).toEqual(want);
  });

  it('serves the range only when If-Range names the current entity tag', () => {
    expect(parseRange(undefined, 100)).toEqual({ kind: 'whole' });
    expect(parseRange('bytes=0-9', 100, '"a-1"', '"a-1"')).toEqual({ kind: 'part', start: 0, end: 9 });
    expect(parseRange('bytes=0-9', 100, '"a-2"', '"a-1"')).toEqual({ kind: 'whole' });
    expect(parseRange('bytes=0-9', 100, 'Sat, 28 Nov 2026 10:00:00 GMT', '"a-1"')).toEqual({ kind: 'whole' });
  });
});
