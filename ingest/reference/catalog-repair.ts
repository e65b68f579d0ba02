/**
 * Repairs for the TiC 500 plain-language list (data/catalog/source/tic_500_codes_plain_language.csv).
 *
 * The copy we have was damaged by a text substitution: every "ent" became "td" ("patient" ->
 * "patitd", "management" -> "managemtd", "entire" -> "tdire"). The repair is the inverse
 * substitution, applied inside words only, except for the few real English words that contain
 * "td" (none occur in this file today; the list keeps the rule safe if the source changes).
 * test/ingest/catalog-repair.test.ts verifies it over every row: no "td" left, the number of
 * repaired rows counted independently, every repaired word attested in uncorrupted text or in a
 * reviewed list, and agreement with CMS's own names where both lists carry a code.
 *
 * Codes: the list lost leading zeros: 4-digit numbers are CPT anesthesia codes (1960 -> 01960);
 * 1-3 digit numbers are MS-DRGs (kept as 3 digits, the TiC convention "470").
 */

/** Real words containing "td" that the repair must leave alone (lower case). */
const REAL_TD_WORDS = new Set(['outdated', 'outdoor', 'outdoors', 'ltd', 'hotdog', 'std', 'stds']);

/** Repairs one description. `changed` lists the words that were altered, as [before, after]. */
export function repairTicText(text: string): { text: string; changed: [string, string][] } {
  const changed: [string, string][] = [];
  const out = text.replace(/[A-Za-z]+/g, (word) => {
    if (!word.includes('td') || REAL_TD_WORDS.has(word.toLowerCase())) return word;
    const fixed = word.replaceAll('td', 'ent');
    changed.push([word, fixed]);
    return fixed;
  });
  return { text: out, changed };
}

export type CodeType = 'CPT' | 'HCPCS' | 'MS-DRG';

/** Restores a code as written in the TiC 500 list to its canonical form and type. */
export function restoreTicCode(raw: string): { code: string; codeType: CodeType } {
  const c = raw.trim().toUpperCase();
  if (/^\d{1,3}$/.test(c)) return { code: c.padStart(3, '0'), codeType: 'MS-DRG' };
  if (/^\d{4}$/.test(c)) return { code: `0${c}`, codeType: 'CPT' };
  if (/^\d{5}$/.test(c) || /^\d{4}[FTU]$/.test(c)) return { code: c, codeType: 'CPT' };
  if (/^[A-Z]\d{4}$/.test(c)) return { code: c, codeType: 'HCPCS' };
  throw new Error(`unrecognised code ${JSON.stringify(raw)} in the TiC 500 list`);
}

/**
 * Expands a CMS 70 "code as listed" cell: "81000 or 81001", "84153-84154", "MS-DRG 216", "99203".
 * Ranges are expanded only when short (at most 10 codes), as CMS uses them for code pairs.
 */
export function expandCmsCodes(listed: string, codeType: string): { code: string; codeType: CodeType }[] {
  const s = listed.trim();
  if (/^MS-DRG\s+\d{1,3}$/i.test(s) || codeType.toUpperCase() === 'MS-DRG') {
    return [{ code: s.replace(/\D/g, '').padStart(3, '0'), codeType: 'MS-DRG' }];
  }
  const type: CodeType = codeType.toUpperCase() === 'HCPCS' ? 'HCPCS' : 'CPT';
  const range = /^(\d{5})\s*-\s*(\d{5})$/.exec(s);
  if (range) {
    const [a, b] = [Number(range[1]), Number(range[2])];
    if (b < a || b - a > 9) throw new Error(`unexpected CMS code range ${s}`);
    return Array.from({ length: b - a + 1 }, (_, i) => ({ code: String(a + i).padStart(5, '0'), codeType: type }));
  }
  return s.split(/\s+or\s+|\s*,\s*/i).map((c) => ({ code: c.trim().toUpperCase(), codeType: type }));
}
