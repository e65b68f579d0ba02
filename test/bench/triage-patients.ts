/**
 * Simulated-patient styles for the triage benchmark (`--patient`), so the level can be checked not to
 * depend on how the patient writes. Every style answers the same things as ours (the vignette's
 * facts, its `positives`, "no" otherwise: triage-sim.ts); only the wording and the packing change,
 * mechanically from the facts, never per case:
 * - `terse`: short lay words, no units where they can go ("8", "f", "nope", "yeah", "3 days"),
 *   a warning-sign answer lower-cased without apostrophes ("yeah" for "yes"), answers joined with commas;
 * - `verbose`: each answer rewritten into rambling first- or third-person clauses with fillers and
 *   number words ("i'd say it's about an eight out of ten"), all the answers in one sentence in the
 *   reverse order, plus every fact not yet told (answers given before they are asked);
 * - `unhelpful`: answers nothing useful ("not sure", "hmm", "i dunno"), to check that a conversation
 *   still ends (issue 34: a conversation must complete or escalate within a bounded number of turns).
 */

export type PatientStyle = 'ours' | 'terse' | 'verbose' | 'unhelpful';
export const PATIENT_STYLES: readonly PatientStyle[] = ['ours', 'terse', 'verbose', 'unhelpful'];

/** One answer before styling: a fact (by its need key), a `positives` answer, or the default "no". */
export interface RawAnswer {
  key: string;
  kind: 'fact' | 'positive' | 'no';
  text: string;
}

/** What the styles need to know about the case (derived from the vignette, not written per case). */
export interface CaseVoice {
  facts: Record<string, string>;
  /** the narrative speaks of someone else ("my son", "my mum"): answers in the third person */
  third: boolean;
  /** facts already given (verbose volunteers the rest once) */
  told: Set<string>;
}

const OTHER_PERSON = /\b(my|our) (son|daughter|baby|babies|kid|kids|child|toddler|boy|girl|little one|mum|mom|mother|dad|father|husband|wife|partner|boyfriend|girlfriend|brother|sister|grand\w+|friend|mate|flatmate|colleague|neighbour|neighbor)\b|\b(my|our) \d+[ -]?(year|yr|month|week|wk)s?[ -]old\b/i;

export function caseVoice(narrative: string, facts: Record<string, string>): CaseVoice {
  return { facts, third: OTHER_PERSON.test(narrative), told: new Set() };
}

const NONE = /^(no|none|nope|nil|nothing|n\/a|none known|no known \w+)\.?$/i;
const NEGATIVE_START = /^(no|nope|nah|not|never|none|nothing)\b/i;
const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** 58 -> "fifty eight" (whole numbers under 100; anything else unchanged). */
export function numberWords(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= 100) return String(n);
  if (n < 20) return ONES[n]!;
  return n % 10 === 0 ? TENS[n / 10]! : `${TENS[Math.floor(n / 10)]} ${ONES[n % 10]}`;
}

/** Whole numbers written as words ("3 days" -> "three days"); decimals ("38.5") and numbers of 100+ stay digits. */
function wordsForNumbers(text: string): string {
  return text.replace(/(?<![\d.])\d{1,2}(?![\d.])/g, (d) => numberWords(Number(d)));
}

function sexWord(raw: string): 'f' | 'm' | null {
  if (/\b(female|woman|girl|lady|f)\b/i.test(raw)) return 'f';
  if (/\b(male|man|boy|guy|m)\b/i.test(raw)) return 'm';
  return null;
}

function terseFact(key: string, raw: string): string {
  const t = raw.trim().toLowerCase().replace(/\.$/, '');
  switch (key) {
    case 'age': return t.replace(/\s*years?( old)?$/, '').replace(/\s*months?( old)?$/, 'mo').replace(/\s*weeks?( old)?$/, 'wks').replace(/\s*days?( old)?$/, ' days');
    case 'sex': return sexWord(t) ?? t;
    case 'duration': return t.replace(/^(about|around|roughly|nearly|almost|over|for|the last|the past) /, '').replace(/\bminutes?\b/, 'mins').replace(/\bhours?\b/, 'hrs').replace(/\bweeks\b/, 'wks').replace(/\bweek\b/, 'wk');
    case 'severity': return t.replace(/\s*(\/|out of)\s*10\b/, '');
    case 'pregnancy': return NONE.test(t) ? 'nope' : NEGATIVE_START.test(t) ? 'nope' : /^yes\b/.test(t) ? 'yeah' : t;
    default: return NONE.test(t) ? (key === 'allergies' ? 'not that i know of' : 'nah') : t;
  }
}

