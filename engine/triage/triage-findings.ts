/**
 * From the whole request to findings: every patient sentence is scanned for concepts and each
 * mention asserted (negated, hypothetical, historical, someone else's: triage-context.ts); answers
 * that follow an assistant turn are attributed to the need keys that turn asked (`asked`), so a
 * bare "no", "3 days" or "about a 6 out of 10" lands on the right question.
 */
import type { TriageInput } from './triage.port.ts';
import { CONCEPTS } from './triage-concepts.ts';
import { cooccurringConcepts, vetoedConcepts } from './triage-cooccur.ts';
import { assertMention, isAffirmed } from './triage-context.ts';
import { GATES } from './triage-complaints.ts';
import { isYesNoKey, keyOfFragment, parseSex, parseYesNo, type Sex } from './triage-needs.ts';
import { ageSexShorthand, normalize, parseAgeYears, parseDurationDays, parseSeverity, parseTemperatureC, type TextAnalyzer } from './triage-text.ts';

export interface Findings {
  /** concepts affirmed for the patient now (from their words or a "yes" to a gate question) */
  present: Set<string>;
  /** concepts the patient said they do not have */
  negated: Set<string>;
  /** first mention order of each present concept (for the main concern) */
  order: Map<string, number>;
  /** concepts that were there and have gone ("it stopped after I pinched it"): still a complaint, never a red flag */
  resolvedOrder: Map<string, number>;
  ageYears: number | null;
  sex: Sex | null;
  pregnant: boolean | null;
  durationDays: number | null;
  durationText: string | null;
  severity: number | null;
  tempC: number | null;
  medicines: string | null;
  allergies: string | null;
  conditions: string | null;
  /** need keys with an answer (explicit, or read from the narrative) */
  answered: Set<string>;
  /** gate answers */
  gates: Map<string, 'yes' | 'no'>;
  /** how many times each need key has been asked */
  askedCount: Map<string, number>;
  /** all patient text, normalized, for the few rules that look at wording */
  allText: string;
  /** the patient's first message (for the summary) */
  opening: string;
  /** patient text outside answers to questions, beyond greetings */
  hasNarrative: boolean;
  /** answers about allergies (history, not exposure): kept out of `allText` */
  allergyText: string[];
}

const RELATIVE_MALE = /\bmy (son|husband|father|dad|boy|brother|grand(father|pa)|boyfriend|baby boy|little boy)\b/;
const RELATIVE_FEMALE = /\bmy (daughter|wife|mother|mum|mom|girl|sister|grand(mother|ma)|girlfriend|baby girl|little girl)\b/;

function emptyFindings(): Findings {
  return {
    present: new Set(), negated: new Set(), order: new Map(), resolvedOrder: new Map(), ageYears: null, sex: null, pregnant: null,
    durationDays: null, durationText: null, severity: null, tempC: null, medicines: null, allergies: null,
    conditions: null, answered: new Set(), gates: new Map(), askedCount: new Map(), allText: '', opening: '', hasNarrative: false,
    allergyText: [],
  };
}

/** Scans one reading of a sentence for concepts (lexicon phrases, then co-occurrence families). */
function scanConcepts(f: Findings, s: string, seq: { n: number }, vetoed: ReadonlySet<string>): void {
  for (const { id, re } of CONCEPTS) {
    if (vetoed.has(id)) continue;
    re.lastIndex = 0;
    for (const m of s.matchAll(re)) {
      const a = assertMention(s, m.index, m.index + m[0].length);
      if (isAffirmed(a)) {
        f.present.add(id);
        if (!f.order.has(id)) f.order.set(id, seq.n++);
      } else if (a.negated && !a.other) {
        f.negated.add(id);
        if (a.resolved && !a.hypothetical && !a.historical && !f.resolvedOrder.has(id)) f.resolvedOrder.set(id, seq.n++);
      }
    }
  }
  for (const id of cooccurringConcepts(s)) {
    if (vetoed.has(id)) continue;
    f.present.add(id);
    if (!f.order.has(id)) f.order.set(id, seq.n++);
  }
}

