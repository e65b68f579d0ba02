/**
 * Constants and helpers of the fast scanner (fast-parser.ts): state numbers, byte tables, and the
 * end-of-input judge shared with the reference parser's semantics.
 */
import { jsonParser } from 'stream-json/core/parser.js';

// scanner states
export const S_VALUE = 0, S_ARR_FIRST = 1, S_OBJ_FIRST = 2, S_KEY_NEXT = 3, S_COLON = 4, S_AFTER = 5, S_END = 6,
  S_STRING = 7, S_ESC = 8, S_UESC = 9, S_NUMBER = 10, S_LITERAL = 11;
// number sub-states (RFC 8259 section 6 grammar)
export const N_MINUS = 0, N_ZERO = 1, N_INT = 2, N_DOT = 3, N_FRAC = 4, N_E = 5, N_ESIGN = 6, N_EXP = 7;
// modes: walking the TiC structure, capturing a value for JSON.parse, skipping one, or capturing a
// container in "light" mode (see light())
export const M_WALK = 0, M_CAP = 1, M_SKIP = 2, M_LIGHT = 3;
// where a captured value goes
export const D_TOP = 0, D_ELEM = 1, D_ITEM = 2, D_RATE = 3;
export const OBJ = 1, ARR = 2;

export const LIT_TRUE = new Uint8Array([0x74, 0x72, 0x75, 0x65]);
export const LIT_FALSE = new Uint8Array([0x66, 0x61, 0x6c, 0x73, 0x65]);
export const LIT_NULL = new Uint8Array([0x6e, 0x75, 0x6c, 0x6c]);
export const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;
export const VALUE_START = new Uint8Array(256);
for (const c of '{["-0123456789tfn') VALUE_START[c.charCodeAt(0)] = 1;

/**
 * True when `bytes` is a well-formed prefix of a JSON value (so input ending there is truncated,
 * not malformed). Checked with stream-json's tokenizer, the reference's own judge, padded with
 * whitespace so it decides on every character (see reference-parser.ts).
 */
export function wellFormedPrefix(bytes: Uint8Array): boolean {
  const t = jsonParser({ packValues: true, streamValues: false });
  try {
    t(new TextDecoder('utf-8').decode(bytes) + ' '.repeat(16));
    return true;
  } catch {
    return false;
  }
}

/** Concatenates the captured parts of a record. */
export function concat(parts: Uint8Array[], last: Uint8Array): Uint8Array {
  let len = last.length;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  out.set(last, o);
  return out;
}
