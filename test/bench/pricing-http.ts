/**
 * The HTTP load mode of `npm run bench:pricing -- --http` (issue 37, item 13): the real server
 * (`carebridge serve --pricing-only`, a child process on the generated snapshot) under load from
 * autocannon in this process, at 1, 16 and 64 connections, network-status (NPI + code) beside
 * /healthz on the same server. Prints throughput and p50 / p95 / p99 per row; p95 is computed from
 * every response time (autocannon's own histogram has p97.5, not p95).
 *
 * Anonymous callers are limited to 20 network-status calls a minute per IP (service-spec.md,
 * Limits), so the server trusts one proxy hop (TRUST_PROXY=1) and each request comes from its own
 * X-Forwarded-For address: the limiter still runs on every request, as it does in production.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../helpers/free-port.ts';

export interface HttpLoadOptions {
  /** DATA_DIR whose pricing/snapshots/<snapshotId> holds the snapshot to serve. */
  dataDir: string;
  snapshotId: string;
  /** Codes that carry rates, and how many providers the snapshot has (NPIs from 1,000,000,000). */
  codes: string[];
  providers: number;
  /** Seconds per measured row. */
  duration: number;
  /** Seconds of load before measuring (the server warms its caches in the background after start). */
  warmup: number;
  /** How many times the whole matrix is measured (the summary takes the median). */
  runs: number;
  connections: number[];
  /** network-status `include` (e.g. both parts, to measure answers the size they were before issue 37). */
  include?: string[];
  log: (line: string) => void;
}

export interface HttpRow { run: number; target: string; connections: number; rps: number; n: number; errors: number; p50: number; p95: number; p99: number; cpuMs: number }

/**
 * CPU time (user + system, all threads: DuckDB's too) the server process has used, in ms, from
 * /proc (Linux; NaN elsewhere): per request, the figure that does not depend on the machine's load.
 */
function processCpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of proc(5) (utime, stime) in clock ticks, 100 a second on Linux.
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return NaN;
  }
}

const REPO = join(import.meta.dirname, '..', '..');

function pct(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : NaN;
}

/**
 * Starts `carebridge serve --pricing-only` on the snapshot and waits for /readyz and for its log
 * line "pricing caches warmed" (the background warm-up), so the load meets a warmed server.
 */
