/**
 * Differential test: the fast scanner and the stream-json reference parser make the identical
 * sequence of sink calls (and return identical stats) on every fixture: all CMS v1 and v2
 * examples, the real files, DoltHub's edge cases, the hand-made cases, a generated gen-tic file and
 * hostile input. On failing input both throw TicParseError with the same reason, and the reference
 * parser's calls are a prefix of the fast parser's (the reference finds errors a chunk later; exact
 * offsets are the fast parser's). The fast parser's output also does not depend on chunk sizes.
 * A fuzz pass over randomly damaged documents checks the same, never a crash.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseTic } from '../../ingest/tic/parse.ts';
import { CASES, HOSTILE, HOSTILE_MAX_STRING } from '../fixtures/tic/cases.ts';
import { chunked, fixtureBytes, hashingSink, parseBytes, TIC_DATA } from '../fixtures/tic/recorder.ts';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.json(\.gz)?$/.test(f) ? [p] : [];
  });
}
const SHARED = [...files(join(TIC_DATA, 'cms-examples-v1')), ...files(join(TIC_DATA, 'cms-examples-v2')),
  ...files(join(TIC_DATA, 'edge-cases')), ...files(join(TIC_DATA, 'real'))];

async function bothAgree(data: Uint8Array, chunk: number, opts = {}): Promise<number> {
  const fast = await parseBytes(data, { ...opts, parser: 'fast' }, chunk);
  const ref = await parseBytes(data, { ...opts, parser: 'reference' }, chunk);
  expect(fast.ok).toBe(ref.ok);
  if (fast.ok && ref.ok) {
    expect(fast.rec.calls).toEqual(ref.rec.calls);
    expect(fast.stats).toEqual(ref.stats);
  } else if (!fast.ok && !ref.ok) {
    expect(ref.error.reason).toBe(fast.error.reason);
    expect(isDeepStrictEqual(ref.rec.calls, fast.rec.calls.slice(0, ref.rec.calls.length))).toBe(true);
  }
  return fast.rec.calls.length;
}

describe('fast and reference parsers agree', () => {
  it('covers every shared fixture', () => {
    expect(SHARED.length).toBeGreaterThanOrEqual(30);
  });

  it.each(SHARED.filter((f) => statSync(f).size < 1_000_000).map((f) => [f.slice(TIC_DATA.length + 1), f]))('%s', async (_name, f) => {
    const data = fixtureBytes(f);
    const n = await bothAgree(data, 4096);
    expect(n).toBeGreaterThan(0);
    // In one chunk every canonical record is read straight from it (fast-parser.ts direct()).
    const whole = await parseBytes(data, { parser: 'fast' }, data.length);
    const split = await parseBytes(data, { parser: 'fast' }, 4096);
    expect(whole.ok).toBe(split.ok);
    expect(whole.rec.calls).toEqual(split.rec.calls);
  });

  it.each(Object.keys(CASES))('case %s', async (name) => {
    await bothAgree(Buffer.from(CASES[name]!), 13);
  });

  // Whole: canonical entries are read straight from the chunk (fast-parser.ts direct()); in
  // 13-byte chunks none is. The calls are the same either way, and the reference's.
  it.each(Object.keys(CASES))('case %s in one chunk', async (name) => {
    const data = Buffer.from(CASES[name]!);
    await bothAgree(data, data.length);
    const whole = await parseBytes(data, { parser: 'fast' }, data.length);
    const split = await parseBytes(data, { parser: 'fast' }, 13);
    expect(whole.rec.calls).toEqual(split.rec.calls);
  });

  it('cut in two at every byte: the same calls as in one chunk (a record ending at, before or after a chunk end)', async () => {
    const data = Buffer.from(CASES.fastRateEdges!);
    const whole = await parseBytes(data, { parser: 'fast' }, data.length);
    expect(whole.ok).toBe(true);
    for (let cut = 1; cut < data.length; cut++) {
      const two = await parseBytes(data, { parser: 'fast' }, [cut, data.length]);
      if (!isDeepStrictEqual(two.rec.calls, whole.rec.calls)) expect(two.rec.calls, `cut at ${cut}`).toEqual(whole.rec.calls);
    }
  });

  it.each(Object.keys(HOSTILE))('hostile %s', async (name) => {
    const { doc, reason } = HOSTILE[name]!;
    const out = await parseBytes(doc, { maxStringBytes: HOSTILE_MAX_STRING }, 7);
    expect(!out.ok && out.error.reason).toBe(reason);
    await bothAgree(Buffer.from(doc), 7, { maxStringBytes: HOSTILE_MAX_STRING });
  });

  it('truncated at every 997th byte of a real file: same reason, reference a prefix', async () => {
    const data = fixtureBytes(join(TIC_DATA, 'cms-examples-v2/in-network-rates-all-negotiated-types-sample.json'));
    for (let cut = 1; cut < data.length; cut += 997) await bothAgree(data.subarray(0, cut), 256);
  });

  it('the large real files (hashed call sequences)', async () => {
    for (const f of SHARED.filter((x) => statSync(x).size >= 1_000_000)) {
      const data = fixtureBytes(f);
      const a = hashingSink(), b = hashingSink();
      const sa = await parseTic(chunked(data, 65536), a.sink, { parser: 'fast' });
      const sb = await parseTic(chunked(data, 65536), b.sink, { parser: 'reference' });
      expect(a.count()).toBeGreaterThan(1000);
      expect(a.count()).toBe(b.count());
      expect(a.digest()).toBe(b.digest());
      expect(sa).toEqual(sb);
    }
  }, 180_000);

  it('a generated gen-tic file (remote refs, inline groups, thousands of NPIs)', async () => {
    const gen = resolve(TIC_DATA, '../../tools/gen-tic.mjs');
    const data = execFileSync(process.execPath, [gen, '--size-mb', '3', '--seed', '11'], { maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
    const a = hashingSink(), b = hashingSink();
    const sa = await parseTic(chunked(data, 65536), a.sink, { parser: 'fast' });
    const sb = await parseTic(chunked(data, 65536), b.sink, { parser: 'reference' });
    expect(sa.prices).toBeGreaterThan(1000);
    expect(sa.warnings.remote_reference).toBeGreaterThan(0);
    expect(a.digest()).toBe(b.digest());
    expect(sa).toEqual(sb);
    // and the fast parser is indifferent to chunking (1-byte chunks included, on a slice)
    const c = hashingSink();
    await parseTic(chunked(data, [1, 3, 65536, 7, 100_000]), c.sink, { parser: 'fast' });
    expect(c.digest()).toBe(a.digest());
  }, 120_000);

  it('fuzz: 1,500 randomly damaged documents never crash and the parsers agree', async () => {
    const srcs = [
      fixtureBytes(join(TIC_DATA, 'cms-examples-v2/in-network-rates-all-negotiated-types-sample.json')),
      fixtureBytes(join(TIC_DATA, 'cms-examples-v2/allowed-amounts-single-plan-sample.json')),
      fixtureBytes(join(TIC_DATA, 'cms-examples-v2/table-of-contents-sample.json')),
      Buffer.from(CASES.fastRateEdges!), Buffer.from(CASES.oddFields!),
    ];
    let seed = 12345;
    const rnd = (): number => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
    const alphabet = Buffer.from('{}[],:"\\ 0123456789-.eEtruefalsnx\u00e9');
    const tally: Record<string, number> = {};
    for (let k = 0; k < 1500; k++) {
      let buf = Buffer.from(srcs[k % srcs.length]!);
      for (let m = 0, n = 1 + Math.floor(rnd() * 3); m < n; m++) {
        const pos = Math.floor(rnd() * buf.length);
        const op = rnd();
        const ch = alphabet[Math.floor(rnd() * alphabet.length)]!;
        if (op < 0.4) buf[pos] = ch;
        else if (op < 0.7) buf = Buffer.concat([buf.subarray(0, pos), buf.subarray(pos + 1)]);
        else buf = Buffer.concat([buf.subarray(0, pos), Buffer.from([ch]), buf.subarray(pos)]);
      }
      const chunk = 1 + Math.floor(rnd() * 200);
      const f = await parseBytes(buf, { parser: 'fast' }, chunk);
      const r = await parseBytes(buf, { parser: 'reference' }, chunk);
      expect(f.ok).toBe(r.ok);
      if (f.ok && r.ok) {
        expect(f.rec.calls).toEqual(r.rec.calls);
        tally.ok = (tally.ok ?? 0) + 1;
      } else if (!f.ok && !r.ok) {
        expect(f.error.name).toBe('TicParseError'); // never a TypeError / RangeError
        expect(r.error.name).toBe('TicParseError');
        expect(isDeepStrictEqual(r.rec.calls, f.rec.calls.slice(0, r.rec.calls.length))).toBe(true);
        const key = `${f.error.reason}/${r.error.reason}`;
        tally[key] = (tally[key] ?? 0) + 1;
        // With two faults in one input the reference, which tokenizes a whole chunk before acting
        // on it, can name a later syntax error where the fast parser names the earlier type error.
        if (f.error.reason !== r.error.reason) expect(key).toBe('wrong_type/invalid_json');
      }
    }
    expect(tally.ok).toBeGreaterThan(300);
    expect(tally['invalid_json/invalid_json']).toBeGreaterThan(300);
    expect(tally['wrong_type/invalid_json'] ?? 0).toBeLessThan(30);
  }, 120_000);

  it('chunk boundaries anywhere give the same calls (every case, 1-byte chunks)', async () => {
    for (const doc of Object.values(CASES)) {
      const whole = await parseBytes(doc, { parser: 'fast' }, 1 << 20);
      const bytes = await parseBytes(doc, { parser: 'fast' }, 1);
      expect(bytes.rec.calls).toEqual(whole.rec.calls);
    }
  });
});
