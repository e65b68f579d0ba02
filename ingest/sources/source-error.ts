/**
 * Why a source could not be read. `byteOffset` is the uncompressed byte at which reading failed
 * (what the parser had received), `compressedOffset` the byte of the transferred stream.
 */
export type SourceErrorReason = 'http' | 'network' | 'blocked' | 'not_found' | 'io' | 'truncated_gzip' | 'corrupt_gzip' | 'zip';

/** A failure to open or read a source (as opposed to a TicParseError in its content). */
export class SourceError extends Error {
  override name = 'SourceError';
  readonly retryable: boolean;
  readonly status: number | null;
  byteOffset: number | null;
  compressedOffset: number | null;
  readonly reason: SourceErrorReason;

  constructor(message: string, reason: SourceErrorReason, o: { retryable?: boolean; status?: number; byteOffset?: number; compressedOffset?: number } = {}) {
    super(message);
    this.reason = reason;
    this.retryable = o.retryable ?? false;
    this.status = o.status ?? null;
    this.byteOffset = o.byteOffset ?? null;
    this.compressedOffset = o.compressedOffset ?? null;
  }
}
