/**
 * data/brand-aliases.json: consumer brand names ("One Medical", "Kaiser") -> the organization names
 * they operate under in NPPES, for the provider-name search (issue 4, network-status). One zod schema
 * (STYLE.md 2) validates the file here and wherever it is loaded; the engine's reader
 * (engine/pricing/adapters/providers.duckdb.ts parseBrandAliases) reads the same fields
 * (brand, aliases, legalNames, names, npis).
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { normalizeName } from '../nppes/name-search.ts';
import { repoDataFile } from './csv-source.ts';

export const BRAND_ALIASES_FILE = 'brand-aliases.json';

const upperName = z.string().min(2).refine((s) => s === s.toUpperCase(), 'NPPES names are upper-case');

export const BrandAliasSchema = z.object({
  /** Stable identifier (kebab-case). */
  key: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
  /** Display name of the brand. */
  brand: z.string().min(1),
  /** What people type: spellings, abbreviations, former names. */
  aliases: z.array(z.string().min(1)).min(1),
  /** Exact NPPES legal business names (Provider Organization Name (Legal Business Name)). */
  legalNames: z.array(upperName),
  /** Other names it operates under (NPPES other/DBA names), matched by the name search. */
  names: z.array(upperName),
  /** NPIs pinned to the brand when a name cannot identify them (10 digits). */
  npis: z.array(z.number().int().min(1_000_000_000).max(2_999_999_999)),
  /** Why these names, caveats. */
  note: z.string().optional(),
}).strict().refine((b) => b.legalNames.length + b.names.length + b.npis.length > 0, 'a brand must resolve to at least one name or NPI');

export const BrandAliasesFileSchema = z.object({
  _provenance: z.string().min(20),
  version: z.literal(1),
  brands: z.array(BrandAliasSchema),
}).strict().superRefine((f, ctx) => {
  const seen = new Map<string, string>();
  for (const b of f.brands) {
    for (const a of [b.brand, ...b.aliases]) {
      const k = normalizeName(a);
      const prev = seen.get(k);
      if (prev && prev !== b.key) ctx.addIssue({ code: 'custom', message: `alias "${a}" belongs to both ${prev} and ${b.key}` });
      seen.set(k, b.key);
    }
  }
});

export type BrandAlias = z.infer<typeof BrandAliasSchema>;
export type BrandAliasesFile = z.infer<typeof BrandAliasesFileSchema>;

/** Loads and validates the brand-alias file (default: data/brand-aliases.json in the repo). */
export async function loadBrandAliases(path = repoDataFile(BRAND_ALIASES_FILE)): Promise<BrandAlias[]> {
  if (!path) return [];
  const parsed = BrandAliasesFileSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data.brands;
}

/** The brands whose name or an alias equals the query after name normalisation. */
export function brandsForQuery(query: string, brands: readonly BrandAlias[]): BrandAlias[] {
  const q = normalizeName(query);
  if (!q) return [];
  return brands.filter((b) => [b.brand, ...b.aliases].some((a) => normalizeName(a) === q));
}
