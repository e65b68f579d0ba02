/**
 * screenedEngine (issue 34, item 3): the red-flag screen runs before any engine and its emergency
 * cannot be overruled; the inner engine's emergency is accepted; red flags are merged; the
 * screen's urgent flags are a floor. fallbackEngine answers with the rules when the primary throws.
 */
import { describe, expect, it } from 'vitest';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';
import { fallbackEngine, screenedEngine } from '../../engine/triage/screened-engine.ts';
import type { TriageEngine, TriageResult } from '../../engine/triage/triage.port.ts';
import { first } from './triage-helpers.ts';

const rules = createRulesEngine();

function fixed(result: Partial<TriageResult>): TriageEngine & { calls: number } {
  const e = {
    calls: 0,
    async assess(): Promise<TriageResult> {
      e.calls++;
      return { acuity: 'routine', redFlags: [], reply: 'How long have you had it?', asked: ['duration'], informationNeed: [], complete: false, summary: null, engine: 'fake', ...result };
    },
  };
  return e;
}

describe('screenedEngine', () => {
  it('an emergency from the screen is returned and the inner engine is not asked', async () => {
    const inner = fixed({ acuity: 'self_care' });
    const r = await first(screenedEngine(inner, rules), 'I have chest pain and I am short of breath');
    expect(r.acuity).toBe('emergency');
    expect(r.reply).toMatch(/^Call 911 now/);
    expect(r.engine).toBe('rules-v1');
    expect(inner.calls).toBe(0);
  });

  it('the inner engine\'s own emergency is accepted, red flags merged, 911 put first', async () => {
    const inner = fixed({ acuity: 'emergency', redFlags: ['looks very unwell'], reply: 'Please get help now.' });
    const r = await first(screenedEngine(inner, rules), 'I have had a fever for 5 days');
    expect(r.acuity).toBe('emergency');
    expect(r.redFlags).toEqual(['a fever for more than 3 days', 'looks very unwell']);
    expect(r.reply).toMatch(/^Call 911 now or go to the nearest emergency department\. Please get help now\./);
    expect(r.engine).toBe('fake');
  });

  it('the screen\'s urgent flags raise a routine or self-care answer to urgent', async () => {
    const r = await first(screenedEngine(fixed({ acuity: 'self_care' }), rules), 'I have had a fever for 5 days');
    expect(r.acuity).toBe('urgent');
    expect(r.redFlags).toContain('a fever for more than 3 days');
  });

  it('without any flag the inner engine answers unchanged', async () => {
    const r = await first(screenedEngine(fixed({ acuity: 'self_care' }), rules), 'I have a mild cold');
    expect(r).toMatchObject({ acuity: 'self_care', engine: 'fake', redFlags: [] });
  });
});

describe('fallbackEngine', () => {
  it('answers with the fallback when the primary throws, and reports the error', async () => {
    const errors: unknown[] = [];
    const broken: TriageEngine = { assess: async () => { throw new Error('boom'); } };
    const r = await first(fallbackEngine(broken, rules, (e) => errors.push(e)), 'I have a sore throat');
    expect(r.engine).toBe('rules-v1');
    expect(r.asked).toEqual(['gate_airway']);
    expect(errors).toHaveLength(1);
  });

  it('does not fall back when the caller aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    const broken: TriageEngine = { assess: async (_i, signal) => { signal?.throwIfAborted(); return rules.assess(_i); } };
    await expect(fallbackEngine(broken, rules).assess({ turns: [{ role: 'patient', text: 'hi' }] }, ac.signal)).rejects.toThrow();
  });
});
