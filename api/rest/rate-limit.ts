/**
 * Anonymous per-IP rate limits (service-spec.md, Limits: 20/min network-status, 60/min
 * provider-evidence on the pricing host). A fixed 60-second window per (bucket, client IP), kept
 * in memory and bounded: a single instance enforces its own share, which is what a per-process
 * limiter can promise (a shared store would be needed for a cluster-wide limit; see README).
 */
import type { Clock } from '../../engine/ports/clock.ts';

const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  /** Seconds until the window resets (at least 1 when refused). */
  retryAfterSeconds: number;
  remaining: number;
}

interface Window {
  start: number;
  count: number;
}

export class FixedWindowLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly clock: Clock, private readonly maxKeys = 50_000) {}

  /** Counts one request for `key` in `bucket` and says whether it is within `limit` per minute. */
  hit(bucket: string, key: string, limit: number): RateDecision {
    const now = this.clock.now().getTime();
    const id = `${bucket}\u0000${key}`;
    let w = this.windows.get(id);
    if (!w || now - w.start >= WINDOW_MS) {
      if (w) this.windows.delete(id);
      this.evictIfFull(now);
      w = { start: now, count: 0 };
      // Re-inserting keeps the Map in window-start order, so the oldest entries come first.
      this.windows.set(id, w);
    }
    w.count += 1;
    const retryAfterSeconds = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
    return { allowed: w.count <= limit, retryAfterSeconds, remaining: Math.max(0, limit - w.count) };
  }

  get size(): number {
    return this.windows.size;
  }

  private evictIfFull(now: number): void {
    if (this.windows.size < this.maxKeys) return;
    for (const [k, w] of this.windows) {
      if (this.windows.size < this.maxKeys && now - w.start < WINDOW_MS) break;
      // Expired windows go first; when none are, the oldest live one is dropped (fail open for it).
      this.windows.delete(k);
    }
  }
}
