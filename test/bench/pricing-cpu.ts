/**
 * CPU cost per network-status request, in process (issue 37 item 13): the load-independent figure
 * on a shared machine. Opens a snapshot directory, waits for the background warm-up, then runs
 * `n` requests one at a time (NPI + code, as pricing-http.ts sends them) and prints the process's
 * CPU time (user + system, every thread: DuckDB's too) per request, the DuckDB queries per
 * request and the wall time per query kind.
 *
 *   node test/bench/pricing-cpu.ts DIR [n] [--name]
 *
 * `--name` sends the bench's name + ZIP + code request instead (pricing.bench.ts, up to 10
 * matches: several NPIs looked up at once).
 */
import pino from 'pino';
import { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { HandlerContext } from '../../engine/core/context.ts';
import { systemClock } from '../../engine/ports/clock.ts';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { createPricingPorts } from '../../engine/pricing/adapters/pricing-ports.ts';
import { networkStatus } from '../../engine/pricing/network-status.ts';
import { loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';

const dir = process.argv[2]!;
const n = Number(process.argv[3] ?? 200);
const say = (s: string) => process.stdout.write(`${s}\n`);

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const codes = ((await con.runAndReadAll(`SELECT DISTINCT billing_code FROM read_parquet('${join(dir, 'rates', '**', '*.parquet')}') ORDER BY 1`)).getRowObjectsJS() as { billing_code: string }[]).map((r) => r.billing_code);
const nProviders = (await con.runAndReadAll(`SELECT count(*)::INTEGER FROM read_parquet('${join(dir, 'providers', '**', '*.parquet')}')`)).getRows()[0]![0] as number;
con.closeSync();
inst.closeSync();

const snap = await SnapshotDb.openDir(dir, 4);
const ports = await createPricingPorts(snap);
const t0 = performance.now();
await ports.warmed;
say(`warm-up ${((performance.now() - t0) / 1000).toFixed(1)} s; ${codes.length} codes, ${nProviders} providers`);

const kinds = new Map<string, { n: number; ms: number; cpu: number; sql: string }>();
let queries = 0;
const orig = snap.query.bind(snap);
(snap as unknown as { query: typeof snap.query }).query = async (sql, params) => {
  const t = performance.now();
  const cpu = process.cpuUsage();
  try { return await orig(sql, params); } finally {
    const used = process.cpuUsage(cpu);
    queries++;
    const k = sql.replace(/\s+/g, ' ').replace(/'[^']*'/g, "'?'").slice(0, 70);
    const e = kinds.get(k) ?? { n: 0, ms: 0, cpu: 0, sql };
    e.n++; e.ms += performance.now() - t; e.cpu += (used.user + used.system) / 1000;
    kinds.set(k, e);
  }
};

const db = await openPgliteDb(undefined);
const ctx: HandlerContext = {
  caller: { kind: 'anonymous', ip: '127.0.0.1' }, ports: { db, clock: systemClock, pricing: ports },
  log: pino({ level: 'silent' }), requestId: 'bench', surface: 'pricing', urls: { baseUrl: 'http://127.0.0.1', pricingUrl: 'http://127.0.0.1' },
};
const npiOf = (i: number) => String(1_000_000_000 + ((i * 7919 + 13) % nProviders));
const codeOf = (i: number) => codes[(i * 31) % codes.length]!;
const byName = process.argv.includes('--name');
const req = (i: number) => networkStatus(byName
  ? { providerName: 'Poppyfield Family Medicine', zip: '94103', code: codeOf(i), planHints: { payerName: 'Bench Health Plan' }, limit: 10 }
  : { npi: npiOf(i), code: codeOf(i), planHints: { payerName: 'Bench Health Plan' } }, ctx);
for (let i = 0; i < 20; i++) await req(100_000 + i);
kinds.clear(); queries = 0;
const c0 = process.cpuUsage();
const w0 = performance.now();
for (let i = 0; i < n; i++) await req(i);
const c = process.cpuUsage(c0);
const wall = performance.now() - w0;
say(`${n} requests: CPU ${((c.user + c.system) / 1000 / n).toFixed(2)} ms/request (user ${(c.user / 1000 / n).toFixed(2)}, system ${(c.system / 1000 / n).toFixed(2)}), wall ${(wall / n).toFixed(2)} ms/request, ${(queries / n).toFixed(2)} queries/request; load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
for (const [k, v] of [...kinds].sort((a, b) => b[1].ms - a[1].ms)) say(`  ${(v.n / n).toFixed(2)}/req ${(v.cpu / v.n).toFixed(2)} ms CPU ${(v.ms / v.n).toFixed(2)} ms wall  ${k}`);
if (process.env.DUMP_SQL) writeFileSync(process.env.DUMP_SQL, JSON.stringify([...kinds.values()].map((v) => v.sql), null, 1));
await db.close();
snap.close();
