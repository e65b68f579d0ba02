import type { Command } from 'commander';
import { loadConfig } from '../engine/core/config.ts';
import { startServer } from '../api/server.ts';
import { ensurePricingData } from '../ingest/demo/ensure.ts';

/**
 * `carebridge serve [--pricing-only]` (the default for `npm start`): runs migrations, makes sure a
 * pricing snapshot is published, listens, and drains on SIGINT/SIGTERM.
 */
export function registerServe(program: Command): void {
  program
    .command('serve', { isDefault: true })
    .description('start the service (MCP at /, REST at /api/*, OAuth at /oauth/*)')
    .option('--pricing-only', 'serve only the public pricing API (no MCP, no OAuth pages)')
    .action(async (opts: { pricingOnly?: boolean }) => {
      const config = loadConfig(process.env);
      await startServer(config, {
        pricingOnly: Boolean(opts.pricingOnly),
        handleSignals: true,
        beforeListen: (log) => ensurePricingData(config, log),
      });
    });
}
