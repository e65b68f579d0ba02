/**
 * The dictionary of price descriptions (a negotiated_price without its rate) of one file: gives each
 * distinct description a small id. Looked up once per price, so it hashes the fields in place
 * (FNV-1a over their characters) and compares them on a hash hit, instead of building a key
 * string: profiled 2026-11-22 on a 128 MiB file, a joined-string key cost 530 ns a price and most
 * of the parse's garbage. Bounded: a full dictionary is cleared (a repeat then only gets a new id;
 * the finalize step de-duplicates by content).
 */
import type { PriceRecord } from '../tic/records.ts';

const FNV_PRIME = 16777619;

function mixString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return Math.imul(h ^ 0x1f, FNV_PRIME); // field end: "ab"+"c" differs from "a"+"bc"
}

function mixNullable(h: number, s: string | null): number {
  return s === null ? Math.imul(h ^ 0x100, FNV_PRIME) : mixString(h, s);
}

function mixList(h: number, l: readonly string[] | null): number {
  if (l === null) return Math.imul(h ^ 0x100, FNV_PRIME);
  for (const s of l) h = mixString(h, s);
  return Math.imul(h ^ 0x101, FNV_PRIME); // list end: [] differs from null
}

function sameList(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === b) return true;
  if (a === null || b === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when two prices have the same description (every field but negotiated_rate). */
export function sameDescription(a: PriceRecord, b: PriceRecord): boolean {
  return a.negotiatedType === b.negotiatedType && a.expirationDate === b.expirationDate && a.billingClass === b.billingClass
    && a.setting === b.setting && a.additionalInformation === b.additionalInformation
    && sameList(a.serviceCode, b.serviceCode) && sameList(a.billingCodeModifier, b.billingCodeModifier);
}

/** 32-bit FNV-1a hash of a price's description. */
export function descriptionHash(p: PriceRecord): number {
  let h = 2166136261;
  h = mixString(h, p.negotiatedType);
  h = mixNullable(h, p.expirationDate);
  h = mixList(h, p.serviceCode);
  h = mixString(h, p.billingClass);
  h = mixNullable(h, p.setting);
  h = mixList(h, p.billingCodeModifier);
  h = mixNullable(h, p.additionalInformation);
  return h >>> 0;
}

/**
 * Stored descriptions, one after another in one array (the arena): [id, arena index of the next
 * description of the same hash (-1: none), negotiatedType, expirationDate, billingClass, setting,
 * additionalInformation, service_code length (-1 for null), its codes..., modifier length (-1 for
 * null), its modifiers...]; an open-addressing table of (hash + 1, arena index of its first
 * description) pairs in an Int32Array finds them. A lookup then reads two places in memory (the
 * table's pair, the description's fields), where a Map of one array per description read four
 * (the Map's bucket and entry, the array, its elements): the dictionary is ~54 k descriptions, so
 * each read is a cache miss, and the lookups were ~15% of the parse helper's profile (1 GiB
 * benchmark file, 2026-11-23). Measured before that on the same file: 1.2 s of lookups as
 * {id, price: PriceRecord, next} entries, 0.6 s as one array each.
 */
const E_ID = 0, E_NEXT = 1, E_FIELDS = 2;
type Arena = (string | number | null)[];

function listMatches(a: Arena, k: number, l: readonly string[] | null): number {
  if (l === null) return a[k] === -1 ? k + 1 : -1;
  if (a[k] !== l.length) return -1;
  k++;
  for (let i = 0; i < l.length; i++, k++) if (a[k] !== l[i]) return -1;
  return k;
}

/** True when the description at `e` of the arena is `p`'s. */
function matches(a: Arena, e: number, p: PriceRecord): boolean {
  const f = e + E_FIELDS;
  if (a[f] !== p.negotiatedType || a[f + 1] !== p.expirationDate || a[f + 2] !== p.billingClass || a[f + 3] !== p.setting
    || a[f + 4] !== p.additionalInformation) return false;
  const k = listMatches(a, f + 5, p.serviceCode);
  return k >= 0 && listMatches(a, k, p.billingCodeModifier) >= 0;
}

/** About how many characters a description holds (what the dictionary keeps alive). */
function descriptionChars(p: PriceRecord): number {
  let n = 64 + (p.additionalInformation?.length ?? 0) + (p.expirationDate?.length ?? 0);
  for (const s of p.serviceCode ?? []) n += s.length + 8;
  for (const s of p.billingCodeModifier ?? []) n += s.length + 8;
  return n;
}

const MIN_BITS = 12;

export class PriceDescriptions {
  /** Pairs (hash + 1, arena index of the chain's first description); hash + 1 = 0: empty. */
  private table = new Int32Array(2 << MIN_BITS);
  private bits = MIN_BITS;
  private used = 0;
  private arena: Arena = [];
  private size = 0;
  private chars = 0;
  private seq = 0;

  /** At most `cap` descriptions holding about `charsCap` characters (a hostile file's are long). */
  private readonly cap: number;
  private readonly charsCap: number;

  constructor(cap: number, charsCap = Infinity) {
    this.cap = cap;
    this.charsCap = charsCap;
  }

  /**
   * The id of `p`'s description; negative (-id) the first time it is seen (the caller stages it).
   * `hash`: the front-end's bucket hint (records.ts RateHints), else the fields are hashed here.
   */
  idOf(p: PriceRecord, hash: number = descriptionHash(p)): number {
    // 30 bits, plus one so that 0 marks an empty slot.
    const h = (hash & 0x3fffffff) + 1;
    const a = this.arena;
    const t = this.table;
    const mask = (1 << this.bits) - 1;
    for (let s = Math.imul(h, 0x9e3779b1) >>> (32 - this.bits); ; s = (s + 1) & mask) {
      const k = t[2 * s]!;
      if (k === h) {
        for (let e = t[2 * s + 1]!; e >= 0; e = a[e + E_NEXT] as number) if (matches(a, e, p)) return a[e + E_ID] as number;
        return this.add(p, h, s);
      }
      if (k === 0) return this.add(p, h, -1);
    }
  }

  /** Stores `p`'s description under `h` (in slot `s`, which holds `h`'s chain; -1: a new slot). */
  private add(p: PriceRecord, h: number, s: number): number {
    if (this.size >= this.cap || this.chars > this.charsCap) {
      this.table = new Int32Array(2 << MIN_BITS);
      this.bits = MIN_BITS;
      this.used = 0;
      this.arena = [];
      this.size = 0;
      this.chars = 0;
      s = -1;
    }
    if (s < 0) {
      if (2 * (this.used + 1) > 1 << this.bits) this.grow();
      s = this.slotFor(h);
      this.table[2 * s] = h;
      this.table[2 * s + 1] = -1;
      this.used++;
    }
    const a = this.arena;
    const e = a.length;
    const id = ++this.seq;
    a.push(id, this.table[2 * s + 1]!, p.negotiatedType, p.expirationDate, p.billingClass, p.setting, p.additionalInformation);
    for (const l of [p.serviceCode, p.billingCodeModifier]) {
      if (l === null) a.push(-1);
      else { a.push(l.length); for (const x of l) a.push(x); }
    }
    this.table[2 * s + 1] = e;
    this.size++;
    this.chars += descriptionChars(p);
    return -id;
  }

  /** The empty slot `h` probes to first (it is not in the table). */
  private slotFor(h: number): number {
    const t = this.table;
    const mask = (1 << this.bits) - 1;
    let s = Math.imul(h, 0x9e3779b1) >>> (32 - this.bits);
    while (t[2 * s] !== 0) s = (s + 1) & mask;
    return s;
  }

  /** Doubles the table (the chains stay where they are in the arena). */
  private grow(): void {
    const old = this.table;
    this.bits++;
    this.table = new Int32Array(2 << this.bits);
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] === 0) continue;
      const s = this.slotFor(old[i]!);
      this.table[2 * s] = old[i]!;
      this.table[2 * s + 1] = old[i + 1]!;
    }
  }
}
