/**
 * Text handling for the rules engine: sentences and tokens from wink-nlp with its npm-shipped
 * English model (offline), plus the small parsers the engine needs (durations, 0-10 severity,
 * ages, temperatures, yes/no). Everything is lower-cased and apostrophes straightened first, so
 * the concept patterns are written once for plain ASCII text.
 */
import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';

export interface Sentence {
  /** lower-cased, apostrophes straightened, whitespace collapsed */
  text: string;
}

export interface TextAnalyzer {
  sentences(text: string): Sentence[];
}

/** Lower-case, straight apostrophes, single spaces: the form every pattern is written for. */
export function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * wink-nlp's sentence splitter (it knows abbreviations and decimals such as "38.4"), loaded once
 * per analyzer; the model is ~4 MB of JSON shipped in the npm package, no network.
 */
export function createTextAnalyzer(): TextAnalyzer {
  const nlp = winkNLP(model);
  return {
    sentences(text: string): Sentence[] {
      const out: Sentence[] = [];
      for (const line of text.split(/\n+/)) {
        if (!line.trim()) continue;
        const doc = nlp.readDoc(line);
        doc.sentences().each((s: { out(): string }) => {
          const t = normalize(s.out());
          if (t) out.push({ text: t });
        });
      }
      return out;
    },
  };
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9,
  ten: 10, eleven: 11, twelve: 12, fourteen: 14, fifteen: 15, twenty: 20, thirty: 30,
  few: 3, couple: 2, several: 4,
};
const UNIT_DAYS: Record<string, number> = {
  minute: 1 / 1440, min: 1 / 1440, hour: 1 / 24, hr: 1 / 24, day: 1, night: 1, week: 7, month: 30, year: 365,
};

function num(word: string): number | null {
  if (/^\d+(\.\d+)?$/.test(word)) return Number(word);
  return NUMBER_WORDS[word] ?? null;
}

const ONES_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TEEN_WORDS = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS_WORDS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const TENS_RE = new RegExp(`\\b(${TENS_WORDS.join('|')})(?:[ -](${ONES_WORDS.slice(1).join('|')}))?\\b`, 'g');
const TEENS_RE = new RegExp(`\\b(${TEEN_WORDS.slice(3).join('|')})\\b`, 'g');
const ONES_RE = new RegExp(`\\b(${[...ONES_WORDS.slice(1), 'ten', 'eleven', 'twelve'].join('|')})\\b`, 'g');

/**
 * Number words as digits, for the fact parsers only (never for concept scanning, where "one side"
 * is not a count): "seventy four" -> "74", "twenty-nine" -> "29", "thirteen" -> "13"; with `all`,
 * one to twelve too ("two" -> "2"). Patients and outside agents write ages and scores in words.
 */
export function digitsForWords(text: string, all = false): string {
  let t = text.replace(TENS_RE, (_m, tens: string, ones?: string) => String(20 + 10 * TENS_WORDS.indexOf(tens) + (ones ? ONES_WORDS.indexOf(ones) : 0)))
    .replace(TEENS_RE, (w: string) => String(10 + TEEN_WORDS.indexOf(w)));
  if (all) t = t.replace(ONES_RE, (w: string) => String(w === 'ten' ? 10 : w === 'eleven' ? 11 : w === 'twelve' ? 12 : ONES_WORDS.indexOf(w)));
  return t;
}

/** How long, in days, a phrase says something has lasted ("3 days", "since yesterday", "a week"); null if none. */
export function parseDurationDays(text: string): number | null {
  const t = digitsForWords(normalize(text), true);
  if (/\b(half an? hour|half hour)\b/.test(t)) return 1 / 48;
  const m = /\b(\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|twenty|thirty|few|couple|several)\s*(?:of\s+)?(?:or\s+(?:so|\d+)\s+)?(minute|min|hour|hr|day|night|week|month|year)s?\b/.exec(t);
  if (m) {
    const n = num(m[1]!);
    const unit = UNIT_DAYS[m[2]!];
    if (n !== null && unit !== undefined) return n * unit;
  }
  // the short forms people type: "3 wks", "2hrs", "45 mins", "3d", "2 mos", "1yr"
  const short = /\b(\d+(?:\.\d+)?|an?|few|couple)\s*(?:of\s+)?(mins|hrs|dys?|wks?|mos|mths?|yrs?)\b(?!\s*old)|\b(\d+)(h|d|w|y)\b(?!\s*old)/.exec(t);
  if (short) {
    const n = num(short[1] ?? short[3]!);
    const u = short[2] ?? short[4]!;
    const unit = /^mi/.test(u) ? 1 / 1440 : /^h/.test(u) ? 1 / 24 : /^d/.test(u) ? 1 : /^w/.test(u) ? 7 : /^m/.test(u) ? 30 : 365;
    if (n !== null) return n * unit;
  }
  if (/\bfortnight\b/.test(t)) return 14;
  // "since tuesday": the engine has no calendar, so a named weekday counts as the middle of the week before (NHS self-care windows are in days)
  if (/(?:^|\b(?:since|on|from|last|started|began|start(?:ed)? on)) (mon|tues?|wed(nes)?|thu(rs)?|fri|sat(ur)?|sun)(day)?\b|^(mon|tues|wednes|thurs|fri|satur|sun)day\b/.test(t)) return 4;
  if (/\bday before yesterday\b/.test(t)) return 2;
  if (/\b(since )?(yesterday|last night)\b/.test(t)) return 1;
  if (/\b(this|since this) (morning|afternoon|evening)\b|\btoday\b|\btonight\b|\bjust (now|started)\b|\ba few (minutes|moments) ago\b/.test(t)) return 0.3;
  if (/\b(last|this) week\b/.test(t)) return 5;
  if (/\blast month\b/.test(t)) return 30;
  return null;
}


