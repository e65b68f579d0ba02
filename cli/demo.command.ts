import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../engine/core/config.ts';
import { buildDemoSnapshot } from '../ingest/demo/build-demo.ts';
import { pricingRoot } from '../ingest/demo/ensure.ts';

/**
 * `carebridge demo [--out DIR] [--no-publish] [--no-real-files]`: rebuilds the demo pricing
 * snapshot (synthetic California network + the real Medicare, ZIP, CMS example and payer sample
 * files shipped in data/) through the real ingest pipeline, and publishes it (issue 4, item 11).
 */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('rebuild and publish the demo pricing snapshot from data/ (synthetic network, clearly labelled)')
    .option('--out <dir>', 'pricing root (default: DATA_DIR/pricing)')
    .option('--no-publish', 'build the snapshot without making it current')
    .option('--no-real-files', 'skip the real payer sample files in data/tic/real (faster)')
    .action(async (opts: { out?: string; publish: boolean; realFiles: boolean }) => {
      const root = opts.out ? resolve(opts.out) : pricingRoot(loadConfig(process.env));
      const r = await buildDemoSnapshot({
        root, publish: opts.publish, realPayerFiles: opts.realFiles,
        log: (line) => process.stderr.write(`demo: ${line}\n`),
      });
      process.stdout.write(`demo snapshot ${r.id} ${r.published ? 'published' : 'built (not published)'} in ${r.seconds.toFixed(1)} s\n`);
      process.stdout.write(`  ${r.dir}\n  rows: ${Object.entries(r.tables).map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
      if (r.failedFiles.length) {
        process.stdout.write(`  failed TiC files:\n${r.failedFiles.map((f) => `    ${f}\n`).join('')}`);
        process.exitCode = 1;
      }
    });
}
