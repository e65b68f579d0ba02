/**
 * Parse-only throughput of the two TiC front-ends on a generated in-network file (not a test; run
 * by hand): `npx node --import tsx test/bench/tic-parse.bench.ts [--size-mb 200] [--file F]
 * [--runs 3] [--skip-reference] [--gz FILE.gz]`. With --gz it also times openSource on the gzip
 * file, gunzip alone and gunzip + fast parse (zlib runs on the thread pool, so in parallel). Generates the file with ../shared/tools/gen-tic.mjs (seed 7)
 * unless --file is given, reads it in 128 KiB chunks from the page cache (measured once first as
 * the baseline: a plain loop over the bytes), and prints uncompressed MB/s (10^6 bytes/s) and
 * peak RSS for each parser, median of the runs. The sink counts calls and does nothing else.
 * "per CPU-second" divides by the process's user+system CPU time: on a shared 2-core machine under
 * load, wall-clock figures swing by 2x; the CPU figure is the parser's own cost.
 */
import { open, rm, stat } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseTic } from '../../ingest/tic/parse.ts';
import { openSource } from '../../ingest/sources/open-source.ts';
import type { TicSink } from '../../ingest/tic/records.ts';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const sizeMb = Number(arg('--size-mb') ?? 200);
const runs = Number(arg('--runs') ?? 3);

async function* readChunks(path: string): AsyncGenerator<Uint8Array> {
  const fh = await open(path, 'r');
  // One read always in flight while the consumer parses the previous chunk (as openSource does).
  const next = (): Promise<Uint8Array> => {
    const b = Buffer.allocUnsafe(128 * 1024);
    return fh.read(b, 0, b.length, null).then((r) => b.subarray(0, r.bytesRead));
  };
  let pending = next();
  try {
    for (;;) {
      const c = await pending;
      if (c.length === 0) return;
      pending = next();
      yield c;
    }
  } finally {
    await pending.catch(() => undefined);
    await fh.close();
  }
}

function countingSink(): TicSink & { n: number } {
  const s = { n: 0 } as TicSink & { n: number };
  const f = (): void => { s.n++; };
  Object.assign(s, { header: f, plan: f, tocStructure: f, providerReference: f, rate: f, bundle: f, allowedAmount: f, warning: f });
  return s;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main(): Promise<void> {
  let file = arg('--file');
  let generated = false;
  if (!file) {
    file = join(tmpdir(), `tic-bench-${sizeMb}mb.json`);
    const gen = resolve(import.meta.dirname, '../../../shared/tools/gen-tic.mjs');
    execFileSync(process.execPath, [gen, '--size-mb', String(sizeMb), '--seed', '7', '--out', file], { stdio: ['ignore', 'ignore', 'inherit'] });
    generated = true;
  }
  const bytes = (await stat(file)).size;
  const mbps = (ms: number): string => (bytes / 1e6 / (ms / 1000)).toFixed(1);

  // Baseline: touch every byte (page cache read + a JS loop), same chunking.
  const base: number[] = [];
  const baseCpu: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    const c0 = process.cpuUsage();
    let x = 0;
    for await (const c of readChunks(file)) for (let i = 0; i < c.length; i++) x ^= c[i]!;
    base.push(performance.now() - t);
    const c1 = process.cpuUsage(c0);
    baseCpu.push((c1.user + c1.system) / 1000);
    if (x === -1) console.log(x);
  }
  console.log(`${new Date().toISOString()} file ${file} ${bytes} bytes`);
  console.log(`baseline read+byte loop: ${mbps(median(base))} MB/s wall, ${mbps(median(baseCpu))} MB/s per CPU-second`);
  const parsers: ('fast' | 'reference')[] = args.includes('--skip-reference') ? ['fast'] : ['fast', 'reference'];
  for (const p of parsers) {
    const times: number[] = [];
    const cpu: number[] = [];
    let calls = 0, rates = 0, prices = 0;
    for (let r = 0; r < (p === 'reference' ? 1 : runs); r++) {
      const sink = countingSink();
      const t = performance.now();
      const c0 = process.cpuUsage();
      const st = await parseTic(readChunks(file), sink, { parser: p });
      times.push(performance.now() - t);
      const c1 = process.cpuUsage(c0);
      cpu.push((c1.user + c1.system) / 1000);
      calls = sink.n; rates = st.rates; prices = st.prices;
    }
    const ms = median(times);
    console.log(`${p}: ${mbps(ms)} MB/s wall, ${mbps(median(cpu))} MB/s per CPU-second (${(ms / 1000).toFixed(2)} s; ${rates} rates, ${prices} prices, ${calls} sink calls; ` +
      `peak RSS so far ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB; ratio to baseline ${(median(base) / ms).toFixed(2)})`);
  }
  const gz = arg('--gz');
  if (gz) {
    let plain = 0;
    const t0 = performance.now();
    for await (const c of (await openSource(gz)).stream) plain += c.length;
    const gunzipMs = performance.now() - t0;
    const t1 = performance.now();
    const c0 = process.cpuUsage();
    const st = await parseTic((await openSource(gz)).stream, countingSink());
    const ms = performance.now() - t1;
    const c1 = process.cpuUsage(c0);
    const rate = (b: number, t: number): string => (b / 1e6 / (t / 1000)).toFixed(1);
    console.log(`gzip ${gz}: gunzip alone ${rate(plain, gunzipMs)} MB/s; gunzip + fast parse ${rate(st.bytes, ms)} MB/s wall, ` +
      `${rate(st.bytes, (c1.user + c1.system) / 1000)} MB/s per CPU-second (uncompressed bytes)`);
  }
  if (generated) await rm(file, { force: true });
}

main().catch((e: unknown) => { console.error(e); process.exitCode = 1; });
