/**
 * What a data engineer does on a fresh clone (issue 3, "Done means"), through the `carebridge`
 * command itself: a table of contents served over HTTP (here from loopback, as an internal mirror
 * would be), `ingest tic --toc <URL>`, `snapshot publish`, then SQL on the snapshot's
 * catalog.duckdb from a DuckDB of its own, as `duckdb catalog.duckdb` would run it.
 *
 * Also the SSRF guard from the command line: loopback is refused, naming the flag that allows it,
 * and a table of contents read from a URL cannot make the job read a local file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { countInNetwork } from './tic-count.ts';

const REPO = join(import.meta.dirname, '../..');
const DATA = join(import.meta.dirname, '../../../shared/data/tic');
const UHC = join(DATA, 'real/uhc_services_test_file_3.json.gz');
const FFS = join(DATA, 'cms-examples-v2/in-network-rates-fee-for-service-single-plan-sample.json');
/** Listed as a file: URL only: were it read, its rows would be in the snapshot. */
const LOCAL = join(DATA, 'cms-examples-v2/in-network-rates-multiple-plans-sample.json');

const tmp = mkdtempSync(join(tmpdir(), 'ingest-http-'));
let server: Server;
let base = '';
const hits: string[] = [];

beforeAll(async () => {
  const bodies: Record<string, () => Buffer> = {
    '/files/uhc.json.gz': () => readFileSync(UHC),
    '/files/ffs.json': () => readFileSync(FFS),
    '/toc.json': () => Buffer.from(JSON.stringify({
      reporting_entity_name: 'Mirror Health', reporting_entity_type: 'health insurance issuer', last_updated_on: '2026-11-01', version: '1.0.0',
      reporting_structure: [
        {
          reporting_plans: [{ plan_name: 'Plan A', plan_id_type: 'EIN', plan_id: '11-1111111', plan_market_type: 'group' }],
          // One relative to the TOC's URL, one absolute, one a local file.
          in_network_files: [
            { description: 'uhc', location: 'files/uhc.json.gz' },
            { description: 'ffs', location: `${base}/files/ffs.json` },
            { description: 'local', location: pathToFileURL(LOCAL).href },
          ],
        },
        {
          reporting_plans: [{ plan_name: 'Plan B', plan_id_type: 'HIOS', plan_id: '1234567890', plan_market_type: 'individual' }],
          in_network_files: [{ description: 'ffs again', location: `${base}/files/ffs.json` }],
        },
      ],
    })),
  };
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const b = bodies[req.url ?? ''];
    if (!b) { res.writeHead(404).end(); return; }
    const body = b();
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(tmp, { recursive: true, force: true });
});

/** Runs the `carebridge` command (cli/bin.mjs, as npx does): exit code, stdout, stderr. */
function carebridge(args: string[], cwd = REPO): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO, 'cli/bin.mjs'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATA_DIR: join(tmp, 'data') } });
    let out = '', err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** SQL on a snapshot as the DuckDB CLI runs it: a DuckDB of its own, in the snapshot's directory. */
function duckdbCli(dir: string, sql: string): Promise<unknown[]> {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(${JSON.stringify(join(REPO, 'package.json'))});
    const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
    const db = await DuckDBInstance.create('catalog.duckdb', { access_mode: 'READ_ONLY' });
    const c = await db.connect();
    const r = await c.runAndReadAll(${JSON.stringify(sql)});
    process.stdout.write(JSON.stringify(r.getRowObjectsJson()));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as unknown[]) : reject(new Error(`duckdb exit ${code}: ${err}`))));
  });
}

describe('carebridge ingest tic --toc <URL>, then snapshot publish, then SQL on catalog.duckdb', () => {
  test('loopback is refused by default, naming the flag that allows it; nothing is fetched', async () => {
    const root = join(tmp, 'refused');
    const r = await carebridge(['ingest', 'tic', '--quiet', '--toc', `${base}/toc.json`, '--out', root]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`refusing ${base}/toc.json: 127.0.0.1 is not a public address`);
    expect(r.err).toContain('--allow-private-network');
    expect(r.err).toContain(`1 file(s) failed: ${base}/toc.json`);
    expect(hits).toEqual([]);
  });

  test('with --allow-private-network: every listed http file once, the local one never read; published; queried', async () => {
    const root = join(tmp, 'mirror');
    const r = await carebridge(['ingest', 'tic', '--quiet', '--json', '--allow-private-network', '--toc', `${base}/toc.json`, '--out', root]);
    expect(r.err).not.toMatch(/FAILED|failed:/);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as {
      snapshotId: string; snapshotDir: string; totals: { complete: number; failed: number };
      warnings: Record<string, { count: number; examples: { path: string; example: string }[] }>;
    };
    expect(report.totals).toMatchObject({ complete: 3, failed: 0 });
    // Each file fetched once, though two structures list ffs.json; the file: entry skipped.
    expect(hits.filter((h) => h.startsWith('/files/')).sort()).toEqual(['/files/ffs.json', '/files/uhc.json.gz']);
    expect(report.warnings.skipped_record?.count).toBe(1);
    expect(report.warnings.skipped_record?.examples[0]).toEqual({
      path: 'reporting_structure.in_network_files.location',
      example: `${pathToFileURL(LOCAL).href} (a table of contents read from a URL may list only http(s) files)`,
      file: `${base}/toc.json`,
    });

    // Nothing is current until publish.
    const list = await carebridge(['snapshot', 'list', '--root', root, '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out)).toEqual([expect.objectContaining({ id: report.snapshotId, current: false })]);
    const pub = await carebridge(['snapshot', 'publish', report.snapshotId, '--root', root]);
    expect(pub.code).toBe(0);
    expect(pub.out.trim()).toBe(`published ${report.snapshotId}`);
    expect(readFileSync(join(root, 'CURRENT'), 'utf8').trim()).toBe(report.snapshotId);

    // SQL as `cd <snapshot> && duckdb catalog.duckdb` runs it (relative paths, a DuckDB of its own).
    const expected = countInNetwork([UHC, FFS]);
    const [counts] = await duckdbCli(report.snapshotDir, `SELECT (SELECT count(*) FROM rates)::INT AS rates,
      (SELECT count(*) FROM provider_groups)::INT AS groups, (SELECT count(*) FROM group_members)::INT AS members`) as { rates: number; groups: number; members: number }[];
    expect(counts).toEqual({ rates: expected.distinctRows, groups: expected.groups, members: expected.members });
    const files = await duckdbCli(report.snapshotDir, 'SELECT url, file_type, status FROM source_files ORDER BY url');
    expect(files).toEqual([
      { url: `${base}/files/ffs.json`, file_type: 'in-network', status: 'complete' },
      { url: `${base}/files/uhc.json.gz`, file_type: 'in-network', status: 'complete' },
      { url: `${base}/toc.json`, file_type: 'table-of-contents', status: 'complete' },
    ]);
    const plans = await duckdbCli(report.snapshotDir, `SELECT p.plan_name, f.url FROM plan_files pf JOIN plans p USING (plan_key)
      JOIN source_files f USING (file_key) WHERE pf.file_type = 'in-network' ORDER BY ALL`);
    expect(plans).toEqual([
      { plan_name: 'Plan A', url: `${base}/files/ffs.json` },
      { plan_name: 'Plan A', url: `${base}/files/uhc.json.gz` },
      { plan_name: 'Plan A PPO', url: `${base}/files/ffs.json` }, // the plan ffs.json names itself
      { plan_name: 'Plan B', url: `${base}/files/ffs.json` },
    ]);
  });
});
