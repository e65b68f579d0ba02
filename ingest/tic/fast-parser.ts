/**
 * The fast TiC front-end: a resumable, validating byte-level JSON scanner that allocates nothing per
 * token. It walks the document structure described in assembler.ts and only materialises the
 * values the assembler keeps, one record at a time: a canonical negotiated_rates entry or provider
 * reference is read straight from the chunk's bytes (fast-rate.ts, direct() below); any other
 * record's bytes are captured (across chunk boundaries if needed) and handed to fast-rate.ts or to
 * V8's native JSON.parse; or, when the assembler says so (takesRate / takesReference), captured
 * and handed as bytes to the parse helper of a large file (offload.ts). Skipped values (unknown
 * keys) are validated and forgotten.
 * shared/notes/json-throughput.md measured per-token JS objects at ~25x the cost of such a
 * scanner; the parser alone runs at 226-238 MiB/s on the benchmark file (schemas/README.md).
 *
 * Differences from the reference front-end, by design: error offsets are exact here; the
 * maxStringBytes check counts raw (escaped) bytes here and decoded bytes there.
 */
import { TicParseError, type TicParseErrorReason } from './records.ts';
import { ITEM_KEYS, STREAMED_KEYS, TOP_KEYS, type FrontEndEvents, type StreamedKey } from './assembler.ts';
import type { FrontEndOptions } from './reference-parser.ts';
import { preparedEnd, prepareRate, prepareReference } from './fast-rate.ts';
import { patchRawIds } from './raw-ids.ts';
import {
  S_VALUE, S_ARR_FIRST, S_OBJ_FIRST, S_KEY_NEXT, S_COLON, S_AFTER, S_END, S_STRING, S_ESC, S_UESC, S_NUMBER, S_LITERAL, N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP, M_WALK, M_CAP, M_SKIP, M_LIGHT, D_TOP, D_ELEM, D_ITEM, D_RATE, OBJ, ARR, LIT_TRUE, LIT_FALSE, LIT_NULL, HEX, VALUE_START, concat, wellFormedPrefix,
} from './fast-scan-defs.ts';

/** Bytes of bare values an array must start with before light() looks for its end with native searches (bareRun). */
const BARE_RUN_MIN = 64;
/** Longest first key of a record that handRun() builds its search from. */
const RUN_KEY_MAX = 40;
/** Whitespace between two records that a run's pattern carries at most (separatorBefore). */
const RUN_SEP_MAX = 16;
const NO_SEP = new Uint8Array(0);
const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** What must not come before the `]` that bareRun jumps to: a string, an object or a nested array. */
const BARE_STOPS = [0x22, 0x7b, 0x5b, 0x7d];

