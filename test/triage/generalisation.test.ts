/**
 * The layer that lets the red-flag screen generalise past its phrase lexicon (issue 34, item 3):
 * the canonical reading (apostrophes, typos, lay synonyms: triage-lexical.ts), the co-occurrence
 * families and their vetoes (triage-cooccur.ts), clause-scoped negation, age parsing, and the
 * safer defaults. The wording here is fresh (not the probe sets' or the vignettes'), and every
 * family has a harmless look-alike that must stay below emergency.
 */
import { describe, expect, it } from 'vitest';
import { createRulesEngine, lexiconCanonicalizer } from '../../engine/triage/rules-engine.ts';
import { parseAgeYears } from '../../engine/triage/triage-text.ts';
import { first, itScreensRedFlags } from './triage-helpers.ts';

const canon = lexiconCanonicalizer();
const engine = createRulesEngine({ canonicalizer: canon });

describe('canonical reading', () => {
  it.each([
    ['unconsious', 'unconscious'], ['siezure', 'seizure'], ['breathng', 'breathing'], ['swolen', 'swollen'],
    ['anafalaxis', 'anaphylaxis'], ['temprature', 'temperature'], ['elefant', 'elephant'],
  ])('corrects the typo %s to the lexicon word %s', (typo, word) => {
    expect(canon.correct(typo)).toBe(word);
  });

  it('corrects a 4-letter typo by one edit only, and a veto holds when only the canonical reading shows it', async () => {
    expect(canon.correct('heda')).toBe('head');
    const r = await first(engine, "I cant lift my arm above my haed since I hurt my shuolder");
    expect(r.acuity).not.toBe('emergency');
  });

  it('leaves English words and short words alone (breed is not bleed)', () => {
    for (const w of ['breed', 'blend', 'chess', 'brain', 'fit', 'cheat']) expect(canon.correct(w), w).toBeNull();
  });

  it('restores apostrophes and maps lay synonyms to the lexicon words', () => {
    expect(canon.canonical("he isnt answering and hes slumped over")).toBe("he is unresponsive and he's collapsed");
    expect(canon.canonical('an ache behind my breastbone')).toBe('an ache behind my chest');
    expect(canon.canonical('my phone is not answering')).toBe('my phone is not answering');
  });
});

describe('ages in lay and clinical shorthand', () => {
  it.each([
    ['our 3yo has a rash', 3], ['20mo with a high temp', 20 / 12], ['she is 5 weeks and very hot', 5 / 52],
    ['my nine day old son', 9 / 365], ['3wk old baby', 3 / 52],
  ])('%s', (text, years) => {
    expect(parseAgeYears(text)).toBeCloseTo(years, 5);
  });

  it('a duration is not an age', () => {
    expect(parseAgeYears('coughing for 3 mths now')).toBeNull();
    expect(parseAgeYears("I'm 30 weeks pregnant")).toBeNull();
  });
});

