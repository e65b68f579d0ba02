/**
 * Assertion of a concept mention in the NegEx / ConText style (Chapman et al., J Biomed Inform
 * 2001, "A simple algorithm for identifying negated findings"; Harkema et al., J Biomed Inform
 * 2009, "ConText"): within one sentence, split into clauses at termination terms ("but",
 * "however", ...), a trigger before the mention (or a few post-triggers after it) marks it
 * negated, hypothetical, historical or experienced by someone else. Pseudo-triggers
 * ("not getting better", "can't stop") are masked first so they do not negate; so are symptoms
 * said with "can't" ("I can't catch my breath and my lips are going grey"), which are findings, not
 * denials of what follows.
 */

export interface Assertion {
  negated: boolean;
  /** negated only by a post-trigger ("... has stopped"): it was there and has gone; still what they came about */
  resolved: boolean;
  hypothetical: boolean;
  historical: boolean;
  /** true when the mention is about someone else (family history), not the patient or the person they ask for */
  other: boolean;
}

/**
 * ConText termination terms: a trigger's scope ends at them. "and" / "so" / "then" before a new
 * subject starts a new clause ("I don't have a fever and my lips are blue": the lips are not denied).
 */
const TERMINATION = /\b(but|however|although|though|except|apart from|aside from|other than|yet|whereas|otherwise)\b|;|:| - |,(?= (just|only|i|i'm|i've|it|it's|my|he|she|they|and i|and my)\b)|\b(and|so|then|plus)\b(?= (now |then |suddenly |also )?(my|his|her|their|i|i'm|i've|he|she|he's|she's|they|they're|it's|the|now|suddenly)\b)/g;

/** NegEx pre-negation triggers (the scope runs forward from them, up to PRE_WINDOW words). */
const PRE_NEGATION = /\b(no|not|never|without|denies|denied|deny|nor|neither|none|negative for|free of|absence of|no sign of|no signs of|no history of|isn'?t|aren'?t|wasn'?t|weren'?t|don'?t|doesn'?t|didn'?t|haven'?t|hasn'?t|hadn'?t|won'?t|can'?t|cannot|do not|does not|did not|have not|has not|had not|no more|no longer|ruled out)\b/g;
/**
 * NegEx post-negation triggers ("... has gone", "... resolved"). "Gone" and "stopped" end a finding
 * only when nothing follows them in the clause that makes them mean something else ("has gone on for
 * 6 minutes", "has gone blue", "stopped breathing").
 */
const POST_NEGATION = /\b(is gone|has gone|have gone|are gone|has stopped|have stopped|stopped|has settled)(?= *($|[,.;!?)]|now\b|away\b|completely\b|again\b|since\b|by (it|them)sel(f|ves)\b|on (its|their) own\b|and\b|but\b|after\b|when\b|with\b|a while\b|an hour\b|(a|\d+|few|couple of) (minutes?|hours?|days?|weeks?) ago\b))|\b(went away|resolved|cleared up|is better now|are better now|not anymore|any more\? no|unlikely)\b/;
/** Phrases containing a negation word that do not negate (masked before scanning). */
const PSEUDO = /\b(don'?t know|do not know|not (only|just|sure|certain|getting (any )?better|improving|going away|stopping|helping|working|better|easing|settling)|no (better|change|improvement|relief|doubt|idea)|won'?t (stop|go away|settle|ease|walk|stand|feed|eat|drink|put (any )?weight|bear weight)|can'?t (stop|get rid)|doesn'?t (stop|go away|help|work|ease|settle)|isn'?t (getting )?(any )?(better|improving|helping|working|going away)|nothing (helps|works|is helping)|not been able to|can'?t seem to shake|(can'?t|cannot|couldn'?t) (catch|get) (my|his|her|their|a|enough|any) ?(breath|air)|(can'?t|cannot|couldn'?t) (breathe?|lift|move|raise|speak|talk|swallow|stand|walk|keep ((any|anything|any ?thing|food|fluids?|water|drinks?|milk|liquids?|feeds?|it|much|a thing|even) )+down|wake (him|her|them))|without (any )?(relief|improvement|stopping))\b/g;

const HYPOTHETICAL = /\b(if|in case|what if|worried about|worried i might|afraid of|scared of|concerned about|could it be|could this be|could that be|might be|to rule out|check for|risk of|prevent|avoid|what are the signs of|signs of|symptoms of|should i worry|how do i know|what should i do if|when should|is it normal|in the future)\b/g;
const HISTORICAL = /\b(history of|years? ago|last year|in (19|20)\d\d|as a (child|kid|baby|teenager)|when i was (young|little|a kid|a child|younger|\d+)|used to|previous(ly)?|in the past|had (a|an)\b[\w ]{0,30}\b(years?|months?) ago|months ago|long time ago)\b/;

const RELATIVE = "(mother|mom|mum|father|dad|brother|sister|grand(mother|ma|father|pa|parent)s?|uncle|aunt|cousin|friend|wife|husband|partner|son|daughter|child|kid|baby|boy|girl|toddler|boyfriend|girlfriend|neighbou?r|colleague|coworker|parents?|family|relative|flatmate|roommate)";
const OTHER_EXPERIENCER = new RegExp(`\\b(my|our|his|her|a|the) ${RELATIVE}\\b|\\bfamily history\\b|\\bruns in (my|the|our) family\\b|\\bin (my|the|our) family\\b`, 'g');
/** Cues that a relative's mention is family history ("my father had a stroke"), not a report on their behalf. */
const FAMILY_HISTORY_CUE = /\b(had|has had|died|passed away|passed(?! out)|history|years? ago|months ago|runs in|in (my|the|our) family|when (he|she) was|at (age )?\d{2}\b|last year|got diagnosed|was diagnosed|both had|also had|always had|suffer(s|ed)? from)\b/;

/** Relatives one usually reports for rather than describes as family history. */
const REPORTED_FOR = /\b(son|daughter|child|kid|baby|boy|girl|toddler|wife|husband|partner|boyfriend|girlfriend|friend|flatmate|roommate|colleague|coworker|neighbou?r)\b/;
const STRONG_HISTORY_CUE = /\b(died|passed away|history|years? ago|months ago|runs in|in (my|the|our) family|when (he|she) was|at (age )?\d{2}\b|last year|got diagnosed|was diagnosed|as a (baby|child|toddler)|used to|in (19|20)\d\d)\b/;

const PRE_WINDOW = 8;

function words(s: string): number {
  return s.trim() ? s.trim().split(/\s+/).length : 0;
}

function mask(s: string, re: RegExp): string {
  return s.replace(re, (m) => 'x'.repeat(m.length));
}

/** The clause of `sentence` around [start, end): text from the previous termination term to the next. */
function clauseBounds(sentence: string, start: number, end: number): [number, number] {
  let from = 0;
  let to = sentence.length;
  for (const m of sentence.matchAll(TERMINATION)) {
    const i = m.index;
    if (i + m[0].length <= start) from = i + m[0].length;
    else if (i >= end && i < to) { to = i; break; }
  }
  return [from, to];
}

/** Whether any match of `re` in `before` lies within `window` words of its end. */
function triggerWithin(before: string, re: RegExp, window: number): boolean {
  for (const m of before.matchAll(re)) {
    const gap = words(before.slice(m.index + m[0].length));
    if (gap <= window) return true;
  }
  return false;
}

/** The assertion of the mention at [start, end) of a normalized sentence. */
export function assertMention(sentence: string, start: number, end: number): Assertion {
  const [from, to] = clauseBounds(sentence, start, end);
  const masked = mask(sentence, PSEUDO);
  const before = masked.slice(from, start);
  const after = masked.slice(end, to);
  const clause = sentence.slice(from, to).replace(/\b(hasn'?t|haven'?t|hadn'?t|not|never) had\b/g, 'not'); // "hasn't had a wee" is no history cue
  const preNegated = triggerWithin(before, PRE_NEGATION, PRE_WINDOW);
  const resolved = !preNegated && POST_NEGATION.test(after);
  const negated = preNegated || resolved;
  const hypothetical = triggerWithin(before, HYPOTHETICAL, 12) || /^\s*(should|could|can|would|will|does|do|is|are)\b[^?]*\?\s*$/.test(sentence) && !/\b(i have|i'?ve (got|had)|i'?m having|i am having|my)\b/.test(sentence);
  const historical = HISTORICAL.test(clause) && !/\b(today|now|this (morning|afternoon|evening)|again)\b/.test(clause);
  let other = false;
  const rel = [...before.matchAll(OTHER_EXPERIENCER)];
  if (rel.length > 0 || /\b(runs in (my|the|our) family|in (my|the|our) family)\b/.test(after)) {
    // a child, partner or housemate is usually the person reported for ("my son had a fit"): a plain
    // "had" is not family history for them, only a time or history cue is
    const reportedFor = rel.length > 0 && rel.every((m) => REPORTED_FOR.test(m[0]));
    const cue = reportedFor ? STRONG_HISTORY_CUE : FAMILY_HISTORY_CUE;
    const familyHistory = /\bfamily history\b|\bruns in\b|\bin (my|the|our) family\b/.test(clause)
      || (cue.test(clause) && !/\b(now|right now|just|today|tonight|this (morning|afternoon|evening)|minutes? ago|an? hour ago|hours? ago|suddenly|currently|at the moment)\b/.test(clause));
    // A relative named without family-history cues is a report on their behalf ("my son swallowed
    // bleach"): the person triaged. Only family history ("my father had a stroke") is someone else's.
    other = familyHistory;
  }
  return { negated, resolved, hypothetical, historical, other };
}

/** true when a mention counts as a present finding of the patient (or of the person they report for). */
export function isAffirmed(a: Assertion): boolean {
  return !a.negated && !a.hypothetical && !a.historical && !a.other;
}
