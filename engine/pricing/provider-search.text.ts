/**
 * Text matching for provider names (issue 4, item 3: "by name over individual names, organization
 * names, other names (DBA) and a brand-alias file … ranked by text match"). Pure functions, no I/O.
 *
 * Why in-process and not DuckDB's full-text extension: the extension may not be installed and must
 * never be downloaded at run time; Jaro-Winkler over a token vocabulary is enough to catch typos
 * like "Stanfrod" (Winkler 1990, prefix scale 0.1, up to 4 characters).
 */

/** Words that carry no identity in a provider name (legal suffixes, articles). */
const STOPWORDS = new Set(['the', 'of', 'and', 'inc', 'llc', 'llp', 'pc', 'pa', 'pllc', 'ltd', 'corp', 'co', 'a', 'at', 'dba', 'for', 'in']);

/**
 * Words of a pure-ASCII name in one pass (the common case: NPPES names are ASCII), with the same
 * result as the general path below; null when the name has non-ASCII characters.
 */
function asciiWords(s: string): string[] | null {
  // Hot path (index build over every provider name): plain loop, no closures.
  const l = s.toLowerCase();
  const out: string[] = [];
  let cur = '';
  let start = -1;
  for (let i = 0; i <= l.length; i++) {
    const c = i < l.length ? l.charCodeAt(i) : 32;
    if (c >= 128) return null;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (c === 39 || c === 96) {
      // Apostrophes join ("mary's" -> "marys").
      if (start >= 0) cur += l.slice(start, i);
      start = -1;
    } else {
      if (start >= 0) cur += l.slice(start, i);
      if (cur) out.push(cur);
      cur = '';
      start = -1;
      if (c === 38) out.push('and');
    }
  }
  return out;
}

/**
 * Lower-cases, strips accents and punctuation ("St. Mary's" -> "st marys", "A&B" -> "a and b"),
 * collapses spaces. The same normalisation is applied to queries and indexed names.
 */
export function normalizeName(s: string | null | undefined): string {
  // NPPES blanks every field of a deactivated NPI, so a registry name can be null: treat as empty.
  if (!s) return '';
  const fast = asciiWords(s);
  if (fast) return fast.join(' ');
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Tokens of a normalised name, stopwords removed (kept when the name is nothing but stopwords). */
export function nameTokens(s: string): string[] {
  const all = asciiWords(s) ?? normalizeName(s).split(' ').filter(Boolean);
  const kept = all.filter((t) => !STOPWORDS.has(t));
  return kept.length ? kept : all;
}

/** Jaro similarity in [0, 1]. */
export function jaro(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (!la || !lb) return 0;
  const window = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  const ma = new Uint8Array(la);
  const mb = new Uint8Array(lb);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const lo = Math.max(0, i - window);
    const hi = Math.min(lb - 1, i + window);
    for (let j = lo; j <= hi; j++) {
      if (mb[j] || a.charCodeAt(i) !== b.charCodeAt(j)) continue;
      ma[i] = 1;
      mb[j] = 1;
      matches++;
      break;
    }
  }
  if (!matches) return 0;
  let k = 0;
  let transpositions = 0;
  for (let i = 0; i < la; i++) {
    if (!ma[i]) continue;
    while (!mb[k]) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) transpositions++;
    k++;
  }
  const m = matches;
  return (m / la + m / lb + (m - transpositions / 2) / m) / 3;
}

/** Jaro-Winkler similarity in [0, 1] (prefix scale 0.1, prefix up to 4). */
export function jaroWinkler(a: string, b: string): number {
  const j = jaro(a, b);
  let prefix = 0;
  const max = Math.min(4, a.length, b.length);
  while (prefix < max && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return j + prefix * 0.1 * (1 - j);
}

/** Threshold above which a token counts as the same word with a typo. */
export const FUZZY_TOKEN_THRESHOLD = 0.88;

/**
 * Similarity of a query token to an indexed token: 1 for equal, 0.9 for a prefix of at least three
 * characters ("stan" -> "stanford"), Jaro-Winkler when it clears the threshold (tokens of four or
 * more characters only: short tokens are too ambiguous), else 0.
 */
export function tokenSimilarity(q: string, t: string): number {
  if (q === t) return 1;
  if (q.length >= 3 && t.startsWith(q)) return 0.9;
  if (q.length < 4 || t.length < 3) return 0;
  if (Math.abs(q.length - t.length) > 3) return 0;
  const jw = jaroWinkler(q, t);
  return jw >= FUZZY_TOKEN_THRESHOLD ? jw * 0.95 : 0;
}

/** Whole-name similarity (for tie-breaks between equally covered names): Jaro-Winkler of the normalised strings. */
export function nameSimilarity(query: string, name: string): number {
  return jaroWinkler(normalizeName(query), normalizeName(name));
}
