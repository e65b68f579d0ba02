/** Shared helpers for the triage tests: one rules engine per test file (the model loads once). */
import { expect, it } from 'vitest';
import type { TriageEngine, TriageInput, TriagePatient, TriageResult, TriageTurn } from '../../engine/triage/triage.port.ts';

/** Runs a conversation: each patient message is assessed, and the reply (with its `asked`) appended. */
export async function converse(engine: TriageEngine, messages: readonly string[], patient?: TriagePatient): Promise<{ results: TriageResult[]; turns: TriageTurn[] }> {
  const turns: TriageTurn[] = [];
  const results: TriageResult[] = [];
  for (const text of messages) {
    turns.push({ role: 'patient', text });
    const input: TriageInput = patient ? { turns: [...turns], patient } : { turns: [...turns] };
    const r = await engine.assess(input);
    results.push(r);
    turns.push({ role: 'assistant', text: r.reply, asked: r.asked });
  }
  return { results, turns };
}

/** The result of a single opening message. */
export async function first(engine: TriageEngine, text: string, patient?: TriagePatient): Promise<TriageResult> {
  return engine.assess(patient ? { turns: [{ role: 'patient', text }], patient } : { turns: [{ role: 'patient', text }] });
}

/**
 * The two checks of a red-flag list, as tests of the calling describe block: each emergency's first
 * message is an emergency whose red flags match its label, and no look-alike is an emergency.
 */
export function itScreensRedFlags(engine: TriageEngine, emergencies: Array<[what: string, message: string, flag: RegExp]>, lookAlikes: Array<[what: string, message: string]>): void {
  it.each(emergencies)('%s -> emergency', async (_what, message, flag) => {
    const r = await first(engine, message);
    expect(r.acuity, message).toBe('emergency');
    expect(r.redFlags.join('; '), message).toMatch(flag);
  });

  it.each(lookAlikes)('look-alike: %s -> not an emergency', async (_what, message) => {
    const r = await first(engine, message);
    expect(r.acuity, message).not.toBe('emergency');
  });
}