const EMERGENCIES: Array<[family: string, message: string, flag: RegExp]> = [
  ['chest: site synonym and spread (NHS heart attack)', 'tight band feeling in the middle of my chest going into my left shoulder and I feel sick', /chest pain/],
  ['breathing: cannot finish a sentence (NHS 999)', 'my wife is wheezing and too breathless to finish a sentence', /difficulty breathing/],
  ['breathing: reliever does nothing (NHS asthma attack)', 'used my blue inhaler 6 times and it is making no difference', /difficulty breathing/],
  ['glass test with a jam jar (NHS meningitis)', 'red spots on his chest that are still there when I press a jam jar on them', /rash that does not fade/],
  ['collapse: crumpled to the floor', 'my colleague crumpled to the floor and is not reacting to us', /collapse/],
  ['seizure: limbs jerking on the floor', 'my son is on the floor with his arms and legs jerking', /seizure/],
  ['poisoning: a child and a household product (APC)', 'my 3 year old drank some drain cleaner', /poisoning/],
  ['poisoning: a child into medicine (APC)', 'my little girl got into my iron tablets', /poisoning/],
  ['bleeding: soaks through a dressing (ACEP)', 'the cut on his leg is soaking right through the bandage', /bleeding/],
  ['head injury with vomiting (NHS)', 'she clonked her head on the climbing frame and has puked three times', /head injury/],
  ['stroke: face slipped on one side (FAST)', 'his mouth has slipped on one side and his words are slurry', /face drooping/],
  ['typo: vomitting blood', 'been vomitting blood this morning', /vomiting or coughing up blood/],
  ['988: not safe', "I can't keep myself safe tonight", /suicide/],
  ['infant fever in Fahrenheit (AAP)', 'my 5 week old has a temp of 100.6 F', /baby under 3 months/],
  ['a fit reported by a parent, not family history', 'my daughter had a fit', /seizure/],
  ['passed out is not "passed away"', 'my brother passed out at the bar and we cannot wake him', /collapse/],
  ['thunderclap without the word headache (NHS)', 'a sudden pain at the back of my head like being kicked, never had anything like it', /sudden, very severe headache/],
  ['testicle slang (NHS torsion)', "he's in agony in his nuts and has been sick", /testicle/],
  ['988: a means and a plan', 'I have pills saved up and I know when I will do it', /suicide/],
  ['988: wishing not to exist', 'some days I just wish I could stop existing', /suicide/],
  ['bleeding: a towel soaked red (ACEP)', 'she sliced her palm and the tea towel is soaked red already', /bleeding/],
  ['nosebleed lasting half an hour (NHS)', 'his nosebleed has been going for half an hour', /nosebleed/],
  ['chemical splash to the eye (NHS eye injuries)', 'bleach splashed in my eye while cleaning', /burn/],
  ['speech with an adverb between (FAST)', 'her words are suddenly all jumbled', /speech/],
  ['not moving or talking (NHS 999)', "grandma slipped in the bath and isn't moving or talking", /collapse/],
  ['chest pain like indigestion with breathlessness (NHS heart attack)', 'indigestion feeling in my chest and I am really short of breath', /chest pain/],
  ['low blood sugar and drowsy (NHS hypoglycaemia)', 'her blood sugar is 2.4 and she is drowsy and not making sense', /low blood sugar|confusion/],
  ['green vomit in a baby (NHS)', 'my 3 week old has been sick and it is bright green', /green vomit/],
  ['a bulging soft spot (NHS meningitis)', "my 4 month old's soft spot is bulging and he is very hot", /rash that does not fade|stiff neck/],
  ['carbon monoxide (NHS)', 'the CO alarm is beeping and we all feel dizzy and sick', /poisoning/],
  ['wrists cut (NHS 999: suicide attempt)', 'my flatmate has slashed her wrists', /suicide/],
  ['acute glaucoma: a suddenly very painful eye with halos (NHS)', 'my eye is suddenly agony and I see halos around lights', /painful eye/],
  ['hit by a vehicle (NHS 999)', 'she was run over by a car reversing out of a drive', /serious injury/],
  ['a tearing pain through to the back (NHS aortic dissection)', 'a tearing pain in my chest going through to my back', /tearing|chest pain/],
  ['"I feel like I\'m dying" with an infection (UK Sepsis Trust)', 'I have a kidney infection, I feel like I am dying and I am shivering like crazy', /serious infection/],
  ['vomiting a cupful of blood (NHS)', 'he threw up what looked like a mug full of blood', /vomiting or coughing up blood/],
  ['a negation inside another group ("can\'t stand the light")', "roasting temperature, stiff neck and he can't bear the light", /stiff neck/],
];

