/**
 * Vignettes, the simulated patient and the scoring of the triage benchmark.
 * The simulated patient answers each key the assistant `asked` from the vignette's facts, a
 * warning-sign question with a matching `positives` answer when its prompt names that topic,
 * and "no" otherwise (test/bench/triage-vignettes/README.md).
 */
import { readFileSync } from 'node:fs';
import type { Acuity } from '../../engine/triage/triage.port.ts';
import type { DriverFactory, ReplyState } from './triage-driver.ts';
import { caseVoice, terseAnswer, unhelpfulAnswer, verboseAnswer, type CaseVoice, type PatientStyle, type RawAnswer } from './triage-patients.ts';

export type Gold = 'emergent' | 'non_emergent' | 'self_care';

export interface Vignette {
  id: string;
  gold: Gold;
  source: string;
  narrative: string;
  facts: Record<string, string>;
  positives?: Array<{ about: string[]; answer: string }>;
}

export function loadVignettes(path: string): Vignette[] {
  return (JSON.parse(readFileSync(path, 'utf8')) as { vignettes: Vignette[] }).vignettes;
}

export function levelOf(acuity: Acuity | null): Gold | null {
  switch (acuity) {
    case 'emergency': return 'emergent';
    case 'urgent': case 'routine': return 'non_emergent';
    case 'self_care': return 'self_care';
    case null: return null;
  }
}

/** The simulated patient's answer to one assistant reply. */
export function simulatedAnswer(v: Vignette, state: ReplyState, told: Set<number>): string {
  const parts = state.asked.map((key) => {
    const fact = v.facts[key];
    if (fact !== undefined) return fact;
    const prompt = (state.prompts?.[key] ?? state.reply).toLowerCase();
    const i = (v.positives ?? []).findIndex((p, idx) => !told.has(idx) && p.about.some((w) => prompt.includes(w)));
    if (i >= 0) { told.add(i); return v.positives![i]!.answer; }
    return 'no';
  });
  return parts.length > 0 ? parts.join('. ') : 'no';
}

/** The same choices as simulatedAnswer, before wording: what each asked key is answered with. */
export function rawAnswers(v: Vignette, state: ReplyState, told: Set<number>): RawAnswer[] {
  return state.asked.map((key): RawAnswer => {
    const fact = v.facts[key];
    if (fact !== undefined) return { key, kind: 'fact', text: fact };
    const prompt = (state.prompts?.[key] ?? state.reply).toLowerCase();
    const i = (v.positives ?? []).findIndex((p, idx) => !told.has(idx) && p.about.some((w) => prompt.includes(w)));
    if (i >= 0) { told.add(i); return { key, kind: 'positive', text: v.positives![i]!.answer }; }
    return { key, kind: 'no', text: 'no' };
  });
}

/** The answer in a patient style (triage-patients.ts); 'ours' is simulatedAnswer, unchanged. */
export function styledAnswer(style: PatientStyle, v: Vignette, state: ReplyState, told: Set<number>, voice: CaseVoice, turn: number): string {
  switch (style) {
    case 'ours': return simulatedAnswer(v, state, told);
    case 'terse': { const parts = rawAnswers(v, state, told); return parts.length > 0 ? terseAnswer(parts) : 'nope'; }
    case 'verbose': return verboseAnswer(rawAnswers(v, state, told), voice);
    case 'unhelpful': return unhelpfulAnswer(turn);
  }
}

export interface CaseResult {
  id: string;
  gold: Gold;
  got: Gold | null;
  acuity: Acuity | null;
  turns: number;
  finished: boolean;
}

/** Runs one vignette to the end of triage (or `maxTurns` answers), the patient answering in `style`. */
export async function runVignette(driver: DriverFactory, v: Vignette, maxTurns = 12, style: PatientStyle = 'ours'): Promise<CaseResult> {
  const d = await driver.create();
  try {
    let state = await d.start(v.narrative);
    let turns = 1;
    const told = new Set<number>();
    const voice = caseVoice(v.narrative, v.facts);
    while (!state.done && turns <= maxTurns) {
      state = await d.answer(styledAnswer(style, v, state, told, voice, turns));
      turns++;
    }
    return { id: v.id, gold: v.gold, got: levelOf(state.acuity), acuity: state.acuity, turns, finished: state.done };
  } finally {
    await d.close?.();
  }
}

export interface Score {
  n: number;
  emergencies: number;
  sensitivity: number;
  specificity: number;
  accuracy: number;
  unfinished: number;
  misses: CaseResult[];
}

export function score(results: readonly CaseResult[]): Score {
  const em = results.filter((r) => r.gold === 'emergent');
  const non = results.filter((r) => r.gold !== 'emergent');
  return {
    n: results.length,
    emergencies: em.length,
    sensitivity: em.length ? em.filter((r) => r.got === 'emergent').length / em.length : NaN,
    specificity: non.length ? non.filter((r) => r.got !== 'emergent').length / non.length : NaN,
    accuracy: results.length ? results.filter((r) => r.got === r.gold).length / results.length : NaN,
    unfinished: results.filter((r) => !r.finished).length,
    misses: results.filter((r) => r.got !== r.gold),
  };
}
