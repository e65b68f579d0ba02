/**
 * The TiC 500 repair, verified over EVERY row of the source (data/catalog/source), and the
 * shipped catalog kept equal to the build.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { csvRows } from '../../ingest/csv.ts';
import { expandCmsCodes, repairTicText, restoreTicCode } from '../../ingest/reference/catalog-repair.ts';
import { buildServiceCatalog, catalogTableSources, DEFAULT_CATALOG_DIR, SHIPPED_CATALOG_FILE, shippedCatalogJson, type CatalogRow } from '../../ingest/reference/catalog.ts';

const SRC = join(DEFAULT_CATALOG_DIR, 'source');
let tic: string[][];
let cms: string[][];
let built: { rows: CatalogRow[]; repairedRows: number };

beforeAll(async () => {
  tic = [];
  for await (const r of csvRows(join(SRC, 'tic_500_codes_plain_language.csv'), { header: true })) tic.push(r);
  cms = [];
  for await (const r of csvRows(join(SRC, 'cms_70_shoppable_services.csv'), { header: true })) cms.push(r);
  built = await buildServiceCatalog();
});

/** Words of a text (letters only). */
const words = (s: string): string[] => s.match(/[A-Za-z]+/g) ?? [];

describe('TiC 500 text repair ("ent" became "td")', () => {
  test('the corrupted rows, counted independently on the raw file, are exactly the rows repaired', () => {
    expect(tic.length).toBe(500);
    const rawText = readFileSync(join(SRC, 'tic_500_codes_plain_language.csv'), 'utf8');
    // Independent count: data lines with a lower-case "td" inside a word.
    const corruptedLines = rawText.split('\n').slice(1).filter((l) => /[A-Za-z]*td[A-Za-z]*/.test(l.replace(/^"[^"]*",/, '')));
    expect(corruptedLines.length).toBe(94);
    const repaired = tic.filter((r) => repairTicText(r[1] ?? '').changed.length > 0);
    expect(repaired.length).toBe(corruptedLines.length);
    expect(built.repairedRows).toBe(94);
  });

  test('after repair no word of any row still contains "td"', () => {
    for (const r of tic) {
      const fixed = repairTicText(r[1] ?? '').text;
      expect(words(fixed).filter((w) => w.includes('td')), `${r[0]}: ${fixed}`).toEqual([]);
    }
  });

  test('every repaired word is a real word: attested in uncorrupted text of the two lists, or in the reviewed list', () => {
    const attested = new Set<string>();
    for (const r of [...cms.map((x) => x[3] ?? ''), ...tic.map((x) => x[1] ?? '')]) {
      if (!/td/.test(r)) for (const w of words(r)) attested.add(w.toLowerCase());
    }
    // Words the repair produces that no clean row happens to contain; each reviewed as English.
    const reviewed = new Set(('adolescents agent agents central compartment compartments concentration concurrently debridement department '
      + 'developmental different entire identify incompetent ligament management measurement mental movement patients present prevent '
      + 'preventative representation stent stents tangential treatment').split(' '));
    const produced = new Set<string>();
    for (const r of tic) for (const [, after] of repairTicText(r[1] ?? '').changed) produced.add(after.toLowerCase());
    const unexplained = [...produced].filter((w) => !attested.has(w) && !reviewed.has(w));
    expect(unexplained).toEqual([]);
    // And the reviewed list holds nothing the repair does not produce (it cannot hide a regression).
    expect([...reviewed].filter((w) => !produced.has(w))).toEqual([]);
  });

  test('where CMS names the same code, the repaired TiC text equals CMS\'s own wording', () => {
    const cmsName = new Map(cms.map((r) => [r[1]!, (r[3] ?? '').toLowerCase()]));
    const same = ['42820', '49505', '85025', '85730', '90846', '90847', '99203', '99243', '99244', '99385', '99386'];
    for (const code of same) {
      const row = tic.find((r) => r[0] === code)!;
      const fixed = repairTicText(row[1]!);
      expect(fixed.changed.length, code).toBeGreaterThan(0);
      expect(fixed.text.replace(/\.$/, '').toLowerCase(), code).toBe(cmsName.get(code));
    }
  });

  test('real words containing "td" are left alone', () => {
    expect(repairTicText('Outdated Ltd patitd').text).toBe('Outdated Ltd patient');
  });
});

describe('codes', () => {
  test('anesthesia codes restored to 5 digits, MS-DRGs to 3', () => {
    expect(restoreTicCode('1960')).toEqual({ code: '01960', codeType: 'CPT' });
    expect(restoreTicCode('470')).toEqual({ code: '470', codeType: 'MS-DRG' });
    expect(restoreTicCode('G0121')).toEqual({ code: 'G0121', codeType: 'HCPCS' });
    expect(() => restoreTicCode('12-34')).toThrow(/unrecognised/);
    const fourDigit = tic.filter((r) => /^\d{4}$/.test(r[0]!)).map((r) => r[0]);
    expect(fourDigit).toEqual(['1960', '1961', '1967', '1968']);
    for (const c of ['01960', '01961', '01967', '01968']) expect(built.rows.find((r) => r.code === c)?.category).toBe('Anesthesia');
    expect(built.rows.some((r) => r.code === '1960')).toBe(false);
  });

  test('CMS "as listed" cells: pairs, ranges and MS-DRGs', () => {
    expect(expandCmsCodes('81000 or 81001', 'CPT').map((c) => c.code)).toEqual(['81000', '81001']);
    expect(expandCmsCodes('84153-84154', 'CPT').map((c) => c.code)).toEqual(['84153', '84154']);
    expect(expandCmsCodes('MS-DRG 216', 'MS-DRG')).toEqual([{ code: '216', codeType: 'MS-DRG' }]);
  });

  test('the catalog is the union of both lists, each code once, every row named', () => {
    const union = new Set<string>();
    for (const r of tic) union.add(restoreTicCode(r[0]!).code);
    for (const r of cms) for (const c of expandCmsCodes(r[1]!, r[2]!)) union.add(c.code);
    expect(built.rows.length).toBe(union.size);
    expect(new Set(built.rows.map((r) => r.code)).size).toBe(built.rows.length);
    for (const r of built.rows) {
      expect(r.name.length, r.code).toBeGreaterThan(3);
      expect(r.name, r.code).not.toMatch(/td\b|td[a-z]/);
      expect(['cms70', 'tic500', 'tic500-repaired', 'carebridge']).toContain(r.name_source);
      expect(r.related_codes.length).toBe(r.related_when.length);
    }
    // CMS 70 names win over TiC text where both exist.
    expect(built.rows.find((r) => r.code === '29881')).toMatchObject({ name: 'Removal of one knee cartilage using an endoscope', name_source: 'cms70' });
  });
});

describe('shipped catalog and table sources', () => {
  test('data/catalog/service-catalog.json equals the build (regenerate with: npx node --import tsx ingest/reference/catalog.ts)', () => {
    expect(readFileSync(SHIPPED_CATALOG_FILE, 'utf8')).toBe(shippedCatalogJson(built.rows));
  });

  test('catalogTableSources yields service_catalog and payers rows', async () => {
    const [svc, payers] = catalogTableSources();
    let n = 0;
    for await (const _ of svc!.rows()) n++;
    expect(n).toBe(built.rows.length);
    const prow: Record<string, unknown>[] = [];
    for await (const r of payers!.rows()) prow.push(r);
    expect(prow.find((p) => p.key === 'hcsc')).toMatchObject({ blue_card: true, group_number_states: ['IL', 'TX', 'OK', 'NM', 'MT'] });
  });
});
