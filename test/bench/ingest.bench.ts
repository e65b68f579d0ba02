/**
 * `npm run bench:ingest [-- --size-mb 1024] [--prices 10000000] [--big-group 50000] [--seed 42]`
 * (issue 3, item 9; STYLE.md 10: a script, not a timed test). Generates a synthetic in-network file
 * (ingest/gen), gzips it, measures this machine's gunzip speed (zlib, 1 MiB chunks) in the same run,
 * then (1) parses the .gz with a no-op sink (gunzip + parser) and (2) ingests it end to end into a
 * snapshot, printing uncompressed MiB/s, peak RSS (process RSS sampled, and VmHWM from
 * /proc/self/status, which includes DuckDB's native memory) and the ratio to gunzip.
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { generateInNetwork } from '../../ingest/gen/in-network-gen.ts';
import { parseTic } from '../../ingest/tic/parse.ts';
import { openSource } from '../../ingest/sources/open-source.ts';
import type { TicSink } from '../../ingest/tic/records.ts';
import { runIngest } from '../../ingest/run-ingest.ts';

const args = process.argv.slice(2);
const flag = (name: string, def: number | undefined): number | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const prices = flag('prices', undefined);
const sizeMb = flag('size-mb', 1024)!;
const bigGroup = flag('big-group', 50_000)!;
const seed = flag('seed', 42)!;
const parser = args.includes('--reference') ? 'reference' as const : 'fast' as const;
const MiB = 1024 * 1024;

function vmHWM(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

let peakRss = 0;
const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 50);
sampler.unref();

const dir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
try {
  const gz = join(dir, 'in-network.json.gz');
  let t = performance.now();
  const gen = await generateInNetwork(gz, { sizeMb, prices, seed, bigGroupNpis: bigGroup, remoteFrac: 0, gzip: true, gzipLevel: 1 });
  const genS = (performance.now() - t) / 1000;
  const gzBytes = statSync(gz).size;
  console.log(`generated ${(gen.bytesUncompressed / MiB).toFixed(0)} MiB (${(gzBytes / MiB).toFixed(0)} MiB gz) in ${genS.toFixed(1)} s: `
    + `${gen.providerReferences} provider references, ${gen.npis} NPIs, largest group ${bigGroup}, ${gen.inNetwork} items, ${gen.negotiatedRates} rates, ${gen.negotiatedPrices} prices`);

  // Baseline: zlib gunzip with 1 MiB chunks.
  t = performance.now();
  let n = 0;
  for await (const c of createReadStream(gz, { highWaterMark: MiB }).pipe(createGunzip({ chunkSize: MiB }))) n += (c as Buffer).length;
  const gunzipMBs = n / MiB / ((performance.now() - t) / 1000);
  console.log(`gunzip (zlib, 1 MiB chunks): ${gunzipMBs.toFixed(0)} MiB/s`);

  // Parser alone (gunzip + parse, no-op sink).
  const noop: TicSink = { header() {}, plan() {}, tocStructure() {}, providerReference() {}, rate() {}, bundle() {}, allowedAmount() {}, warning() {} };
  t = performance.now();
  const src = await openSource(gz);
  await parseTic(src.stream, noop, { kindHint: 'in-network', parser });
  const parseS = (performance.now() - t) / 1000;
  const parseMBs = gen.bytesUncompressed / MiB / parseS;
  console.log(`parse only (${parser}, gunzip included): ${parseMBs.toFixed(1)} MiB/s (${parseS.toFixed(1)} s)`);

  // End to end: parse + stage (DuckDB appenders) + finalize (dedup, Parquet, catalog).
  const hwmBefore = vmHWM();
  t = performance.now();
  const report = await runIngest({ toc: [], inNetwork: [gz], allowedAmounts: [], out: join(dir, 'pricing'), concurrency: 1, parser });
  const ingestS = (performance.now() - t) / 1000;
  const mbs = gen.bytesUncompressed / MiB / ingestS;
  clearInterval(sampler);
  const hwm = vmHWM();
  const f = report.files[0]!;
  for (const e of report.errors) console.log(`FAILED ${e.url}: ${e.error} [${e.reason}]`);
  console.log(`ingest end to end: ${mbs.toFixed(1)} MiB/s uncompressed (${ingestS.toFixed(1)} s: file ${f.seconds.toFixed(1)} s parse+stage, finalize ${report.totals.finalizeSeconds.toFixed(1)} s), `
    + `${report.tables.rates} rate rows, ${report.tables.provider_groups} groups, ${report.tables.group_members} members; failed files ${report.totals.failed}`);
  console.log(`finalize per table (s): ${JSON.stringify(Object.fromEntries(Object.entries(report.finalizeTimings).map(([k, v]) => [k, Number(v.toFixed(2))])))}`);
  console.log(`peak RSS: sampled ${(peakRss / MiB).toFixed(0)} MiB, VmHWM ${(hwm / MiB).toFixed(0)} MiB (before ingest ${(hwmBefore / MiB).toFixed(0)} MiB)`);
  console.log(`ratio to gunzip: ${(mbs / gunzipMBs).toFixed(3)}; goal >= 100 MiB/s and < 1024 MiB RSS: ${mbs >= 100 && hwm < 1024 * MiB ? 'MET' : 'NOT MET'}`);
  console.log(`machine: ${cpus().length} cores, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, node ${process.version}, ${new Date().toISOString()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
