/** Name matching primitives and the in-memory name index (no I/O). */
import { describe, expect, test } from 'vitest';
import { jaro, jaroWinkler, nameTokens, normalizeName, tokenSimilarity } from '../../engine/pricing/provider-search.text.ts';
import { NameIndex, type NameEntry } from '../../engine/pricing/provider-search.index.ts';
import { haversineKm } from '../../engine/pricing/geo.ts';
import { matchBrands } from '../../engine/pricing/provider-search.ts';
import { parseBrandAliases } from '../../engine/pricing/adapters/providers.duckdb.ts';

describe('text', () => {
  test('normalisation: accents, apostrophes, ampersands, punctuation', () => {
    expect(normalizeName("St. Mary's Médical  Center, Inc.")).toBe('st marys medical center inc');
    expect(normalizeName('A&B Clinic')).toBe('a and b clinic');
    expect(nameTokens('The Clinic of Palo Alto, LLC')).toEqual(['clinic', 'palo', 'alto']);
  });

  test('Jaro-Winkler matches the published reference values', () => {
    // Winkler (1990) / the standard worked examples: MARTHA/MARHTA 0.961, DWAYNE/DUANE 0.84, DIXON/DICKSONX 0.813.
    expect(jaroWinkler('martha', 'marhta')).toBeCloseTo(0.961, 3);
    expect(jaroWinkler('dwayne', 'duane')).toBeCloseTo(0.84, 2);
    expect(jaroWinkler('dixon', 'dicksonx')).toBeCloseTo(0.813, 3);
    expect(jaro('abc', 'xyz')).toBe(0);
  });

  test('token similarity: exact, prefix, typo, too different', () => {
    expect(tokenSimilarity('stanford', 'stanford')).toBe(1);
    expect(tokenSimilarity('stan', 'stanford')).toBe(0.9);
    expect(tokenSimilarity('stanfrod', 'stanford')).toBeGreaterThan(0.88);
    expect(tokenSimilarity('kaiser', 'stanford')).toBe(0);
    expect(tokenSimilarity('ab', 'ac')).toBe(0);
  });

  test('haversine: San Francisco to Los Angeles is about 559 km', () => {
    expect(haversineKm({ latitude: 37.7749, longitude: -122.4194 }, { latitude: 34.0522, longitude: -118.2437 })).toBeCloseTo(559, -1);
  });
});

const entry = (npi: number, names: string[], city: string, zip5: string, lat: number, lon: number, legalNames = 1): NameEntry =>
  ({ npi, names, legalNames, city, state: 'CA', zip5, latitude: lat, longitude: lon });

describe('name index', () => {
  const idx = new NameIndex([
    entry(1, ['Stanford Health Care'], 'Palo Alto', '94304', 37.43, -122.17),
    entry(2, ['Oak Street Clinic'], 'San Francisco', '94110', 37.75, -122.42),
    entry(3, ['Oak Street Clinic'], 'Los Angeles', '90012', 34.06, -118.24),
    entry(4, ['Bayside Radiology Medical Group Inc', 'Bayside Imaging'], 'Oakland', '94612', 37.80, -122.27),
    entry(5, ['Alice Smith, MD'], 'San Jose', '95112', 37.35, -121.89),
  ]);

  test('typo and prefix queries find the name', () => {
    expect(idx.search('Stanfrod Health', { origin: null, zip5: null, limit: 5 })[0]?.entry.npi).toBe(1);
    expect(idx.search('stanford', { origin: null, zip5: null, limit: 5 })[0]?.approximate).toBe(false);
    expect(idx.search('Stanfrod', { origin: null, zip5: null, limit: 5 })[0]?.approximate).toBe(true);
  });

  test('an other (DBA) name matches and is reported as such', () => {
    const h = idx.search('Bayside Imaging', { origin: null, zip5: null, limit: 5 })[0]!;
    expect(h.entry.npi).toBe(4);
    expect(h.viaOtherName).toBe(true);
    expect(h.matchedName).toBe('Bayside Imaging');
  });

  test('same-named clinics: distance, city in the query, ZIP in the query', () => {
    const la = { latitude: 34.05, longitude: -118.25 };
    expect(idx.search('Oak Street Clinic', { origin: la, zip5: null, limit: 5 }).map((h) => h.entry.npi)).toEqual([3, 2]);
    expect(idx.search('Oak Street Clinic San Francisco', { origin: la, zip5: null, limit: 5 })[0]?.entry.npi).toBe(2);
    expect(idx.search('Oak Street Clinic 90012', { origin: null, zip5: null, limit: 5 })[0]?.entry.npi).toBe(3);
  });

  test('unrelated names do not match; limit holds', () => {
    expect(idx.search('Kaiser Permanente', { origin: null, zip5: null, limit: 5 })).toEqual([]);
    expect(idx.search('clinic', { origin: null, zip5: null, limit: 1 })).toHaveLength(1);
  });
});

describe('brands', () => {
  const aliases = parseBrandAliases({ version: 1, brands: [{ key: 'one-medical', brand: 'One Medical', aliases: ['OneMedical', '1Life'], legalNames: ['1LIFE HEALTHCARE, INC.'], names: ['ONE MEDICAL GROUP'], npis: [] }] });
  test('the shipped file shape parses; a brand matches by name or alias, case and punctuation insensitive', () => {
    expect(aliases[0]).toMatchObject({ brand: 'One Medical', names: ['ONE MEDICAL GROUP', '1LIFE HEALTHCARE, INC.'] });
    expect(matchBrands('one-medical', aliases).map((b) => b.alias.brand)).toEqual(['One Medical']);
    expect(matchBrands('1life', aliases)).toHaveLength(1);
    expect(matchBrands('Kaiser', aliases)).toEqual([]);
  });
});
