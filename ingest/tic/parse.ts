/**
 * parseTic: read one Transparency-in-Coverage JSON document (in-network rates, allowed amounts,
 * table of contents or a provider-reference file; schema 1.x and 2.x) from a byte stream and call
 * the TicSink (records.ts) in document order, never holding the whole document.
 *
 * Two interchangeable front-ends produce the identical sink call sequence (differential test):
 * - 'fast' (default): a byte-level scanner (fast-parser.ts) that only materialises the values it
 *   keeps, one record at a time.
 * - 'reference': stream-json's tokenizer (reference-parser.ts), slow but independent.
 * Both feed the same TicAssembler (assembler.ts), which normalises (normalize.ts) and emits.
 *
 * Remote provider references (`location`) are NOT fetched here: they arrive as
 * ProviderReferenceRecord with `location` set; the caller resolves them with
 * resolveRemoteReferences() (remote-refs.ts) after the parse.
 */
import { TicAssembler } from './assembler.ts';
import { runReference, type FrontEndOptions } from './reference-parser.ts';
import { runFast } from './fast-parser.ts';
import type { FileKind, TicSink, WarningKind } from './records.ts';
import { firstError, type Offloader } from './offload.ts';

export interface ParseOptions {
  /** The kind the caller expects (from the CLI flag); a file of another kind fails with `wrong_kind`. */
  kindHint?: FileKind;
  /** Longest string, key or number accepted, in bytes (default 16 MiB); longer fails with `too_long`. */
  maxStringBytes?: number;
  /** Deepest container nesting accepted (default 64; TiC files nest at most ~10). */
  maxDepth?: number;
  /**
   * Largest single record materialised at once (one negotiated_rates entry, one provider reference,
   * ...), in bytes of JSON (default 256 MiB; a 50,000-NPI group is ~600 KB). Larger fails `too_long`.
   */
  maxRecordBytes?: number;
  /** Progress: uncompressed bytes consumed so far (called once per input chunk). */
  onBytes?: (uncompressedBytesSoFar: number) => void;
  signal?: AbortSignal;
  /** Which front-end (default 'fast'). */
  parser?: 'fast' | 'reference';
  /** For a standalone provider-reference file: the refId to give its groups (default ''). */
  refId?: string;
  /**
   * A second parse thread (offload.ts) for the fast front-end; parseTic finishes it before it
   * returns, and closes it when the parse fails.
   */
  offload?: Offloader | null;
}

export interface ParseStats {
  /** Uncompressed bytes read. */
  bytes: number;
  kind: FileKind;
  version: string | null;
  /** RateRecords emitted (one per usable negotiated_rates entry). */
  rates: number;
  /** PriceRecords inside them. */
  prices: number;
  providerReferences: number;
  warnings: Record<WarningKind, number>;
}

export const DEFAULT_MAX_STRING_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_DEPTH = 64;
export const DEFAULT_MAX_RECORD_BYTES = 256 * 1024 * 1024;

/**
 * Parses one TiC file. Throws TicParseError (records.ts) with the byte offset and a reason code on
 * invalid JSON, truncation, an over-long string, over-deep nesting, a type that makes the file
 * unusable, or a file of the wrong kind; recoverable deviations go to `sink.warning`.
 */
export async function parseTic(input: AsyncIterable<Uint8Array>, sink: TicSink, opts: ParseOptions = {}): Promise<ParseStats> {
  const pos = { offset: 0 };
  const off = opts.parser === 'reference' ? null : opts.offload ?? null;
  const asm = new TicAssembler(sink, { kindHint: opts.kindHint, at: () => pos.offset, refId: opts.refId, offload: off });
  const fe: FrontEndOptions = {
    maxStringBytes: opts.maxStringBytes ?? DEFAULT_MAX_STRING_BYTES,
    maxDepth: opts.maxDepth ?? DEFAULT_MAX_DEPTH,
    maxRecordBytes: opts.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES,
    onBytes: opts.onBytes,
    signal: opts.signal,
    pos,
  };
  let bytes: number;
  try {
    bytes = opts.parser === 'reference' ? await runReference(input, asm, fe) : await runFast(input, asm, fe);
    if (off) asm.addHelperStats(await off.finish());
  } catch (err) {
    throw off ? await firstError(off, err) : err;
  }
  const s = asm.stats;
  return {
    bytes, kind: s.kind ?? opts.kindHint ?? 'in-network', version: s.version,
    rates: s.rates, prices: s.prices, providerReferences: s.providerReferences, warnings: s.warnings,
  };
}
