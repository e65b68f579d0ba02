/**
 * Issue 37, items 1-2: a price whose remote provider reference cannot be fetched is kept, with a
 * group set marked unresolved by the reference's location; the file is partial (report, exit code
 * 5 unless --allow-partial); `--resume` fetches only the unresolved references again and, when they
 * answer, the snapshot is the one a run that fetched them at once builds. Served by a real local
 * HTTP server (127.0.0.1, port 0) that answers 404 or drops the connection while "down", and a
 * port nothing listens on (connection refused: the host's circuit opens).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runIngest } from '../../ingest/run-ingest.ts';
import { currentId } from '../../ingest/snapshot/store.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { unresolvedGroupKey } from '../../ingest/snapshot/keys.ts';
import { localDistribution } from '../../engine/pricing/adapters/rates.duckdb.ts';

const REPO = join(import.meta.dirname, '../..');
const tmp = mkdtempSync(join(tmpdir(), 'remote-partial-'));
let server: Server;
let base = '';
let closed = '';
let down = true;
const hits: Record<string, number> = {};
const remote = { timeoutMs: 2000, retryBaseMs: 10 };

const refFile = (npi: number, tin: string): string => JSON.stringify({ version: '1.0.0', provider_groups: [{ npi: [npi], tin: { type: 'ein', value: tin } }] });

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '';
    hits[path] = (hits[path] ?? 0) + 1;
    if (path === '/ok.json') { res.end(refFile(1000000002, '22-2222222')); return; }
    if (path === '/a.json') { if (down) res.writeHead(404).end(); else res.end(refFile(1000000003, '33-3333333')); return; }
    if (path === '/b.json') { if (down) req.socket.destroy(); else res.end(refFile(1000000004, '44-4444444')); return; }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port nothing listens on: connections are refused.
  const gone = createServer();
  await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
  closed = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
  await new Promise((r) => gone.close(r));
  writeFileSync(join(tmp, 'in.json'), JSON.stringify(doc()));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(tmp, { recursive: true, force: true });
});

const price = (rate: number): unknown => ({ negotiated_type: 'negotiated', negotiated_rate: rate, expiration_date: '9999-12-31', billing_class: 'professional' });

/** Reference 1 inline; 2 remote and fine; 3 and 4 remote, failing while down; 5 and 6 on a refused port; 77 never defined. */
function doc(): unknown {
  return {
    reporting_entity_name: 'Remote Health', reporting_entity_type: 'health insurance issuer', last_updated_on: '2026-11-01', version: '1.0.0',
    plan_name: 'P', plan_id_type: 'EIN', plan_id: '12-3456789', plan_market_type: 'group',
    provider_references: [
      { provider_group_id: 1, provider_groups: [{ npi: [1000000001], tin: { type: 'ein', value: '11-1111111' } }] },
      { provider_group_id: 2, location: `${base}/ok.json` },
      { provider_group_id: 3, location: `${base}/a.json` },
      { provider_group_id: 4, location: `${base}/b.json` },
      { provider_group_id: 5, location: `${closed}/x.json` },
      { provider_group_id: 6, location: `${closed}/y.json` },
    ],
    in_network: [{
      negotiation_arrangement: 'ffs', name: 'Office visit', billing_code_type: 'CPT', billing_code_type_version: '2026', billing_code: '99213', description: 'visit',
      negotiated_rates: [
        { provider_references: [1, 3], negotiated_prices: [price(100)] },
        { provider_references: [3], negotiated_prices: [price(200)] },
        { provider_references: [4], negotiated_prices: [price(150)] },
        { provider_references: [5, 6], negotiated_prices: [price(300)] },
        { provider_references: [2], negotiated_prices: [price(50)] },
        { provider_references: [77], negotiated_prices: [price(999)] },
      ],
    }],
  };
}

async function tables(dir: string): Promise<Record<string, unknown[]>> {
  const db = await SnapshotDb.openDir(dir);
  try {
    const out: Record<string, unknown[]> = {};
    for (const t of ['rates', 'price_terms', 'group_sets', 'provider_groups', 'group_members', 'group_files']) out[t] = await db.query(`SELECT * FROM ${t} ORDER BY ALL`);
    out.unresolved = await db.query('SELECT DISTINCT unresolved_location AS l FROM group_sets WHERE unresolved_location IS NOT NULL ORDER BY l');
    out.prices = await db.query(`SELECT r.negotiated_rate AS rate, bool_or(g.unresolved_location IS NOT NULL) AS unnamed
      FROM rates r JOIN group_sets g USING (set_ref) GROUP BY ALL ORDER BY rate`);
    out.source = await db.query('SELECT status, unresolved_references FROM source_files');
    return out;
  } finally {
    db.close();
  }
}

function cli(root: string, ...extra: string[]): Promise<{ code: number | null; stderr: string }> {
  const args = [join(REPO, 'cli/bin.mjs'), 'ingest', 'tic', '--quiet', '--stall-timeout', '0', '--allow-private-network', '--out', root, '--in-network', join(tmp, 'in.json'), ...extra];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  child.stdout.resume();
  return new Promise((r) => child.on('close', (code) => r({ code, stderr })));
}

