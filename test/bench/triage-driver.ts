/**
 * How the triage benchmark talks to a triage implementation. Kept small so the same vignettes run
 * through the engine directly (EngineDriver, here) or through the real HTTP API (an API driver
 * added beside it): `start(narrative)` opens a conversation with the first message,
 * `answer(text)` sends the next one; each returns the state after the assistant's reply.
 */
import type { Acuity, TriageEngine, TriageResult, TriageTurn } from '../../engine/triage/triage.port.ts';

export interface ReplyState {
  /** what the patient sees */
  reply: string;
  /** need keys the reply asks about (the simulated patient answers these) */
  asked: string[];
  /** the prompt of each asked key, when the implementation exposes it (helps the simulated patient) */
  prompts?: Record<string, string>;
  /** current acuity (null when the implementation does not expose one yet) */
  acuity: Acuity | null;
  /** triage is over: emergency, or complete (PAYMENT_REQUIRED) */
  done: boolean;
}

export interface TriageDriver {
  start(narrative: string): Promise<ReplyState>;
  answer(text: string): Promise<ReplyState>;
  close?(): Promise<void>;
}

export interface DriverFactory {
  name: string;
  create(): Promise<TriageDriver>;
}

function stateOf(r: TriageResult): ReplyState {
  const prompts: Record<string, string> = {};
  for (const n of r.informationNeed) if (r.asked.includes(n.key)) prompts[n.key] = n.prompt;
  return { reply: r.reply, asked: r.asked, prompts, acuity: r.acuity, done: r.acuity === 'emergency' || r.complete };
}

/** Calls the engine directly, keeping the turns as the conversation would; `callMs` collects each call's time. */
export function engineDriver(engine: TriageEngine, name = 'engine', callMs: number[] = []): DriverFactory {
  return {
    name,
    async create(): Promise<TriageDriver> {
      const turns: TriageTurn[] = [];
      const send = async (text: string): Promise<ReplyState> => {
        turns.push({ role: 'patient', text });
        const t0 = performance.now();
        const r = await engine.assess({ turns: [...turns] });
        callMs.push(performance.now() - t0);
        turns.push({ role: 'assistant', text: r.reply, asked: r.asked });
        return stateOf(r);
      };
      return { start: send, answer: send };
    },
  };
}
