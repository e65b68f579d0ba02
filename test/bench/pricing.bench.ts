/**
 * Pricing speed benchmark (issue 4, item 12; STYLE.md 10: a script, not a timed test).
 *
 * 1. Builds the demo snapshot (real pipeline) to borrow its reference tables (Medicare, catalog,
 *    payers, ZIPs), then generates a large snapshot with test/bench/gen-pricing-snapshot.ts.
 * 2. Measures, through the real handlers and the real DuckDB adapters (no HTTP):
 *    network-status by NPI with a code, by NPI without a code, and provider-evidence,
 *    for 1 client and 16 concurrent clients: p50 / p95 / p99.
 * 3. Measures a NAIVE DuckDB query answering the same network question over the same rows in
 *    flat, unsorted Parquet files (rates, group sets, groups with their NPI lists; no partitions,
 *    no useful row-group statistics), in the same run.
 * Prints a table and the ratios. Goal (2-core machine): network-status with a code < 100 ms p95
 * for one client and >= 10x faster than the naive query.
 * 4. With --http (issue 37, item 13), instead of 2-3: the real server (`carebridge serve
 *    --pricing-only`) on the same snapshot, loaded over HTTP by autocannon at 1, 16 and 64
 *    connections, network-status beside /healthz (test/bench/pricing-http.ts). Goal: 16
 *    connections p95 < 100 ms; --runs 10 gives the median of 10 runs. Each row also prints the
 *    server's CPU time per request (load-independent on a shared machine); test/bench/pricing-cpu.ts
 *    measures the same in process, with the queries per request.
 *
 *   npm run bench:pricing -- [--rates 50000000] [--providers 1000000] [--iterations 200] [--keep]
 *                            [--work DIR]   (re-measure the data a --keep run left in DIR)
 *                            [--http [--duration 10] [--warmup 30] [--runs 1] [--include supportedServices,definitions]]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import pino from 'pino';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { HandlerContext } from '../../engine/core/context.ts';
import { systemClock } from '../../engine/ports/clock.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { createPricingPorts } from '../../engine/pricing/adapters/pricing-ports.ts';
import { networkStatus } from '../../engine/pricing/network-status.ts';
import { providerEvidence } from '../../engine/pricing/evidence.ts';
import { buildDemoSnapshot } from '../../ingest/demo/build-demo.ts';
import { genPricingSnapshot, type GenResult } from './gen-pricing-snapshot.ts';
import { runHttpLoad } from './pricing-http.ts';

const { values: args } = parseArgs({ options: {
  rates: { type: 'string', default: '50000000' },
  providers: { type: 'string', default: '1000000' },
  iterations: { type: 'string', default: '200' },
  'naive-iterations': { type: 'string', default: '20' },
  keep: { type: 'boolean', default: false },
  /** Reuse the data of an earlier `--keep` run (its work dir) instead of generating again. */
  work: { type: 'string' },
  /** HTTP load mode: the real server under autocannon (see pricing-http.ts). */
  http: { type: 'boolean', default: false },
  duration: { type: 'string', default: '10' },
  warmup: { type: 'string', default: '30' },
  runs: { type: 'string', default: '1' },
  /** --http: network-status `include` parts, comma-separated (supportedServices,definitions: answers as large as before issue 37). */
  include: { type: 'string' },
} });

const say = (s: string) => process.stdout.write(`${s}\n`);

interface Stats { n: number; p50: number; p95: number; p99: number; mean: number }

function stats(ms: number[]): Stats {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

/** Runs `fn(i)` for i in [0, total) with `clients` concurrent workers; returns per-call latencies. */
async function measure(total: number, clients: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const lat: number[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < total) {
      const i = next++;
      const t = performance.now();
      await fn(i);
      lat.push(performance.now() - t);
    }
  }));
  return lat;
}

