import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../api/rest/rate-limit.ts';
import { ManualClock } from '../helpers/app.ts';

describe('FixedWindowLimiter', () => {
  it('allows `limit` hits per 60 s window per (bucket, key), then refuses with the seconds left', () => {
    const clock = new ManualClock();
    const l = new FixedWindowLimiter(clock);
    expect([1, 2].map(() => l.hit('b', 'ip', 2).allowed)).toEqual([true, true]);
    clock.advance(15_000);
    expect(l.hit('b', 'ip', 2)).toEqual({ allowed: false, retryAfterSeconds: 45, remaining: 0 });
    expect(l.hit('other-bucket', 'ip', 2).allowed).toBe(true);
    expect(l.hit('b', 'other-ip', 2).allowed).toBe(true);
    clock.advance(45_000);
    expect(l.hit('b', 'ip', 2)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('stays bounded: past maxKeys, expired windows go first, then the oldest', () => {
    const clock = new ManualClock();
    const l = new FixedWindowLimiter(clock, 3);
    l.hit('b', 'a', 1);
    l.hit('b', 'b', 1);
    clock.advance(61_000);
    l.hit('b', 'c', 1);
    l.hit('b', 'd', 1); // evicts the expired a and b
    expect(l.size).toBeLessThanOrEqual(3);
    l.hit('b', 'e', 1);
    l.hit('b', 'f', 1);
    expect(l.size).toBeLessThanOrEqual(3);
    // f is still being counted.
    expect(l.hit('b', 'f', 1).allowed).toBe(false);
  });
});
