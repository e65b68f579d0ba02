/**
 * The fast parser's shortcut for the bulk of every in-network file: a negotiated_rates entry in the
 * canonical shape `{"provider_references":[ids],"negotiated_prices":[{...}]}`, and a
 * provider_references entry `{"provider_group_id":n,"network_name":[..],"provider_groups":[..]}`,
 * whose every value is
 * already normalised (the assembler would change nothing and warn nothing). Such an entry is read
 * straight from its bytes into the RateRecord parts, without JSON.parse building an intermediate
 * object tree (JSON.parse + normalisation were 2/3 of the parse time). Repeated short strings
 * ("negotiated", "professional", "9999-12-31", "11") come from a small cache instead of being
 * allocated per price.
 *
 * A price object whose bytes, but for its rate's number, are those of one read before is not
 * read again (knownPrice): its description, warnings and description hash are the earlier one's,
 * and a key names the description for the sink (RateHints.descriptionKeys).
 *
 * Anything else (inline groups, unknown keys, escapes, non-ASCII, odd values, duplicates, a
 * $0.01 rate, ...) returns null and the entry takes the general path (JSON.parse + TicAssembler),
 * so output and warnings are exactly those of the general path: the differential test holds the
 * two to the same sink calls on every fixture.
 */
import type { GroupRecord, PriceRecord, ProviderReferenceRecord, WarningKind } from './records.ts';
import { BILLING_CLASSES, NEGOTIATED_TYPES, SETTINGS, date, isNpiNumber } from './normalize.ts';

/** A warning the general path would give, in its order: [kind, path, example]. */
export type PreparedWarning = [WarningKind, string, string];

export interface PreparedRate {
  refIds: string[];
  /** Provider groups written in the entry itself (`provider_groups`), as the general path makes them. */
  inlineGroups: GroupRecord[];
  prices: PriceRecord[];
  /** Parallel to prices: RateHints.descriptionHashes. */
  descriptionHashes: number[];
  /** Parallel to prices: RateHints.descriptionKeys. */
  descriptionKeys: number[];
  /** RateHints.refsKey: names the provider_references list exactly (knownRefs), or 0. */
  refsKey: number;
  /** The general path's warnings for this entry (unpadded place-of-service codes, [] arrays), or null. */
  warnings: PreparedWarning[] | null;
}

const P_SC = 'in_network[].negotiated_rates[].negotiated_prices[].service_code';
const P_MOD = 'in_network[].negotiated_rates[].negotiated_prices[].billing_code_modifier';

const CACHE = 4096;
const cacheStr: (string | undefined)[] = new Array<string | undefined>(CACHE);
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
const validDates = new Map<string, boolean>();
const ascii = new TextDecoder('utf-8');

const PAIRS: (string | undefined)[] = new Array<string | undefined>(1 << 14);

/**
 * The texts of plain integer ids by value, direct-mapped (ID_SLOTS, the value checked): a file's
 * provider ids come back in rate after rate. String(m) each time was 1.2% of a 1 GiB run's samples
 * (V8's own number-string cache is smaller than a file's ids).
 */
const ID_SLOTS = 1 << 16;
const idValues = new Int32Array(ID_SLOTS).fill(-1);
const idTexts: string[] = new Array<string>(ID_SLOTS).fill('');

/** String(m) for an integer 0 <= m < 10^9. */
function idText(m: number): string {
  const slot = m & (ID_SLOTS - 1);
  if (idValues[slot] === m) return idTexts[slot]!;
  const s = String(m);
  idValues[slot] = m;
  idTexts[slot] = s;
  return s;
}

/** The last date Reader.date() read that validDate() passed: its bytes, its string, what str() mixed into strHash for it. */
const lastDate = { bytes: new Uint8Array(0), value: '', mix: 0 };

/** What Reader.str() mixes into strHash for a plain string of these bytes (its hash plus its length). */
function strMix(bytes: Uint8Array): number {
  let h = 0;
  for (let i = 0; i < bytes.length; i++) h = (Math.imul(h, 31) + bytes[i]!) | 0;
  return h + bytes.length;
}

/** The whole 4-byte words of `b`, little-endian (compared first, the rest byte by byte). */
function wordsOf(b: Buffer): Uint32Array {
  return Uint32Array.from({ length: b.length >>> 2 }, (_, w) => b.readUInt32LE(4 * w));
}

/** A closed set of string values, as bytes for Reader.oneOf; `tag` keeps the sets apart in strHash. */
interface Choices { names: string[]; bytes: Buffer[]; words: Uint32Array[]; tag: number }
const choices = (set: ReadonlySet<string>, tag: number): Choices => {
  const bytes = [...set].map((x) => Buffer.from(x));
  return { names: [...set], bytes, words: bytes.map(wordsOf), tag };
};
const TYPE_CHOICES = choices(NEGOTIATED_TYPES, 0x1000);
const CLASS_CHOICES = choices(BILLING_CLASSES, 0x2000);
const SETTING_CHOICES = choices(SETTINGS, 0x3000);

/** The keys of a negotiated_prices object, by Reader.priceKey() code; the code is the key's duplicate-check bit's log2 + 1. */
const K_TYPE = 1, K_RATE = 2, K_EXP = 3, K_CLASS = 4, K_SC = 5, K_SETTING = 6, K_MOD = 7, K_INFO = 8;
const PRICE_KEYS = ['', 'negotiated_type', 'negotiated_rate', 'expiration_date', 'billing_class', 'service_code', 'setting', 'billing_code_modifier', 'additional_information'];
const PRICE_KEY_BYTES = PRICE_KEYS.map((k) => Buffer.from(k));
/** Each key's whole 4-byte words, little-endian (Reader.priceKey compares those first, then the rest byte by byte). */
const PRICE_KEY_WORDS = PRICE_KEY_BYTES.map(wordsOf);

/**
 * The last Reader made, kept alive so that its hidden class is. A Reader lives for one entry, so at
 * a full garbage collection often none was alive: V8 then freed the class's map, and every method
 * compiled against it (str, num, price, ...: the whole fast path) was deoptimised ("embedded weak
 * objects cleared") and compiled again, ~10 times each per 1 GiB file. Measured 2026-11-23: with
 * this those deoptimisations are gone and V8's compiler threads take ~0.35 CPU-seconds less
 * (schemas/README.md).
 */
const LIVE: { reader: Reader | null } = { reader: null };

