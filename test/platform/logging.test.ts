/**
 * Error log lines keep the error's name and message: callers pass `safeErr(e)` and pino's `err`
 * serializer (the same function) runs again on it; the second pass must not turn the fields
 * into "[object Object]".
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, safeErr } from '../../api/logging.ts';

describe('error log lines', () => {
  it('a safeErr field survives the err serializer', () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk: Buffer, _enc, cb) { lines.push(chunk.toString()); cb(); } });
    const log = createLogger({ logLevel: 'info' }, sink);
    log.error({ err: safeErr(Object.assign(new TypeError('boom'), { code: 'E_X', detail: 'row values' })) }, 'request failed');
    log.error({ err: new RangeError('raw') }, 'raw error');
    log.error({ err: 'a string' }, 'not an error');
    const [a, b, c] = lines.map((l) => JSON.parse(l) as { err: Record<string, unknown> });
    expect(a!.err).toMatchObject({ type: 'TypeError', message: 'boom', code: 'E_X' });
    expect(a!.err).not.toHaveProperty('detail');
    expect(b!.err).toMatchObject({ type: 'RangeError', message: 'raw' });
    expect(c!.err).toMatchObject({ type: 'string', message: 'a string' });
  });
});
