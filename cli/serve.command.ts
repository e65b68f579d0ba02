import type { Command } from 'commander';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../engine/core/config.ts';
import type { PricingPorts } from '../engine/pricing/ports.ts';
import { SnapshotDb } from '../engine/pricing/adapters/snapshot.duckdb.ts';
import { createPricingPorts } from '../engine/pricing/adapters/pricing-ports.ts';
import { createPharmacyDirectory } from '../engine/prescriptions/adapters/pharmacy-directory.duckdb.ts';
import type { PharmacyDirectory } from '../engine/prescriptions/prescriptions.ports.ts';
import { startServer } from '../api/server.ts';
import { createLogger, safeErr } from '../api/logging.ts';
import { ensurePricingData, pricingRoot } from '../ingest/demo/ensure.ts';

/** How often a running server looks for a newly published pricing snapshot (CURRENT pointer). */
const SNAPSHOT_REFRESH_MS = 60_000;

interface OpenPricing {
  ports: PricingPorts;
  /** The pharmacies of the same snapshot (GET /api/pharmacies). */
  pharmacies: PharmacyDirectory;
  close: () => Promise<void>;
}

/**
 * Opens the published pricing snapshot (DATA_DIR/pricing) and its ports. A failure is logged and
 * the service runs without pricing (those routes answer 503 pricing_data_unavailable): accounts and
 * care do not depend on it.
 */
async function openPricing(config: Config, log: Logger): Promise<OpenPricing | undefined> {
  try {
    const snapshots = await SnapshotDb.open(pricingRoot(config));
    const ports = await createPricingPorts(snapshots);
    const timer = setInterval(() => {
      snapshots.refresh().then((changed) => {
        if (changed) log.info({ snapshot: snapshots.current()?.id }, 'switched to a newly published pricing snapshot');
      }).catch((e: unknown) => log.error({ err: safeErr(e) }, 'pricing snapshot refresh failed'));
    }, SNAPSHOT_REFRESH_MS);
    timer.unref();
    log.info({ snapshot: snapshots.current()?.id ?? null }, 'pricing snapshot opened');
    // Answers are slower until the caches are built; operators (and bench:pricing --http) see when.
    const t0 = Date.now();
    void ports.warmed?.then(() => log.info({ seconds: (Date.now() - t0) / 1000 }, 'pricing caches warmed'));
    return {
      ports,
      pharmacies: createPharmacyDirectory(snapshots),
      close: async () => {
        clearInterval(timer);
        snapshots.close();
      },
    };
  } catch (e) {
    log.error({ err: safeErr(e) }, 'could not open the pricing snapshot; pricing routes will answer 503');
    return undefined;
  }
}

/**
 * `carebridge serve [--pricing-only]` (the default for `npm start`): makes sure a pricing snapshot
 * is published (ensurePricingData, before listening), opens it, runs migrations, listens, and
 * drains on SIGINT/SIGTERM.
 */
export function registerServe(program: Command): void {
  program
    .command('serve', { isDefault: true })
    .description('start the service (MCP at /, REST at /api/*, OAuth at /oauth/*)')
    .option('--pricing-only', 'serve only the public pricing API (no MCP, no OAuth pages)')
    .action(async (opts: { pricingOnly?: boolean }) => {
      const config = loadConfig(process.env);
      const log = createLogger(config);
      await ensurePricingData(config, log);
      const pricing = await openPricing(config, log);
      await startServer(config, {
        logger: log,
        pricingOnly: Boolean(opts.pricingOnly),
        handleSignals: true,
        seedDemoProviders: true,
        ...(pricing ? { pricing: pricing.ports, pharmacies: pricing.pharmacies, afterClose: pricing.close } : {}),
      });
    });
}