/** A fast reader over one entry's bytes; every method returns false/null on anything non-canonical. */
class Reader {
  readonly b: Uint8Array;
  readonly end: number;
  i = 0;
  /**
   * FNV-style hash of every string str() read since it was last reset (RateHints.descriptionHashes).
   * Starts at a value outside V8's small integers, as price() resets it: a field first holding a small
   * integer and then a double changes representation, which deprecates every Reader's map and
   * deoptimised the whole fast path (str, ws, eat, ...) once per thread at the first price.
   */
  strHash = 0x811c9dc5;
  readonly dv: DataView;
  constructor(b: Uint8Array, end: number) {
    this.b = b;
    this.end = end;
    this.dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    LIVE.reader = this;
  }

  ws(): void {
    const b = this.b;
    let i = this.i;
    while (i < this.end) {
      const c = b[i]!;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
    this.i = i;
  }

  /**
   * Consumes `c` (after whitespace), never past the entry's end. The byte in place is checked
   * before ws() is called: the parse alone from memory 22.0 CPU-seconds against 23.3 over 8
   * alternating rounds (2026-11-24).
   */
  eat(c: number): boolean {
    const i = this.i;
    if (i < this.end && this.b[i] === c) { // compact JSON: no whitespace to skip first
      this.i = i + 1;
      return true;
    }
    this.ws();
    if (this.i >= this.end || this.b[this.i] !== c) return false;
    this.i++;
    return true;
  }

  /** A plain ASCII string without escapes (cached when short); null otherwise. */
  str(): string | null {
    this.ws();
    const b = this.b;
    if (b[this.i] !== 0x22) return null;
    const from = ++this.i;
    let i = from;
    let h = 0;
    for (;;) {
      if (i >= this.end) return null;
      const c = b[i]!;
      if (c === 0x22) break;
      if (c === 0x5c || c >= 0x80 || c < 0x20) return null;
      h = (Math.imul(h, 31) + c) | 0;
      i++;
    }
    this.i = i + 1;
    const len = i - from;
    this.strHash = Math.imul(this.strHash ^ (h + len), 16777619);
    if (len > 24) return ascii.decode(b.subarray(from, i));
    if (len === 2) { // place-of-service codes and modifiers: one table slot per pair, nothing to compare
      const k = (b[from]! << 7) | b[from + 1]!;
      return (PAIRS[k] ??= String.fromCharCode(b[from]!, b[from + 1]!));
    }
    const slot = (h ^ (len << 7)) & (CACHE - 1);
    const hit = cacheStr[slot];
    if (hit !== undefined && hit.length === len) {
      let k = 0;
      while (k < len && hit.charCodeAt(k) === b[from + k]) k++;
      if (k === len) return hit;
    }
    const s = String.fromCharCode.apply(null, b.subarray(from, i) as unknown as number[]);
    cacheStr[slot] = s;
    return s;
  }

  /**
   * An expiration_date that normalize.date() keeps as it is: the last such date again when its
   * bytes are the same (no hash, no cache, no lookup), else str() and validDate(). Mixed into
   * strHash as str() mixes it. Files repeat one or a few dates over millions of prices. Measured
   * 2026-11-24, the 1 GiB benchmark file's parse alone from memory, 10 alternating rounds in one
   * process: 37.5 CPU-seconds in all against 38.2 with str() and validDates.get() (within this
   * VM's noise, 6 rounds of 10 faster).
   */
  date(): string | null {
    this.ws();
    const b = this.b;
    if (b[this.i] !== 0x22) return null;
    const from = this.i + 1;
    const last = lastDate.bytes, n = last.length;
    if (n > 0 && from + n < this.end && b[from + n] === 0x22) {
      let k = 0;
      while (k < n && b[from + k] === last[k]) k++;
      if (k === n) {
        this.i = from + n + 1;
        this.strHash = Math.imul(this.strHash ^ lastDate.mix, 16777619);
        return lastDate.value;
      }
    }
    const s = this.str();
    if (s === null || !validDate(s)) return null;
    lastDate.bytes = b.slice(from, this.i - 1);
    lastDate.value = s;
    lastDate.mix = strMix(lastDate.bytes);
    return s;
  }

  /**
   * A plain string that is one of `choices` (a closed set such as NEGOTIATED_TYPES), as that set's
   * own string; null for anything else (another value, an escape, not a string). Compared against
   * each choice's bytes: no string is made and no cache or set is consulted.
   */
  oneOf(choices: Choices): string | null {
    this.ws();
    const b = this.b;
    if (b[this.i] !== 0x22) return null;
    const from = this.i + 1, dv = this.dv;
    // A choice's bytes then a quote: the string is that choice (no choice holds a quote). Compared
    // four bytes at a time (as priceKey), without first finding the string's end.
    for (let c = 0; c < choices.bytes.length; c++) {
      const x = choices.bytes[c]!, len = x.length;
      if (from + len >= this.end || b[from + len] !== 0x22) continue;
      const words = choices.words[c]!;
      let k = 0;
      for (let w = 0; w < words.length && dv.getUint32(from + k, true) === words[w]; w++) k += 4;
      if (k === 4 * words.length) while (k < len && b[from + k] === x[k]) k++;
      if (k < len) continue;
      this.i = from + len + 1;
      this.strHash = Math.imul(this.strHash ^ (c + choices.tag), 16777619);
      return choices.names[c]!;
    }
    return null;
  }

  /**
   * A key of a negotiated_prices object as its PRICE_KEYS index (1..8), read from the bytes without
   * making a string; 0 for any other key, -1 when not a plain ASCII string. Making the string with
   * str() and comparing it against eight labels (three are 15 characters long and share 11) cost
   * prepareRate 111-114 ms on 218 k real prices, against 94-105 ms this way (2026-11-22). Mixed
   * into strHash as str() would mix a string.
   */
  priceKey(): number {
    this.ws();
    const b = this.b;
    if (b[this.i] !== 0x22) return -1;
    const from = this.i + 1;
    // The key its first letters name, checked byte for byte with its closing quote: one pass over
    // it instead of finding its end, then comparing (measured 2026-11-23, the 1 GiB benchmark
    // file's parse alone: ~0.1 CPU-seconds less, 5 of 7 alternating runs). Anything else: the
    // steps below.
    const c0 = b[from];
    const guess = c0 === 0x6e ? (b[from + 11] === 0x74 ? K_TYPE : K_RATE) : c0 === 0x65 ? K_EXP
      : c0 === 0x62 ? (b[from + 9] === 0x6c ? K_CLASS : K_MOD) : c0 === 0x73 ? (b[from + 2] === 0x72 ? K_SC : K_SETTING)
        : c0 === 0x61 ? K_INFO : 0;
    if (guess !== 0) {
      const name = PRICE_KEY_BYTES[guess]!;
      const len = name.length;
      if (from + len < this.end && b[from + len] === 0x22) {
        // Four bytes at a time first (DataView reads, which V8 inlines). Measured 2026-11-24 with
        // oneOf() done so too, the 1 GiB benchmark file's parse alone from memory, 8 alternating
        // rounds in one process, each version in turn: 6.0% less CPU in all with the date() memo,
        // 1.8% of it that memo's.
        const words = PRICE_KEY_WORDS[guess]!, dv = this.dv;
        let k = 0;
        for (let w = 0; w < words.length && dv.getUint32(from + k, true) === words[w]; w++) k += 4;
        if (k === 4 * words.length) while (k < len && b[from + k] === name[k]) k++;
        if (k === len) {
          this.i = from + len + 1;
          this.strHash = Math.imul(this.strHash ^ (guess + 0x400), 16777619);
          return guess;
        }
      }
    }
    let i = from;
    for (;;) {
      if (i >= this.end) return -1;
      const c = b[i]!;
      if (c === 0x22) break;
      if (c === 0x5c || c >= 0x80 || c < 0x20) return -1;
      i++;
    }
    this.i = i + 1;
    const len = i - from;
    const code = len === 15 ? (b[from] === 0x65 ? K_EXP : b[from + 11] === 0x74 ? K_TYPE : K_RATE)
      : len === 13 ? K_CLASS : len === 12 ? K_SC : len === 7 ? K_SETTING : len === 21 ? K_MOD : len === 22 ? K_INFO : 0;
    if (code === 0) return 0;
    const name = PRICE_KEY_BYTES[code]!;
    for (let k = 0; k < len; k++) if (b[from + k] !== name[k]) return 0;
    this.strHash = Math.imul(this.strHash ^ (code + 0x400), 16777619);
    return code;
  }

  /** A JSON number parsed exactly as JSON.parse would (integer/fraction digits; no exponent). */
  num(): number | null {
    this.ws();
    const b = this.b;
    let i = this.i;
    let neg = false;
    if (b[i] === 0x2d) { neg = true; i++; }
    let m = 0;
    let digits = 0; // integer-part digits
    let sig = 0; // significant digits (from the first non-zero one): m stays exact up to 15
    let frac = 0;
    const first = i;
    while (i < this.end) {
      const c = b[i]!;
      if (c < 0x30 || c > 0x39) break;
      m = m * 10 + (c - 0x30);
      digits++;
      if (m > 0) sig++;
      i++;
    }
    if (digits === 0 || (b[first] === 0x30 && digits > 1)) return null;
    if (b[i] === 0x2e) {
      i++;
      while (i < this.end) {
        const c = b[i]!;
        if (c < 0x30 || c > 0x39) break;
        m = m * 10 + (c - 0x30);
        frac++;
        if (m > 0) sig++;
        i++;
      }
      if (frac === 0) return null;
    }
    const c = b[i];
    if (c === 0x65 || c === 0x45 || sig > 15 || frac > 22) return null; // exponent or inexact: leave to JSON.parse
    this.i = i;
    // m and 10^frac are exact doubles, so one IEEE division is the correctly rounded value of the
    // decimal: the same double JSON.parse produces.
    const v = frac ? m / POW10[frac]! : m;
    return neg ? -v : v;
  }

  /** A JSON number's text as written (provider ids keep it: raw-ids.ts); null if not a valid number. */
  numText(): string | null {
    this.ws();
    const b = this.b;
    const from = this.i;
    let i = from;
    if (b[i] === 0x2d) i++;
    const d0 = i;
    let m = 0;
    while (i < this.end && b[i]! >= 0x30 && b[i]! <= 0x39) m = m * 10 + (b[i++]! - 0x30);
    if (i === d0 || (b[d0] === 0x30 && i - d0 > 1)) return null;
    // A plain integer of up to 9 digits (the usual provider_group_id) is its value's own text, kept
    // by value (idText): no copy of its bytes to decode (a subarray and a string a reference, 1.7 M
    // of them a GiB).
    const c = i < this.end ? b[i]! : 0;
    if (d0 === from && i - d0 <= 9 && c !== 0x2e && c !== 0x65 && c !== 0x45) {
      this.i = i;
      return idText(m);
    }
    if (b[i] === 0x2e) {
      const f0 = ++i;
      while (i < this.end && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
      if (i === f0) return null;
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      i++;
      if (b[i] === 0x2b || b[i] === 0x2d) i++;
      const e0 = i;
      while (i < this.end && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
      if (i === e0) return null;
    }
    this.i = i;
    return String.fromCharCode.apply(null, b.subarray(from, i) as unknown as number[]);
  }

  /** ["a","b"] of canonical strings (non-empty, nothing to trim); null otherwise or when empty. */
  strArray(check: (s: string) => boolean): string[] | null {
    if (!this.eat(0x5b)) return null;
    const out: string[] = [];
    if (this.eat(0x5d)) return null;
    for (;;) {
      const s = this.str();
      if (s === null || !check(s)) return null;
      out.push(s);
      if (this.eat(0x5d)) return out;
      if (!this.eat(0x2c)) return null;
    }
  }
}

const trimmed = (s: string): boolean => s.length > 0 && s.charCodeAt(0) > 32 && s.charCodeAt(s.length - 1) > 32;
const posCode = (s: string): boolean => (s.length === 2 && s.charCodeAt(0) > 32 && s.charCodeAt(1) > 32) || s === 'CSTM-00';

/** True when normalize.date() keeps `s` as it is, without a warning. */
function validDate(s: string): boolean {
  let v = validDates.get(s);
  if (v === undefined) {
    let warned = false;
    v = date(s, '', () => { warned = true; }) === s && !warned;
    if (validDates.size < 4096) validDates.set(s, v);
  }
  return v;
}

/**
 * service_code as normalize.serviceCodes makes it, for the two deviations real files are full of
 * (HealthSCOPE's "1", UHC's []): the warnings go to `w`. Anything else: null (general path).
 */
function serviceCodes(r: Reader, w: PreparedWarning[]): string[] | null | false {
  if (!r.eat(0x5b)) return false;
  if (r.eat(0x5d)) {
    w.push(['empty_array', P_SC, '[]']);
    return null;
  }
  const out: string[] = [];
  const b = r.b, end = r.end;
  for (;;) {
    // The common case read in place: a two-character code ("11") then ',' or ']', taken as str()
    // and posCode() would take it (the same description hash, the same cached string). Measured
    // 2026-11-23 on the 1 GiB benchmark file, parse alone: 5.19-5.68 CPU-seconds against 5.80-6.20.
    const i = r.i;
    if (i + 4 < end && b[i] === 0x22 && b[i + 3] === 0x22) {
      const c0 = b[i + 1]!, c1 = b[i + 2]!, c = b[i + 4]!;
      if (c0 > 0x20 && c0 < 0x80 && c0 !== 0x22 && c0 !== 0x5c && c1 > 0x20 && c1 < 0x80 && c1 !== 0x22 && c1 !== 0x5c && (c === 0x2c || c === 0x5d)) {
        r.strHash = Math.imul(r.strHash ^ (((Math.imul(c0, 31) + c1) | 0) + 2), 16777619);
        out.push(PAIRS[(c0 << 7) | c1] ??= String.fromCharCode(c0, c1));
        r.i = i + 5;
        if (c === 0x5d) return out;
        continue;
      }
    }
    const s = r.str();
    if (s === null) return false;
    if (posCode(s)) out.push(s);
    else if (s.length === 1 && s >= '0' && s <= '9') {
      w.push(['unpadded_code', P_SC, s]);
      out.push(`0${s}`);
    } else return false;
    if (r.eat(0x5d)) return out;
    if (!r.eat(0x2c)) return false;
  }
}

/** Where price() last read its rate's number: from just after the colon to just after the number. */
const rateSpan = { from: 0, to: 0 };

/**
 * Prices read before, by their bytes without the rate's number: a price object whose bytes before
 * and after its rate are those of one read before is that price's description again, with its
 * warnings and description hash; only the number is read (knownPrice). A price's description is
 * the same thing over and over (the 1 GiB benchmark file: 4.9 M prices, 41 k descriptions); reading
 * it meant every key, string and place-of-service code again.
 *
 * The bytes: from the object's `{` to the colon after the first `_rate":` (which is the key
 * negotiated_rate's end in the price read first, so in any price of the same bytes), then from
 * the byte after the number to the first `}` (the object's end in the price read first, so again).
 * Entries sit in an arena of bytes, found through an open-addressing table of their hashes; a full
 * cache is emptied and starts over. Measured 2026-11-24 on the 1 GiB benchmark file decompressed in
 * memory, the parse alone in one process beside the previous version, 6 rounds each: 13.6-14.4
 * CPU-seconds against 16.7-18.1 (4.85 M of its 4.9 M prices found); with the staging
 * (TicStager, whose attr ids then come by key) 27.8 against 33.5. With the key, the end and the
 * hash each found by a pass of its own, a byte at a time, and the entries' fields in arrays apart
 * from their bytes, it was no faster than reading the prices; with the arena and its views
 * allocated at the first entry (the fields of `pc` assigned again), no faster either (probably as
 * V8 no longer takes them for constants; schemas/README.md item 56).
 */
const PC_BITS = 17;
const PC_ENTRIES = 1 << (PC_BITS - 1);
const PC_ARENA = 16 << 20;
/** A window of lookups with fewer than 1/16 hits is followed by PC_SKIP prices read without one (nor kept). */
const PC_WINDOW = 8192, PC_SKIP = 32768;
/** The longest price object (its bytes but the number) kept. */
const PC_MAX_BYTES = 1024;
/**
 * The arena: per entry four int32 words (its bytes before the number, after it, the description
 * hash, its record's index times 2 plus 1 when it has warnings), then its bytes, to a multiple of 4.
 * A lookup so reads one table slot and then one stretch of the arena.
 */
const pcBuf = new ArrayBuffer(PC_ARENA);
const pc = {
  /** Per slot: the hash, and the entry's arena offset + 1 (0: empty). */
  table: new Int32Array(2 << PC_BITS),
  records: [] as PriceRecord[],
  warnings: [] as (PreparedWarning[] | null)[],
  arena: new Uint8Array(pcBuf),
  words: new Int32Array(pcBuf),
  dv: new DataView(pcBuf),
  used: 0,
  n: 0,
  /** Times emptied: with an entry's index, its key (RateHints.descriptionKeys). */
  gen: 0,
  /** Lookups and hits in the current window of PC_WINDOW lookups; prices to read without a lookup. */
  tries: 0,
  hits: 0,
  skip: 0,
};
/**
 * Empties the prices read before (knownPrice): a full cache starts over, and tests start from an
 * empty one. Keys given before name no description after.
 */
export function forgetKnownPrices(): void {
  pc.gen++;
  pc.table.fill(0);
  pc.records.length = 0;
  pc.warnings.length = 0;
  pc.n = 0;
  pc.used = 0;
  pc.tries = pc.hits = pc.skip = 0;
}

/** The price knownPrice() did not find: where its parts are and their hash (-1: none to keep). */
const pcMiss = { s: -1, ns: 0, ne: 0, e: 0, h: 0 };

/** Mixes the bytes b[from, to) into h, four at a time. */
function mixBytes(dv: DataView, b: Uint8Array, from: number, to: number, h: number): number {
  let i = from;
  for (; i + 4 <= to; i += 4) h = Math.imul(h ^ dv.getUint32(i, true), 0x9e3779b1);
  for (; i < to; i++) h = Math.imul(h ^ b[i]!, 0x9e3779b1);
  return h;
}

/**
 * Whether b[from, to) are the arena's bytes from `at`, eight at a time as doubles. Exact: an
 * entry's bytes are those of a price that price() read, all of them whitespace or ASCII from 0x20
 * (str() takes nothing else), so each eight read as a double is finite and not zero, and two such
 * doubles are equal only when their bits are (any eight bytes that are not the entry's read as
 * another number, or as NaN, which equals nothing). Four at a time as integers, this compare took
 * a quarter of knownPrice's time (V8's profiler, 2026-11-24). Exported for its test.
 */
export function sameBytes(dv: DataView, b: Uint8Array, from: number, to: number, adv: DataView, arena: Uint8Array, at: number): boolean {
  let i = from, j = at;
  for (; i + 8 <= to; i += 8, j += 8) if (dv.getFloat64(i, true) !== adv.getFloat64(j, true)) return false;
  for (; i < to; i++, j++) if (b[i] !== arena[j]) return false;
  return true;
}

/**
 * provider_references lists read before, by their bytes: a list whose bytes, from its `[` to its
 * first `]`, are those of one read before is that list again (the same ids, the same array, which
 * nobody changes), and a key names it for the sink (RateHints.refsKey), which then finds the
 * rate's provider-group set by that number instead of joining the ids into a string for a Map.
 * Rates repeat a few lists over and over (the real HealthSCOPE file: 11 lists for 91,780 rates;
 * the 1 GiB benchmark file: 90% of its 216 k rates from a pool of 2,000). A list is kept only when
 * the `]` that ended its read is the first one after its `[` (its ids are numbers; a string id
 * could hold a `]`), so equal bytes up to the first `]` are that whole list. Its bytes are
 * whitespace or ASCII from 0x20 (what numText() reads), as sameBytes() needs. A full cache is
 * emptied and starts over; keys given before name no list after (the generation is in the key).
 * Measured 2026-11-24 on the 1 GiB benchmark file: the parse with its staging as the parse helper
 * runs it, 7 rounds after a first, 25.9 CPU-seconds against 29.1 (the ids read, the array joined
 * and the Map's lookup of the joined string were ~0.4 CPU-seconds a run); end to end, 10
 * alternating pairs, 7.46 s against 7.88 and 13.8 CPU-seconds against 14.5 (medians).
 */
const RC_BITS = 14;
const RC_ENTRIES = 1 << (RC_BITS - 1);
const RC_ARENA = 1 << 20;
/** The longest list kept, in bytes. */
const RC_MAX_BYTES = 2048;
/** Per entry two int32 words (its length in bytes, its list's index), then its bytes, to a multiple of 4. */
const rcBuf = new ArrayBuffer(RC_ARENA);
const rc = {
  /** Per slot: the hash, and the entry's arena offset + 1 (0: empty). */
  table: new Int32Array(2 << RC_BITS),
  lists: [] as string[][],
  arena: new Uint8Array(rcBuf),
  words: new Int32Array(rcBuf),
  dv: new DataView(rcBuf),
  used: 0,
  n: 0,
  gen: 0,
};

/** Empties the lists read before (knownRefs); tests start from an empty cache. */
export function forgetKnownRefs(): void {
  rc.gen++;
  rc.table.fill(0);
  rc.lists.length = 0;
  rc.n = 0;
  rc.used = 0;
}

/** What knownRefs() found: the key of the list it knew; else where the list it did not know starts and ends (s -1: not one to keep) and its hash. */
const rcAt = { key: 0, s: -1, e: 0, h: 0 };

/**
 * The provider_references list at r.i (after whitespace) when its bytes up to the first `]` are
 * those of one kept (keepRefs): r.i past it, rcAt.key its key. Undefined otherwise (r.i at the `[`).
 */
function knownRefs(r: Reader): string[] | undefined {
  rcAt.key = 0;
  rcAt.s = -1;
  r.ws();
  const b = r.b, s = r.i;
  if (s >= r.end || b[s] !== 0x5b) return undefined;
  const limit = Math.min(r.end, s + RC_MAX_BYTES);
  let e = s + 1, h = 0x2545f491;
  for (; e < limit; e++) {
    const c = b[e]!;
    if (c === 0x5d) break;
    h = Math.imul(h ^ c, 0x9e3779b1);
  }
  if (e >= limit) return undefined;
  e++;
  const len = e - s;
  h = Math.imul(h ^ len, 0x85ebca6b);
  const t = rc.table, mask = (t.length >>> 1) - 1, w = rc.words;
  for (let slot = (h ^ (h >>> 16)) & mask; ; slot = (slot + 1) & mask) {
    const o = t[2 * slot + 1]! - 1;
    if (o < 0) break;
    if (t[2 * slot] !== h || w[o >>> 2] !== len || !sameBytes(r.dv, b, s, e, rc.dv, rc.arena, o + 8)) continue;
    const ri = w[(o >>> 2) + 1]!;
    r.i = e;
    rcAt.key = rc.gen * RC_ENTRIES + ri + 1;
    return rc.lists[ri]!;
  }
  rcAt.s = s;
  rcAt.e = e;
  rcAt.h = h;
  return undefined;
}

/** Keeps the list `ids` read from b[s, e) that knownRefs() did not know (rcAt); returns its key. */
function keepRefs(b: Uint8Array, ids: string[]): number {
  const { s, e, h } = rcAt;
  const len = e - s, size = (8 + len + 3) & ~3;
  if (rc.n === RC_ENTRIES || rc.used + size > RC_ARENA) forgetKnownRefs();
  const o = rc.used, q = o >>> 2, ri = rc.n++;
  rc.words[q] = len;
  rc.words[q + 1] = ri;
  rc.arena.set(b.subarray(s, e), o + 8);
  rc.used += size;
  rc.lists.push(ids);
  const t = rc.table, mask = (t.length >>> 1) - 1;
  let slot = (h ^ (h >>> 16)) & mask;
  while (t[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
  t[2 * slot] = h;
  t[2 * slot + 1] = o + 1;
  return rc.gen * RC_ENTRIES + ri + 1;
}

/** Where the first `_rate":` in b[from, limit) ends (just past its colon), else -1; four bytes at a time until a word holds a `_`. */
function rateKeyEnd(dv: DataView, b: Uint8Array, from: number, limit: number): number {
  let k = from;
  for (; k + 4 <= limit; k += 4) {
    const x = dv.getUint32(k, true) ^ 0x5f5f5f5f;
    if (((x - 0x01010101) & ~x & 0x80808080) === 0) continue; // no '_' in these four bytes
    for (let j = k; j < k + 4; j++) {
      if (b[j] === 0x5f && j + 7 <= limit && b[j + 1] === 0x72 && b[j + 2] === 0x61 && b[j + 3] === 0x74 && b[j + 4] === 0x65 && b[j + 5] === 0x22 && b[j + 6] === 0x3a) return j + 7;
    }
  }
  for (; k + 7 <= limit; k++) {
    if (b[k] === 0x5f && b[k + 1] === 0x72 && b[k + 2] === 0x61 && b[k + 3] === 0x74 && b[k + 4] === 0x65 && b[k + 5] === 0x22 && b[k + 6] === 0x3a) return k + 7;
  }
  return -1;
}

/** Hash of b[from, e) where e is just past the first `}` from `from` (before `limit`): pcEnd.at = e, or -1 when none. */
const pcEnd = { at: -1 };
function mixToBrace(dv: DataView, b: Uint8Array, from: number, limit: number, h: number): number {
  // Eight bytes a step in two independent lanes (the multiplies of one lane wait on each other).
  let i = from, g = 0x2545f491;
  for (; i + 8 <= limit; i += 8) {
    const w = dv.getUint32(i, true), v = dv.getUint32(i + 4, true), x = w ^ 0x7d7d7d7d, y = v ^ 0x7d7d7d7d;
    if ((((x - 0x01010101) & ~x) | ((y - 0x01010101) & ~y)) & 0x80808080) break; // a '}' in these eight bytes: one at a time
    h = Math.imul(h ^ w, 0x9e3779b1);
    g = Math.imul(g ^ v, 0x85ebca6b);
  }
  h ^= g;
  for (; i < limit; i++) {
    const c = b[i]!;
    h = Math.imul(h ^ c, 0x9e3779b1);
    if (c === 0x7d) { pcEnd.at = i + 1; return h; }
  }
  pcEnd.at = -1;
  return h;
}

/**
 * The price object at r.i when its bytes but the number are those of one read before: its
 * record (r.i past it, its warnings and description hash pushed as price() would), or null when
 * price() would give null for it (its rate not above $0.01). Undefined: not known (r.i unmoved).
 */
function knownPrice(r: Reader, warnings: PreparedWarning[], hashes: number[], keys: number[]): PriceRecord | null | undefined {
  pcMiss.s = -1;
  if (pc.skip > 0) { pc.skip--; return undefined; }
  r.ws(); // as price() would (a pretty-printed file's objects are as alike as a compact one's)
  const b = r.b, s = r.i, dv = r.dv;
  if (s >= r.end || b[s] !== 0x7b) return undefined;
  if (++pc.tries === PC_WINDOW) {
    // Few repeats (a file whose every price is described anew): a while without looking.
    if (pc.hits * 16 < PC_WINDOW) pc.skip = PC_SKIP;
    pc.tries = pc.hits = 0;
  }
  const ns = rateKeyEnd(dv, b, s + 1, Math.min(r.end, s + PC_MAX_BYTES));
  if (ns < 0) return undefined;
  r.i = ns;
  const rate = r.num();
  const ne = r.i;
  r.i = s;
  if (rate === null) return undefined;
  const bl = ns - s;
  const h0 = mixBytes(dv, b, s, ns, bl);
  const h = Math.imul(mixToBrace(dv, b, ne, Math.min(r.end, ne + PC_MAX_BYTES), h0), 0x85ebca6b) ^ bl;
  const e = pcEnd.at;
  if (e < 0) return undefined;
  const al = e - ne;
  const t = pc.table, mask = (t.length >>> 1) - 1;
  for (let slot = (h ^ (h >>> 16)) & mask; ; slot = (slot + 1) & mask) {
    const o = t[2 * slot + 1]! - 1;
    if (o < 0) break;
    if (t[2 * slot] !== h) continue;
    const w = pc.words, q = o >>> 2;
    if (w[q] === bl && w[q + 1] === al && sameBytes(dv, b, s, ns, pc.dv, pc.arena, o + 16) && sameBytes(dv, b, ne, e, pc.dv, pc.arena, o + 16 + bl)) {
      pc.hits++;
      if (!(rate > 0.01)) return null;
      r.i = e;
      const tag = w[q + 3]!, ri = tag >>> 1;
      if (tag & 1) for (const x of pc.warnings[ri]!) warnings.push(x);
      hashes.push(w[q + 2]! >>> 0);
      keys.push(pc.gen * PC_ENTRIES + ri + 1);
      const d = pc.records[ri]!;
      return { negotiatedType: d.negotiatedType, negotiatedRate: rate, expirationDate: d.expirationDate, serviceCode: d.serviceCode, billingClass: d.billingClass,
        setting: d.setting, billingCodeModifier: d.billingCodeModifier, additionalInformation: d.additionalInformation };
    }
  }
  if (bl + al <= PC_MAX_BYTES) { pcMiss.s = s; pcMiss.ns = ns; pcMiss.ne = ne; pcMiss.e = e; pcMiss.h = h; }
  return undefined;
}

/** price() for a price knownPrice() did not know, kept for the next time when its parts are where knownPrice() found them. */
function pricedAnew(r: Reader, warnings: PreparedWarning[], hashes: number[], keys: number[]): PriceRecord | null {
  const s = r.i, w0 = warnings.length;
  const p = price(r, warnings, hashes);
  if (p === null) return null;
  const m = pcMiss;
  if (m.s !== s || m.e !== r.i || rateSpan.from !== m.ns || rateSpan.to !== m.ne) {
    keys.push(0);
    return p;
  }
  const bl = m.ns - m.s, al = m.e - m.ne, size = (16 + bl + al + 3) & ~3;
  if (pc.n === PC_ENTRIES || pc.used + size > PC_ARENA) forgetKnownPrices();
  const b = r.b, o = pc.used, q = o >>> 2, ri = pc.n++;
  const w = warnings.length > w0 ? warnings.slice(w0) : null;
  pc.words[q] = bl; pc.words[q + 1] = al; pc.words[q + 2] = hashes[hashes.length - 1]! | 0; pc.words[q + 3] = 2 * ri + (w ? 1 : 0);
  pc.arena.set(b.subarray(m.s, m.ns), o + 16);
  pc.arena.set(b.subarray(m.ne, m.e), o + 16 + bl);
  pc.used += size;
  pc.records.push(p);
  pc.warnings.push(w);
  const t = pc.table, mask = (t.length >>> 1) - 1;
  let slot = (m.h ^ (m.h >>> 16)) & mask;
  while (t[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
  t[2 * slot] = m.h;
  t[2 * slot + 1] = o + 1;
  keys.push(pc.gen * PC_ENTRIES + ri + 1);
  m.s = -1;
  return p;
}

function price(r: Reader, warnings: PreparedWarning[], hashes: number[]): PriceRecord | null {
  r.strHash = 0x811c9dc5;
  const scWarn: PreparedWarning[] = [];
  let modWarn: PreparedWarning | null = null;
  if (r.i < r.end && r.b[r.i] === 0x7b) r.i++; // in place first, as the colons and commas below
  else if (!r.eat(0x7b)) return null;
  let type: string | null = null, rate: number | null = null, exp: string | null = null, cls: string | null = null;
  let sc: string[] | null = null, setting: string | null = null, mods: string[] | null = null, info: string | null = null;
  let seen = 0;
  if (r.eat(0x7d)) return null;
  for (;;) {
    const k = r.priceKey();
    if (k <= 0) return null;
    // The colon right after the key (compact JSON), else after whitespace. Checked here before
    // eat() (which skips whitespace first), as the comma or brace after the value below: the parse
    // alone from memory 24.5 CPU-seconds against 27.0 over 8 alternating rounds (2026-11-24).
    if (r.i < r.end && r.b[r.i] === 0x3a) r.i++;
    else if (!r.eat(0x3a)) return null;
    const bit = 1 << (k - 1);
    switch (k) {
      case K_TYPE: type = r.oneOf(TYPE_CHOICES); if (type === null) return null; break;
      case K_RATE: rateSpan.from = r.i; rate = r.num(); rateSpan.to = r.i; if (rate === null || !(rate > 0.01)) return null; break;
      case K_EXP: exp = r.date(); if (exp === null) return null; break;
      case K_CLASS: cls = r.oneOf(CLASS_CHOICES); if (cls === null) return null; break;
      case K_SC: {
        const v = serviceCodes(r, scWarn);
        if (v === false) return null;
        sc = v;
        break;
      }
      case K_SETTING: setting = r.oneOf(SETTING_CHOICES); if (setting === null) return null; break;
      case K_MOD: {
        const at = r.i;
        mods = r.strArray(trimmed);
        if (mods === null) { // [] is a deviation we take (with the warning); anything else is not
          r.i = at;
          if (!r.eat(0x5b) || !r.eat(0x5d)) return null;
          modWarn = ['empty_array', P_MOD, '[]'];
        }
        break;
      }
      case K_INFO: {
        const s = r.str();
        if (s === null || (s !== '' && !trimmed(s))) return null;
        info = s === '' ? null : s;
        break;
      }
      default: return null;
    }
    if (seen & bit) return null; // duplicate key: JSON.parse keeps the last; leave it to the general path
    seen |= bit;
    // The comma or the closing brace right after the value (compact JSON), else after whitespace.
    const c = r.i < r.end ? r.b[r.i] : 0;
    if (c === 0x2c) { r.i++; continue; }
    if (c === 0x7d) { r.i++; break; }
    if (r.eat(0x7d)) break;
    if (!r.eat(0x2c)) return null;
  }
  if ((seen & 15) !== 15 || type === null || rate === null || cls === null) return null;
  // The general path (TicAssembler.price) checks service_code before billing_code_modifier.
  for (const x of scWarn) warnings.push(x);
  if (modWarn) warnings.push(modWarn);
  hashes.push(r.strHash >>> 0); // every key and string value of the object, in order: not the rate
  // Same field order as TicAssembler.price (the differential test hashes JSON text).
  return { negotiatedType: type, negotiatedRate: rate, expirationDate: exp, serviceCode: sc, billingClass: cls, setting,
    billingCodeModifier: mods, additionalInformation: info };
}

/** Where the last prepareRate / prepareReference that succeeded with `open` stopped: just past the entry's closing brace. */
export const preparedEnd = { at: 0 };

/**
 * Reads a canonical negotiated_rates entry from b[start, end); null means "use the general path".
 * `open`: the entry starts at `start` and ends somewhere before `end` (preparedEnd tells where);
 * an entry that does not close before `end` gives null.
 */
export function prepareRate(b: Uint8Array, start: number, end: number, open = false): PreparedRate | null {
  const r = new Reader(b, end);
  r.i = start;
  if (!r.eat(0x7b)) return null;
  let refIds: string[] | null = null;
  let inlineGroups: GroupRecord[] | null = null;
  let prices: PriceRecord[] | null = null;
  let refsKey = 0;
  const descriptionHashes: number[] = [];
  const descriptionKeys: number[] = [];
  const warnings: PreparedWarning[] = [];
  for (;;) {
    const k = r.str();
    if (k === null || !r.eat(0x3a)) return null;
    if (k === 'provider_references' && refIds === null) {
      refIds = knownRefs(r) ?? null;
      if (refIds !== null) refsKey = rcAt.key;
      else {
        if (!r.eat(0x5b) || r.eat(0x5d)) return null;
        const ids: string[] = [];
        for (;;) {
          const t = r.numText();
          if (t === null || t.length > 64) return null;
          ids.push(t);
          if (r.eat(0x5d)) break;
          if (!r.eat(0x2c)) return null;
        }
        refIds = ids;
        if (rcAt.s >= 0 && r.i === rcAt.e) refsKey = keepRefs(b, ids);
      }
    } else if (k === 'provider_groups' && inlineGroups === null) {
      // Groups in the entry (5% of the benchmark's rates, all of some payers'): read as a provider
      // reference's are, canonical only ([] and anything the general path warns about go there).
      inlineGroups = groupList(r);
      if (inlineGroups === null) return null;
    } else if (k === 'negotiated_prices' && prices === null) {
      if (!r.eat(0x5b) || r.eat(0x5d)) return null;
      prices = [];
      for (;;) {
        const p = knownPrice(r, warnings, descriptionHashes, descriptionKeys) ?? pricedAnew(r, warnings, descriptionHashes, descriptionKeys);
        if (p === null) return null;
        prices.push(p);
        const c = r.i < end ? b[r.i] : 0; // never read past the end (V8 deopts)
        if (c === 0x2c) { r.i++; continue; } // in place first, as in price()
        if (c === 0x5d) { r.i++; break; }
        if (r.eat(0x5d)) break;
        if (!r.eat(0x2c)) return null;
      }
    } else return null;
    if (r.eat(0x7d)) break;
    if (!r.eat(0x2c)) return null;
  }
  if ((refIds === null && inlineGroups === null) || prices === null || !closed(r, end, open)) return null;
  return { refIds: refIds ?? [], inlineGroups: inlineGroups ?? [], prices, descriptionHashes, descriptionKeys, refsKey, warnings: warnings.length ? warnings : null };
}

/** After an entry's closing brace: nothing but whitespace up to `end`, or (`open`) note where it ended. */
function closed(r: Reader, end: number, open: boolean): boolean {
  if (open) {
    preparedEnd.at = r.i;
    return r.i <= end;
  }
  r.ws();
  return r.i === end;
}

const TIN_TYPES = new Set(['ein', 'npi']);

/**
 * npiArray's NPIs as they are read, kept between calls (a double array from the start, as NPIs
 * above 2^30 are no small integers): each list is then copied out once at its length (slice), where
 * pushing into a new array grew it ~20 times for a 50,000-NPI group.
 */
let NPI_SCRATCH: number[] = [0.5];
/** NPI_SCRATCH is let go past this many entries (a hostile list's memory is not kept). */
const NPI_SCRATCH_KEEP = 1 << 20;

/** The first `n` NPIs of NPI_SCRATCH, as an array of their own. */
function takeNpis(n: number): number[] {
  const out = NPI_SCRATCH.slice(0, n);
  if (NPI_SCRATCH.length > NPI_SCRATCH_KEEP) NPI_SCRATCH = [0.5];
  return out;
}

/**
 * A group's `npi` array, non-empty, every entry an NPI-like number; null otherwise. A function of
 * its own, with one flat loop, so that the loop over most of a file's bytes is the outermost loop
 * of what V8 compiles: a loop nested in another was compiled for on-stack replacement and left at
 * its exit ("exit from OSR'd inner loop") again and again: inside group() ~100 times a 1 GiB file,
 * and, with the digits read by an inner loop here, 3,600-5,200 times in some runs (measured
 * 2026-11-23 with `--trace-deopt`; an inner function instead cost the helper ~0.3 CPU-seconds).
 */
function npiArray(r: Reader): number[] | null {
  if (!r.eat(0x5b) || r.eat(0x5d)) return null;
  const npis = NPI_SCRATCH;
  let n = 0;
  const b = r.b, end = r.end;
  // The common case read in place: 1-10 digits without a leading zero (a positive integer that
  // isNpiNumber accepts), then ',' or ']'. Anything else (whitespace, a sign, a fraction, 0, a
  // wider number) takes the general steps below, which accept or refuse it as before. Measured
  // 2026-11-23 on the 1 GiB benchmark file, parse alone: 4.95-5.32 CPU-seconds against 5.57-5.79.
  let from = r.i; // the current entry's first byte
  let m = 0;
  const dv = r.dv;
  for (let k = from; ; k++) {
    // Ten digits (an NPI) then ',' or ']': read as words (tenDigits), not a digit at a time.
    if (k === from && k + 10 < end) {
      const t = b[k + 10];
      if ((t === 0x2c || t === 0x5d) && b[k] !== 0x30) {
        const v = tenDigits(dv, b, k);
        if (v >= 0) {
          npis[n++] = v;
          if (t === 0x5d) {
            r.i = k + 11;
            return takeNpis(n);
          }
          from = k + 11;
          k = k + 10;
          continue;
        }
      }
    }
    const c = k < end ? b[k]! : 0;
    if (c >= 0x30 && c <= 0x39) {
      m = m * 10 + (c - 0x30);
      continue;
    }
    if ((c === 0x2c || c === 0x5d) && k > from && k - from <= 10 && b[from] !== 0x30) {
      npis[n++] = m;
      if (c === 0x5d) {
        r.i = k + 1;
        return takeNpis(n);
      }
      from = k + 1;
      m = 0;
      continue;
    }
    r.i = from;
    const v = r.num();
    if (v === null || !isNpiNumber(v)) return null; // [0] (TIN-only), a number wider than an NPI: the general path warns
    npis[n++] = v;
    if (r.eat(0x5d)) return takeNpis(n);
    if (!r.eat(0x2c)) return null;
    from = r.i;
    m = 0;
    k = from - 1;
  }
}

/**
 * The number the ten ASCII digits at b[k..k+10) write, or -1 if one is not a digit: two 4-byte
 * words checked and summed a word at a time (SWAR), then two bytes. Measured 2026-11-24, the 1 GiB
 * benchmark file's parse alone from memory (20.8 M NPIs), 8 rounds alternating with the digit loop
 * in one process: 26.2 CPU-seconds in all against 27.7, 7 rounds faster.
 */
function tenDigits(dv: DataView, b: Uint8Array, k: number): number {
  const w0 = dv.getUint32(k, true), w1 = dv.getUint32(k + 4, true);
  const c8 = b[k + 8]! - 0x30, c9 = b[k + 9]! - 0x30;
  if (!fourDigits(w0) || !fourDigits(w1) || c8 < 0 || c8 > 9 || c9 < 0 || c9 > 9) return -1;
  return wordValue(w0) * 1e6 + wordValue(w1) * 100 + c8 * 10 + c9;
}

/** Whether the four bytes of `w` are ASCII digits: each 0x3_, and still 0x3_ with 6 added (no carry can cross: 0x3f + 6 < 0x100). */
function fourDigits(w: number): boolean {
  return (w & 0xf0f0f0f0) === 0x30303030 && ((w + 0x06060606) & 0xf0f0f0f0) === 0x30303030;
}

/** The value of four ASCII digits, the first in the low byte (little-endian read): pairs, then the pairs. */
function wordValue(w: number): number {
  const x = w - 0x30303030;
  const pairs = (Math.imul(x, 10) + (x >>> 8)) & 0x00ff00ff;
  return Math.imul(pairs & 0xff, 100) + (pairs >>> 16);
}

/** {"npi":[...],"tin":{"type":..,"value":..,"business_name"?:..},"network_name"?:[..]} */
function group(r: Reader): GroupRecord | null {
  if (!r.eat(0x7b) || r.eat(0x7d)) return null;
  let npis: number[] | null = null, tinType: string | null = null, tinValue: string | null = null;
  let businessName: string | null = null, networkNames: string[] | null = null, tin = false;
  for (;;) {
    const k = r.str();
    if (k === null || !r.eat(0x3a)) return null;
    if (k === 'npi' && npis === null) {
      npis = npiArray(r);
      if (npis === null) return null;
    } else if (k === 'tin' && !tin) {
      tin = true;
      if (!r.eat(0x7b) || r.eat(0x7d)) return null;
      let seen = 0;
      for (;;) {
        const tk = r.str();
        if (tk === null || !r.eat(0x3a)) return null;
        const v = r.str();
        if (v === null || !trimmed(v)) return null;
        const bit = tk === 'type' ? 1 : tk === 'value' ? 2 : tk === 'business_name' ? 4 : 0;
        if (bit === 0 || seen & bit) return null;
        seen |= bit;
        if (bit === 1) { if (!TIN_TYPES.has(v)) return null; tinType = v; } else if (bit === 2) tinValue = v; else businessName = v;
        if (r.eat(0x7d)) break;
        if (!r.eat(0x2c)) return null;
      }
      if ((seen & 3) !== 3) return null;
    } else if (k === 'network_name' && networkNames === null) {
      networkNames = r.strArray(trimmed);
      if (networkNames === null) return null;
    } else return null;
    if (r.eat(0x7d)) break;
    if (!r.eat(0x2c)) return null;
  }
  if (npis === null || !tin) return null;
  // Same field order as TicAssembler.group.
  return { tinType, tinValue, businessName, npis, networkNames: networkNames ?? [] };
}

/** A non-empty `provider_groups` array of canonical groups; null otherwise. */
function groupList(r: Reader): GroupRecord[] | null {
  if (!r.eat(0x5b) || r.eat(0x5d)) return null;
  const groups: GroupRecord[] = [];
  for (;;) {
    const g = group(r);
    if (g === null) return null;
    groups.push(g);
    if (r.eat(0x5d)) return groups;
    if (!r.eat(0x2c)) return null;
  }
}

/** Reads a canonical provider_references entry from b[start, end) (`open`: as prepareRate); null means "use the general path". */
export function prepareReference(b: Uint8Array, start: number, end: number, open = false): ProviderReferenceRecord | null {
  const r = new Reader(b, end);
  r.i = start;
  if (!r.eat(0x7b) || r.eat(0x7d)) return null;
  let id: string | null = null, networkNames: string[] | null = null, groups: GroupRecord[] | null = null;
  for (;;) {
    const k = r.str();
    if (k === null || !r.eat(0x3a)) return null;
    if (k === 'provider_group_id' && id === null) {
      id = r.numText();
      if (id === null || id.length > 64 || !Number.isInteger(Number(id))) return null; // decimal ids warn: general path
    } else if (k === 'network_name' && networkNames === null) {
      networkNames = r.strArray(trimmed);
      if (networkNames === null) return null;
    } else if (k === 'provider_groups' && groups === null) {
      groups = groupList(r);
      if (groups === null) return null;
    } else return null;
    if (r.eat(0x7d)) break;
    if (!r.eat(0x2c)) return null;
  }
  if (id === null || groups === null || !closed(r, end, open)) return null;
  // Same field order as TicAssembler.providerReference.
  return { refId: id, groups, location: null, networkNames: networkNames ?? [] };
}
