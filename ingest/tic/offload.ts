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
import type { TicParseError, WarningKind } from './records.ts';

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
