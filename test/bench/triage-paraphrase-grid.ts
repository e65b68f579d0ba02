/**
 * Mechanical paraphrase grid for the red-flag screen (issue 34, item 3: generalise to unseen
 * wording). Each family of a published warning-sign list (NHS "call 999" and condition pages,
 * ACEP, UK Sepsis Trust, AAP, 988, America's Poison Centers) is written as templates whose slots
 * take lay synonyms, persons (first and third), and then each sentence again with its apostrophes
 * dropped and one typo (two letters swapped in its longest word). Prints, per family, the share
 * the rules engine's screen calls an emergency, and every miss with --verbose. A script, not a
 * test: it measures coverage, it does not define it.
 *
 *   node test/bench/triage-paraphrase-grid.ts [--verbose]
 */
import { parseArgs } from 'node:util';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';

interface Person { s: string; p: string; be: string; has: string }
const PERSONS: Person[] = [
  { s: 'I', p: 'my', be: 'am', has: 'have' },
  { s: 'my dad', p: 'his', be: 'is', has: 'has' },
  { s: 'she', p: 'her', be: 'is', has: 'has' },
];

type Slots = Record<string, string[]>;
/** Every combination of the slots in `template` ({name}; {s}, {p}, {be}, {has} are the person's). */
function expand(template: string, slots: Slots): string[] {
  const out: string[] = [];
  for (const person of PERSONS) {
    let forms = [template];
    for (const [name, values] of Object.entries(slots)) {
      forms = forms.flatMap((f) => (f.includes(`{${name}}`) ? values.map((v) => f.replaceAll(`{${name}}`, v)) : [f]));
    }
    // the person last, so that slot values may name them too ("{p} jaw")
    out.push(...forms.map((f) => f.replace(/\{s\}/g, person.s).replace(/\{p\}/g, person.p).replace(/\{be\}/g, person.be).replace(/\{has\}/g, person.has)));
  }
  return [...new Set(out)];
}

/** The sentence with apostrophes dropped and two letters of its longest word swapped (a typo). */
function roughen(s: string): string {
  const words = s.replace(/'/g, '').split(' ');
  let i = 0;
  words.forEach((w, j) => { if (w.length > words[i]!.length) i = j; });
  const w = words[i]!;
  if (w.length >= 6) words[i] = w.slice(0, 3) + w[4] + w[3] + w.slice(5);
  return words.join(' ');
}

const FAMILIES: Array<{ family: string; source: string; templates: Array<[string, Slots]> }> = [
  { family: 'heart attack', source: 'NHS heart attack; ACEP', templates: [
    ['{s} {has} a {q} pain in {p} {site} and {assoc}', { q: ['crushing', 'heavy', 'tight', 'squeezing'], site: ['chest', 'breastbone', 'middle of the chest'], assoc: ['feel sweaty', 'it is going into {p} jaw', 'it spreads down {p} left arm', 'feel sick'] }],
  ] },
  { family: 'severe breathlessness', source: 'NHS 999 (severe difficulty breathing)', templates: [
    ['{s} {verb}', { verb: ["can't breathe", 'is gasping for air', "can't get {p} words out", 'is fighting for breath', 'can barely breathe'] }],
    ['{p} lips {look} {colour}', { look: ['are', 'have gone', 'look', 'are turning'], colour: ['blue', 'grey', 'purple', 'bluish'] }],
  ] },
  { family: 'stroke (FAST)', source: 'NHS stroke', templates: [
    ['{p} face {droop} on one side', { droop: ['is drooping', 'has dropped', 'has fallen', 'looks lopsided'] }],
    ['{s} suddenly {cant} {p} {side} arm', { cant: ["can't lift", "can't move", "can't raise"], side: ['left', 'right'] }],
    ['{p} speech is suddenly {speech}', { speech: ['slurred', 'garbled', 'jumbled', 'all muddled'] }],
  ] },
  { family: 'seizure', source: 'NHS 999 (seizure)', templates: [
    ['{s} {be} having a {fit} right now', { fit: ['seizure', 'fit', 'convulsion'] }],
    ['{s} {be} {jerk} and not responding', { jerk: ['shaking', 'jerking', 'twitching'] }],
  ] },
  { family: 'collapse', source: 'NHS 999 (unconscious)', templates: [
    ['{s} {fell} and {wake}', { fell: ['collapsed', 'passed out', 'keeled over'], wake: ["won't wake up", 'is not responding', 'is unconscious'] }],
  ] },
  { family: 'anaphylaxis', source: 'NHS anaphylaxis; NHS 999', templates: [
    ['{p} {part} {swell} after {trigger}', { part: ['lips are', 'tongue is', 'throat is'], swell: ['swelling', 'swelling up', 'swollen', 'puffing up'], trigger: ['eating peanuts', 'a bee sting', 'taking penicillin'] }],
  ] },
  { family: 'heavy bleeding', source: 'ACEP; NHS 999', templates: [
    ['{p} {wound} {bleed}', { wound: ['cut', 'wound', 'leg'], bleed: ["won't stop bleeding", 'is bleeding heavily', 'is pouring with blood', 'is spurting blood'] }],
  ] },
  { family: 'suicidal intent', source: '988 Lifeline warning signs', templates: [
    ['I {want} {act}', { want: ['want to', 'am going to', 'keep thinking about how to'], act: ['kill myself', 'end my life', 'end it all', 'take my own life'] }],
  ] },
  { family: 'overdose', source: "NHS overdose; America's Poison Centers", templates: [
    ['{s} {took} {amount} {drug}', { took: ['took', 'swallowed'], amount: ['a whole packet of', '30', 'loads of'], drug: ['paracetamol', 'pills', 'sleeping tablets'] }],
  ] },
  { family: 'meningitis', source: 'NHS meningitis', templates: [
    ['{p} rash {fade} when {s2} {press} a glass on it', { fade: ["doesn't fade", "won't go away", 'stays'], s2: ['I'], press: ['press', 'roll'] }],
    ['{s} {has} a {fever} and a stiff neck', { fever: ['high temperature', 'fever', 'temp of 39'] }],
  ] },
  { family: 'infant fever', source: 'AAP fever and your baby; NHS fever in children', templates: [
    ['{age} old baby with a {temp}', { age: ['6 week', '2 month', 'five week', '10 day'], temp: ['temperature of 38.2', 'fever of 38.5', 'temp of 101 F'] }],
  ] },
];

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { verbose: { type: 'boolean', default: false } } });
  const engine = createRulesEngine();
  let all = 0;
  let hit = 0;
  console.log('paraphrase grid: share of each family the red-flag screen calls an emergency');
  for (const fam of FAMILIES) {
    const sentences = fam.templates.flatMap(([t, slots]) => expand(t, slots));
    const variants = [...sentences, ...sentences.map(roughen)];
    const misses: string[] = [];
    for (const text of variants) {
      const r = engine.screen({ turns: [{ role: 'patient', text }] });
      if (r.acuity !== 'emergency') misses.push(text);
    }
    all += variants.length;
    hit += variants.length - misses.length;
    console.log(`  ${fam.family.padEnd(22)} ${(((variants.length - misses.length) / variants.length) * 100).toFixed(1).padStart(5)}% of ${variants.length} (${fam.source})`);
    if (values.verbose) for (const m of misses) console.log(`      miss: ${m}`);
  }
  console.log(`  all                    ${((hit / all) * 100).toFixed(1).padStart(5)}% of ${all}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