/** The terse patient's answer: each part shrunk, joined with commas. */
export function terseAnswer(parts: readonly RawAnswer[]): string {
  return parts.map((p) => {
    if (p.kind === 'no') return 'nope';
    // a positive keeps its content (it may name a new symptom, or be benign): only the wording shrinks
    if (p.kind === 'positive') return p.text.trim().toLowerCase().replace(/[.!]+$/, '').replace(/'/g, '').replace(/^yes\b/, 'yeah').replace(/^no\b/, 'nope');
    return terseFact(p.key, p.text);
  }).join(', ');
}

function verboseFact(key: string, raw: string, v: CaseVoice): string {
  const t = raw.trim().replace(/\.$/, '');
  const female = sexWord(v.facts.sex ?? '') === 'f';
  const [subj, be, have, take] = v.third ? [female ? 'she' : 'he', "'s", "'s got", 'takes'] : ['i', "'m", "'ve got", 'take'];
  const none = NONE.test(t);
  switch (key) {
    case 'age': return /^\d+$/.test(t) ? `${subj}${be} ${t} years old` : `${subj}${be} ${wordsForNumbers(t)}${/old$/.test(t) ? '' : ' old'}`;
    case 'sex': {
      const x = sexWord(t);
      const young = Number(v.facts.age ?? '99') < 16 || /month|week|day/.test(v.facts.age ?? '');
      return x === null ? `${subj}${be} ${t}` : `${subj}${be} a ${x === 'f' ? (young ? 'girl' : 'woman') : (young ? 'boy' : 'man')}`;
    }
    case 'duration': {
      const d = wordsForNumbers(t.toLowerCase());
      return /^(since|yesterday|today|this|last|just)\b/.test(d) ? `it all started ${d}` : `it's been going on for ${d} now i reckon`;
    }
    case 'severity': {
      const n = /^(\d{1,2})(?:\s*(?:\/|out of)\s*10)?$/.exec(t);
      return n ? `honestly i'd say it's about a ${numberWords(Number(n[1]))} out of ten` : `i'd say it's ${wordsForNumbers(t)}`;
    }
    case 'pregnancy': return none || NEGATIVE_START.test(t) ? `${subj}${be} definitely not pregnant` : `yes ${subj}${be} pregnant`;
    case 'medicines': return none ? `${subj} ${v.third ? "doesn't" : "don't"} take any medicines` : `${subj} ${take} ${t}`;
    case 'allergies': return none ? 'no allergies that i know of' : `allergic to ${t}`;
    case 'conditions': return none ? 'no other health problems really' : `${subj}${have} ${t}`;
    default: return t;
  }
}

/**
 * The verbose patient's answer: every part as a rambling clause, in the reverse order, with every
 * fact not yet told added at the end, all in one message.
 */
export function verboseAnswer(parts: readonly RawAnswer[], v: CaseVoice): string {
  const clauses = [...parts].reverse().map((p) => {
    if (p.kind === 'fact') { v.told.add(p.key); return verboseFact(p.key, p.text, v); }
    if (p.kind === 'no') return 'no, nothing like that';
    return p.text.trim().replace(/\.$/, '');
  });
  const extras: string[] = [];
  for (const [k, raw] of Object.entries(v.facts)) {
    if (v.told.has(k)) continue;
    v.told.add(k);
    extras.push(verboseFact(k, raw, v));
  }
  return `well um, ${clauses.join(', and ')}${extras.length > 0 ? `, oh and ${extras.join(', ')}` : ''}... hope that helps`;
}

const UNHELPFUL = ['not sure', 'hmm', 'i dunno really', 'what do you mean?', 'ok'];

/** The unhelpful patient's answer: nothing the assistant can use, varied by turn. */
export function unhelpfulAnswer(turn: number): string {
  return UNHELPFUL[turn % UNHELPFUL.length]!;
}
