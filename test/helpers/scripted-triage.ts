/**
 * TESTS ONLY: a triage engine whose answers the test script chooses, so that the conversation
 * state machine can be driven through every transition without depending on clinical wording.
 * The real engine (engine/triage) is tested on its own and end to end in the walk tests.
 * A patient message containing `#emergency` gets an emergency; `#complete` completes triage;
 * anything else gets one more question. `hold()` makes assessments wait until released.
 */
import type { TriageEngine, TriageInput, TriageResult } from '../../engine/triage/triage.port.ts';

export interface ScriptedTriage extends TriageEngine {
  calls: TriageInput[];
  /** Blocks every assessment until the returned function is called. */
  hold(): () => void;
}

export function scriptedTriage(): ScriptedTriage {
  const calls: TriageInput[] = [];
  let gate: Promise<void> | null = null;
  return {
    calls,
    hold() {
      let release!: () => void;
      gate = new Promise<void>((r) => { release = r; });
      return () => { gate = null; release(); };
    },
    async assess(input): Promise<TriageResult> {
      calls.push(input);
      if (gate) await gate;
      const patientText = input.turns.filter((t) => t.role === 'patient').map((t) => t.text).join(' ');
      const base = { engine: 'scripted', redFlags: [] as string[], asked: [] as string[], informationNeed: [], summary: null };
      if (patientText.includes('#emergency')) {
        return { ...base, acuity: 'emergency', redFlags: ['scripted red flag'], reply: 'Call 911 now. This may be an emergency.', complete: false };
      }
      if (patientText.includes('#complete')) {
        return { ...base, acuity: 'routine', reply: 'Thank you. A clinician can see you.', complete: true, summary: 'Scripted summary.' };
      }
      const n = input.turns.filter((t) => t.role === 'assistant').length + 1;
      return {
        ...base, acuity: 'routine', complete: false, asked: ['duration'], reply: `Question ${n}: how long has this been going on?`,
        informationNeed: [{ key: 'duration', prompt: 'How long has it been going on?', why: 'Duration changes what is likely and how soon to be seen.', priority: 'required', redFlagGate: false }],
      };
    },
  };
}
