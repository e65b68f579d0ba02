/**
 * The information a clinician needs for any complaint (issue 34, item 3): age, sex, duration,
 * severity, pregnancy when it can apply, medicines, allergies, conditions; and the parsing of the
 * patient's answer to each.
 */
import type { InformationNeed } from './triage.port.ts';
import { ageSexShorthand, parseAgeYears, parseDurationDays, parseSeverity, parseYesNo, normalize } from './triage-text.ts';

export type BaseKey = 'complaint' | 'age' | 'sex' | 'duration' | 'severity' | 'pregnancy' | 'medicines' | 'allergies' | 'conditions';

export const BASE_NEEDS: Record<BaseKey, InformationNeed> = {
  complaint: { key: 'complaint', prompt: 'What would you like help with today? Please describe your main symptom.', why: 'Everything else depends on the main concern.', priority: 'required', redFlagGate: false },
  age: { key: 'age', prompt: 'How old are you (or the person you are asking for)?', why: 'What is safe and how soon care is needed depend on age.', priority: 'required', redFlagGate: false },
  sex: { key: 'sex', prompt: 'What is your sex: female, male, or other?', why: 'Some causes and medicines depend on it.', priority: 'required', redFlagGate: false },
  duration: { key: 'duration', prompt: 'How long have you had these symptoms?', why: 'How long it has lasted changes how soon you should be seen.', priority: 'required', redFlagGate: false },
  severity: { key: 'severity', prompt: 'On a scale of 0 to 10, how bad is it right now (10 is the worst you can imagine)?', why: 'Severe symptoms need care sooner.', priority: 'required', redFlagGate: false },
  pregnancy: { key: 'pregnancy', prompt: 'Could you be pregnant?', why: 'Pregnancy changes which medicines are safe and how soon care is needed.', priority: 'required', redFlagGate: false },
  medicines: { key: 'medicines', prompt: 'Are you taking any medicines, including ones bought without a prescription?', why: 'The clinician needs this to prescribe safely.', priority: 'required', redFlagGate: false },
  allergies: { key: 'allergies', prompt: 'Do you have any allergies to medicines?', why: 'The clinician needs this to prescribe safely.', priority: 'required', redFlagGate: false },
  conditions: { key: 'conditions', prompt: 'Do you have any long-term health conditions, such as diabetes, asthma, heart disease, or a weakened immune system?', why: 'Some conditions mean you should be seen sooner.', priority: 'recommended', redFlagGate: false },
};

export const BASE_ORDER: readonly BaseKey[] = ['age', 'sex', 'duration', 'severity', 'pregnancy', 'medicines', 'allergies', 'conditions'];

export type Sex = 'female' | 'male' | 'other';

export function parseSex(text: string): Sex | null {
  const t = normalize(text);
  const short = ageSexShorthand(t);
  if (short) return short.sex;
  if (/\b(female|woman|girl|lady)\b|(?<!')\bf\b/.test(t)) return 'female';
  if (/\b(male|man|boy|guy)\b|(?<!')\bm\b/.test(t)) return 'male'; // not the m of "i'm"
  if (/\b(other|non-?binary|intersex|prefer not)\b/.test(t)) return 'other';
  return null;
}

/** Which base key a fragment of a multi-question answer is about, from its own words; null if unclear. */
export function keyOfFragment(fragment: string, candidates: readonly string[]): string | null {
  const t = normalize(fragment);
  const pick = (k: string): string | null => (candidates.includes(k) ? k : null);
  if (/allerg/.test(t)) return pick('allergies');
  if (/pregnan/.test(t)) return pick('pregnancy');
  if (/\b(medic|meds|pills?|tablets?|taking|take|prescri|inhaler|supplements?)/.test(t)) return pick('medicines');
  if (/\b(conditions?|diabet|asthma|blood pressure|heart disease|healthy|copd|epilep)/.test(t)) return pick('conditions');
  if (parseSeverity(t) !== null && /\b(10|ten)\b/.test(t)) return pick('severity');
  if (parseAgeYears(t) !== null) return pick('age');
  if (parseSex(t) !== null && t.split(' ').length <= 4) return pick('sex');
  // a bare "6 weeks" answers either "how old" or "how long": left to the order of the questions
  if (candidates.includes('age') && candidates.includes('duration') && /^(about |around |nearly |almost )?(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) ?(days?|weeks?|wks?|months?|mths?|mo)\.?$/.test(t)) return null;
  if (parseDurationDays(t) !== null && !/\bold\b/.test(t)) return pick('duration');
  return null;
}

/** A yes/no-shaped question (a lone "no" answers all of them). */
export function isYesNoKey(key: string): boolean {
  return key.startsWith('gate_') || key === 'pregnancy' || key === 'medicines' || key === 'allergies' || key === 'conditions';
}

export { parseYesNo };
