export type Acuity = 'emergency' | 'urgent' | 'routine' | 'self_care';
export interface InformationNeed { key: string; prompt: string; why: string; priority: 'required' | 'recommended' | 'optional'; redFlagGate: boolean }
export interface TriageTurn { role: 'patient' | 'assistant'; text: string; /** need keys the assistant asked in this turn (from an earlier TriageResult.asked) */ asked?: string[] }
export interface TriagePatient { ageYears?: number | null; sex?: 'female' | 'male' | 'other' | null }
export interface TriageInput { turns: TriageTurn[]; patient?: TriagePatient }
export interface TriageResult {
  acuity: Acuity;
  redFlags: string[];
  reply: string;
  asked: string[];
  informationNeed: InformationNeed[];
  complete: boolean;
  summary: string | null;
  engine: string;
}
export interface TriageEngine { assess(input: TriageInput, signal?: AbortSignal): Promise<TriageResult> }
