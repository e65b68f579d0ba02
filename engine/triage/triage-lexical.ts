/**
 * A second, canonical reading of each sentence, so that the concept lexicon generalises to wording
 * it was not written for (issue 34, item 3: "goal on unseen cases"). Every blind set so far missed
 * emergencies for the same three reasons: a lay synonym the lexicon lacked ("behind my breast
 * bone", "whacked his head", "keeled over"), a typo ("vomitting", "elefant", "unconcious") or a
 * contraction without its apostrophe ("isnt", "hes"). Rather than add each wording to each pattern,
 * the sentence is rewritten once into the lexicon's own vocabulary:
 *  1. contractions get their apostrophe back ("dont" -> "don't", "hes" -> "he's");
 *  2. a word of 5 letters or more that is not English (an-array-of-english-words, ~275k words) and
 *     is one edit (two for 8+ letters) from exactly one lexicon word becomes that word;
 *  3. lay synonyms become the word the lexicon uses (SYNONYMS below: body parts, striking verbs,
 *     collapse, bleeding, vomiting, glass for the glass test).
 * The engine scans both readings and keeps the union; the assertion scan (negation, hypothetical,
 * someone else) runs on each reading, and no rewrite adds a negation word or removes one that is
 * not part of the finding itself ("not answering" -> "unresponsive").
 */
import { createRequire } from 'node:module';

/** Contractions written without the apostrophe; only forms that are not themselves words ("wont", "its", "were" stay out, "cant" is cant). */
const CONTRACTIONS: Record<string, string> = {
  dont: "don't", doesnt: "doesn't", didnt: "didn't", cant: "can't", couldnt: "couldn't", wouldnt: "wouldn't",
  shouldnt: "shouldn't", isnt: "isn't", arent: "aren't", wasnt: "wasn't", werent: "weren't", havent: "haven't",
  hasnt: "hasn't", hadnt: "hadn't", im: "i'm", ive: "i've", hes: "he's", shes: "she's", theyre: "they're",
  theres: "there's", thats: "that's", whats: "what's", youre: "you're", weve: "we've", theyve: "they've",
  id: "i'd", ill: "i'll", wont: "won't",
};

