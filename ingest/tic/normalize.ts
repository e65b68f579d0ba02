/**
 * Normalisation rules for Transparency-in-Coverage values (CMS price-transparency-guide, schema
 * 1.x and 2.x). Pure functions: each takes the raw JSON value and a `warn` callback and returns the
 * normalised value. Both parsers (fast and reference) go through these, so the rules live once.
 *
 * Decisions (documented here because the CMS guide is silent or real files disagree with it):
 * - billing_code_type: trimmed, upper-cased ("ms-drg" -> "MS-DRG").
 * - MS-DRG billing_code: MS-DRG is a 3-digit code (CMS MS-DRG definitions manual), so digits are
 *   re-padded to exactly 3: "0001" (UHC) -> "001", "1" -> "001"; both cases warn `unpadded_code`
 *   (the kind means "not in canonical padding"). Non-numeric codes are kept as written.
 * - RC (revenue codes, NUBC UB-04 FL42) are 4 digits: "450" -> "0450" (`unpadded_code`).
 * - CPT / HCPCS: trimmed and upper-cased (HCPCS level II letters; CPT category II/III suffixes).
 *   Anesthesia CPT codes written as 4 digits ("1960") are padded to 5 ("01960", `unpadded_code`).
 * - service_code (CMS place-of-service code set, two digits): "1" -> "01" (`unpadded_code`);
 *   numbers become strings (`type_coerced`); "CSTM-00" is kept.
 * - negotiated_type, billing_class, setting, negotiation_arrangement: trimmed, lower-cased; values
 *   outside the schema enum are kept and warn `invalid_value`.
 * - Dates: YYYY-MM-DD. "YYYY-MM-DDThh:mm..." and "MM/DD/YYYY" are converted; impossible dates
 *   ("9999-99-99") become null with `invalid_value`.
 * - NPIs: numbers; numeric strings are converted (`type_coerced`); `[0]` or `[]` means a TIN-only
 *   contract (CMS in-network README, "npi": [0]) and yields `[]` with `tin_only_group`.
 * - provider_group_id / provider_references ids: exactly as written (raw-ids.ts), so CareFirst's
 *   decimal 690.64462 survives (`decimal_group_id` warning) and ids beyond 2^53 do not collide.
 *   Ids written as JSON strings are trimmed and, when numeric, canonicalised (`type_coerced`).
 */
import type { WarningKind } from './records.ts';
import { RawNumber } from './raw-ids.ts';

export type Warn = (kind: WarningKind, path: string, example: string) => void;

/** A short printable sample of a value for warning examples (never the whole of a huge value). */
export function sample(v: unknown): string {
  let s: string;
  if (typeof v === 'string') s = v;
  else {
    try { s = JSON.stringify(v) ?? String(v); } catch { s = String(v); }
  }
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** A trimmed string, or null for null/undefined/"" (numbers and booleans are stringified with a warning). */
export function str(v: unknown, path: string, warn: Warn): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') {
    const n = v.length;
    if (n === 0) return null;
    if (v.charCodeAt(0) > 32 && v.charCodeAt(n - 1) > 32) return v; // nothing to trim (the common case)
    const t = v.trim();
    return t === '' ? null : t;
  }
  if (typeof v === 'number' || typeof v === 'boolean') {
    warn('type_coerced', path, sample(v));
    return String(v);
  }
  warn('invalid_value', path, sample(v));
  return null;
}

/** Lower-cased enum value; values outside `allowed` are kept (lower-cased) with `invalid_value`. */
export function enumLower(v: unknown, allowed: ReadonlySet<string>, path: string, warn: Warn): string | null {
  if (typeof v === 'string' && allowed.has(v)) return v; // the common case, without trim/lower-case copies
  const s = str(v, path, warn);
  if (s === null) return null;
  const l = s.toLowerCase();
  if (!allowed.has(l)) warn('invalid_value', path, s);
  return l;
}