/** Scans one sentence (its own reading and its canonical one) for concepts and narrative facts. */
function scanSentence(f: Findings, s: string, seq: { n: number }, canonical?: (s: string) => string): void {
  const c = canonical?.(s);
  // a veto read in either reading holds for both ("since I hut my shuolder" is only readable canonically)
  const vetoed = c !== undefined && c !== s ? new Set([...vetoedConcepts(s), ...vetoedConcepts(c)]) : vetoedConcepts(s);
  scanConcepts(f, s, seq, vetoed);
  if (c !== undefined && c !== s) scanConcepts(f, c, seq, vetoed);
  // the facts (age, sex, duration, severity, temperature) are read from the canonical reading too:
  // "thermomter says 38.4", "im 58", "sevn weeks old"
  const r = c ?? s;
  if (f.ageYears === null) {
    const age = parseAgeYears(r.replace(/\b(at|when (he|she) was) \d+\b/g, ''));
    if (age !== null && !/\b(had|died|passed)\b/.test(r)) { f.ageYears = age; f.answered.add('age'); }
  }
  if (f.sex === null) {
    // "i'm a woman", "i am a 60 year old man", "25 year old woman here", "i'm 60 and male", "42F"
    const self = /\b(?:i'?m|i am) an? (?:\d{1,3}[ -]?(?:years?|yrs?|yr|y\/?o)?[ -]?(?:old )?)?(woman|female|girl|lady|man|male|guy|boy)\b|^(?:an? )?\d{1,3}[ -]?(?:years?|yrs?|yr|y\/?o)[ -]?(?:old )?(woman|female|girl|lady|man|male|guy|boy)\b|\b(?:i'?m|i am) \d{1,3}(?: years? old)?,? (?:and )?(?:a )?(woman|female|man|male)\b/.exec(r);
    const short = ageSexShorthand(r);
    const sex = self ? parseSex(self[1] ?? self[2] ?? self[3]!) : short ? short.sex : RELATIVE_MALE.test(r) && /\b(he|his|him|son|boy)\b/.test(r) ? 'male'
      : RELATIVE_FEMALE.test(r) && /\b(she|her|daughter|girl)\b/.test(r) ? 'female' : null;
    if (sex) { f.sex = sex; f.answered.add('sex'); }
  }
  if (f.durationDays === null) {
    const stripped = r.replace(/\b\S+[ -](day|week|month|year)s?[ -]old\b|\b\S+ weeks? (pregnant|along)\b|\bevery \w+\b|\b\S+ (a|per) (day|week)\b/g, '');
    if (/\b(for|since|ago|started|began|past|last|now|over|from|this|had|yesterday|today|morning|night)\b/.test(stripped)) {
      const d = parseDurationDays(stripped);
      if (d !== null) { f.durationDays = d; f.durationText = s; f.answered.add('duration'); }
    }
  }
  if (f.severity === null) {
    const sev = parseSeverity(r);
    if (sev !== null) { f.severity = sev; f.answered.add('severity'); }
  }
  const temp = parseTemperatureC(r);
  if (temp !== null && (f.tempC === null || temp > f.tempC)) f.tempC = temp;
  volunteeredHistory(f, r);
}

/**
 * Medicines, allergies and conditions told before they are asked ("no meds, allergic to penicillin",
 * "no allergies", "otherwise healthy"): the question is then not asked again.
 */
