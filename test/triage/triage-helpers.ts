/** Shared helpers for the triage tests: one rules engine per test file (the model loads once). */
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