export const NEGOTIATED_TYPES: ReadonlySet<string> = new Set(['negotiated', 'derived', 'fee schedule', 'percentage', 'per diem']);
export const BILLING_CLASSES: ReadonlySet<string> = new Set(['professional', 'institutional', 'both']);
export const SETTINGS: ReadonlySet<string> = new Set(['inpatient', 'outpatient', 'both']);
export const ARRANGEMENTS: ReadonlySet<string> = new Set(['ffs', 'bundle', 'capitation']);

/** billing_code_type upper-cased; '' when missing (the caller warns). */
export function codeType(v: unknown, path: string, warn: Warn): string | null {
  const s = str(v, path, warn);
  return s === null ? null : s.toUpperCase();
}

const DIGITS = /^\d+$/;

/** billing_code normalised for its type (see the module comment). */
export function billingCode(type: string, v: unknown, path: string, warn: Warn): string | null {
  const s = str(v, path, warn);
  if (s === null) return null;
  switch (type) {
    case 'MS-DRG':
      return padDigits(s, 3, path, warn);
    case 'RC':
      return padDigits(s, 4, path, warn);
    case 'CPT':
      if (s.length === 4 && DIGITS.test(s)) { // anesthesia 00100-01999 written without the leading zero
        warn('unpadded_code', path, s);
        return `0${s}`;
      }
      return s.toUpperCase();
    case 'HCPCS':
      return s.toUpperCase();
    default:
      return s;
  }
}

/** Re-pads an all-digit code to `width` digits (dropping surplus leading zeros). */
function padDigits(s: string, width: number, path: string, warn: Warn): string {
  if (s.length === width || !DIGITS.test(s)) return s;
  const core = s.replace(/^0+(?=\d)/, '');
  if (core.length > width) return s; // a longer code is not ours to shorten
  warn('unpadded_code', path, s);
  return core.padStart(width, '0');
}

/**
 * service_code[]: place-of-service codes as two-digit strings. Empty arrays become null with
 * `empty_array` (2.x wants items); absent stays null.
 */
export function serviceCodes(v: unknown, path: string, warn: Warn): string[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) {
    if (typeof v === 'string' || typeof v === 'number') {
      warn('type_coerced', path, sample(v));
      return serviceCodes([v], path, warn);
    }
    warn('invalid_value', path, sample(v));
    return null;
  }
  if (v.length === 0) {
    warn('empty_array', path, '[]');
    return null;
  }
  const out: string[] = [];
  for (const c of v) {
    let s: string;
    if (typeof c === 'string') {
      if (c.length === 2 && c.charCodeAt(0) > 32 && c.charCodeAt(1) > 32) { // "11": already canonical
        out.push(c);
        continue;
      }
      s = c.trim();
    }
    else if (typeof c === 'number') {
      warn('type_coerced', path, String(c));
      s = String(c);
    } else {
      warn('invalid_value', path, sample(c));
      continue;
    }
    if (s.length === 1 && s >= '0' && s <= '9') {
      warn('unpadded_code', path, s);
      s = `0${s}`;
    } else if (s.length === 7 && s.toUpperCase() === 'CSTM-00') s = 'CSTM-00';
    out.push(s);
  }
  return out.length ? out : null;
}

/** An array of non-empty strings (billing_code_modifier, network_name); empty -> null with `empty_array`. */
export function strings(v: unknown, path: string, warn: Warn, warnEmpty = true): string[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) {
    const s = str(v, path, warn);
    if (s === null) return null;
    warn('type_coerced', path, s);
    return [s];
  }
  const out: string[] = [];
  for (const x of v) {
    const s = str(x, path, warn);
    if (s !== null) out.push(s);
  }
  if (out.length === 0) {
    if (warnEmpty) warn('empty_array', path, '[]');
    return null;
  }
  return out;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})/;
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
const dateMemo = new Map<string, string | null>();

