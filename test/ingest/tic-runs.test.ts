/**
 * The helper's side of runs of records (ingest/tic/offload.ts, TicAssembler.ratesFromRun /
 * referencesFromRun): a run is read into exactly the sink calls its records read one at a time
 * give, whatever their shape; anything that is not exactly a comma-separated run of objects, each
 * within its nesting room, is a RunError at the byte where it stops being one.
 */
import { describe, expect, it } from 'vitest';
import { TicAssembler } from '../../ingest/tic/assembler.ts';
import { RunError, nextInRun, objectEnd, type RateHeader } from '../../ingest/tic/offload.ts';
import { TicParseError } from '../../ingest/tic/records.ts';
import { recorder } from '../fixtures/tic/recorder.ts';

const H: RateHeader = { type: 'CPT', code: '99213', version: '2026', name: 'n', arrangement: 'ffs' };
const price = '{"negotiated_type":"negotiated","negotiated_rate":12.5,"expiration_date":"9999-12-31","billing_class":"professional"}';
const RATES = [
  `{"provider_references":[1,2],"negotiated_prices":[${price}]}`,
  // not canonical (an unknown key, a string holding brackets, quotes and escapes): read by JSON.parse
  `{"provider_references":[3],"note":"a } ] { [ \\" \\\\ \\u0041","negotiated_prices":[${price},${price.replace('12.5', '0.01')}]}`,
  `{"provider_groups":[{"npi":["1234567890"],"tin":{"type":"ein","value":"11-1111111"}}],"negotiated_prices":[${price}]}`,
  `{"negotiated_prices":[${price}],"provider_references":[4]}`,
];
const REFS = [
  '{"provider_group_id":1,"provider_groups":[{"npi":[1234567890,1234567891],"tin":{"type":"ein","value":"11-1111111"}}]}',
  '{"provider_group_id":2.5,"provider_groups":[{"npi":["1999999999"],"tin":{"type":"npi","value":"1999999999"}}],"extra":{"a":[1,{"b":"}"}]}}',
];

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function oneByOne(recs: string[], kind: 'rate' | 'reference'): unknown[] {
  const r = recorder();
  const asm = new TicAssembler(r.sink, { at: () => 0 });
  for (const t of recs) {
    if (kind === 'rate') asm.rateFromBytes(H, enc(t));
    else asm.referenceFromBytes(enc(t));
  }
  return r.calls;
}

function asRun(text: string, kind: 'rate' | 'reference', room = 60, start = 1000): { calls: unknown[]; ats: number[] } {
  const r = recorder();
  const ats: number[] = [];
  const asm = new TicAssembler(r.sink, { at: () => ats.at(-1) ?? 0 });
  if (kind === 'rate') asm.ratesFromRun(H, enc(text), start, room, (at) => ats.push(at));
  else asm.referencesFromRun(enc(text), start, room, (at) => ats.push(at));
  return { calls: r.calls, ats };
}

describe('runs of records read by the helper', () => {
  it.each([',', ' , ', ',\n  '])('a run gives the calls of its records one by one (separator %j), each at its end', (sep) => {
    const text = RATES.join(sep);
    const { calls, ats } = asRun(text, 'rate');
    expect(calls).toEqual(oneByOne(RATES, 'rate'));
    expect(ats).toEqual(RATES.map((t) => 1000 + text.indexOf(t) + t.length));
    expect(asRun(REFS.join(sep), 'reference').calls).toEqual(oneByOne(REFS, 'reference'));
  });

  const runError = (f: () => unknown): RunError => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(RunError);
      return e as RunError;
    }
    throw new Error('no RunError');
  };

  it('what is not exactly a run of objects is a RunError at the byte where it stops being one', () => {
    const two = `${RATES[0]!},${RATES[1]!}`;
    // the end of the array and a sibling of another level (a wrong guess at the run's end)
    expect(runError(() => asRun(`${RATES[0]!}]},{"x":${RATES[1]!}`, 'rate')).byteOffset).toBe(1000 + RATES[0]!.length);
    expect(runError(() => asRun(`${RATES[0]!},5`, 'rate')).byteOffset).toBe(1000 + RATES[0]!.length + 1);
    // cut inside a record (taken canonical or not)
    expect(runError(() => asRun(two.slice(0, -3), 'rate')).byteOffset).toBe(1000 + two.length - 3);
    expect(runError(() => asRun(`${RATES[0]!},{"provider_references":[1],"a":"}`, 'rate')).byteOffset).toBeGreaterThan(1000 + RATES[0]!.length);
    // nested deeper than its room (canonical entries need four levels; this one five)
    expect(runError(() => asRun(`{"provider_references":[1],"x":[[[[1]]]],"negotiated_prices":[${price}]}`, 'rate', 4))).toBeInstanceOf(TicParseError);
    expect(asRun(`{"provider_references":[1],"x":[[[1]]],"negotiated_prices":[${price}]}`, 'rate', 4).calls.length).toBeGreaterThan(0);
  });

  it('a record that is a whole object but invalid JSON inside fails as invalid_json, not as a run', () => {
    let err: unknown = null;
    try {
      asRun(`${RATES[0]!},{"provider_references":[1],"negotiated_prices":[{"negotiated_rate":1.2.3}]}`, 'rate');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TicParseError);
    expect(err).not.toBeInstanceOf(RunError);
    expect((err as TicParseError).reason).toBe('invalid_json');
  });

  it('objectEnd and nextInRun', () => {
    const b = enc('{"a":"}\\"]","b":[{}]} , {"c":1}');
    expect(objectEnd(b, 0, 3, 0)).toBe(21);
    expect(() => objectEnd(b, 0, 2, 0)).toThrow(RunError);
    expect(nextInRun(b, 21, 0)).toBe(24);
    expect(nextInRun(b, b.length, 0)).toBe(b.length);
    expect(() => nextInRun(enc('{} x'), 2, 0)).toThrow(RunError);
    expect(() => objectEnd(enc('{"a":[1'), 0, 10, 0)).toThrow(RunError);
  });
});
