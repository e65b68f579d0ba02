/**
 * The `providers.name_search` normalisation (schemas/pricing-tables.ts): lower-case, accents
 * folded, apostrophes and periods dropped inside words ("O'BRIEN" -> "obrien", "M.D." -> "md"), every
 * other punctuation a space, runs of spaces collapsed. A search query must be normalised with the
 * same function so "st. john's" finds "ST JOHNS".
 */
export function normalizeName(s: string): string {
  // NFKD only when needed: nearly every NPPES name is ASCII and normalize() is the costliest step.
  const folded = /^[\x00-\x7f]*$/.test(s) ? s : s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  return folded
    .toLowerCase()
    .replace(/['’.`]/g, '')
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Joins every distinct non-empty normalised name with single spaces. */
export function nameSearch(names: (string | null | undefined)[]): string {
  const seen = new Set<string>();
  for (const n of names) {
    if (!n) continue;
    const k = normalizeName(n);
    if (k) seen.add(k);
  }
  return [...seen].join(' ');
}
