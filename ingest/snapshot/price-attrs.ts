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
 * A stored description, flattened into one array so a lookup reads one object: [id, next entry of
 * the same hash bucket, negotiatedType, expirationDate, billingClass, setting, additionalInformation,
 * service_code length (-1 for null), its codes..., modifier length (-1 for null), its modifiers...].
 * Measured 2026-11-22 on the 4.9 M prices of the 1 GiB benchmark file (54,465 descriptions): 1.2 s
 * of lookups as {id, price: PriceRecord, next} entries, 0.6 s flattened. The comparison reads the
 * new price, which is in cache; the old one's five objects (entry, price, two lists) missed it.
 */
type Entry = (string | number | null | Entry)[];
const E_ID = 0, E_NEXT = 1, E_FIELDS = 2;

function flatten(p: PriceRecord, id: number, next: Entry | null): Entry {
  const e: Entry = [id, next, p.negotiatedType, p.expirationDate, p.billingClass, p.setting, p.additionalInformation];
  for (const l of [p.serviceCode, p.billingCodeModifier]) {
    if (l === null) e.push(-1);
    else { e.push(l.length); for (const s of l) e.push(s); }
  }
  return e;
}

function listMatches(e: Entry, k: number, l: readonly string[] | null): number {
  if (l === null) return e[k] === -1 ? k + 1 : -1;
  if (e[k] !== l.length) return -1;
  k++;
  for (let i = 0; i < l.length; i++, k++) if (e[k] !== l[i]) return -1;
  return k;
}

/** True when `e` holds `p`'s description. */
function matches(e: Entry, p: PriceRecord): boolean {
  const f = E_FIELDS;
  if (e[f] !== p.negotiatedType || e[f + 1] !== p.expirationDate || e[f + 2] !== p.billingClass || e[f + 3] !== p.setting
    || e[f + 4] !== p.additionalInformation) return false;
  const k = listMatches(e, f + 5, p.serviceCode);
  return k >= 0 && listMatches(e, k, p.billingCodeModifier) === e.length;
}

/** About how many characters a description holds (what the dictionary keeps alive). */
function descriptionChars(p: PriceRecord): number {
  let n = 64 + (p.additionalInformation?.length ?? 0) + (p.expirationDate?.length ?? 0);
  for (const s of p.serviceCode ?? []) n += s.length + 8;
  for (const s of p.billingCodeModifier ?? []) n += s.length + 8;
  return n;
}

export class PriceDescriptions {
  private readonly byHash = new Map<number, Entry>();
  private size = 0;
  private chars = 0;
  private seq = 0;

  /** At most `cap` descriptions holding about `charsCap` characters (a hostile file's are long). */
  constructor(private readonly cap: number, private readonly charsCap = Infinity) {}

  /**
   * The id of `p`'s description; negative (-id) the first time it is seen (the caller stages it).
   * `hash`: the front-end's bucket hint (records.ts RateHints), else the fields are hashed here.
   */
  idOf(p: PriceRecord, hash: number = descriptionHash(p)): number {
    // 30 bits: a small integer (Smi) key; a full 32-bit one is a heap number, boxed and hashed per lookup.
    const h = hash & 0x3fffffff;
    for (let e = this.byHash.get(h) ?? null; e !== null; e = e[E_NEXT] as Entry | null) if (matches(e, p)) return e[E_ID] as number;
    if (this.size >= this.cap || this.chars > this.charsCap) { this.byHash.clear(); this.size = 0; this.chars = 0; }
    const id = ++this.seq;
    this.byHash.set(h, flatten(p, id, this.byHash.get(h) ?? null));
    this.size++;
    this.chars += descriptionChars(p);
    return -id;
  }
}
