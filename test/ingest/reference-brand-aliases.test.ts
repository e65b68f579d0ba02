import { describe, it, expect } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrandAliasesFileSchema, brandsForQuery, loadBrandAliases } from '../../ingest/reference/brand-aliases.ts';
import { parseBrandAliases } from '../../engine/pricing/adapters/providers.duckdb.ts';

describe('data/brand-aliases.json', () => {
  it('validates against its schema and maps the brands the issue names', async () => {
    const brands = await loadBrandAliases();
    const legal = (q: string): string[] => brandsForQuery(q, brands).flatMap((b) => [...b.legalNames, ...b.names]);
    expect(legal('One Medical')).toContain('1LIFE HEALTHCARE, INC.');
    expect(legal('minute clinic')).toContain('MINUTECLINIC DIAGNOSTIC OF CALIFORNIA');
    expect(legal('Kaiser')).toEqual(expect.arrayContaining(['KAISER FOUNDATION HOSPITALS', 'SOUTHERN CALIFORNIA PERMANENTE MEDICAL GROUP']));
    expect(legal('Stanford Health Care')).toContain('STANFORD HEALTH CARE');
    expect(legal('cedars sinai')).toContain('CEDARS-SINAI MEDICAL CENTER');
    expect(legal('UCSF')).toContain('UCSF MEDICAL CENTER');
    expect(legal('Sutter')).toContain('SUTTER HEALTH');
    expect(legal('CVS')).toContain('CVS PHARMACY, INC.');
    expect(brandsForQuery('Some Unknown Clinic', brands)).toEqual([]);
  });

  it('is read the same way by the engine adapter', async () => {
    const mine = await loadBrandAliases();
    const { readFileSync } = await import('node:fs');
    const { fileURLToPath } = await import('node:url');
    const raw: unknown = JSON.parse(readFileSync(fileURLToPath(new URL('../../data/brand-aliases.json', import.meta.url)), 'utf8'));
    const engine = parseBrandAliases(raw);
    expect(engine.map((b) => b.brand)).toEqual(mine.map((b) => b.brand));
    expect(engine.map((b) => [...b.names].sort())).toEqual(mine.map((b) => [...b.legalNames, ...b.names].sort()));
  });

  it('rejects a malformed file with the path of the problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-brand-'));
    try {
      const bad = join(dir, 'b.json');
      writeFileSync(bad, JSON.stringify({ _provenance: 'synthetic test file, not real data', version: 1, brands: [
        { key: 'x', brand: 'X', aliases: ['X'], legalNames: ['lower case inc'], names: [], npis: [] },
      ] }));
      await expect(loadBrandAliases(bad)).rejects.toThrow(/brands\.0\.legalNames\.0: NPPES names are upper-case/);
      const dup = BrandAliasesFileSchema.safeParse({ _provenance: 'synthetic test file, not real data', version: 1, brands: [
        { key: 'a', brand: 'A', aliases: ['Same'], legalNames: ['A INC'], names: [], npis: [] },
        { key: 'b', brand: 'B', aliases: ['same'], legalNames: ['B INC'], names: [], npis: [] },
      ] });
      expect(dup.success).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
