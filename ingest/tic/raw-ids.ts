/**
 * Provider reference ids keep their exact written text (CareFirst's 690.64462; an id written 1.0
 * stays "1.0"): JSON numbers lose it, so both front-ends hand the assembler these ids as RawNumber.
 *
 * Rule (identical in both front-ends): in every materialised record, a number that is the value of
 * the record's own `provider_group_id` key, or an element of the array that is the value of the
 * record's own `provider_references` key, is a RawNumber. The reference parser builds them from
 * stream-json's number text; the fast parser's JSON.parse path patches them in from the record's
 * bytes (patchRawIds); its shortcut (fast-rate.ts) reads the text directly.
 */

/** A JSON number kept as written. */
export class RawNumber {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
  /** Warnings print the text. */
  toJSON(): string { return this.text; }
}

const td = new TextDecoder('utf-8');

/** Index just past the string starting at b[i] (a quote); -1 if unterminated. */
function skipString(b: Uint8Array, i: number): number {
  for (i++; i < b.length; i++) {
    const c = b[i];
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}

function ws(b: Uint8Array, i: number): number {
  while (i < b.length) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** Index just past the (valid: JSON.parse accepted it) value starting at b[i]. */
function skipValue(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === 0x22) return skipString(b, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    while (i < b.length) {
      const x = b[i]!;
      if (x === 0x22) { i = skipString(b, i); continue; }
      if (x === 0x7b || x === 0x5b) depth++;
      else if (x === 0x7d || x === 0x5d) { if (--depth === 0) return i + 1; }
      i++;
    }
    return i;
  }
  while (i < b.length) { // number or literal
    const x = b[i]!;
    if (x === 0x2c || x === 0x7d || x === 0x5d || x === 0x20 || x === 0x0a || x === 0x0d || x === 0x09) break;
    i++;
  }
  return i;
}

/** Raw texts of the last top-level `key` of the object in `b`: the number, or each array element (null if not a number). */
function rawOf(b: Uint8Array, key: string): string | (string | null)[] | null {
  let i = ws(b, 0);
  if (b[i] !== 0x7b) return null;
  i = ws(b, i + 1);
  let found: string | (string | null)[] | null = null;
  while (i < b.length && b[i] === 0x22) {
    const kEnd = skipString(b, i);
    const rawKey = td.decode(b.subarray(i + 1, kEnd - 1));
    const k = rawKey.includes('\\') ? (JSON.parse(`"${rawKey}"`) as string) : rawKey;
    i = ws(b, kEnd);
    i = ws(b, i + 1); // ':'
    const vEnd = skipValue(b, i);
    if (k === key) {
      const c = b[i]!;
      if (c === 0x5b) {
        const out: (string | null)[] = [];
        let j = ws(b, i + 1);
        while (j < vEnd - 1) {
          const eEnd = skipValue(b, j);
          const x = b[j]!;
          out.push(x === 0x2d || (x >= 0x30 && x <= 0x39) ? td.decode(b.subarray(j, eEnd)) : null);
          j = ws(b, eEnd);
          if (b[j] === 0x2c) j = ws(b, j + 1);
        }
        found = out;
      } else found = c === 0x2d || (c >= 0x30 && c <= 0x39) ? td.decode(b.subarray(i, vEnd)) : null;
    }
    i = ws(b, vEnd);
    if (b[i] === 0x2c) i = ws(b, i + 1);
  }
  return found;
}

/** Replaces, in a JSON.parse'd record, the id numbers by RawNumbers read from its bytes (see above). */
export function patchRawIds(v: unknown, bytes: Uint8Array): void {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return;
  const o = v as Record<string, unknown>;
  if (typeof o.provider_group_id === 'number') {
    const raw = rawOf(bytes, 'provider_group_id');
    if (typeof raw === 'string') o.provider_group_id = new RawNumber(raw);
  }
  const refs = o.provider_references;
  if (Array.isArray(refs) && refs.some((x) => typeof x === 'number')) {
    const raw = rawOf(bytes, 'provider_references');
    if (Array.isArray(raw) && raw.length === refs.length) {
      for (let k = 0; k < refs.length; k++) {
        const t = raw[k];
        if (typeof refs[k] === 'number' && typeof t === 'string') refs[k] = new RawNumber(t);
      }
    }
  }
}
