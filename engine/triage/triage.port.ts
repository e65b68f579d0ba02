/**
 * The TriageEngine port (issue 34, item 3). The conversation state machine calls `assess` after
 * each patient message with the whole current request; the result drives the status:
 * `acuity === 'emergency'` -> EMERGENCY, `complete` -> PAYMENT_REQUIRED, otherwise TRIAGING.
 * Engines are stateless: they recompute everything from `turns` on every call.
 */

/** How soon care is needed. `emergency` only when the conversation must go to EMERGENCY. */
export type Acuity = 'emergency' | 'urgent' | 'routine' | 'self_care';

/** One thing the engine still needs to know, asked red-flag-gate questions first. */
export interface InformationNeed {
  key: string;
  prompt: string;
  why: string;
  priority: 'required' | 'recommended' | 'optional';
  /** true when the answer can turn the conversation into an emergency (asked before anything else). */
  redFlagGate: boolean;
}

/** One message of the current request, oldest first. */
export interface TriageTurn {
  role: 'patient' | 'assistant';
  text: string;
  /** need keys the assistant asked in this turn (from an earlier TriageResult.asked) */
  asked?: string[];
}

export interface TriagePatient {
  ageYears?: number | null;
  sex?: 'female' | 'male' | 'other' | null;
}

/** The whole current request, oldest first. */
export interface TriageInput {
  turns: TriageTurn[];
  patient?: TriagePatient;
}

export interface TriageResult {
  /** 'emergency' iff the conversation must go to EMERGENCY */
  acuity: Acuity;
  /** human-readable red flags found (e.g. "chest pain with shortness of breath") */
  redFlags: string[];
  /** the message the patient sees: the service's own words, kind and plain, emergency instruction first when there is one (911; 988 for suicidal intent) */
  reply: string;
  /** need keys this reply asks about */
  asked: string[];
  /** what is still needed, red-flag-gate questions first */
  informationNeed: InformationNeed[];
  /** required needs met -> the conversation goes to PAYMENT_REQUIRED */
  complete: boolean;
  /** consultation summary for the clinician when complete (no diagnosis) */
  summary: string | null;
  /** which engine answered, e.g. 'rules-v1' or 'llm:<model>' */
  engine: string;
}

export interface TriageEngine {
  assess(input: TriageInput, signal?: AbortSignal): Promise<TriageResult>;
}