const LOOK_ALIKES: Array<[what: string, message: string]> = [
  ['a child given a normal dose', 'my son took his calpol for a temperature and is asleep'],
  ['food poisoning is not a poisoning', 'I think I have food poisoning from a takeaway, been sick twice'],
  ['not responding to antibiotics', 'my chest infection is not responding to antibiotics'],
  ['chesty cough with sore ribs', 'my ribs are sore from coughing with this chest infection'],
  ['a shoulder that will not lift after an injury', "I can't raise my arm over my head since I strained my shoulder"],
  ['a blocked nose', "I'm finding it hard to breathe through my nose with this cold"],
  ['an inhaler running low', "my inhaler isn't helping as much as it used to, I need a new one"],
  ['acne that does not fade', "these spots on my chin don't fade even with cream"],
  ['shivering with a fever', 'shaking all over with a fever of 38.4'],
  ['snoring pauses', 'my partner snores and seems to stop breathing for a few seconds in his sleep'],
  ['known dementia, nothing new', 'dad has dementia and is confused as usual, nothing new'],
  ['a double vitamin', 'I accidentally took my vitamin twice today'],
  ['a bump with no warning signs', 'I bashed my head on a shelf, small lump, no sickness or drowsiness'],
  ['a rope swing', 'I fell off the rope swing and grazed my knee, I know where the plasters are'],
  ['a cut soaked in water', 'I cut my thumb and soaked it in warm salty water, it looks fine'],
  ['a short nosebleed a few times a week', 'I get nosebleeds a few times a week that last about 2 minutes'],
  ['water splashed in the eye', 'I splashed pool water in my eye and it stings a bit'],
  ['a toddler in speech therapy', "my toddler's speech is delayed, she has speech therapy"],
  ['a teenager not talking to a parent', "my teenage son isn't talking to me since our argument"],
  ['indigestion after food, nothing else', 'indigestion in my chest after a big curry, no other symptoms'],
  ['a sugar reading and a number of days', 'my blood sugar has been steady for 3 days now'],
  ['green vomit in an adult, nothing else', 'I was sick this morning and it was a bit green, feel ok now'],
  ['a gas fire with no symptoms', 'we have a gas fire and want to know if we need a CO alarm'],
  ['sick at the sight of blood', 'I feel sick when I see blood'],
  ['sick after a blood test', 'I threw up after my blood test this morning'],
  ['a minor car accident, everyone well', 'we had a minor car accident, just a bump, everyone fine'],
  ['a car door to the head', 'I hit my head on the car door frame, no other symptoms'],
  ['a torn muscle', 'I tore a muscle in my back lifting, ripping pain when I bend'],
  ['a sore eye with hay fever', 'my eyes are really sore and itchy with hay fever'],
  ['family history stays someone else\'s', 'my grandfather had a seizure when he was 60'],
  ['a measured temperature under 38 in a baby over 3 months is no fever', 'my 7 month old has a temperature of 37.4 and a runny nose'],
];

describe('generalisation: co-occurrence, synonyms, typos', () => {
  itScreensRedFlags(engine, EMERGENCIES, LOOK_ALIKES);
});

describe('negation scope', () => {
  it('a denial ends at "and" with a new subject', async () => {
    const r = await first(engine, "I don't have a temperature and my lips have gone blue");
    expect(r.acuity).toBe('emergency');
  });

  it('"has gone on" and "stopped breathing" are not resolutions', async () => {
    expect((await first(engine, 'he is having a seizure and it has gone on for ages')).acuity).toBe('emergency');
    expect((await first(engine, 'she collapsed and stopped breathing')).acuity).toBe('emergency');
    // a real resolution still resolves
    expect((await first(engine, 'my nose was bleeding but it has stopped now')).acuity).not.toBe('emergency');
  });
});

describe('safer defaults', () => {
  it('a sudden or severe cue in a high-risk system is urgent and asks the warning-sign question first', async () => {
    const r = await first(engine, 'something sudden happened with my vision this afternoon');
    expect(r.acuity).toBe('urgent');
    expect(r.asked[0]).toBe('gate_general');
  });

  it('a fever in a baby whose age is not yet known is urgent at least', async () => {
    const r = await first(engine, 'my baby has a fever');
    expect(['urgent', 'emergency']).toContain(r.acuity);
  });
});
