/**
 * plans and plan_files from tables of contents: one row per plan (the one that names its sponsor
 * and issuer, when files describe a plan differently) and each (plan, file) link once, whether the
 * staging and the finalize take them whole or in ranges of plan keys (keys.ts planKeyRanges: a
 * large table of contents stages millions of both). The expectation is computed here from the
 * records themselves.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { lit, openDuck } from '../../ingest/snapshot/duck.ts';
import { TicFileWriter } from '../../ingest/snapshot/tic-file-writer.ts';
import { finalizeTic } from '../../ingest/snapshot/tic-finalize.ts';
import { fileKey } from '../../ingest/snapshot/keys.ts';
import type { FileHeader, PlanRecord, TocStructure } from '../../ingest/tic/records.ts';

const root = mkdtempSync(join(tmpdir(), 'toc-plans-'));
let duck: DuckDBInstance;
let con: DuckDBConnection;
afterAll(() => { con.closeSync(); rmSync(root, { recursive: true, force: true }); });

const ENTITY = 'Big Payer';
const tocHeader: FileHeader = {
  kind: 'table-of-contents', reportingEntityName: ENTITY, reportingEntityType: 'health insurance issuer', planName: null, planIdType: null,
  planId: null, planMarketType: null, planSponsorName: null, issuerName: null, lastUpdatedOn: '2026-11-01', version: '2.0.0',
};

/** A deterministic pseudo-random sequence (the same structures in every run). */
function rng(seed: number): () => number {
  let x = seed;
  return () => { x = (Math.imul(x, 1103515245) + 12345) >>> 0; return x / 2 ** 32; };
}

/**
 * Structures over a pool of 60 plans and 15 files. A plan comes with or without its sponsor and
 * issuer (the pick prefers the ones that name them, then the smallest), and with its id type in
 * either case.
 */
function structures(seed: number, n: number): TocStructure[] {
  const r = rng(seed);
  const out: TocStructure[] = [];
  for (let i = 0; i < n; i++) {
    const plans: PlanRecord[] = [];
    for (let k = 0, m = 1 + Math.floor(r() * 3); k < m; k++) {
      const p = Math.floor(r() * 60);
      const named = r() < 0.5;
      plans.push({
        planName: `Plan ${p}`, planIdType: r() < 0.5 ? 'EIN' : 'ein', planId: `${String(p).padStart(2, '0')}-1234567`, planMarketType: p % 3 === 0 ? 'individual' : 'group',
        planSponsorName: named ? `Employer ${Math.floor(r() * 3)} of ${p}` : null, issuerName: named && r() < 0.5 ? `Issuer ${p % 4}` : null,
      });
    }
    const files = Array.from({ length: 1 + Math.floor(r() * 3) }, () => Math.floor(r() * 15));
    out.push({
      plans,
      inNetworkFiles: files.map((f) => ({ description: `in-network ${f}`, location: `https://mrf.example/in-network/${f}.json.gz` })),
      allowedAmountFile: r() < 0.3 ? { description: 'allowed amounts', location: `https://mrf.example/aa/${i % 4}.json.gz` } : null,
    });
  }
  return out;
}

const TOCS: Record<string, TocStructure[]> = { '/data/toc-a.json': structures(1, 120), '/data/toc-b.json': structures(2, 80) };

/** Stages both tables of contents under `dir` (plansPerRange: the writer's ranges). */
async function stage(dir: string, plansPerRange?: number): Promise<void> {
  for (const [src, structs] of Object.entries(TOCS)) {
    const w = await TicFileWriter.create(duck, { src, dir: join(dir, fileKey(src)), plansPerRange });
    for (const s of structs) w.tocStructure(s);
    w.header(tocHeader);
    const res = await w.finish();
    writeFileSync(join(dir, fileKey(src), 'done.json'), JSON.stringify({ counts: res.counts }));
  }
}

const read = async (glob: string, cols: string): Promise<string[]> =>
  (await con.runAndReadAll(`SELECT ${cols} FROM read_parquet(${lit(glob)})`)).getRows().map((r) => JSON.stringify(r)).sort();

