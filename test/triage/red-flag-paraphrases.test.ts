/**
 * The red-flag screen in lay words (issue 34, item 3: generalise to unseen cases). For each family
 * in triage-rules.ts, paraphrases a patient or carer writes for the published warning sign (NHS
 * "call 999" and condition pages, ACEP, UK Sepsis Trust, 988, NICE CG176, AAP) must give an
 * emergency; the look-alikes next to them (the sign denied, or a harmless cousin of it) must not.
 */
import { describe, expect, it } from 'vitest';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';
import { first, itScreensRedFlags } from './triage-helpers.ts';

const engine = createRulesEngine();

const PARAPHRASES: Array<[family: string, message: string, flag: RegExp]> = [
  ['chest: squeezing, vice (NHS heart attack)', "my dad's chest feels like it's in a vice and he's gone grey and sweaty", /chest pain/],
  ['chest: weight on it, spreading to the jaw', 'there is pressure in my chest spreading into my jaw', /chest pain/],
  ['chest: ache going down the arm', 'she has chest pain and the ache is going down her left arm', /chest pain/],
  ['breathing: cannot get air in (NHS 999)', "I can't get any air in", /difficulty breathing/],
  ['breathing: stopping between words', 'she keeps stopping between words to breathe', /difficulty breathing/],
  ['breathing: child sucking in under the ribs, grunting', 'my baby is grunting and the skin is sucking in under her ribs', /difficulty breathing/],
  ['breathing: lips going grey', 'his lips look a bit blue', /difficulty breathing/],
  ['breathing: blue tinge around the mouth', 'there is a blue tinge around her lips', /difficulty breathing/],
  ['stroke: face gone droopy, words jumbled (FAST)', "my wife's face has gone droopy on one side and her words are all jumbled", /face drooping/],
  ['stroke: talking gibberish, arm gone floppy', "he's talking gibberish and his arm has suddenly gone all floppy", /face drooping/],
  ['stroke: sight lost in one eye (BE-FAST)', 'I have just lost the sight in my left eye', /vision/],
  ['anaphylaxis: throat tightening', 'my throat is tightening after eating prawns', /lips, tongue or throat/],
  ['anaphylaxis: hoarse voice after a sting (NHS)', 'my voice has gone hoarse after a wasp sting', /lips, tongue or throat/],
  ['sepsis: fast breathing and mottled skin with an infection', "my grandad has a chest infection and now he's breathing really fast and his skin is mottled", /serious infection|difficulty breathing/],
  ['sepsis: no pee all day, shivering uncontrollably (UK Sepsis Trust)', "I've had a bug and I haven't peed all day and I'm shivering uncontrollably", /serious infection/],
  ['meningitis: purple dots that do not go away under a glass', "purple dots on his legs that don't go away when I press a glass on them", /rash that does not fade/],
  ['thunderclap: worst headache of my life', 'worst headache of my life came on while lifting', /sudden, very severe headache/],
  ['seizure: eyes rolled back, not responding', "he's shaking and his eyes rolled back and he won't respond", /seizure/],
  ['collapse: out cold', 'my mum fell and she is out cold', /collapse/],
  ['suicidal: want to end it all (988)', 'I want to end it all', /suicide/],
  ['suicidal: stockpiling, a burden (988 warning signs)', "I've been saving up my pills, I'm a burden to everyone", /suicide/],
  ['suicidal: no point any more, tonight', "I don't see the point anymore and tonight is the night", /suicide/],
  ['overdose: a whole bottle', 'took a whole bottle of pills an hour ago', /poisoning/],
  ['poisoning: a child into grandma\'s pills (APC)', "my toddler swallowed some of grandma's pills", /poisoning/],
  ['poisoning: button battery', 'my son swallowed a button battery', /poisoning/],
  ['bleeding: soaked through a towel', "my hand won't stop bleeding, I've soaked through a tea towel", /bleeding/],
  ['GI bleed: poo like tar (NHS stomach ulcer)', 'my poo has gone black and looks like tar', /black tarry stools/],
  ['GI bleed: bringing up blood', 'been bringing up blood when I cough', /coughing up blood/],
  ['lung bleed: blood in the phlegm', "there's blood in my phlegm", /coughing up blood/],
  ['DKA: meter reads HI and vomiting (NHS DKA)', 'the meter just reads HI and I keep being sick', /blood sugar/],
  ['DKA: pear-drop breath', "my breath smells like pear drops, my sugars are sky high and I've been vomiting", /blood sugar/],
  ['infant fever: "wk" spelling (AAP)', '3 wk old baby temp 38.1', /baby under 3 months/],
  ['testicular torsion: agony and being sick (NHS)', "my son is in agony, his testicle hurts and he's been sick", /testicle/],
  ['ectopic: one-sided pain low down and faint (NHS)', "I'm 8 weeks pregnant with pain low down on one side and I feel faint", /pregnancy/],
  ['ectopic: pain at the top of the shoulder', "I'm 6 weeks pregnant, tummy pain and a pain at the top of my shoulder", /pregnancy/],
  ['cauda equina: cannot feel when wiping (NHS)', "I can't feel my bottom when I wipe and I have back pain", /bladder or bowel/],
  ['cauda equina: bad back and cannot pee', "bad back and now I haven't been able to pee at all since this morning", /bladder or bowel/],
  ['head injury: clear fluid from the nose (NICE CG176)', "my daughter hit her head and now there's clear fluid coming out of her nose", /head injury/],
  ['head injury: drowsy', "banged his head and now he's really drowsy", /head injury/],
  ['child: very sleepy with a fever (NHS 999, NHS sepsis in children)', 'baby has a temp and is very sleepy and not feeding, 5 months', /very sleepy/],
  ['child: hard to wake with diarrhoea (NHS dehydration)', "my 2 year old has had diarrhoea all day and now she's really sleepy and hard to wake", /sleepy|hard to wake/],
  ['child: weak, high-pitched cry (NHS sepsis)', "my baby's cry sounds weak and high pitched and she has a temperature", /high-pitched cry/],
  ['chest: clutching the chest, sweating', 'my husband is clutching his chest and sweating buckets', /chest pain/],
  ['stroke: cannot see out of one eye', "she suddenly can't see properly out of one eye and has a headache", /vision/],
  ['bleeding: pouring with blood', "I cut my wrist and its pouring with blood", /bleeding/],
  ['overdose: a count of tablets', "i've taken 20 sleeping tablets", /poisoning/],
  ['overdose: a load of paracetamol', 'I swallowed a load of paracetamol about an hour ago', /poisoning/],
  ['suicidal: sleep and never wake up (988)', 'I just want to go to sleep and never wake up', /suicide/],
  ['thunderclap: head going to explode, sudden', "my head feels like it's going to explode, sudden and unbearable", /sudden, very severe headache/],
  ['breathing: typo "cant breath"', 'i cant breath', /difficulty breathing/],
];