/** A date as YYYY-MM-DD (ISO 8601 as the CMS guide requires); null with `invalid_value` if impossible. */
export function date(v: unknown, path: string, warn: Warn): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') {
    warn('invalid_value', path, sample(v));
    return null;
  }
  // Files repeat the same few dates millions of times ("9999-12-31"): memoise the pure part.
  let r = dateMemo.get(v);
  if (r === undefined) {
    r = parseDate(v.trim());
    if (dateMemo.size < 4096) dateMemo.set(v, r);
  }
  if (r === null) warn('invalid_value', path, v);
  else if (r !== v) warn('type_coerced', path, v);
  return r;
}

function parseDate(s: string): string | null {
  let y: number, m: number, d: number;
  let mt = ISO_DATE.exec(s);
  if (mt && (s.length === 10 || s[10] === 'T' || s[10] === ' ')) {
    y = Number(mt[1]); m = Number(mt[2]); d = Number(mt[3]);
  } else if ((mt = US_DATE.exec(s))) {
    y = Number(mt[3]); m = Number(mt[1]); d = Number(mt[2]);
  } else return null;
  if (m < 1 || m > 12 || d < 1) return null;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (d > (days[m - 1] ?? 0)) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** A finite number; numeric strings are converted with `type_coerced`; otherwise null (caller decides). */
export function num(v: unknown, path: string, warn: Warn): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string') {
    const t = v.trim().replace(/^\$/, '').replace(/,/g, '');
    const n = t === '' ? NaN : Number(t);
    if (Number.isFinite(n)) {
      warn('type_coerced', path, v);
      return n;
    }
  }
  return null;
}

/**
 * Largest number kept as an NPI: an NPI has 10 digits. A wider number is no NPI (and, past 2^53,
 * not even exact in a double, or past 2^63 a BIGINT).
 */
export const NPI_MAX = 9_999_999_999;

/** A positive integer of at most 10 digits; anything else is an invalid value, not an NPI. */
export function isNpiNumber(x: number): boolean {
  return x > 0 && x <= NPI_MAX && Number.isInteger(x);
}

/**
 * npi[] -> numbers. `[0]` / `[]` / only zeros -> [] with `tin_only_group` (TIN-level contract).
 * Strings of digits are converted (`type_coerced`); anything else, a number of more than 10 digits
 * included (isNpiNumber), is dropped with `invalid_value`.
 */
export function npis(v: unknown, path: string, warn: Warn): number[] {
  if (v === undefined || v === null) {
    warn('missing_field', path, 'npi');
    warn('tin_only_group', path, 'null');
    return [];
  }
  if (Array.isArray(v) && v.length > 0) { // fast path: already NPI numbers (the array is ours, from JSON.parse)
    let ok = true;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x !== 'number' || !isNpiNumber(x)) { ok = false; break; }
    }
    if (ok) return v as number[];
  }
  const arr: unknown[] = Array.isArray(v) ? v : [v];
  if (!Array.isArray(v)) warn('type_coerced', path, sample(v));
  const out: number[] = [];
  let zeros = 0;
  for (const x of arr) {
    if (typeof x === 'number') {
      if (x === 0) zeros++;
      else if (isNpiNumber(x)) out.push(x);
      else warn('invalid_value', path, String(x));
    } else if (typeof x === 'string' && DIGITS.test(x.trim())) {
      const n = Number(x.trim());
      if (n === 0) { warn('type_coerced', path, x); zeros++; } else if (isNpiNumber(n)) { warn('type_coerced', path, x); out.push(n); } else warn('invalid_value', path, sample(x));
    } else warn('invalid_value', path, sample(x));
  }
  if (out.length === 0) warn('tin_only_group', path, zeros ? '[0]' : '[]');
  return out;
}

/** A provider_group_id / provider_references id as text (see the module comment). */
export function refId(v: unknown, path: string, warn: Warn): string | null {
  if (v instanceof RawNumber) return v.text;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'string') {
    const t = v.trim();
    if (t === '') return null;
    warn('type_coerced', path, v);
    const n = Number(t);
    return Number.isFinite(n) ? String(n) : t;
  }
  warn('invalid_value', path, sample(v));
  return null;
}

/** True for a plain (non-array) JSON object. */
export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