function volunteeredHistory(f: Findings, r: string): void {
  if (f.allergies === null) {
    const m = /\b(?:no (?:known )?(?:drug |medicine |medication )?allergies(?: that i know of)?|not allergic to anything|nkda)\b/.exec(r) ?? /\b(?:i'?m |i am )?allergic to ([a-z][a-z ]{2,30}?)(?=$|[,.;]| and | but )/.exec(r);
    if (m) { f.allergies = m[1] ?? 'none known'; f.answered.add('allergies'); f.allergyText.push(m[0]); }
  }
  if (f.medicines === null && /\b(no (regular )?(meds|medications?|medicines?|tablets|pills)|(not|don'?t|do not) (on|take|taking) any (meds|medications?|medicines?|tablets|pills))\b/.test(r)) {
    f.medicines = 'none'; f.answered.add('medicines');
  }
  if (f.conditions === null && /\b(no (other )?(health (problems|conditions|issues)|medical (problems|conditions|history))|otherwise (fit and )?(well|healthy))\b/.test(r)) {
    f.conditions = 'none'; f.answered.add('conditions');
  }
}

/** Attributes one answer (a fragment, or a whole message) to the asked key. */
function applyAnswer(f: Findings, key: string, text: string): void {
  const t = normalize(text);
  // "meds none", "allergies: none", "pregnant no": the label is not the answer
  const yn = parseYesNo(t.replace(/^(meds|medications?|medicines?|allerg\w*|conditions?|medical history|pregnan\w*)\s*[:=-]?\s*(?=\w)/, ''));
  // A fact the answer does not give ("not sure", "hmm") stays unanswered, so it is asked once more
  // (needs are asked at most twice: rules-engine.ts), instead of being read as "none" or "0 days".
  switch (key) {
    case 'age': { const a = parseAgeYears(t, true); if (a === null) return; f.ageYears = a; break; }
    case 'sex': { const x = parseSex(t); if (!x) return; f.sex = x; break; }
    case 'duration': {
      const d = parseDurationDays(t);
      if (d === null) return;
      f.durationDays = d; f.durationText = text.trim();
      break;
    }
    case 'severity': { const v = parseSeverity(t, true); if (v === null) return; f.severity = v; break; }
    case 'pregnancy': {
      const saysYes = yn === 'yes' || (/\b(i am|i'?m|yes|she'?s|she is).{0,12}pregnant\b/.test(t) && !/\bnot\b/.test(t));
      const saysNo = yn === 'no' || /\bnot pregnant\b|\bno (way|chance)\b/.test(t);
      if (saysYes) f.pregnant = true;
      else if (saysNo) f.pregnant = false;
      else return;
      break;
    }
    case 'medicines': f.medicines = yn === 'no' ? 'none' : text.trim(); break;
    case 'allergies': f.allergies = yn === 'no' ? 'none known' : text.trim(); f.allergyText.push(t); break;
    case 'conditions': f.conditions = yn === 'no' ? 'none' : text.trim(); break;
    default: {
      const gate = GATES[key];
      if (!gate) break;
      if (yn === 'yes') { f.gates.set(key, 'yes'); for (const c of gate.onYes) f.present.add(c); }
      else if (yn === 'no') f.gates.set(key, 'no');
      else return; // unclear: leave it unanswered so it is asked again (once)
    }
  }
  f.answered.add(key);
}

/**
 * Answers written as a form or a numbered list, as an agent relaying several answers does:
 * "1. 34 / 2. female / 3. 3 days" (one answer a line), "Pregnant: no", "Fever: no", "Allergies:
 * none" (a denial, written the way the negation rules read it: "no fever").
 */
export function unform(text: string): string {
  let t = text;
  if (/(?:^|\s)1[.):]\s/.test(t) && /(?:^|\s)2[.):]\s/.test(t)) t = t.replace(/(?:^|\s+)\d{1,2}[.):]\s+/g, '\n');
  t = t.replace(/\b([a-z][a-z']*(?: [a-z][a-z']*){0,2})\s*[:=]\s*(no|none|nope|nil|negative|n\/a|n)(?=\s*(?:$|[,.;\n]))/gim, 'no $1')
    .replace(/\b(pregnan(?:t|cy))\s*[-=:]?\s*(no|nope|negative|n)\b/gi, 'not pregnant')
    .replace(/\b(age|sex|gender|duration|severity|pain|pain score)\s*[:=]\s*/gi, '$1 ');
  return t;
}

