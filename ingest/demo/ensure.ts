import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../../engine/core/config.ts';
import { currentId } from '../snapshot/store.ts';
import { buildDemoSnapshot } from './build-demo.ts';

/** The pricing root under DATA_DIR (schemas/snapshot-layout.ts: CURRENT, snapshots/, staging/). */
export function pricingRoot(config: Config): string {
  return join(config.dataDir, 'pricing');
}

/**
 * Called by `carebridge serve` before listening (issue 4, item 11): when no pricing snapshot is
 * published, builds the demo snapshot from data/ (seconds) and publishes it, so a fresh clone's
 * `npm start` answers pricing questions at once. Fast path: a published snapshot (CURRENT exists)
 * means nothing to do, whatever it holds; an operator's real snapshot is never replaced.
 *
 * A failed demo build is logged and does not stop the server: the care and account features do not
 * depend on pricing data, and the pricing routes then answer 503 pricing_data_unavailable.
 */
export async function ensurePricingData(config: Config, log: Logger): Promise<void> {
  const root = pricingRoot(config);
  if (currentId(root)) return;
  log.info({ root }, 'no pricing snapshot is published: building the demo snapshot (synthetic demo network + real Medicare/ZIP/CMS data from data/)');
  try {
    const r = await buildDemoSnapshot({ root, log: (line) => log.info(line) });
    log.info({ snapshot: r.id, seconds: Math.round(r.seconds * 10) / 10, failedFiles: r.failedFiles }, 'demo pricing snapshot published (DEMO DATA: the Golden Poppy payer and its network are synthetic)');
  } catch (err) {
    log.error({ err }, 'building the demo pricing snapshot failed; pricing routes will answer 503 until `carebridge demo` or an ingest publishes one');
  }
}