const LOOK_ALIKES: Array<[what: string, message: string]> = [
  ['black stool denied inside the phrase', 'my poo is not black, just a bit loose'],
  ['no blood in the phlegm', 'no blood when I cough, just green phlegm'],
  ['lips not blue', "lips aren't blue, just a chesty cough"],
  ['suicidal thoughts denied', 'not suicidal, just stressed at work'],
  ['a usual dose, not an overdose', 'I took my tablets this morning as usual'],
  ['swallowing one\'s own tablets', 'I swallowed my tablets with water this morning'],
  ['a normal dose of paracetamol', 'I took two paracetamol for my headache'],
  ['throat swelling denied', 'my throat is not swelling, just sore'],
  ['hoarse without an allergen', "I'm a bit hoarse after shouting at the football"],
  ['hoarse after a meal and a painkiller, no allergen', 'I ate dinner and took paracetamol and my voice is hoarse'],
  ['back pain with the cauda equina signs denied', "I've got a bad back from gardening, peeing normally, no numbness"],
  ['minor head bump, signs denied', 'bumped my head on a cupboard, no sleepiness, no vomiting'],
  ['mild testicle ache, not sudden', 'my balls ache a bit after cycling'],
  ['fast breathing after exercise', "I'm breathing fast after my run, fine now"],
  ['blotchy eczema rash without infection', 'i have a blotchy rash from eczema'],
  ['hot weather, not a fever', 'I feel so hot in this weather'],
  ['a heavy arm after the gym', 'my arm feels heavy after the gym'],
  ['chest tight with a cold, breathing denied', 'my chest is a bit tight with a cold, no shortness of breath'],
  ['period pain low down', 'my period pain is low down and crampy'],
  ['a warm baby over 3 months, no fever', 'my baby feels a bit warm, 8 months old, temp 37.8'],
  ['an accident, not self-harm', 'I hurt myself playing football'],
  ['a cut while shaving, not self-harm', 'I cut myself shaving this morning'],
  ['daily medicines, not an overdose', 'I take a lot of tablets for my heart'],
  ['a dose of tablets a day', "I'm on 12 tablets a day"],
  ['a normal dose of ibuprofen', 'I took 2 ibuprofen'],
  ['a sleepy baby after jabs, no fever', 'my baby is a bit sleepy after her jabs, feeding fine, no temperature'],
  ['"killing me" about a known migraine', 'this headache is killing me, had it on and off for a week, usual migraine'],
];

describe('red flags in lay words', () => {
  itScreensRedFlags(engine, PARAPHRASES, LOOK_ALIKES);

  it('a symptom said with "can\'t" does not negate the sign after it (NegEx pseudo-trigger)', async () => {
    const r = await first(engine, "I can't catch my breath and my lips are going grey");
    expect(r.acuity).toBe('emergency');
    expect(r.redFlags.join('; ')).toMatch(/difficulty breathing/);
    // a real negation still negates
    const denied = await first(engine, "I can't say my lips are blue, they look normal, just a cough");
    expect(denied.acuity).not.toBe('emergency');
  });

  it('sepsis signs need an infection, fever or confusion: fast breathing alone is not sepsis', async () => {
    const r = await first(engine, 'my breathing is really fast when I panic');
    expect(r.redFlags.join('; ')).not.toMatch(/serious infection/);
  });
});
