/**
 * collectIfLarge (ingest/snapshot/gc.ts): a full collection only when the JS heap holds more than
 * the bound, and not again while twice what the last one left alive is not reached (a large live
 * heap is not garbage).
 */
import { expect, test } from 'vitest';
import { getHeapStatistics } from 'node:v8';
import { collectIfLarge } from '../../ingest/snapshot/gc.ts';

test('collects above the bound, then waits for the heap to double what was alive', () => {
  expect(collectIfLarge(Number.MAX_SAFE_INTEGER)).toBe(false);
  expect(collectIfLarge(0)).toBe(true); // any heap holds more than 0 bytes
  const live = getHeapStatistics().used_heap_size;
  expect(collectIfLarge(0)).toBe(false); // nothing new: below twice the live heap
  const hold: number[][] = [];
  while (getHeapStatistics().used_heap_size <= 2 * live + (1 << 20)) hold.push(Array.from({ length: 4096 }, (_, i) => i + 0.5));
  expect(collectIfLarge(0)).toBe(true);
  expect(hold.length).toBeGreaterThan(0);
});
