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

/** How long, in days, a phrase says something has lasted ("3 days", "since yesterday", "a week"); null if none. */
export function parseDurationDays(text: string): number | null {
  const t = normalize(text);
  const m = /\b(\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|twenty|thirty|few|couple|several)\s*(?:of\s+)?(?:or\s+(?:so|\d+)\s+)?(minute|min|hour|hr|day|night|week|month|year)s?\b/.exec(t);
  if (m) {
    const n = num(m[1]!);
    const unit = UNIT_DAYS[m[2]!];
    if (n !== null && unit !== undefined) return n * unit;
  }
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
  const t = normalize(text);
  const m = /\b(\d{1,2}(?:\.\d)?)\s*(?:\/|out of|of)\s*10\b/.exec(t);
  if (m) return Math.min(10, Number(m[1]));
  if (bare) {
    const b = /^(?:about |around |maybe |probably |a |it'?s |its |i'?d say )*(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)\b\.?$/.exec(t);
    if (b) {
      const n = num(b[1]!);
      if (n !== null && n <= 10) return n;
    }
  }
  if (/\b(unbearable|excruciating|agony|agonising|agonizing|worst (pain|ever)|worst i'?ve)\b/.test(t)) return 9;
  // in a narrative, "terrible" or "awful" rate the pain only when said of it ("feel awful", "something awful was about to happen" rate nothing)
  if (bare ? /\b(severe|terrible|really bad|very bad|awful|very painful|really painful)\b/.test(t) : SEVERE_OF_SYMPTOM.test(t)) return 8;
  if (/\b(moderate|quite bad|pretty bad)\b/.test(t)) return 5;
  if (/\b(mild|slight|a (little|bit)|minor|not (too|that|very) bad)\b/.test(t)) return 3;
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
  [/\b(?:i'?m|i am|he'?s|he is|she'?s|she is|they'?re) (\d{1,3})(?: years?)?(?: old)?(?:\b|$)(?! (?:weeks?|days?|months?|minutes?|hours?|times?|%|percent|out of|\/))/, 1, 'year'],
];

/** Age in years from "I'm 58", "58 years old", "my 4 year old", "6 wks old", "2yo", "18mo", "baby is 6 weeks", "34"; null if none. */
export function parseAgeYears(text: string, bare = false): number | null {
  const t = normalize(text);
  for (const [re, ni, ui] of AGE_PATTERNS) {
    const m = re.exec(t);
    if (!m) continue;
    const n = num(m[ni]!);
    if (n === null) return null;
    const u = typeof ui === 'string' ? ui : m[ui]!;
    return u === 'day' ? n / 365 : u === 'week' || u === 'wk' ? n / 52 : u === 'month' || u === 'mth' || u === 'mo' ? n / 12 : n;
  }
  if (/\bnewborn\b/.test(t)) return 0.02;
  if (bare) {
    const b = /^(?:i'?m |i am |about |around )*(\d{1,3})(?: ?(years?|yrs?|y\/o|yo|months?|mths?|mo|weeks?|wks?))?(?: old)?\.?$/.exec(t);
    if (b) {
      const n = Number(b[1]);
      const u = b[2] ?? '';
      return /^m/.test(u) ? n / 12 : /^w/.test(u) ? n / 52 : n;
    }
  }
  return null;
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
  if (/^(no|nope|nah|none|nothing|never|not really|not at all|no,? (none|nothing|i'?m not|i don'?t|i haven'?t|not|never)|i don'?t|i do not|i haven'?t|i'?m not|i am not|negative|n\/a|not that i know of|no\b.{0,40})$/.test(t)) return 'no';
  if (/^(yes|yeah|yep|yup|y|i do|i am|i have|it does|it is|a little|sort of|kind of|definitely|correct|right|yes\b.{0,80})$/.test(t)) return 'yes';
  return null;
}