beforeAll(async () => {
  duck = await openDuck({ tempDir: join(root, 'tmp'), memoryLimit: '256MB' });
  con = await duck.connect();
  await stage(join(root, 'whole'));
  await stage(join(root, 'ranged'), 7);
  await finalizeTic(con, join(root, 'whole'), join(root, 'snap-whole'));
  await finalizeTic(con, join(root, 'ranged'), join(root, 'snap-ranged'), { plansPerRange: 7 });
});

describe('plans and plan_files from tables of contents', () => {
  // What the tables must hold, from the records: a plan is (entity, upper id type, id, name, market).
  const identity = (p: PlanRecord): string => JSON.stringify([ENTITY, p.planIdType!.toUpperCase(), p.planId, p.planName, p.planMarketType]);
  const all = Object.values(TOCS).flat();
  const chosen = new Map<string, PlanRecord>();
  // The pick: a named sponsor before none, then the smallest; likewise the issuer.
  const cmp = (a: string | null, b: string | null): number => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  for (const s of all) {
    for (const p of s.plans) {
      const c = chosen.get(identity(p));
      if (!c || cmp(p.planSponsorName, c.planSponsorName) < 0 || (cmp(p.planSponsorName, c.planSponsorName) === 0 && cmp(p.issuerName, c.issuerName) < 0)) chosen.set(identity(p), p);
    }
  }
  const links = new Set<string>();
  for (const s of all) {
    const files = [...s.inNetworkFiles.map((f) => [fileKey(f.location), 'in-network']), ...(s.allowedAmountFile ? [[fileKey(s.allowedAmountFile.location), 'allowed-amounts']] : [])];
    for (const p of s.plans) for (const [fk, type] of files) links.add(JSON.stringify([identity(p), fk, type]));
  }

  test('one row per plan, the one naming its sponsor and issuer; every (plan, file) link once', async () => {
    const plans = (await con.runAndReadAll(`SELECT reporting_entity_name, plan_id_type, plan_id, plan_name, plan_market_type, plan_sponsor_name, issuer_name
      FROM read_parquet(${lit(join(root, 'snap-whole', 'plans', '*.parquet'))})`)).getRows();
    expect(plans.length).toBe(chosen.size);
    for (const [ren, type, id, name, market, sponsor, issuer] of plans) {
      const want = chosen.get(JSON.stringify([ren, type, id, name, market]));
      expect(want, String(name)).toBeDefined();
      expect([sponsor, issuer]).toEqual([want!.planSponsorName, want!.issuerName]);
    }
    const got = (await con.runAndReadAll(`SELECT p.reporting_entity_name, p.plan_id_type, p.plan_id, p.plan_name, p.plan_market_type, f.file_key, f.file_type
      FROM read_parquet(${lit(join(root, 'snap-whole', 'plan_files', '*.parquet'))}) f JOIN read_parquet(${lit(join(root, 'snap-whole', 'plans', '*.parquet'))}) p USING (plan_key)`)).getRows()
      .map(([ren, type, id, name, market, fk, ft]) => JSON.stringify([JSON.stringify([ren, type, id, name, market]), fk, ft]));
    expect(got.length).toBe(new Set(got).size);
    expect(new Set(got)).toEqual(links);
  });

  test('in ranges of plan keys: the same staged and finalized rows, in key order across the range files', async () => {
    for (const src of Object.keys(TOCS)) {
      for (const t of ['plans', 'plan_files']) {
        const staged = (dir: string): string => join(root, dir, fileKey(src), `${t}.parquet`);
        expect(await read(staged('ranged'), '*'), `${src} ${t}`).toEqual(await read(staged('whole'), '*'));
      }
    }
    for (const t of ['plans', 'plan_files']) {
      expect(await read(join(root, 'snap-ranged', t, '*.parquet'), '*'), t).toEqual(await read(join(root, 'snap-whole', t, '*.parquet'), '*'));
      const files = readdirSync(join(root, 'snap-ranged', t)).sort();
      expect(files.length, t).toBeGreaterThan(1);
      const keys = (await con.runAndReadAll(`SELECT plan_key FROM read_parquet([${files.map((f) => lit(join(root, 'snap-ranged', t, f))).join(', ')}], file_row_number = true, filename = true)
        ORDER BY filename, file_row_number`)).getRows().map((r) => String(r[0]));
      expect(keys, t).toEqual([...keys].sort());
    }
  });
});
