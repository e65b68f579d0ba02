import type { Logger } from 'pino';
import type { Config } from '../../engine/core/config.ts';

/**
 * Called by `carebridge serve` before listening: makes sure a pricing snapshot is published,
 * building the demo snapshot from data/ when none is (issue 4, item 11). Placeholder until the
 * demo builder lands; it must stay cheap when a snapshot is already current.
 */
export async function ensurePricingData(_config: Config, _log: Logger): Promise<void> {}