const SYMPTOM_WORD = '(pain\\w*|\\w*aches?|aching|hurts?|hurting|cramp\\w*|migraines?|sore\\w*|tender\\w*|burning|itch\\w*|throbbing|pounding|cough\\w*|breathless\\w*|swelling|bleeding|vomiting|diarrh\\w*)';
/** A severe word said of a symptom: before it within three words, or after it ("the pain is terrible"). */
const SEVERE_OF_SYMPTOM = new RegExp(`\\b(very painful|really painful)\\b|\\b(severe|terrible|really bad|very bad|awful|horrible|dreadful)\\b(\\s+[\\w']+){0,3}?\\s+${SYMPTOM_WORD}\\b|\\b${SYMPTOM_WORD}\\b(\\s+[\\w']+){0,3}?\\s+(is |was |feels |are |got |getting )?(so |really |very )?(severe|terrible|really bad|very bad|awful|horrible|dreadful)\\b|\\bseverely\\b`);
/** A 0-10 severity ("6 out of 10", "6/10"; with `bare`, a lone number; "mild", "severe"); null if none. */
export function parseSeverity(text: string, bare = false): number | null {
  const t = digitsForWords(normalize(text), true).replace(/\b(\d{1,2})-?ish\b/g, '$1');
  const m = /\b(\d{1,2}(?:\.\d)?)\s*(?:\/|out of|of)\s*10\b/.exec(t);
  if (m) return Math.min(10, Number(m[1]));
  if (bare) {
    const b = /^(?:well |um |so |honestly |like |about |around |maybe |probably |roughly |a |an |it'?s |its |i'?d say |id say |i would say |i guess |prob |like a )*(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)\b\.?$/.exec(t);
    if (b) {
      const n = num(b[1]!);
      if (n !== null && n <= 10) return n;
    }
    // a range ("6 or 7", "6-7", "between 6 and 7"): the higher end, the safer reading
    const range = /(?:^|\s)(\d{1,2}) ?(?:-|to|or|and) ?(\d{1,2})(?:\s*(?:\/|out of)\s*10)?\.?$/.exec(t);
    if (range && Number(range[2]) <= 10 && Number(range[1]) < Number(range[2])) return Number(range[2]);
    // "the pain's about 8 i'd say": one small number and no unit in an answer to the severity question
    const nums = t.match(/\b\d{1,2}(?:\.\d)?\b/g) ?? [];
    if (nums.length === 1 && Number(nums[0]) <= 10 && !/\d\s*(?:mins?|minutes?|hours?|hrs?|days?|weeks?|wks?|months?|years?|yrs?|old|am|pm|%|degrees|times?|mg|ml)\b|\d\.\d|\d\s*(?:f|c)\b|\b(temp|temperature|fever)\b/.test(t)) return Number(nums[0]);
  }
  if (/\b(unbearable|excruciating|agony|agonising|agonizing|worst (pain|ever)|worst i'?ve)\b/.test(t)) return 9;
  // in a narrative, "terrible" or "awful" rate the pain only when said of it ("feel awful", "something awful was about to happen" rate nothing)
  if (bare ? /\b(severe|terrible|really bad|very bad|awful|very painful|really painful)\b/.test(t) : SEVERE_OF_SYMPTOM.test(t)) return 8;
  if (/\b(moderate|quite bad|pretty bad)\b/.test(t)) return 5;
  if (/\b(mild|slight|a (little|bit)|minor|not (too|that|very) bad)\b/.test(t)) return 3;
  if (bare && /\b(killing me|really hurts|hurts (a lot|loads))\b/.test(t)) return 8;
  if (bare && /\b(manageable|bearable|tolerable|not bad|ok(ay)?-?ish)\b/.test(t)) return 3;
  return null;
}

const AGE_NUM = '(\\d{1,3}(?:\\.\\d)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)';
/** Age patterns: [pattern, index of the number group, index of the unit group or a fixed unit]. */
const AGE_PATTERNS: ReadonlyArray<[RegExp, number, number | string]> = [
  [new RegExp(`\\b${AGE_NUM}[ -]?(day|week|wk|month|mth|mo|year|yr)s?[ -]old\\b`), 1, 2],
  // "2yo", "6 y/o"
  [new RegExp(`\\b${AGE_NUM} ?(?:yo|y\\/o|y\\.o)\\b`), 1, 'year'],
  // "18mo", "3 mths" (a month count that is not a duration: not "for 3 mths")
  [/(?<!\b(?:for|past|last|over|in|since|about|around|nearly|almost|the|every|than) )\b(\d{1,2}) ?(?:mo|mos|mths?|m\/o)\b(?! (?:ago|later))/, 1, 'month'],
  // "baby is 6 weeks", "she's 4 months", "my son, 3 weeks"
  [new RegExp(`\\b(?:baby|son|daughter|boy|girl|infant|newborn|little one|twins?|he|she)(?: is|'s| was| just turned| turned| only| who is|,)? ${AGE_NUM} (day|week|wk|month|mth)s?\\b(?! (?:ago|pregnant|along|late|early))`), 1, 2],
  [/\baged? (\d{1,3})\b/, 1, 'year'],
  // "my mum (80)", "Dad, 74,", "my son is 3": a relative's age as a forum post gives it
  [/\b(?:mum|mom|mother|dad|father|husband|wife|partner|son|daughter|brother|sister|grand(?:ma|pa|mother|father)|nan|gran|grandad)(?: \((\d{1,3})\)|, (\d{1,3}),| is (\d{1,3})\b(?! ?(?:weeks?|days?|months?|minutes?|hours?|times?|%|percent|out of|\/|pregnant|mg|ml|kg|lbs?|stone|feet|ft|cm)))/, 0, 'year'],
  [/\b(?:i'?m|i am|he'?s|he is|she'?s|she is|they'?re) (\d{1,3})(?: years?)?(?: old)?(?:\b|$)(?! (?:weeks?|days?|months?|minutes?|hours?|times?|%|percent|out of|\/))/, 1, 'year'],
];

/** Age in years from "I'm 58", "58 years old", "my 4 year old", "6 wks old", "2yo", "18mo", "baby is 6 weeks", "34"; null if none. */
export function parseAgeYears(text: string, bare = false): number | null {
  const t = digitsForWords(normalize(text), bare);
  const short = ageSexShorthand(t);
  if (short) return short.age;
  // "in my 40s", "mid-forties", "late 60s": the middle of the stated third of the decade
  const decade = /\b(?:in (?:my|his|her|their) |(early|mid|late)[ -]?)(\d)0'?s\b/.exec(t.replace(/\b(twen|thir|for|fif|six|seven|eigh|nine)ties\b/g, (_m, w: string) => `${['twen', 'thir', 'for', 'fif', 'six', 'seven', 'eigh', 'nine'].indexOf(w) + 2}0s`));
  if (decade) return Number(decade[2]) * 10 + (decade[1] === 'early' ? 2 : decade[1] === 'late' ? 8 : 5);
  for (const [re, ni, ui] of AGE_PATTERNS) {
    const m = re.exec(t);
    if (!m) continue;
    // index 0: the first group that took part
    const n = num(ni === 0 ? m.slice(1).find((x) => x !== undefined)! : m[ni]!);
    if (n === null) return null;
    const u = typeof ui === 'string' ? ui : m[ui]!;
    return u === 'day' ? n / 365 : u === 'week' || u === 'wk' ? n / 52 : u === 'month' || u === 'mth' || u === 'mo' ? n / 12 : n;
  }
  if (/\bnewborn\b/.test(t)) return 0.02;
  if (bare) {
    const b = /^(?:i'?m |i am |he'?s |she'?s |they'?re |about |around |just |only |nearly |almost )*(\d{1,3})(?: ?(years?|yrs?|y\/o|yo|months?|mths?|mos?|weeks?|wks?))?(?: old)?\.?$/.exec(t);
    if (b) {
      const n = Number(b[1]);
      const u = b[2] ?? '';
      return /^m/.test(u) ? n / 12 : /^w/.test(u) ? n / 52 : n;
    }
  }
  return null;
}

const AGE_SEX = /^(\d{1,2}) ?(f|m|female|male|woman|man)\b|[,(] ?(\d{1,2}) ?(f|m|female|male|woman|man)(?=$|[,.;)]| (?:here|and|with|smoker|non))/;

/** "42F", "58 M", "..., 24m": the age-and-sex shorthand of forms and forums (at the start, or after a comma); null if none. */
export function ageSexShorthand(text: string): { age: number; sex: 'female' | 'male' } | null {
  const t = normalize(text);
  const m = AGE_SEX.exec(t);
  if (!m) return null;
  return { age: Number(m[1] ?? m[3]), sex: /^(f|female|woman)$/.test(m[2] ?? m[4]!) ? 'female' : 'male' };
}

/** A body temperature in Celsius from "38.4", "39 c", "102 f", "a temp of 101"; null if none. */
export function parseTemperatureC(text: string): number | null {
  const t = normalize(text);
  if (!/\b(temp|temperature|fever|thermometer|degrees)\b|°/.test(t)) return null;
  for (const m of t.matchAll(/\b(\d{2,3}(?:\.\d{1,2})?)\s*(°\s*[cf]|degrees?(?: [cf])?|[cf]\b)?/g)) {
    const v = Number(m[1]);
    if (v >= 35 && v <= 43) return v;
    if (v >= 95 && v <= 110) return Math.round(((v - 32) * 5) / 9 * 10) / 10;
  }
  return null;
}

export type YesNo = 'yes' | 'no' | null;

/** A short yes or no ("no", "nope", "none", "yes I do", "not really"); null when the text is neither. */
export function parseYesNo(text: string): YesNo {
  const t = normalize(text).replace(/[.!]+$/, '');
  // "no to the rash but yes to the stiff neck": a yes anywhere in a mixed answer is a yes (the safe
  // reading of a warning-sign question that asks about several signs at once)
  if (/^(no+|nope|nah)\b/.test(t) && /\b(yes|yeah|yep|yup)\b/.test(t)) return 'yes';
  if (/^(no|nope|nah|none|nothing|never|not really|not at all|no,? (none|nothing|i'?m not|i don'?t|i haven'?t|not|never)|i don'?t|i do not|i haven'?t|i'?m not|i am not|negative|n\/a|not that i know of|no\b.{0,40})$/.test(t)) return 'no';
  if (/^(yes|yeah|yep|yup|y|i do|i am|i have|it does|it is|a little|sort of|kind of|definitely|correct|right|yes\b.{0,80})$/.test(t)) return 'yes';
  return leadingYesNo(t);
}

const FILLER = /^(?:(?:well|um+|uh+|erm?|hmm+|so|ok(?:ay)?|oh|ah|right|honestly|to be honest|i mean|let me think|hi|hello|thanks|thank you)\b[\s,.!-]*)+/;

/**
 * A yes or no that opens a longer answer, after fillers: "well um, yeah, and it started on monday",
 * "nope. but now my arm feels numb". The first clause decides; the rest is read for symptoms as any
 * other text. An outside agent or a chatty patient rarely answers with the bare word.
 */
function leadingYesNo(t: string): YesNo {
  if (/^(uh huh|mm+ ?hm+|mhm)\b/.test(t)) return 'yes';
  const head = t.replace(FILLER, '').split(/[,.;!?]| but | and | though /)[0]!.trim();
  if (/^(no+|n|nop+e*|na+h+|nay|nada|not really|not at all|not that i (know|can think|remember) of|not that i'?m aware( of)?|(none|nothing) that i('?m aware| know) of|i don'?t think so|don'?t think so|definitely not|absolutely not|negative|none( at all)?|nothing( like that| of the sort)?|none of (those|them|these|that|the above)|neither( of them)?|no to (all|both|everything)|all no)$/.test(head)) return 'no';
  // "i don't have any of those", "she hasn't", "he doesn't": a denial, unless of knowing ("i don't know")
  if (/^(i|he|she|they|we|it) (don'?t|do not|doesn'?t|does not|haven'?t|hasn'?t|have not|has not|am not|'?m not|isn'?t|is not|aren'?t|are not|didn'?t|did not)\b(?! (know|think|remember|understand|get|care|mind|sure|certain))/.test(head)) return 'no';
  // typed fast: "yse", "yess", "yeh", "noo", "nopee", "n"
  if (/^(ye+s+|yse|yeah+|yea|yeh|ye|ya+|yep+|yup+|yh|aye|sure|uh huh|i think so|afraid so|definitely|absolutely|correct|it does|i do|i am|i have|she does|he does|she is|he is|she has|he has)$/.test(head)) return 'yes';
  return null;
}