describe('unresolved remote provider references (issue 37)', () => {
  let partialDir = '';

  test('their prices are kept with a set marked by the location; the file is partial and counted', async () => {
    down = true;
    const report = await runIngest({ toc: [], inNetwork: [join(tmp, 'in.json')], allowedAmounts: [], out: join(tmp, 'run'), allowPrivateNetwork: true, remote });
    const f = report.files[0]!;
    expect(f.status).toBe('partial');
    expect(f.counts).toMatchObject({ unresolved_remote_references: 4, unresolved_prices: 4, dropped_prices: 1, rate_rows: 5 });
    expect(report.totals).toMatchObject({ complete: 1, failed: 0, partial: 1, unresolvedReferences: 4, unresolvedPrices: 4 });
    expect(f.remoteReferences).toMatchObject({ urls: 5, resolvedRefs: 1, unresolvedRefs: 4, hostsFailed: 1 });
    // Each with its URL and reason.
    const examples = report.warnings.unresolved_reference!.examples.map((e) => e.example);
    expect(examples).toContainEqual(expect.stringMatching(new RegExp(`^${base}/a\\.json \\(HTTP 404`)));
    partialDir = report.snapshotDir!;
    const t = await tables(partialDir);
    expect(t.prices).toEqual([
      { rate: 50, unnamed: false }, { rate: 100, unnamed: true }, { rate: 150, unnamed: true }, { rate: 200, unnamed: true }, { rate: 300, unnamed: true },
    ]);
    expect((t.unresolved as { l: string }[]).map((x) => x.l)).toEqual([`${base}/a.json`, `${base}/b.json`, `${closed}/x.json`, `${closed}/y.json`].sort());
    expect(t.source).toEqual([{ status: 'complete', unresolved_references: 4 }]);
    const db = await SnapshotDb.openDir(partialDir);
    try {
      // The placeholder member is keyed by its location and names no provider group.
      const key = unresolvedGroupKey(`${base}/a.json`);
      expect(await db.query(`SELECT count(*)::INTEGER AS n FROM group_sets WHERE group_key = '${key}' AND unresolved_location = '${base}/a.json'`)).toEqual([{ n: 2 }]);
      expect(await db.query(`SELECT count(*)::INTEGER AS n FROM provider_groups WHERE group_key = '${key}'`)).toEqual([{ n: 0 }]);
      expect(await db.query('SELECT count(*)::INTEGER AS n FROM group_files WHERE group_key IN (SELECT group_key FROM group_sets WHERE unresolved_location IS NOT NULL)')).toEqual([{ n: 0 }]);
      // The engine's typical rate for the code counts them, and says what they are.
      const code = { types: ['CPT', 'HCPCS'], code: '99213' };
      const all = await localDistribution(db, code, [], null);
      expect(all).toMatchObject({ n: 5, p50: 150 });
      expect(all.scope).toMatch(/4 of the code's 5 published rates are rates whose providers the file did not name/);
      // In a state: the payer's own unnamed-provider rates may be anyone's there (no provider here has a state).
      const inState = await localDistribution(db, code, [f.fileKey], 'CA');
      expect(inState).toMatchObject({ n: 4, p25: 137.5, p75: 225 });
      expect(inState.scope).toMatch(/providers practising in CA or not named by the file/);
      expect(await localDistribution(db, code, [], 'CA')).toMatchObject({ n: 0 }); // every payer's: only named providers' states
    } finally {
      db.close();
    }
  });

  test('--resume fetches only the unresolved references and builds what a run that fetched them at once builds', async () => {
    down = false;
    const before = { ...hits };
    const resumed = await runIngest({ toc: [], inNetwork: [join(tmp, 'in.json')], allowedAmounts: [], out: join(tmp, 'run'), allowPrivateNetwork: true, remote, resume: true });
    expect(resumed.resumed).toBe(true);
    expect(hits['/ok.json']).toBe(before['/ok.json']); // resolved before: not fetched again
    expect(hits['/a.json']).toBe(before['/a.json']! + 1);
    expect(hits['/b.json']).toBe(before['/b.json']! + 1);
    const f = resumed.files[0]!;
    expect(f.skipped).toBe(true); // the file itself was not read again
    expect(f.status).toBe('partial'); // the refused host is still down
    expect(f.counts).toMatchObject({ unresolved_remote_references: 2, unresolved_prices: 1, rate_rows: 5 });
    const clean = await runIngest({ toc: [], inNetwork: [join(tmp, 'in.json')], allowedAmounts: [], out: join(tmp, 'clean'), allowPrivateNetwork: true, remote });
    expect(clean.files[0]!.counts).toMatchObject({ unresolved_remote_references: 2, unresolved_prices: 1 });
    const [a, b] = [await tables(resumed.snapshotDir!), await tables(clean.snapshotDir!)];
    expect(a).toEqual(b);
    expect((a.unresolved as { l: string }[]).map((x) => x.l)).toEqual([`${closed}/x.json`, `${closed}/y.json`]);
    expect(a.source).toEqual([{ status: 'complete', unresolved_references: 2 }]);
  });

  test('the command exits 5 on a partial file, 0 with --allow-partial (and publishes)', async () => {
    down = true;
    const root = join(tmp, 'cli');
    const partial = await cli(root);
    expect(partial.code).toBe(5);
    expect(partial.stderr).toMatch(/PARTIAL: 4 remote provider reference\(s\) could not be fetched; their 4 price\(s\) are kept/);
    expect(partial.stderr).toMatch(/--allow-partial/);
    const allowed = await cli(root, '--allow-partial', '--publish');
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).toMatch(/\(published\)/);
    // The published partial snapshot is never rewritten: --resume completes the references into a new one.
    const published = currentId(root);
    down = false;
    const resumed = await cli(root, '--resume', '--allow-partial', '--publish');
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/PARTIAL: 2 remote provider reference\(s\) could not be fetched; their 1 price\(s\) are kept/);
    expect(currentId(root)).not.toBe(published);
    expect(existsSync(join(root, 'snapshots', published!))).toBe(true);
  }, 240_000);
});