async function startServer(o: HttpLoadOptions): Promise<{ url: string; child: ChildProcess }> {
  // Published the way `carebridge snapshot publish` does: the CURRENT pointer names it.
  writeFileSync(join(o.dataDir, 'pricing', 'CURRENT'), `${o.snapshotId}\n`);
  const port = await freePort();
  const child = spawn(process.execPath, [join(REPO, 'cli', 'main.ts'), 'serve', '--pricing-only'], {
    cwd: REPO,
    env: { ...process.env, DATA_DIR: o.dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', TRUST_PROXY: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Info lines are read for the warm-up line only; warnings and errors are passed through.
  let warmed = false;
  let buf = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.includes('"pricing caches warmed"')) {
        warmed = true;
        o.log(`server: ${line}`);
      } else if (/"level":(4|5|6)\d/.test(line)) process.stderr.write(`${line}\n`);
    }
  });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 900_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      if (warmed && (await fetch(`${url}/readyz`)).ok) return { url, child };
    } catch { /* not listening yet */ }
    if (Date.now() > until) throw new Error('the server did not become ready and warm in 900 s');
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** One autocannon row: `connections` for `duration` s, every response time kept. */
async function load(url: string, path: string, connections: number, duration: number, body: ((i: number) => string) | null): Promise<Omit<HttpRow, 'run' | 'target' | 'connections' | 'cpuMs'>> {
  const times: number[] = [];
  let i = 0;
  let ip = 0;
  let done!: (r: autocannon.Result) => void;
  let fail!: (e: unknown) => void;
  const finished = new Promise<autocannon.Result>((res, rej) => { done = res; fail = rej; });
  const inst = autocannon({
    url, connections, duration, pipelining: 1,
    requests: [{
      method: body ? 'POST' : 'GET', path,
      setupRequest: (req) => {
        ip++;
        const headers = { ...req.headers, 'x-forwarded-for': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}` };
        return body ? { ...req, headers: { ...headers, 'content-type': 'application/json' }, body: body(i++) } : { ...req, headers };
      },
    }],
  }, (err, result) => (err ? fail(err) : done(result)));
  inst.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => { times.push(responseTime); });
  const r = await finished;
  times.sort((a, b) => a - b);
  return {
    rps: r.requests.total / r.duration, n: r.requests.total, errors: r.errors + r.timeouts + r.non2xx,
    p50: pct(times, 0.5), p95: pct(times, 0.95), p99: pct(times, 0.99),
  };
}

const f = (x: number, w = 9) => x.toFixed(1).padStart(w);

/** Runs the matrix `runs` times and prints each row, then the median p95 per target and connections. */
export async function runHttpLoad(o: HttpLoadOptions): Promise<HttpRow[]> {
  const { url, child } = await startServer(o);
  const npiOf = (i: number) => String(1_000_000_000 + ((i * 7919 + 13) % o.providers));
  const codeOf = (i: number) => o.codes[(i * 31) % o.codes.length]!;
  const ns = (i: number) => JSON.stringify({ npi: npiOf(i), code: codeOf(i), planHints: { payerName: 'Bench Health Plan' }, ...(o.include?.length ? { include: o.include } : {}) });
  const rows: HttpRow[] = [];
  try {
    o.log(`server ${url} (carebridge serve --pricing-only, pid ${child.pid}); warm-up ${o.warmup} s at 4 connections${o.include?.length ? `; include ${o.include.join(', ')}` : ''}`);
    await load(url, '/api/pricing.v1/network-status', 4, o.warmup, ns);
    o.log(`${'run'.padEnd(4)}${'target'.padEnd(24)}${'conns'.padStart(6)}${'req/s'.padStart(9)}${'n'.padStart(7)}${'errors'.padStart(7)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'cpu ms/req'.padStart(11)}  load avg`);
    for (let run = 1; run <= o.runs; run++) {
      for (const connections of o.connections) {
        for (const [target, path, body] of [['network-status npi+code', '/api/pricing.v1/network-status', ns], ['/healthz', '/healthz', null]] as const) {
          const cpu0 = processCpuMs(child.pid);
          const l = await load(url, path, connections, o.duration, body);
          const r = { run, target, connections, ...l, cpuMs: (processCpuMs(child.pid) - cpu0) / l.n };
          rows.push(r);
          o.log(`${String(run).padEnd(4)}${target.padEnd(24)}${String(connections).padStart(6)}${f(r.rps)}${String(r.n).padStart(7)}${String(r.errors).padStart(7)}${f(r.p50)}${f(r.p95)}${f(r.p99)}${r.cpuMs.toFixed(2).padStart(11)}  ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
    o.log('');
    for (const target of ['network-status npi+code', '/healthz']) {
      for (const c of o.connections) {
        const sel = rows.filter((r) => r.target === target && r.connections === c);
        o.log(`median of ${sel.length} run(s): ${target} at ${c} connections: ${median(sel.map((r) => r.rps)).toFixed(1)} req/s, p50 ${median(sel.map((r) => r.p50)).toFixed(1)} ms, p95 ${median(sel.map((r) => r.p95)).toFixed(1)} ms, p99 ${median(sel.map((r) => r.p99)).toFixed(1)} ms, server CPU ${median(sel.map((r) => r.cpuMs)).toFixed(2)} ms/request`);
      }
    }
    const goal = median(rows.filter((r) => r.target === 'network-status npi+code' && r.connections === 16).map((r) => r.p95));
    o.log(`goal: network-status at 16 connections p95 < 100 ms: ${goal < 100 ? 'MET' : 'NOT MET'} (median p95 ${goal.toFixed(1)} ms)`);
    return rows;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}