/** The GenResult of an earlier run's data (sizes from its manifest, codes from its rates). */
async function reuseGenerated(dir: string): Promise<GenResult> {
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { tables: Record<string, { rows: number }> };
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const rows = (await con.runAndReadAll(`SELECT DISTINCT billing_code FROM read_parquet('${join(dir, 'rates', '**', '*.parquet')}') ORDER BY 1`)).getRowObjectsJS() as { billing_code: string }[];
  con.closeSync();
  inst.closeSync();
  return {
    dir, seconds: 0, codes: rows.map((r) => r.billing_code),
    counts: Object.fromEntries(Object.entries(m.tables).filter(([, v]) => v.rows > 1000).map(([k, v]) => [k, v.rows])),
    flatRates: join(dir, '..', 'bench-naive-rates.parquet'), flatSets: join(dir, '..', 'bench-naive-sets.parquet'), flatGroups: join(dir, '..', 'bench-naive-groups.parquet'),
  };
}

const f = (x: number) => x.toFixed(1).padStart(9);

async function main(): Promise<void> {
  const rates = Number(args.rates);
  const providers = Number(args.providers);
  const iterations = Number(args.iterations);
  const naiveIterations = Number(args['naive-iterations']);
  const reuse = args.work !== undefined && existsSync(join(args.work, 'pricing', 'snapshots', 'bench', 'manifest.json'));
  const work = reuse ? args.work! : mkdtempSync(join(tmpdir(), 'carebridge-bench-pricing-'));
  say(`carebridge pricing benchmark ${new Date().toISOString()} | ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM`);
  say(`size: ${reuse ? 'as generated earlier' : `${rates.toLocaleString()} rate rows, ${providers.toLocaleString()} providers`}; work dir ${work}`);
  let snap: SnapshotDb | null = null;
  try {
    const gen = reuse ? await reuseGenerated(join(work, 'pricing', 'snapshots', 'bench')) : await genPricingSnapshot({
      out: join(work, 'pricing', 'snapshots', 'bench'),
      reference: (await buildDemoSnapshot({ root: join(work, 'demo'), publish: false, realPayerFiles: false, log: (l) => say(`  demo: ${l}`) })).dir,
      rates, providers, tempDir: join(work, 'duck-tmp'), log: (l) => say(`  gen: ${l}`),
    });
    say(`${reuse ? 'reused' : `generated in ${gen.seconds.toFixed(0)} s`}: ${JSON.stringify(gen.counts)}`);
    if (args.http) {
      await runHttpLoad({
        dataDir: work, snapshotId: 'bench', codes: gen.codes, providers: gen.counts.providers ?? providers,
        duration: Number(args.duration), warmup: Number(args.warmup), runs: Number(args.runs), connections: [1, 16, 64], log: say,
        ...(args.include ? { include: args.include.split(',') } : {}),
      });
      return;
    }

    snap = await SnapshotDb.openDir(gen.dir, 4);
    const ports = await createPricingPorts(snap);
    // Measure a warmed server, as traffic after start-up meets it: the caches build in the background.
    const warmStart = performance.now();
    await ports.warmed;
    say(`background warm-up (group maps, name index, typical-rate samples) finished in ${((performance.now() - warmStart) / 1000).toFixed(1)} s`);
    const db = await openPgliteDb(undefined);
    const ctx: HandlerContext = {
      caller: { kind: 'anonymous', ip: '127.0.0.1' },
      ports: { db, clock: systemClock, pricing: ports },
      log: pino({ level: 'silent' }),
      requestId: 'bench',
      surface: 'pricing',
      urls: { baseUrl: 'http://127.0.0.1', pricingUrl: 'http://127.0.0.1' },
    };
    // Deterministic samples: NPIs spread over the whole range, codes over the whole catalog.
    const nProviders = gen.counts.providers ?? providers;
    const npiOf = (i: number) => String(1_000_000_000 + ((i * 7919 + 13) % nProviders));
    const codeOf = (i: number) => gen.codes[(i * 31) % gen.codes.length]!;
    const hints = { payerName: 'Bench Health Plan' };

    const cases: { name: string; run: (i: number) => Promise<unknown> }[] = [
      { name: 'network-status npi+code', run: (i) => networkStatus({ npi: npiOf(i), code: codeOf(i), planHints: hints }, ctx) },
      { name: 'network-status npi, no code', run: (i) => networkStatus({ npi: npiOf(i), planHints: hints }, ctx) },
      { name: 'network-status name+zip+code', run: (i) => networkStatus({ providerName: 'Poppyfield Family Medicine', zip: '94103', code: codeOf(i), planHints: hints, limit: 10 }, ctx) },
      { name: 'provider-evidence npi+code', run: (i) => providerEvidence({ npi: npiOf(i), code: codeOf(i) }, ctx) },
    ];

    // The naive baseline: same question (this NPI's rates for this code) over flat files: the
    // NPI's groups (list_contains over every group's NPI list), their sets, the sets' rates.
    const naiveInst = await DuckDBInstance.create(':memory:', { threads: '2' });
    const naiveCons = await Promise.all(Array.from({ length: 4 }, () => naiveInst.connect()));
    let rr = 0;
    const naive = (withCode: boolean) => async (i: number) => {
      const con = naiveCons[rr++ % naiveCons.length]!;
      const npi = npiOf(i);
      const sets = `SELECT set_ref FROM read_parquet('${gen.flatSets}')
           WHERE group_key IN (SELECT group_key FROM read_parquet('${gen.flatGroups}') WHERE list_contains(npis, ${npi}))`;
      const sql = withCode
        ? `SELECT r.set_ref, r.negotiated_rate, r.billing_class, r.setting, r.file_keys FROM read_parquet('${gen.flatRates}') r
           WHERE r.billing_code = '${codeOf(i)}' AND r.set_ref IN (${sets})`
        : `SELECT DISTINCT unnest(r.file_keys) FROM read_parquet('${gen.flatRates}') r WHERE r.set_ref IN (${sets})`;
      return (await con.runAndReadAll(sql)).getRows();
    };

    for (const c of cases) await measure(5, 1, c.run); // warm-up: name index, views, OS cache
    const rows: { name: string; clients: number; s: Stats }[] = [];
    for (const c of cases) {
      for (const clients of [1, 16]) rows.push({ name: c.name, clients, s: stats(await measure(iterations, clients, c.run)) });
    }
    await measure(2, 1, naive(true));
    for (const [name, withCode] of [['NAIVE flat scan npi+code', true], ['NAIVE flat scan npi, no code', false]] as const) {
      for (const clients of [1, 16]) rows.push({ name, clients, s: stats(await measure(clients === 1 ? naiveIterations : Math.max(naiveIterations, 16), clients, naive(withCode))) });
    }
    for (const con of naiveCons) con.closeSync();
    naiveInst.closeSync();

    say('');
    say(`${'case'.padEnd(32)}${'clients'.padStart(8)}${'n'.padStart(6)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'p99 ms'.padStart(9)}`);
    for (const r of rows) say(`${r.name.padEnd(32)}${String(r.clients).padStart(8)}${String(r.s.n).padStart(6)}${f(r.s.p50)}${f(r.s.p95)}${f(r.s.p99)}`);
    const get = (name: string, clients: number) => rows.find((r) => r.name === name && r.clients === clients)!.s;
    say('');
    for (const clients of [1, 16]) {
      const a = get('network-status npi+code', clients);
      const b = get('NAIVE flat scan npi+code', clients);
      const a2 = get('network-status npi, no code', clients);
      const b2 = get('NAIVE flat scan npi, no code', clients);
      say(`${clients} client(s): network-status+code p95 ${a.p95.toFixed(1)} ms vs naive ${b.p95.toFixed(1)} ms -> ${(b.p95 / a.p95).toFixed(1)}x (p50 ${(b.p50 / a.p50).toFixed(1)}x); no code -> ${(b2.p95 / a2.p95).toFixed(1)}x`);
    }
    const goal = get('network-status npi+code', 1);
    say(`goal: p95 < 100 ms for one client: ${goal.p95 < 100 ? 'MET' : 'NOT MET'} (${goal.p95.toFixed(1)} ms); >= 10x naive: ${get('NAIVE flat scan npi+code', 1).p95 / goal.p95 >= 10 ? 'MET' : 'NOT MET'}`);
    await db.close();
  } finally {
    snap?.close();
    if (args.keep || reuse) say(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

await main();