/** Splits a reply to several questions and attributes each fragment (by its words, else by position). */
function attribute(f: Findings, text: string, asked: readonly string[]): void {
  if (asked.length === 1) { applyAnswer(f, asked[0]!, text); return; }
  // "58 male 3 days": several facts with no punctuation are split after a sex word or a unit
  const fragments = text.split(/[.;!?\n]+|,(?!\d)|\band\b(?= (?:no|none|not|yes|i'?m|i am|\d))|(?<=\d) (?=(?:male|female|man|woman|boy|girl)\b)|(?<=\b(?:male|female|man|woman|boy|girl|days?|weeks?|wks?|months?|years?|hours?|hrs?|mins?|minutes?|old)) (?=\d|(?:about|since|for) )/).map((x) => x.trim().replace(/^(and|oh|oh and|also|plus)\b\s*/, '')).filter((x) => x && !FILLER_ONLY.test(normalize(x)));
  const remaining = [...asked];
  const loose: string[] = [];
  for (const frag of fragments) {
    const k = keyOfFragment(frag, remaining);
    if (k) {
      applyAnswer(f, k, frag);
      remaining.splice(remaining.indexOf(k), 1);
      // "i'm 34 and female": the sex word in the same fragment answers the sex question too
      const sexWord = /(?<!\b(?:my|his|her|a|the|their) )\b(female|male|woman|man|girl|boy)\b/.exec(normalize(frag));
      if (k !== 'sex' && remaining.includes('sex') && sexWord) { applyAnswer(f, 'sex', sexWord[1]!); remaining.splice(remaining.indexOf('sex'), 1); }
    } else loose.push(frag);
  }
  if (loose.length === 1 && remaining.length > 1 && parseYesNo(loose[0]!) !== null) {
    for (const k of remaining) if (isYesNoKey(k)) applyAnswer(f, k, loose[0]!);
    return;
  }
  // a loose fragment goes to the first remaining question it can answer ("7ish" to severity, "f" to sex),
  // then the rest by position
  for (const k of [...remaining]) {
    const i = loose.findIndex((frag) => answers(k, frag));
    if (i < 0) continue;
    applyAnswer(f, k, loose[i]!);
    loose.splice(i, 1);
    remaining.splice(remaining.indexOf(k), 1);
  }
  loose.forEach((frag, i) => { const k = remaining[i]; if (k) applyAnswer(f, k, frag); });
}

const FILLER_ONLY = /^(well|um+|uh+|erm?|hmm+|so|ok(ay)?|oh|ah|right|honestly|let me think|hope (that|this) helps|thanks|thank you|cheers|that'?s (it|all)|i think|i guess)([ ,.!-]+(well|um+|uh+|erm?|hmm+|so|ok(ay)?|oh|ah|right|honestly|let me think|hope (that|this) helps|thanks|thank you|cheers|that'?s (it|all)|i think|i guess))*$/;

/** Whether a fragment reads as an answer to a base key (used to place fragments the key words did not). */
function answers(key: string, frag: string): boolean {
  const t = normalize(frag);
  switch (key) {
    case 'age': return parseAgeYears(t, true) !== null;
    case 'sex': return parseSex(t) !== null && t.split(' ').length <= 4;
    case 'duration': return parseDurationDays(t) !== null;
    case 'severity': return parseSeverity(t, true) !== null;
    default: return false;
  }
}

/** Recomputes the findings from the whole request (the engine is stateless). */
export function extractFindings(input: TriageInput, text: TextAnalyzer, canonical?: (s: string) => string): Findings {
  const f = emptyFindings();
  const seq = { n: 0 };
  let asked: readonly string[] = [];
  const answeredHere = new Set<string>();
  const all: string[] = [];
  for (const turn of input.turns) {
    if (turn.role === 'assistant') {
      asked = turn.asked ?? [];
      answeredHere.clear();
      for (const k of asked) f.askedCount.set(k, (f.askedCount.get(k) ?? 0) + 1);
      continue;
    }
    const said = unform(turn.text);
    const sentences = text.sentences(said);
    if (!f.opening && turn.text.trim()) f.opening = turn.text.trim();
    for (const s of sentences) { scanSentence(f, s.text, seq, canonical); all.push(s.text); }
    const open = asked.filter((k) => !answeredHere.has(k));
    if (open.length > 0) {
      attribute(f, said, open);
      for (const k of open) answeredHere.add(k);
      if (open.includes('complaint')) f.hasNarrative = true;
    } else if (normalize(turn.text).split(' ').length >= 3 || f.present.size > 0) {
      f.hasNarrative = true;
    }
  }
  // allergy history ("allergic to penicillin", "no allergies") is not an allergen exposure
  f.allText = f.allergyText.reduce((acc, a) => acc.replace(a, ' '), all.join(' '));
  const p = input.patient;
  if (p?.ageYears != null) { f.ageYears = p.ageYears; f.answered.add('age'); }
  if (p?.sex) { f.sex = p.sex; f.answered.add('sex'); }
  if (f.present.has('pregnant')) { f.pregnant = true; f.answered.add('pregnancy'); if (f.sex === null) f.sex = 'female'; }
  else if (f.negated.has('pregnant') && f.pregnant === null) { f.pregnant = false; f.answered.add('pregnancy'); }
  if (f.tempC !== null && f.tempC >= 38) f.present.add('fever');
  return f;
}
