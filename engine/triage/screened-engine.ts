/**
 * Composition that makes the red-flag screen final (issue 34, item 3: "a red-flag screen that
 * always runs first and that no other engine can overrule"). The screen runs before the inner
 * engine; an emergency from it is returned as is, and the inner engine is not called. Otherwise
 * the inner engine answers, and:
 *  - its own emergency is accepted (an engine may always escalate), with the screen's red flags
 *    merged and the 911 instruction put first if its reply does not start with one;
 *  - the screen's urgent flags are a floor: a routine or self-care answer is raised to urgent.
 */
import type { TriageEngine, TriageInput, TriageResult } from './triage.port.ts';
import type { RedFlagScreen } from './rules-engine.ts';
import { CALL_911 } from './triage-replies.ts';

export interface RedFlagScreener {
  screen(input: TriageInput): RedFlagScreen;
}

const EMERGENCY_LEAD = /^\s*(call (or text )?(911|988)|please call (or text )?(911|988))/i;

function merge(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

/** `inner` behind the red-flag screen of `screener` (the rules engine). */
export function screenedEngine(inner: TriageEngine, screener: RedFlagScreener): TriageEngine {
  return {
    async assess(input: TriageInput, signal?: AbortSignal): Promise<TriageResult> {
      const screen = screener.screen(input);
      if (screen.emergency) return screen.emergency;
      const result = await inner.assess(input, signal);
      const redFlags = merge(screen.redFlags, result.redFlags);
      if (result.acuity === 'emergency') {
        const reply = EMERGENCY_LEAD.test(result.reply) ? result.reply : `${CALL_911} or go to the nearest emergency department. ${result.reply}`;
        return { ...result, redFlags, reply, asked: [], complete: false };
      }
      if (screen.acuity === 'urgent' && (result.acuity === 'routine' || result.acuity === 'self_care')) {
        return { ...result, acuity: 'urgent', redFlags };
      }
      return { ...result, redFlags };
    },
  };
}

/** Falls back to `fallback` when `primary` throws (an LLM that times out or answers badly). */
export function fallbackEngine(primary: TriageEngine, fallback: TriageEngine, onError?: (err: unknown) => void): TriageEngine {
  return {
    async assess(input: TriageInput, signal?: AbortSignal): Promise<TriageResult> {
      try {
        return await primary.assess(input, signal);
      } catch (err) {
        if (signal?.aborted) throw err;
        onError?.(err);
        return fallback.assess(input, signal);
      }
    },
  };
}
