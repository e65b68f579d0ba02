/**
 * Anonymous per-IP rate limits (service-spec.md, Limits: 20/min network-status, 60/min
 * provider-evidence on the pricing host). A fixed 60-second window per (bucket, client IP), kept
 * in memory and bounded: a single instance enforces its own share, which is what a per-process
 * limiter can promise (a shared store would be needed for a cluster-wide limit; see README).
 */
import type { Clock } from '../../engine/ports/clock.ts';
import { AppError } from '../../engine/core/errors.ts';

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

  private readonly clock: Clock;
  private readonly maxKeys: number;

  constructor(clock: Clock, maxKeys = 50_000) {
    this.clock = clock;
    this.maxKeys = maxKeys;
  }

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

/**
 * Signed-in callers' general limit per user across REST and MCP tool calls (service-spec.md,
 * Limits: "the REST API is rate-limited in general"; the value is ours, generous for an agent).
 */
export const DEFAULT_USER_PER_MINUTE = 600;

export interface RateCheck {
  limit: number;
  remaining: number;
}

/**
 * Counts one call of `op` by `caller`: anonymous callers against the op's per-IP bucket (when it
 * has one), signed-in callers against their per-user bucket. Throws rate_limited when over.
 */
export function checkRate(
  limiter: FixedWindowLimiter,
  op: { rateLimit?: { bucket: string; anonymousPerMinute: number } },
  caller: { kind: 'anonymous'; ip: string } | { kind: 'user'; userId: string },
  userPerMinute: number,
): RateCheck | undefined {
  let limit: number;
  let d: RateDecision;
  let who: string;
  if (caller.kind === 'user') {
    limit = userPerMinute;
    d = limiter.hit('user', caller.userId, limit);
    who = 'Per-user';
  } else {
    if (!op.rateLimit) return undefined;
    limit = op.rateLimit.anonymousPerMinute;
    d = limiter.hit(op.rateLimit.bucket, caller.ip, limit);
    who = 'Anonymous';
  }
  if (!d.allowed) {
    throw new AppError('rate_limited', `${who} limit of ${limit} requests per minute reached; retry in ${d.retryAfterSeconds} s${caller.kind === 'anonymous' ? ' or sign in' : ''}.`, {
      extra: { retryAfterSeconds: d.retryAfterSeconds },
      headers: { 'retry-after': String(d.retryAfterSeconds), 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': '0' },
    });
  }
  return { limit, remaining: d.remaining };
}
