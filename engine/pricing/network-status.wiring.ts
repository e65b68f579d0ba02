/**
 * Binds network-status to the real catalog, payers, Medicare and words modules (H6).
 * Placeholder until those modules land: throws not_ready rather than inventing answers.
 */
import { AppError } from '../core/errors.ts';
import type { PricingPorts } from './ports.ts';
import type { NetworkStatusHelpers } from './network-status.deps.ts';

export function helpersFor(_pricing: PricingPorts): NetworkStatusHelpers {
  throw new AppError('not_ready', 'The pricing catalog is not wired yet.');
}