/** Runs the fast front-end over `input`; returns the number of bytes read. */
export async function runFast(input: AsyncIterable<Uint8Array>, ev: FrontEndEvents, o: FrontEndOptions): Promise<number> {
  const maxDepth = o.maxDepth;
  const maxStr = o.maxStringBytes;
  const td = new TextDecoder('utf-8');
  const ctype = new Uint8Array(maxDepth + 2);
  let depth = 0;
  let state = S_VALUE;
  let mode = M_WALK;
  let capBase = 0;
  let started = false;
  let finished = false;
  let rootKey = '';
  let itemKey = '';
  let streamKey: StreamedKey = 'in_network';
  let streamCount = 0;
  let ratesCount = 0;
  // lexeme state
  let strIsKey = false;
  let strEsc = false;
  let strLen = 0;
  let strStart = 0;
  let uLeft = 0;
  let numState = 0;
  let lit = LIT_NULL;
  let litIdx = 0;
  // capture state (values and walking-level keys)
  let capturing = false;
  let keyCapture = false;
  let capParts: Uint8Array[] = [];
  let capBytes = 0; // bytes held in capParts (maxRecordBytes)
  let capFrom = 0;
  let deliverTo = D_TOP;
  /** The record being captured goes to the parse helper (offload.ts) as bytes. */
  let handOff = false;
  /**
   * The in_network item's first key, quoted (`"negotiation_arrangement"`): a run of its rates stops
   * before the next place it appears, which is where the next item opens. As a quoted key and not
   * as siblingPattern() (`},{"key"`), since items are often set apart by whitespace in files whose
   * rates are not (`},\n\t{"negotiation_arrangement"`: HealthSCOPE's); anywhere else those bytes
   * are a string equal to the key, which only ends a run sooner.
   */
  let itemNext: Buffer | null = null;
  let base = 0;
  let buf: Uint8Array = new Uint8Array(0);

  const fail = (msg: string, at: number, reason: TicParseErrorReason): never => { throw new TicParseError(msg, at, reason); };

  const takeCapture = (end: number): Uint8Array => {
    const last = buf.subarray(capFrom, end);
    const bytes = capParts.length ? concat(capParts, last) : last;
    capParts = [];
    capBytes = 0;
    capturing = false;
    return bytes;
  };

  const deliver = (end: number): void => {
    const bytes = takeCapture(end);
    if (handOff) {
      handOff = false;
      o.pos.offset = base + end;
      // The helper may decline (a record too large for it): then it is read here, below.
      if (deliverTo === D_RATE ? ev.rateBytes(bytes, base + end) : ev.referenceBytes(bytes, base + end)) {
        if (deliverTo === D_RATE) ratesCount++;
        else streamCount++;
        return;
      }
    }
    if (deliverTo === D_ELEM && streamKey === 'provider_references') {
      const r = prepareReference(bytes, 0, bytes.length);
      if (r !== null) {
        o.pos.offset = base + end;
        streamCount++;
        ev.referencePrepared(r);
        return;
      }
    } else if (deliverTo === D_RATE) {
      const p = prepareRate(bytes, 0, bytes.length);
      if (p !== null) {
        o.pos.offset = base + end;
        ratesCount++;
        ev.ratePrepared(p);
        return;
      }
    }
    let v: unknown;
    try {
      v = JSON.parse(td.decode(bytes));
    } catch (e) {
      fail((e as Error).message, base + end, 'invalid_json');
    }
    patchRawIds(v, bytes);
    o.pos.offset = base + end;
    switch (deliverTo) {
      case D_TOP: ev.topValue(rootKey, v); break;
      case D_ELEM: streamCount++; ev.element(streamKey as Exclude<StreamedKey, 'in_network'>, v); break;
      case D_ITEM: ev.itemValue(itemKey, v); break;
      default: ratesCount++; ev.rate(v); break;
    }
  };

  /** A value (scalar or container) finished at `end` (exclusive). */
  const valueEnd = (end: number): void => {
    if (mode !== M_WALK && depth === capBase) {
      if (mode === M_CAP) deliver(end);
      mode = M_WALK;
    }
    state = depth === 0 ? S_END : S_AFTER;
  };

  const closeWalking = (closed: number, at: number): void => {
    o.pos.offset = base + at;
    if (closed === 1) finished = true;
    else if (closed === 2) ev.arrayEnd(streamKey, streamCount);
    else if (closed === 3) { streamCount++; ev.itemEnd(); }
    else ev.ratesEnd(ratesCount);
  };

  /** Decides, in walking mode, what the value starting with byte `c` at `i` is for. */
  const walkValue = (c: number, i: number): void => {
    o.pos.offset = base + i;
    const isObj = c === 0x7b, isArr = c === 0x5b;
    switch (depth) {
      case 0:
        started = true;
        if (!isObj) fail('the root is not an object', base + i, 'wrong_type');
        return;
      case 1:
        if (STREAMED_KEYS.has(rootKey)) {
          if (!isArr) fail(`"${rootKey}" is not an array`, base + i, 'wrong_type');
          streamKey = rootKey as StreamedKey;
          streamCount = 0;
          ev.arrayStart(streamKey);
        } else if (TOP_KEYS.has(rootKey)) startCap(i, D_TOP);
        else { ev.topSkipped(rootKey); mode = M_SKIP; capBase = depth; }
        return;
      case 2:
        if (streamKey === 'in_network') {
          if (!isObj) fail('an in_network entry is not an object', base + i, 'wrong_type');
          itemNext = quotedKeyAt(i);
          ev.itemStart();
        } else startCap(i, D_ELEM);
        return;
      case 3:
        if (itemKey === 'negotiated_rates') {
          if (!isArr) fail('negotiated_rates is not an array', base + i, 'wrong_type');
          ratesCount = 0;
        } else if (ITEM_KEYS.has(itemKey)) startCap(i, D_ITEM);
        else { ev.itemSkipped(itemKey); mode = M_SKIP; capBase = depth; }
        return;
      default:
        startCap(i, D_RATE);
    }
  };

  // light-mode state, kept across chunks
  let lInStr = false;
  let lEsc = false;
  let lLen = 0;

  /**
   * A container being captured (a record direct() did not take: another shape, or one that crosses
   * into the next chunk). It only finds the value's end: strings (with escapes), brackets
   * (type-matched, depth-limited) and the length of every string / bare token (maxStringBytes). The
   * grammar inside is validated by JSON.parse when the value is complete, so an error there is
   * still `invalid_json`.
   */
  const light = (start: number): number => {
    const b = buf;
    const n = b.length;
    let i = start;
    let d = depth;
    let inStr = lInStr, esc = lEsc, len = lLen;
    while (i < n) {
      if (inStr) {
        if (esc) { esc = false; i++; len++; continue; }
        const from = i;
        let c = 0;
        while (i < n) {
          c = b[i]!;
          if (c === 0x22 || c === 0x5c) break;
          i++;
        }
        len += i - from;
        if (len > maxStr) fail(`a string or key longer than ${maxStr} bytes`, base + i, 'too_long');
        if (i === n) break;
        i++;
        if (c === 0x5c) { esc = true; len++; } else { inStr = false; len = 0; }
        continue;
      }
      const c = b[i]!;
      if (c === 0x22) { inStr = true; len = 0; i++; continue; }
      if (c === 0x2c || c === 0x3a || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { len = 0; i++; continue; }
      if (c === 0x7b || c === 0x5b) {
        if (++d > maxDepth) fail(`nesting deeper than ${maxDepth}`, base + i, 'too_deep');
        ctype[d] = c === 0x7b ? OBJ : ARR;
        len = 0;
        i++;
        if (c === 0x5b) i = bareRun(b, i, n);
        continue;
      }
      if (c === 0x7d || c === 0x5d) {
        if (ctype[d] !== (c === 0x7d ? OBJ : ARR)) fail(`unexpected "${String.fromCharCode(c)}"`, base + i, 'invalid_json');
        d--;
        len = 0;
        i++;
        if (d === capBase) {
          depth = d;
          lInStr = false; lEsc = false; lLen = 0;
          mode = M_WALK;
          deliver(i);
          state = S_AFTER;
          return i;
        }
        continue;
      }
      if (++len > maxStr) fail(`a number or literal longer than ${maxStr} bytes`, base + i, 'too_long');
      i++;
    }
    depth = d;
    lInStr = inStr; lEsc = esc; lLen = len;
    return i;
  };

  /**
   * Where a long array of bare values (a group's NPIs) that starts at `i` ends, found with native
   * searches instead of byte by byte: the next `]`, when no `"`, `{`, `[` or `}` comes before it,
   * leaves nothing in between that light() would act on (bare bytes only reset or grow a token's
   * length, which stays below maxStr as the run does). Returns `i` itself for anything else: a
   * short array (scanned byte by byte, the searches cost more than they save), strings or objects
   * inside, or no `]` in the chunk. Measured 2026-11-23 with every record of the 1 GiB benchmark
   * file handed over (so light() scans them all): the parse thread 2.28-2.37 CPU-seconds against
   * 2.76-2.88 byte by byte.
   */
  const bareRun = (b: Uint8Array, i: number, n: number): number => {
    const c = b[i];
    if (c === undefined || c < 0x30 || c > 0x39 || n - i < BARE_RUN_MIN) return i;
    // A short list ends within BARE_RUN_MIN bytes; only a longer one pays for the searches.
    for (let k = i + 1; k < i + BARE_RUN_MIN; k++) {
      const x = b[k]!;
      if (!((x >= 0x30 && x <= 0x39) || x === 0x2c)) return i;
    }
    const end = b.indexOf(0x5d, i);
    if (end < 0 || end - i > maxStr) return i;
    for (const x of BARE_STOPS) {
      const at = b.indexOf(x, i);
      if (at >= 0 && at < end) return i;
    }
    return end;
  };

  const startCap = (i: number, to: number): void => {
    mode = M_CAP;
    capBase = depth;
    capturing = true;
    capFrom = i;
    deliverTo = to;
  };

  /**
   * A negotiated_rates entry or provider reference that starts at `i` in this chunk, read straight
   * from the chunk by prepareRate / prepareReference (fast-rate.ts) when it is canonical and ends in
   * the chunk: its bytes are then scanned once, not first by light() to find its end and again to
   * read it (measured 2026-11-22: see schemas/README.md). Returns where it ended, or -1: light()
   * captures it as before (another shape, or it crosses into the next chunk). Only where light()
   * could not fail either: no string in the rest of the chunk can reach maxStringBytes, and a
   * canonical entry nests four levels, so it cannot pass maxDepth.
   */
  const direct = (i: number): number => {
    const n = buf.length;
    if (n - i > maxStr || depth + 4 > maxDepth) return -1;
    if (deliverTo === D_RATE) {
      const p = prepareRate(buf, i, n, true);
      if (p === null) return -1;
      const end = taken();
      ratesCount++;
      ev.ratePrepared(p);
      return end;
    }
    if (deliverTo !== D_ELEM || streamKey !== 'provider_references') return -1;
    const r = prepareReference(buf, i, n, true);
    if (r === null) return -1;
    const end = taken();
    streamCount++;
    ev.referencePrepared(r);
    return end;
  };

  /** Whether the object record starting now goes to the parse helper (offload.ts) as bytes. */
  const handsOff = (): boolean => {
    if (deliverTo === D_RATE) return ev.takesRate();
    return deliverTo === D_ELEM && streamKey === 'provider_references' && ev.takesReference();
  };

  /**
   * Hands the helper a run of records that starts with the one at `i`, when it can end the run
   * without reading it: a native search back from the end of the chunk (at most the helper's
   * runBytes) for `},` (and the whitespace that set this record apart from the one before, as in
   * Python's `}, {`: separatorBefore) followed by the first bytes of this record up to its first
   * key's closing quote (`{"provider_references"`), which in valid JSON is an object closing and a
   * sibling opening with that key. The parse thread then goes on after the run's last `}` without scanning
   * the run; the helper reads it record by record and checks that it is exactly a comma-separated
   * run of objects (offload.ts). A match at another level (an unknown field holding such objects)
   * or invalid JSON in the run makes the helper fail the file, which is then parsed again without
   * runs (process-file.ts). Returns where the parse goes on, or -1 (a record at a time, as before).
   */
  const handRun = (i: number): number => {
    const cap = ev.runBytes();
    const room = maxDepth - depth;
    if (cap <= 0 || room < 4) return -1;
    const rates = deliverTo === D_RATE;
    if (rates && itemNext === null) return -1;
    const pat = siblingPattern(i, separatorBefore(i));
    if (pat === null) return -1;
    // A run no longer than maxStringBytes and maxRecordBytes holds no string or record light() fails.
    let limit = Math.min(buf.length - pat.length, i + Math.min(cap, maxStr, o.maxRecordBytes) - 1);
    if (limit <= i) return -1;
    const view = Buffer.from(buf.buffer, buf.byteOffset, buf.length);
    if (rates) {
      // Not past the item's end: the next item's first key (this item's) bounds it.
      const next = view.indexOf(itemNext!, i);
      if (next >= 0 && next < limit) limit = next - 1;
    }
    const p = view.lastIndexOf(pat, limit);
    if (p <= i) return -1;
    const end = p + 1;
    const run = buf.subarray(i, end);
    if (!(deliverTo === D_RATE ? ev.rateRun(run, base + end, room) : ev.referenceRun(run, base + end, room))) return -1;
    capturing = false;
    mode = M_WALK;
    state = S_AFTER;
    // At least one record: the counts only tell an empty array from one with records.
    if (deliverTo === D_RATE) ratesCount++;
    else streamCount++;
    o.pos.offset = base + end;
    return end;
  };

  /**
   * `},` and the bytes of the object starting at `i` up to its first key's closing quote (`},{"key"`):
   * in valid JSON, where an object closes and a sibling with that first key opens. Null when the key
   * is not there whole (escaped, spaced, too long or past the chunk's end).
   */
  const siblingPattern = (i: number, sep: Uint8Array = NO_SEP): Buffer | null => {
    // The record's own whitespace before its first key goes into the pattern too (a pretty-printed
    // file puts the key on the next line, indented as every sibling's).
    let k = i + 1;
    while (k < buf.length && k - i <= RUN_SEP_MAX && isSpace(buf[k]!)) k++;
    if (buf[k] !== 0x22 || (k > i + 1 && sep.length === 0)) return null;
    let q = k + 1;
    const keyEnd = Math.min(buf.length, q + RUN_KEY_MAX);
    while (q < keyEnd && buf[q] !== 0x22 && buf[q] !== 0x5c) q++;
    if (q >= keyEnd || buf[q] !== 0x22) return null;
    const pat = Buffer.allocUnsafe(q + 3 - i + sep.length);
    pat[0] = 0x7d;
    pat[1] = 0x2c;
    pat.set(sep, 2);
    pat.set(buf.subarray(i, q + 1), 2 + sep.length);
    return pat;
  };

  /** The first key of the object opening at `i`, quoted (`"negotiation_arrangement"`), or null. */
  const quotedKeyAt = (i: number): Buffer | null => {
    let k = i + 1;
    while (k < buf.length && k - i <= RUN_SEP_MAX && isSpace(buf[k]!)) k++;
    if (buf[k] !== 0x22) return null;
    let q = k + 1;
    const keyEnd = Math.min(buf.length, q + RUN_KEY_MAX);
    while (q < keyEnd && buf[q] !== 0x22 && buf[q] !== 0x5c) q++;
    return q < keyEnd && buf[q] === 0x22 ? Buffer.from(buf.subarray(k, q + 1)) : null;
  };

  /**
   * The whitespace between the record before `i` and this one when they are written `},<ws>{`
   * (Python's json.dumps writes `}, {`), else none: the runs of such a file are found by that
   * pattern. Only what the chunk holds is looked at.
   */
  const separatorBefore = (i: number): Uint8Array => {
    let j = i - 1;
    while (j > 0 && i - j <= RUN_SEP_MAX && isSpace(buf[j]!)) j--;
    return j > 0 && j < i - 1 && buf[j] === 0x2c && buf[j - 1] === 0x7d ? buf.subarray(j + 1, i) : NO_SEP;
  };

  /** After direct() read a record: back to walking after it, as light() + deliver() leave things. */
  const taken = (): number => {
    const end = preparedEnd.at;
    capturing = false;
    mode = M_WALK;
    state = S_AFTER;
    o.pos.offset = base + end;
    return end;
  };

  const scan = (): void => {
    const n = buf.length;
    let i = 0;
    while (i < n) {
      if (mode === M_LIGHT) {
        i = light(i);
        continue;
      }
      let c = buf[i]!;
      switch (state) {
        case S_STRING: {
          const from = i;
          while (i < n) {
            c = buf[i]!;
            if (c === 0x22 || c === 0x5c || c < 0x20) break;
            i++;
          }
          strLen += i - from;
          if (strLen > maxStr) fail(`a string, key or number longer than ${maxStr} bytes (starting at byte ${strStart})`, base + i, 'too_long');
          if (i === n) break;
          if (c === 0x22) {
            i++;
            if (strIsKey) {
              if (keyCapture) {
                keyCapture = false;
                const raw = takeCapture(i);
                const k = strEsc ? (JSON.parse(td.decode(raw)) as string) : td.decode(raw.subarray(1, raw.length - 1));
                if (depth === 1) rootKey = k;
                else itemKey = k;
              }
              state = S_COLON;
            } else valueEnd(i);
          } else if (c === 0x5c) {
            strEsc = true;
            state = S_ESC;
            i++;
          } else fail('control character in a string', base + i, 'invalid_json');
          break;
        }
        case S_ESC:
          if (c === 0x75) { uLeft = 4; state = S_UESC; } else if (c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74) state = S_STRING;
          else fail('invalid escape in a string', base + i, 'invalid_json');
          strLen++;
          i++;
          break;
        case S_UESC:
          if (!HEX[c]) fail('invalid \\u escape', base + i, 'invalid_json');
          strLen++;
          i++;
          if (--uLeft === 0) state = S_STRING;
          break;
        case S_NUMBER: {
          const from = i;
          let end = false;
          while (i < n && !end) {
            c = buf[i]!;
            const digit = c >= 0x30 && c <= 0x39;
            switch (numState) {
              case N_MINUS: if (c === 0x30) numState = N_ZERO; else if (digit) numState = N_INT; else fail('invalid number', base + i, 'invalid_json'); break;
              case N_ZERO: if (c === 0x2e) numState = N_DOT; else if (c === 0x65 || c === 0x45) numState = N_E; else end = true; break;
              case N_INT: if (digit) break; if (c === 0x2e) numState = N_DOT; else if (c === 0x65 || c === 0x45) numState = N_E; else end = true; break;
              case N_DOT: if (digit) numState = N_FRAC; else fail('invalid number', base + i, 'invalid_json'); break;
              case N_FRAC: if (digit) break; if (c === 0x65 || c === 0x45) numState = N_E; else end = true; break;
              case N_E: if (c === 0x2b || c === 0x2d) numState = N_ESIGN; else if (digit) numState = N_EXP; else fail('invalid number', base + i, 'invalid_json'); break;
              case N_ESIGN: if (digit) numState = N_EXP; else fail('invalid number', base + i, 'invalid_json'); break;
              default: if (!digit) end = true; break;
            }
            if (!end) i++;
          }
          strLen += i - from;
          if (strLen > maxStr) fail(`a number longer than ${maxStr} bytes`, base + i, 'too_long');
          if (end) valueEnd(i); // the terminating byte is read again in S_AFTER
          break;
        }
        case S_LITERAL:
          if (c !== lit[litIdx]) fail('invalid literal', base + i, 'invalid_json');
          i++;
          if (++litIdx === lit.length) valueEnd(i);
          break;
        case S_AFTER:
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { i++; break; }
          if (c === 0x2c) { state = ctype[depth] === OBJ ? S_KEY_NEXT : S_VALUE; i++; break; }
          if (c === 0x7d || c === 0x5d) {
            if (ctype[depth] !== (c === 0x7d ? OBJ : ARR)) fail(`unexpected "${String.fromCharCode(c)}"`, base + i, 'invalid_json');
            depth--;
            i++;
            if (mode === M_WALK) {
              closeWalking(depth + 1, i);
              state = depth === 0 ? S_END : S_AFTER;
            } else valueEnd(i);
            break;
          }
          fail(`unexpected "${String.fromCharCode(c)}" after a value`, base + i, 'invalid_json');
          break;
        case S_COLON:
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { i++; break; }
          if (c !== 0x3a) fail('expected ":"', base + i, 'invalid_json');
          state = S_VALUE;
          i++;
          break;
        case S_OBJ_FIRST: case S_KEY_NEXT:
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { i++; break; }
          if (c === 0x7d && state === S_OBJ_FIRST) { state = S_AFTER; break; } // the close is handled by S_AFTER
          if (c !== 0x22) fail('expected a key', base + i, 'invalid_json');
          strIsKey = true;
          strEsc = false;
          strLen = 0;
          strStart = base + i;
          if (mode === M_WALK) {
            keyCapture = true;
            capturing = true;
            capFrom = i;
          }
          state = S_STRING;
          i++;
          break;
        case S_END:
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { i++; break; }
          fail('unexpected data after the root value', base + i, 'invalid_json');
          break;
        default: { // S_VALUE, S_ARR_FIRST
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { i++; break; }
          if (c === 0x5d && state === S_ARR_FIRST) { state = S_AFTER; break; }
          if (VALUE_START[c] === 0) fail(`unexpected "${String.fromCharCode(c)}"`, base + i, 'invalid_json');
          if (mode === M_WALK) {
            walkValue(c, i);
            if ((mode as number) === M_CAP && (c === 0x7b || c === 0x5b)) {
              if (c === 0x7b && handsOff()) {
                const end = handRun(i);
                if (end > 0) {
                  i = end;
                  break;
                }
                handOff = true;
                mode = M_LIGHT;
                break;
              }
              const end = c === 0x7b ? direct(i) : -1;
              if (end > 0) {
                i = end;
                break;
              }
              mode = M_LIGHT; // light() opens the container itself
              break;
            }
          }
          if (c === 0x7b || c === 0x5b) {
            if (++depth > maxDepth) fail(`nesting deeper than ${maxDepth}`, base + i, 'too_deep');
            ctype[depth] = c === 0x7b ? OBJ : ARR;
            state = c === 0x7b ? S_OBJ_FIRST : S_ARR_FIRST;
          } else if (c === 0x22) {
            strIsKey = false;
            strEsc = false;
            strLen = 0;
            strStart = base + i;
            state = S_STRING;
          } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
            numState = c === 0x2d ? N_MINUS : c === 0x30 ? N_ZERO : N_INT;
            strLen = 1;
            state = S_NUMBER;
          } else { // t, f, n (VALUE_START checked above)
            lit = c === 0x74 ? LIT_TRUE : c === 0x66 ? LIT_FALSE : LIT_NULL;
            litIdx = 1;
            state = S_LITERAL;
          }
          i++;
        }
      }
    }
  };

  let head: Uint8Array | null = new Uint8Array(0); // until the BOM question is settled
  for await (const chunk of input) {
    if (o.signal?.aborted) throw o.signal.reason;
    let b = chunk;
    if (head !== null) {
      b = head.length ? concat([head], chunk) : chunk;
      if (b.length < 3) { head = b; continue; }
      head = null;
      if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) { b = b.subarray(3); base = 3; }
    }
    buf = b;
    scan();
    if (capturing) {
      const part = buf.slice(capFrom);
      capBytes += part.length;
      if (capBytes > o.maxRecordBytes) fail(`a record larger than ${o.maxRecordBytes} bytes`, base + buf.length, 'too_long');
      capParts.push(part);
      capFrom = 0;
    }
    base += buf.length;
    o.pos.offset = base;
    o.onBytes?.(base);
  }
  if (head !== null && head.length) { // fewer than 3 bytes in all
    buf = head;
    scan();
    base += head.length;
  }
  buf = new Uint8Array(0);
  // Input ending inside a literal or an escape is reported as malformed, as the reference does.
  if (state === S_LITERAL || state === S_ESC || state === S_UESC) fail('incomplete literal or escape at the end of input', base, 'invalid_json');
  // light() does not check the grammar inside a record, so an input that ends inside one may be
  // malformed rather than cut short (a lost quote turns the rest of the file into one "record").
  if (mode === M_LIGHT && capturing && !wellFormedPrefix(concat(capParts, new Uint8Array(0)))) {
    fail('malformed record at the end of input', base, 'invalid_json');
  }
  if (!finished) fail(started ? 'unexpected end of input' : 'empty input', base, 'truncated');
  o.pos.offset = base;
  ev.end();
  return base;
}
