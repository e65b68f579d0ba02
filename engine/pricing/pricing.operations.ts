import type { AnyOperation } from '../core/operation.ts';

/** Pricing operations on both hosts (issue 4). Placeholder until the pricing API lands. */
export const pricingOperations: AnyOperation[] = [];
