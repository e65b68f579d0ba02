/**
 * A second parse thread for one file (issue 3, item 9): the fast front-end hands some records'
 * bytes (negotiated_rates entries, provider_references elements) to an Offloader instead of reading
 * them itself, and the Offloader's helper reads and stages them elsewhere (the snapshot layer's
 * parse-helper.ts runs a worker thread). parse.ts wires it; the assembler decides per record.
 *
 * The helper reads a record exactly as the parse thread would (TicAssembler.rateFromBytes /
 * referenceFromBytes); what differs is only where its output goes, so the staged file is the same
 * set of rows (tests: parse-helper.int.test.ts).
 */
import { TicParseError, type WarningKind } from './records.ts';

/** An in_network item's code fields, as every negotiated_rates entry of the item is stored with. */
export interface RateHeader { type: string; code: string; version: string | null; name: string | null; arrangement: string }

/** The helper's share of the parse counts (ParseStats). Its warnings went to its own sink. */
export interface OffloadStats {
  rates: number;
  prices: number;
  providerReferences: number;
  warnings: Record<WarningKind, number>;
}

export interface Offloader {
  /**
   * Whether the record starting now may be handed over. `at` is the parse's byte offset (a helper
   * may start only past some offset, so that small files never start one). Throws the helper's
   * error as soon as it has one: the file has failed.
   */
  open(at: number): boolean;
  /**
   * A negotiated_rates entry (the whole object's bytes, ending at byte `end` of the file). False:
   * declined (too large to be worth the copy); the parse thread reads it.
   */
  rate(h: RateHeader, bytes: Uint8Array, end: number): boolean;
  /** A provider_references element (or false, as for rate()). */
  reference(bytes: Uint8Array, end: number): boolean;
  /**
   * The longest run of records `rates` / `references` take (fast-parser.ts handRun); absent or 0:
   * records are handed over one at a time only.
   */
  readonly runBytes?: number;
  /**
   * A run of negotiated_rates entries of one item: the bytes from the first one's `{` to the last
   * one's `}` (ending at byte `end` of the file), found without reading them, so the helper checks
   * that they are exactly a comma-separated run of objects (ratesFromRun) and fails the file with a
   * RunError otherwise. `room`: levels of nesting each entry may use. False: declined.
   */
  rates?(h: RateHeader, bytes: Uint8Array, end: number, room: number): boolean;
  /** A run of provider_references elements (as rates()). */
  references?(bytes: Uint8Array, end: number, room: number): boolean;
  /**
   * Waits until every record handed over is staged. Rejects with the helper's first error (a
   * TicParseError at its byte in the file) if it had one.
   */
  finish(): Promise<OffloadStats>;
  /** Stops the helper (the file failed or was aborted); idempotent. */
  close(): Promise<void>;
}

/**
 * After the parse thread failed with `own`: the error to report, the helper's when it lies earlier
 * in the file (the records it had were all before the parse thread's position).
 */
export async function firstError(off: Offloader, own: unknown): Promise<unknown> {
  let theirs: unknown = null;
  try {
    await off.finish();
  } catch (e) {
    theirs = e;
  }
  await off.close();
  const at = (e: unknown): number => (e as Partial<TicParseError> | null)?.byteOffset ?? Number.POSITIVE_INFINITY;
  return theirs !== null && at(theirs) < at(own) ? theirs : own;
}

/**
 * A run of records handed over (Offloader.rates / references) that is not exactly a run of records:
 * the parse thread's guess at where it ended was wrong (an object with the same first key at another
 * level), or the JSON is broken inside it. Either way the parse that followed it cannot be trusted:
 * the file is parsed again without runs (process-file.ts), which reports a real error exactly.
 */
export class RunError extends TicParseError {
  override name = 'RunError';
}

const isWs = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Where the object starting at `b[i]` ends (after its `}`): strings, escapes and nesting only (the
 * inside is checked by JSON.parse after). RunError when it does not end within `b` or nests deeper
 * than `room` levels. `start`: b's first byte in the file (for the error's offset).
 */
export function objectEnd(b: Uint8Array, i: number, room: number, start: number): number {
  const n = b.length;
  let d = 0;
  while (i < n) {
    const c = b[i++]!;
    if (c === 0x22) {
      while (i < n) {
        const x = b[i++]!;
        if (x === 0x5c) i++;
        else if (x === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++d > room) break;
    } else if (c === 0x7d || c === 0x5d) {
      if (--d === 0) return i;
    }
  }
  throw new RunError('a run of records handed to the parse helper is not a run of records', start + Math.min(i, n));
}

/**
 * After a record of a run ending at `end`: the next one's start, or `b.length` at the run's end.
 * RunError for anything but whitespace, a comma, whitespace and an object.
 */
export function nextInRun(b: Uint8Array, end: number, start: number): number {
  const n = b.length;
  let i = end;
  while (i < n && isWs(b[i])) i++;
  if (i === n) return n;
  if (b[i] === 0x2c) {
    i++;
    while (i < n && isWs(b[i])) i++;
    if (b[i] === 0x7b) return i;
  }
  throw new RunError('a run of records handed to the parse helper is not a run of records', start + i);
}
