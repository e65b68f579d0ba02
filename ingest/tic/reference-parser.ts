/**
 * The reference TiC front-end: stream-json's tokenizer (`jsonParser`, everything streamed so no
 * string, key or number is ever accumulated by the library) driving the structural walk described
 * in assembler.ts. Slow (one JS object per token) but simple; it is the yardstick the fast scanner
 * is differentially tested against.
 *
 * Byte offsets in its errors are approximate: the end of the input chunk in which the problem was
 * found (stream-json tokens carry no positions). The fast parser reports exact offsets.
 */
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { TicParseError } from './records.ts';
import { RawNumber } from './raw-ids.ts';
import { ITEM_KEYS, STREAMED_KEYS, TOP_KEYS, type FrontEndEvents, type StreamedKey } from './assembler.ts';

/** Limits and hooks shared by both front-ends. */
export interface FrontEndOptions {
  maxStringBytes: number;
  maxDepth: number;
  maxRecordBytes: number;
  onBytes?: ((n: number) => void) | undefined;
  signal?: AbortSignal | undefined;
  /** Updated as bytes are consumed, so the assembler can stamp its errors. */
  pos: { offset: number };
}

type Frame =
  | { t: 'root'; key: string | null }
  | { t: 'arr'; key: StreamedKey; count: number }
  | { t: 'item'; key: string | null }
  | { t: 'rates'; count: number };

type Deliver = (v: unknown) => void;

/** stream-chain's `none` (a registered symbol): "no output" from, and "flush" into, a stage. */
const none: unique symbol = Symbol.for('object-stream.none') as never;