/** "not answering / reacting / responding" of a person (not of a phone or a treatment): unresponsive. */
const UNRESPONSIVE = /\b(isn'?t|is not|wasn'?t|was not|aren'?t|not|stopped|won'?t|will not|no longer) (answering|reacting|responding)( to (me|us|anything|his name|her name|their name|voices?|touch))?\b(?! (to )?(the |my |our |his |her )?(phone|calls?|texts?|messages?|emails?|door|antibiotics|treatment|tablets|medicine|medication|meds))/g;
const PERSON_BEFORE = /\b(he|she|they|baby|son|daughter|husband|wife|mum|mom|dad|father|mother|partner|friend|flatmate|roommate|grandad|grandpa|grandma|nan|child|kid|toddler|boy|girl|man|woman|brother|sister|uncle|aunt|neighbou?r)\b[\w' ]{0,25}$/;

/**
 * Lay synonyms -> the lexicon's word, written from the published lists' own lay wording (NHS "call
 * 999", NHS 111 condition pages, ACEP, UK Sepsis Trust, AAP). Each entry is [pattern, replacement]
 * over normalized text; none contains or removes a negation word.
 */
const SYNONYMS: ReadonlyArray<[RegExp, string]> = [
  // body parts (NHS heart attack: "pain in the centre of the chest"; lay: breastbone, ribs, heart)
  [/\b(breast ?bone|sternum|rib ?cage|middle of (my|his|her|the) chest|centre of (my|his|her|the) chest|center of (my|his|her|the) chest)\b/g, 'chest'],
  [/\b(tum|abdo)\b/g, 'tummy'],
  [/\b(bum|backside|butt|rear end)\b/g, 'bottom'],
  // striking the head (NHS head injury: "a knock, bump or blow to the head")
  [/\b(whack(ed|ing)?|smack(ed|ing)?|bash(ed|ing)?|clonk(ed|ing)?|thump(ed|ing)?|wallop(ed|ing)?|bonk(ed|ing)?|conk(ed|ing)?|slam(med|ming)?|clobber(ed|ing)?|crack(ed|ing)?)\b(?= (my|his|her|their|the) (head|skull|forehead))/g, 'hit'],
  [/\b(skull|forehead|temple)\b/g, 'head'],
  // collapse and unresponsiveness (NHS 999: "someone has collapsed", "unconscious")
  [/\b(keel(ed|s)? over|dropped to the (floor|ground)|hit the (floor|deck|ground)|fell to the (floor|ground)|crumpled( to the (floor|ground))?|slumped( over)?|went down like a|dropped like a (stone|sack)|flaked out)\b/g, 'collapsed'],
  // the negation here is the finding itself ("not answering" is unresponsive), so it is rewritten whole
  [UNRESPONSIVE, 'is unresponsive'],
  [/\b(no response|not with it at all|out for the count|spark out)\b/g, 'unresponsive'],
  [/\b(isn'?t|is not|wasn'?t|not|won'?t|will not|stopped) (moving or (talking|speaking|responding|breathing)|(talking|speaking) or moving|moving at all)\b/g, 'is unresponsive'],
  // vomiting (NHS: "being sick")
  // (the lexicon already knows "throwing up", "being sick"; only the forms it lacks are mapped)
  [/\b(puk(e|ed|es|ing)|spew(ed|ing|s)?|barf(ed|ing|s)?|chuck(ed|ing)? up|hurl(ed|ing)|retch(ed|ing|es)?|heav(ed|ing) up)\b/g, 'vomiting'],
  // the glass test (NHS meningitis: "press a glass against the rash")
  [/\b(tumbler|drinking glass|jam jar|beaker|clear cup|a cup|the cup|a jar|the jar|pint glass|wine glass)\b/g, 'glass'],
  [/\b(pin ?points?|pin ?pricks?|pinprick|tiny dots|little dots|tiny spots|specks)\b/g, 'spots'],
  [/\b(purplish|purply|red-purple|reddish-purple|violet|plum[- ]colou?red|maroon|dark purple)\b/g, 'purple'],
  // breathing (NHS 999: "gasping, choking, not able to get words out")
  [/\b(heaving|fighting|struggling|labouring|laboring|straining) for (breath|air)\b/g, 'gasping for breath'],
  [/\b(panting|puffing) (like|really|so|very|hard)\b/g, 'breathing very fast'],
  [/\b(get (more than )?(a|one) word (or two )?out|more than a (word|few words) (or two )?(out|at a time)?)\b/g, 'speak'],
  // bleeding (ACEP: "uncontrolled bleeding")
  [/\b(squirting|spurting|pumping|gushing|pouring|streaming|jetting|spraying|pissing)( out)?\b/g, 'gushing'],
  // seizure (NHS 999: "a seizure (fit)")
  [/\b(whole body|arms and legs|all (his|her|their) limbs) (is |are |was |were |started |keeps |kept )?(jerking|convulsing|thrashing|twitching|spasming)\b/g, 'convulsing'],
  // stroke (NHS FAST: "face dropped on one side")
  [/\b(slipped|slid|hanging( down)?|sagging|dropped|fallen|gone down|pulled down|drooped)\b(?= (on|to|at|down)? ?(one|the|his|her|my)? ?(left |right )?side)/g, 'drooping'],
  // poisoning: a carer's wording (APC: "a child got into medicine or a household product")
  [/\b(helped (himself|herself|themselves) to|found and ate|chewed on|sucked on)\b/g, 'swallowed'],
  [/\b(washing[- ]up liquid|dish ?soap|dishwasher (stuff|tablets?|pods?|liquid|powder)|fabric softener|toilet cleaner|drain cleaner|oven cleaner|white spirit|turps|turpentine|anti-?freeze|bleach|lighter fluid|paraffin|kerosene|lamp oil|weed ?killer|rat poison|slug pellets|laundry (pods?|capsules?|tablets?)|tide pods?|e-?cig liquid|vape (juice|liquid)|nail polish remover)\b/g, 'bleach'],
  // electrical injury (NHS burns and scalds: electrical burns go to A&E)
  [/\b((touched|grabbed|held|got hold of|bit|chewed) (a |the |an )?(live|bare|exposed|frayed) (wire|cable|socket)|shock(ed)? (from|off|by) (a |the )?(socket|plug|wire|cable|fence|mains|appliance)|electrocut\w*|electric(al)? (shock|current))\b/g, 'electric shock'],
  // suicidal intent (988 warning signs: no reason to live, a plan, cannot stay safe)
  [/\b((can'?t|cannot|couldn'?t) keep (myself|me) safe|if i (wasn'?t|weren'?t|was not|were not) (around|here|alive)|not (be )?(around|here) (anymore|any more|much longer)|(pills|tablets|rope|meds) (are )?(ready|saved|lined up)|(don'?t|do not) (think|know if|know whether) i can keep (myself|me) safe|(kill|killing|end|ending|top|topping|off|offing) (myself|my life))\b/g, 'kill myself'],
  // testicles in slang (NHS testicular torsion)
  [/\b(my|his|in (my|his)|of (my|his)) (nuts|nads|knackers|bollocks|goolies|family jewels|crown jewels|nutsack|ballsack|nut sack|ball sack|sack)\b/g, '$1 testicles'],
  // fever in lay words (NHS fever: "feels hotter than usual", "a high temperature")
  [/\b(raging|roaring|burning|sky[- ]high|really high|very high|huge|big|spiking|spiked|crazy high) (temp|temperature|fever)\b/g, 'high temperature'],
  [/\b(running|runs|ran|has|had|got|with) (a )?(temp|temperature)\b(?! (of|is|was) (3[5-7]|9[5-9]))/g, 'high temperature'],
  // UK Sepsis Trust: "I feel like I might die", "extreme shivering"
  [/\b(feel|feels|feeling|felt) like (i'?m|i am|he'?s|he is|she'?s|she is|they'?re) dying\b/g, "feel like i'm going to die"],
  [/\b(shivering|shaking|shivers) like (mad|crazy|hell|anything|a leaf)\b/g, 'shivering uncontrollably'],
  // self-harm (NHS 999: a suicide attempt)
  [/\b(cut|slit|slashed|slashing|cutting|sliced) (my|his|her|their) wrists?\b/g, 'self-harm'],
  // anaphylaxis (NHS: "swelling of the lips, tongue, throat")
  [/\b(blown up|ballooned|puffed up|swelled up|gone (massive|huge|fat|big)|feels? (massive|huge|fat|enormous|too big))\b/g, 'swelling'],
  // ---- triage-emerg-a
  // "as if" / "as though" is a simile ("as if a curtain came down"), not a hypothetical: read as "like"
  [/\b(as if|as though)\b/g, 'like'],
  // the negation is the finding (NHS cauda equina: "altered feeling when using toilet paper"; numb legs)
  [/\b(can'?t|cannot|couldn'?t|unable to|not able to) feel (anything |my (bum|bottom|backside) |it )?(when (i|he|she|they) wipes?|the (toilet )?(paper|tissue)|wiping)\b/g, 'numb bottom when wiping'],
  // "my back's killing me" (NHS back pain, in the words people use)
  [/\bback'?s (killing|hurting|aching|sore|in agony|playing up)\b/g, 'back is $1'],
  [/\b(can'?t|cannot|couldn'?t|unable to) feel (my|his|her|their) (legs|feet)\b/g, '$2 $3 are numb'],
  // NHS heart failure: "can't lie flat" because of the breathing is breathlessness lying flat, not a denial of what follows
  [/\b(can'?t|cannot|couldn'?t|unable to) (lie|lay) (down|flat)\b(?=.{0,60}\b(breath\w*|air|gasp\w*)\b)|(?<=\b(breath\w*|air|gasp\w*)\b.{0,60})\b(can'?t|cannot|couldn'?t|unable to) (lie|lay) (down|flat)\b/g, 'breathless lying flat'],
];

/** Shortest token corrected (4 letters: one edit only; "heda", "spos", "drnk") */
const MIN_LEN = 4;

/** Damerau-Levenshtein distance with an early exit past `max`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    let best = Infinity;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = v;
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
  }
  return rows[a.length]![b.length]!;
}

/** A rough sound-alike key: ph -> f, ck and ch -> k, doubled letters once, vowels after the first letter folded. */
function soundKey(w: string): string {
  return w.replace(/ph/g, 'f').replace(/ck|ch/g, 'k').replace(/(.)\1+/g, '$1').replace(/(?<=.)[aeiouy]+/g, 'a');
}

let english: ReadonlySet<string> | null = null;
/**
 * The English word list as a set, built once per process: it is static data (275k words, ~100 ms
 * and ~20 MB to build), and every app a test builds makes a rules engine.
 */
function englishSet(): ReadonlySet<string> {
  // loaded on first use, not at import: most processes that import the engine never read a sentence
  english ??= new Set<string>(createRequire(import.meta.url)('an-array-of-english-words') as string[]);
  return english;
}

export interface Canonicalizer {
  /** The canonical reading of a normalized sentence (the same string when nothing changes). */
  canonical(sentence: string): string;
  /** The lexicon word a token is a typo of, or null (exported for tests). */
  correct(token: string): string | null;
}

/**
 * Builds the canonical reader for a lexicon: `vocabulary` is every word the concept patterns use
 * (harvested from their sources) plus the full forms of their stems.
 */
export function createCanonicalizer(vocabulary: Iterable<string>): Canonicalizer {
  const english = englishSet();
  const byLength = new Map<number, string[]>();
  const vocab = new Set<string>();
  // the apostrophe-less contractions are vocabulary too, so "doenst" becomes "doesnt", then "doesn't"
  for (const w of [...vocabulary, ...Object.keys(CONTRACTIONS)]) {
    if (w.length < MIN_LEN || vocab.has(w)) continue;
    vocab.add(w);
    const list = byLength.get(w.length) ?? [];
    list.push(w);
    byLength.set(w.length, list);
  }
  const cache = new Map<string, string | null>();
  // a sound-alike key ("elefant" / "elephant", "vomitting" / "vomiting"): spellings that differ by
  // more edits than the distance allows but sound the same
  const byKey = new Map<string, string | null>();
  for (const w of vocab) { const k = soundKey(w); byKey.set(k, byKey.has(k) && byKey.get(k) !== w ? null : w); }

  function correct(token: string): string | null {
    if (token.length < MIN_LEN || vocab.has(token) || english.has(token) || CONTRACTIONS[token]) return null;
    const hit = cache.get(token);
    if (hit !== undefined) return hit;
    const max = token.length >= 8 ? 2 : 1;
    let best: string | null = null;
    let bestD = max + 1;
    let tie = false;
    for (let len = token.length - max; len <= token.length + max; len++) {
      for (const w of byLength.get(len) ?? []) {
        // same first letter: typos rarely change it, and it keeps "breed" and "bleed" apart
        if (w[0] !== token[0]) continue;
        const d = editDistance(token, w, max);
        // a tie between forms of one word ("wheeze", "wheezy"; "spot", "spots") is no tie: keep the first
        if (d < bestD) { best = w; bestD = d; tie = false; } else if (d === bestD && w !== best && w.slice(0, 5) !== best?.slice(0, 5) && !w.startsWith(best ?? '') && !best?.startsWith(w)) tie = true;
      }
    }
    const out = best !== null && !tie ? best : (byKey.get(soundKey(token)) ?? null);
    if (cache.size < 10_000) cache.set(token, out);
    return out;
  }

  function canonical(sentence: string): string {
    let s = sentence.replace(/[a-z]+/g, (w) => {
      const c = CONTRACTIONS[w] ? w : correct(w);
      return c === null ? w : CONTRACTIONS[c] ?? c;
    });
    for (const [re, to] of SYNONYMS) {
      s = re === UNRESPONSIVE
        ? s.replace(re, (m: string, ...rest: unknown[]) => (PERSON_BEFORE.test(s.slice(Math.max(0, (rest.at(-2) as number) - 40), rest.at(-2) as number)) ? to : m))
        : s.replace(re, to);
    }
    return s;
  }

  return { canonical, correct };
}

/** Full forms of the lexicon's stems (its patterns write "anaphyla\\w*", "suicid\\w*"), so typos of them are corrected too. */
export const STEM_WORDS: readonly string[] = [
  'anaphylaxis', 'anaphylactic', 'unconscious', 'unresponsive', 'seizure', 'seizures', 'suicidal', 'suicide',
  'overdose', 'overdosed', 'diarrhoea', 'diarrhea', 'vomiting', 'vomited', 'breathing', 'breathless', 'breathe',
  'meningitis', 'convulsing', 'convulsion', 'convulsions', 'haemorrhage', 'hemorrhage', 'paracetamol', 'temperature',
  'feverish', 'swelling', 'swollen', 'bleeding', 'dizziness', 'nauseous', 'nausea', 'stomach', 'pneumonia',
  'infection', 'testicle', 'testicles', 'pregnant', 'pregnancy', 'asthma', 'inhaler', 'wheezing', 'wheezy',
  'headache', 'migraine', 'numbness', 'tingling', 'paralysed', 'paralyzed', 'slurred', 'slurring', 'drooping',
  'confused', 'confusion', 'disorientated', 'disoriented', 'collapsed', 'fainted', 'poisoning', 'poisoned',
  'swallowed', 'tablets', 'medicine', 'medication', 'bleach', 'elephant', 'unbearable', 'excruciating',
  'breathlessness', 'palpitations', 'vision', 'blurred', 'throat', 'tongue', 'choking', 'gasping', 'shivering',
  'mottled', 'blotchy', 'purple', 'spots', 'glass', 'stiff', 'sudden', 'suddenly', 'severe', 'worst', 'crushing',
  'squeezing', 'pressure', 'tightness', 'chest', 'sweating', 'clammy', 'sweaty', 'jerking', 'shaking', 'twitching',
  // the words the fact parsers read (ages, durations, temperatures)
  'thermometer', 'degrees', 'three', 'seven', 'eight', 'eleven', 'twelve', 'fifteen', 'twenty', 'thirty', 'weeks',
  'months', 'hours', 'minutes', 'years', 'yesterday', 'tonight', 'morning', 'breast', 'behind', 'heavy', 'sticky',
  'black', 'purple', 'pouring', 'gushing', 'spurting', 'thumb', 'drowsy', 'sleepy', 'warfarin', 'inhaler', 'helping',
];

/** Literal words of 4+ letters in regex sources (the lexicon's vocabulary for typo correction). */
export function wordsOfPatterns(sources: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const src of sources) {
    // drop escapes (\\w, \\b, \\d) so they do not glue to words
    for (const w of src.replace(/\\[a-z]/gi, ' ').toLowerCase().match(/[a-z]{4,}/g) ?? []) out.add(w);
  }
  return [...out];
}