function setProp(o: Record<string, unknown>, k: string, v: unknown): void {
  // JSON.parse makes "__proto__" an own property; so must we (and never touch the prototype).
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** Runs the reference front-end over `input`; returns the number of bytes read. */
export async function runReference(input: AsyncIterable<Uint8Array>, ev: FrontEndEvents, o: FrontEndOptions): Promise<number> {
  const tokenizer = jsonParser({ packValues: false, streamValues: true });
  const decoder = new TextDecoder('utf-8');
  const frames: Frame[] = [];
  let started = false;
  let finished = false;
  let depth = 0;
  let bytes = 0;
  // materialisation state
  const mat: (unknown[] | Record<string, unknown>)[] = [];
  const matKeys: (string | null)[] = [];
  let deliver: Deliver | null = null;
  let skipDepth = -1; // >= 0 while skipping a value
  let acc = '';
  let accBytes = 0;
  let matBytes = 0; // approximate JSON size of the value being materialised (maxRecordBytes)
  const err = (msg: string, reason: 'invalid_json' | 'truncated' | 'too_long' | 'too_deep' | 'wrong_type') => new TicParseError(msg, bytes, reason);

  const open = (): void => {
    if (++depth > o.maxDepth) throw err(`nesting deeper than ${o.maxDepth}`, 'too_deep');
  };

  /** A complete value inside a materialisation, or a scalar starting one. */
  const put = (v: unknown): void => {
    const top = mat[mat.length - 1];
    if (top === undefined) {
      const d = deliver;
      deliver = null;
      d?.(v);
    } else if (Array.isArray(top)) top.push(v);
    else {
      setProp(top, matKeys[matKeys.length - 1] ?? '', v);
      matKeys[matKeys.length - 1] = null;
    }
  };

  /** Decides what to do with a value that starts in a walking frame. */
  const startValue = (tok: Token): void => {
    const f = frames[frames.length - 1];
    const isObj = tok.name === 'startObject';
    const isArr = tok.name === 'startArray';
    if (!f) {
      if (started) throw err('unexpected data after the root value', 'invalid_json');
      started = true;
      if (!isObj) throw err('the root is not an object', 'wrong_type');
      open();
      frames.push({ t: 'root', key: null });
      return;
    }
    switch (f.t) {
      case 'root': {
        const k = f.key ?? '';
        f.key = null;
        if (STREAMED_KEYS.has(k)) {
          if (!isArr) throw err(`"${k}" is not an array`, 'wrong_type');
          open();
          frames.push({ t: 'arr', key: k as StreamedKey, count: 0 });
          ev.arrayStart(k as StreamedKey);
        } else if (TOP_KEYS.has(k)) beginMat(tok, (v) => ev.topValue(k, v));
        else {
          ev.topSkipped(k);
          beginSkip(tok);
        }
        return;
      }
      case 'arr':
        if (f.key === 'in_network') {
          if (!isObj) throw err('an in_network entry is not an object', 'wrong_type');
          open();
          frames.push({ t: 'item', key: null });
          ev.itemStart();
        } else {
          const key = f.key;
          beginMat(tok, (v) => { f.count++; ev.element(key, v); });
        }
        return;
      case 'item': {
        const k = f.key ?? '';
        f.key = null;
        if (k === 'negotiated_rates') {
          if (!isArr) throw err('negotiated_rates is not an array', 'wrong_type');
          open();
          frames.push({ t: 'rates', count: 0 });
        } else if (ITEM_KEYS.has(k)) beginMat(tok, (v) => ev.itemValue(k, v));
        else {
          ev.itemSkipped(k);
          beginSkip(tok);
        }
        return;
      }
      case 'rates':
        beginMat(tok, (v) => { f.count++; ev.rate(v); });
        return;
    }
  };

  const beginMat = (tok: Token, d: Deliver): void => {
    deliver = d;
    matBytes = 0;
    matToken(tok);
  };
  const beginSkip = (tok: Token): void => {
    skipDepth = 0;
    skipToken(tok);
  };

  const skipToken = (tok: Token): void => {
    switch (tok.name) {
      case 'startObject': case 'startArray': open(); skipDepth++; break;
      case 'endObject': case 'endArray': depth--; skipDepth--; break;
      case 'stringChunk': case 'numberChunk': grow(tok.value); break;
      case 'startString': case 'startNumber': case 'startKey': acc = ''; accBytes = 0; break;
      case 'endKey': case 'endNumber': case 'endString': case 'falseValue': case 'trueValue': case 'nullValue':
      case 'keyValue': case 'numberValue': case 'stringValue': case 'whitespace': break;
    }
    if (skipDepth === 0 && (tok.name === 'endObject' || tok.name === 'endArray' || tok.name === 'endString' || tok.name === 'endNumber'
      || tok.name === 'nullValue' || tok.name === 'trueValue' || tok.name === 'falseValue')) skipDepth = -1;
  };

  const grow = (s: string): void => {
    accBytes += Buffer.byteLength(s, 'utf8');
    if (accBytes > o.maxStringBytes) throw err(`a string, key or number longer than ${o.maxStringBytes} bytes`, 'too_long');
    if (skipDepth < 0) acc += s;
  };

  const matToken = (tok: Token): void => {
    if (++matBytes > o.maxRecordBytes) throw err(`a record larger than ${o.maxRecordBytes} bytes`, 'too_long');
    switch (tok.name) {
      case 'startObject': open(); mat.push({}); matKeys.push(null); return;
      case 'startArray': open(); mat.push([]); matKeys.push(null); return;
      case 'endObject': case 'endArray': {
        depth--;
        const v = mat.pop();
        matKeys.pop();
        put(v);
        return;
      }
      case 'startKey': case 'startString': case 'startNumber': acc = ''; accBytes = 0; return;
      case 'stringChunk': case 'numberChunk':
        matBytes += tok.value.length;
        grow(tok.value);
        return;
      case 'endKey': matKeys[matKeys.length - 1] = acc; return;
      case 'endString': put(acc); return;
      case 'endNumber': { // provider ids keep their text (raw-ids.ts); other numbers as JSON.parse reads them
        const top = mat[mat.length - 1];
        const id = (mat.length === 1 && !Array.isArray(top) && matKeys[0] === 'provider_group_id')
          || (mat.length === 2 && Array.isArray(top) && matKeys[0] === 'provider_references');
        put(id ? new RawNumber(acc) : Number(acc));
        return;
      }
      case 'nullValue': put(null); return;
      case 'trueValue': put(true); return;
      case 'falseValue': put(false); return;
      case 'keyValue': case 'numberValue': case 'stringValue': case 'whitespace': return; // packing is off

    }
  };

  const walkToken = (tok: Token): void => {
    const f = frames[frames.length - 1];
    switch (tok.name) {
      case 'startKey': acc = ''; accBytes = 0; return;
      case 'stringChunk': grow(tok.value); return;
      case 'endKey':
        if (f && (f.t === 'root' || f.t === 'item')) f.key = acc;
        return;
      case 'endObject': case 'endArray':
        depth--;
        frames.pop();
        if (!f) return;
        if (f.t === 'root') finished = true;
        else if (f.t === 'arr') ev.arrayEnd(f.key, f.count);
        else if (f.t === 'item') {
          const parent = frames[frames.length - 1];
          if (parent?.t === 'arr') parent.count++;
          ev.itemEnd();
        }
        else ev.ratesEnd(f.count);
        return;
      case 'keyValue': case 'numberValue': case 'stringValue': case 'whitespace': return; // packing is off
      case 'endString': case 'endNumber': case 'numberChunk': return; // only inside values, handled by matToken
      case 'startObject': case 'startArray': case 'startString': case 'startNumber':
      case 'nullValue': case 'trueValue': case 'falseValue':
        startValue(tok);
    }
  };

  const onTokens = (out: unknown): void => {
    if (out === none) return;
    const toks = (out as { values: Token[] }).values;
    for (const tok of toks) {
      if (skipDepth >= 0) skipToken(tok);
      else if (deliver !== null) matToken(tok);
      else walkToken(tok);
    }
  };

  for await (const chunk of input) {
    if (o.signal?.aborted) throw o.signal.reason;
    bytes += chunk.length;
    o.pos.offset = bytes;
    const text = decoder.decode(chunk, { stream: true });
    let out: unknown;
    try {
      out = tokenizer(text);
    } catch (e) {
      throw err((e as Error).message, 'invalid_json');
    }
    onTokens(out);
    o.onBytes?.(bytes);
  }
  let out: unknown;
  // stream-json holds back the last <16 characters until it knows more; padding with whitespace makes
  // it judge them as data, so what fails now is malformed JSON and what fails at flush is truncation.
  try {
    out = tokenizer(decoder.decode() + ' '.repeat(16));
  } catch (e) {
    throw err((e as Error).message, 'invalid_json');
  }
  onTokens(out);
  try {
    out = tokenizer(none as never);
  } catch (e) {
    throw err(!started ? 'empty input' : `unexpected end of input (${(e as Error).message})`, 'truncated');
  }
  onTokens(out);
  if (!finished) throw err(started ? 'unexpected end of input' : 'empty input', 'truncated');
  ev.end();
  return bytes;
}
