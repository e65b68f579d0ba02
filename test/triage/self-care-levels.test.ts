/**
 * The non-emergent vs self-care split (issue 34, three-level accuracy): the NHS "treat it yourself /
 * a pharmacist can help" conditions reach self-care when the page's conditions hold, a clinician
 * when they do not (a baby too young, an older adult, too long, a fever, a warning sign), and their
 * benign look-alikes never reach 911. The wording here is fresh (not the vignettes' or the probes').
 */
import { describe, expect, it } from 'vitest';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';
import type { TriageResult, TriageTurn } from '../../engine/triage/triage.port.ts';
import { parseSeverity } from '../../engine/triage/triage-text.ts';

const engine = createRulesEngine();

/** Runs a conversation to its end, answering each asked key from `facts` and "no" otherwise. */
async function triage(text: string, facts: Record<string, string>): Promise<TriageResult> {
  const turns: TriageTurn[] = [{ role: 'patient', text }];
  for (let i = 0; i < 10; i++) {
    const r = await engine.assess({ turns: [...turns] });
    if (r.complete || r.acuity === 'emergency') return r;
    turns.push({ role: 'assistant', text: r.reply, asked: r.asked });
    turns.push({ role: 'patient', text: r.asked.map((k) => facts[k] ?? 'no').join('. ') });
  }
  throw new Error(`triage did not finish: ${text}`);
}

const adult = { age: '32', sex: 'female', pregnancy: 'no', duration: '2 days', severity: '3 out of 10', medicines: 'none', allergies: 'none', conditions: 'none' };
const child = (age: string, duration = '2 days') => ({ ...adult, age, sex: 'male', duration });

describe('self-care when the NHS page says you can usually treat it yourself', () => {
  it.each([
    ['teething (dribble and chewing, under 1)', 'he is 7 months and drooling non stop, chomping on his hands and a bit whiny, no temperature', child('7 months')],
    ['colic (a few weeks old, feeding well)', 'our 4 week old screams for hours each evening and nothing settles her, but she feeds fine and is putting weight on', child('4 weeks', '10 days')],
    ['nappy rash', 'red sore skin all over the nappy area, otherwise her usual smiley self', child('10 months')],
    ['conjunctivitis', 'woke up with my eye glued shut with yellow gunk, its pink and gritty but I can see normally', adult],
    ['a mouth ulcer', 'there is a little white ulcer on the inside of my lip that stings with orange juice', adult],
    ['a tension-type headache', 'a dull headache every afternoon this week after long hours at the laptop', { ...adult, duration: '5 days' }],
    ['threadworms', 'my son has threadworms, I saw them in his poo and his bottom itches at night', child('6', '4 days')],
    ['a verruca', 'a verruca on the ball of my foot, a rough patch with little black dots', { ...adult, duration: '6 weeks' }],
    ['a fungal nail', 'two of my toenails are thick and yellowish and crumble at the edges', { ...adult, age: '58', duration: '4 months' }],
    ['chickenpox in a well child', 'she has caught chickenpox from nursery, itchy blisters on her back but drinking and playing', child('3')],
    ['a viral rash that fades under the glass', 'a blotchy red rash on his chest with his cold, I pressed a glass on it and it faded', child('2')],
    ['flu in a well adult', 'flu has floored me, temperature, achy all over and a dry cough since yesterday', { ...adult, duration: '1 day' }],
    ['a faint at a jab, recovered', 'I fainted when I had my flu jab, came round straight away and feel totally normal now', { ...adult, age: '24' }],
    ['reflux after meals', 'burning rising up from my chest into my throat after curry, with an acid taste, Gaviscon sorts it', { ...adult, duration: '3 weeks' }],
    ['a known panic attack that passed', 'had another of my panic attacks at work, heart pounding and could not get my breath, it calmed after 10 minutes as usual', { ...adult, severity: '2' }],
    ['a new antidepressant, first week', 'I started citalopram 4 days ago and feel a bit sick and on edge, sleeping badly', { ...adult, duration: '4 days' }],
    ['a faint after standing in the heat without breakfast', 'he passed out at church after standing for ages in the heat with no breakfast, came round at once and is fine now', child('13', 'this morning')],
    ['a bite from something unseen', 'something bit me on the ankle in the garden, an itchy red lump, no swelling anywhere else', adult],
    ['period pain', 'period cramps again this month, paracetamol takes the edge off', { ...adult, age: '17', duration: '1 day', severity: '5' }],
    ['a pulled hamstring', 'tweaked my hamstring at the park run, tight and sore when I stretch', { ...adult, duration: '1 day' }],
    ['a stye', 'a sore red pimple on my eyelid near the lashes', adult],
    ['tired dry eyes from screens', 'my eyes get so dry and strained from the computer at work', { ...adult, duration: '1 month' }],
    ['an ingrown toenail', 'ingrowing toenail on my big toe, a bit sore at the edge', adult],
    ['cradle cap', 'my 6 week old has crusty yellow flakes all over his scalp, he is not bothered', child('6 weeks', '1 week')],
    ['morning sickness with fluids staying down', 'I am 9 weeks pregnant, nauseous every morning but eating small bits and drinking fine', { ...adult, pregnancy: 'yes', duration: '2 weeks' }],
    ['swollen ankles late in pregnancy', 'at 34 weeks pregnant both my ankles are puffy by the end of the day, no headaches, eyesight fine', { ...adult, pregnancy: 'yes', duration: '1 week' }],
  ])('%s', async (_name, text, facts) => {
    expect((await triage(text, facts)).acuity).toBe('self_care');
  });
});

describe('a clinician when the same page says so', () => {
  it.each([
    ['a baby under 4 weeks with a sticky eye (NHS conjunctivitis)', 'my 10 day old has a red eye full of sticky yellow discharge', child('10 days', '1 day')],
    ['teething with a high temperature (NHS teething: not a teething sign)', 'I think she is teething, dribbling and chewing, but her temperature is 38.7', child('9 months', '1 day')],
    ['chickenpox in an adult (NHS chickenpox)', 'I have got chickenpox at 35, spots everywhere and I feel rough', { ...adult, age: '35' }],
    ['flu at 80 with a lung condition (NHS flu)', 'my gran has the flu, aching and shivery', { ...adult, age: '80', conditions: 'COPD' }],
    ['crusty golden sores (NHS impetigo)', 'honey coloured crusty sores round his mouth and spreading', child('5')],
    ['an infected cut (NHS cuts and grazes)', 'the cut on my thumb is now red, swollen and oozing pus', adult],
    ['a headache from stress (a clinician for the stress)', 'a dull headache every afternoon this week, I think it is stress at work', { ...adult, duration: '5 days' }],
    ['thrush for the first time (NHS thrush: a GP the first time)', 'itchy down below with a thick white discharge, never had anything like it', adult],
    ['period pain that has changed (NHS period pain)', 'my period pains have got much worse and heavier than they used to be', { ...adult, age: '39', duration: '3 months' }],
    ['sickness in pregnancy with no fluids staying down (NHS hyperemesis)', '8 weeks pregnant and I cannot keep any water down, being sick all day', { ...adult, pregnancy: 'yes', duration: '2 days' }],
    ['a barking cough (NHS croup)', 'my toddler has a cough that sounds like a seal barking and a croaky voice', child('2', '1 day')],
    ['blood on the paper after a poo (NHS bleeding from the bottom)', 'spots of bright red blood on the toilet paper after straining on the loo', adult],
    ['a headache unlike the usual migraines (NICE CKS: a new pattern)', 'I get migraines but this headache is different from my usual ones', { ...adult, severity: '5' }],
    ['grit in the eye (NHS eye injuries)', 'got some grit in my eye cycling, now it is red, watery and gritty', adult],
    ['sunburn that blistered, with a temperature (NHS sunburn: 111)', 'his sunburn has come up in blisters across his shoulders and he is hot and shivery', child('11', '1 day')],
    ['a cold sore spreading near the eye (NHS cold sores)', 'my cold sore has spread up to my eye and the eye is sore', adult],
    ['sinus pain with swelling round the eye (NHS sinusitis)', 'blocked sinuses for 5 days, now my cheek is puffy under my eye', { ...adult, duration: '5 days' }],
    ['a verruca with diabetes (NHS diabetes: foot problems)', 'a painful verruca under my heel, I take insulin for diabetes', { ...adult, conditions: 'type 1 diabetes' }],
    ['heat exhaustion not better after cooling (NHS heat exhaustion)', 'went for a run in the heat and got dizzy and sick, been in the shade with water for 40 minutes and not feeling any better', { ...adult, duration: '1 hour' }],
    ['a sinus headache past 10 days (NHS sinusitis)', 'sinus pain in my cheeks and a blocked nose for two weeks now', { ...adult, duration: '2 weeks' }],
  ])('%s', async (_name, text, facts) => {
    const r = await triage(text, facts);
    expect(['routine', 'urgent']).toContain(r.acuity);
  });
});

describe('benign look-alikes are not emergencies', () => {
  it.each([
    ['hay fever is not a fever', 'hay fever is awful this week, sneezing and streaming eyes', { ...adult, duration: '5 days' }],
    ['a stabbing pain is not a stab wound', 'a stabbing pain in my side when I laugh', adult],
    ['a big toe "on fire" is not a burn', 'my big toe is on fire, red and swollen at the joint', { ...adult, age: '58', sex: 'male' }],
    ['"hit by a bus" is how flu feels', 'I feel like I have been hit by a bus, aching and feverish', adult],
    ['a working CO alarm is the reassurance', 'headache with my cold, our carbon monoxide alarm is working and nobody else is ill', adult],
    ['a migraine with its usual zigzags', 'one of my usual migraines with the zigzag lines first, then a throbbing headache and feeling sick', adult],
    ['a band of shingles blisters round the chest (NHS shingles)', 'burning pain wrapping round from my chest to my back, now a band of red blisters has come up on that side', { ...adult, age: '68', sex: 'male', severity: '6' }],
    ['no pain going into the arm is negated', 'a sore spot on my chest where I bumped it, no pain going into my arm or jaw', adult],
  ])('%s', async (_name, text, facts) => {
    expect((await triage(text, facts)).acuity).not.toBe('emergency');
  });
});

describe('the red flags beside them stay emergencies', () => {
  it.each([
    'I fainted after my blood test and hit my head on the floor, now I keep being sick',
    'my teething baby is drooling and suddenly cannot swallow and is struggling to breathe',
    'my usual migraine but this time my arm went weak and my speech is slurred',
    'did the glass test on her rash and the spots do not fade, she has a fever',
    'burning in my chest after dinner but it is spreading into my left arm and I am sweating',
    'having a panic attack with crushing chest pain and I cannot breathe',
    'my son has been hit by a bus and is not moving',
    'started sertraline last week and now I want to end my life',
    'pain in my chest going through to my back with a band of blisters on one side, and now I am sweating and feel sick',
    'I have migraines but they are nothing like this, it came on all at once like being kicked in the head, the worst ever',
    'she fainted in the hot classroom and had a fit, jerking for a minute',
    'I fainted after my injection and now I am wheezy with hives all over',
    'burning in my chest after my dinner and I feel sick and dizzy',
    'some of the spots faded under the glass but others stayed dark',
    'puffy ankles after my flight, now one calf is red and painful and I am short of breath',
    'my 5 week old with colic now has a temperature of 38.4',
  ])('%s', async (text) => {
    expect((await engine.assess({ turns: [{ role: 'patient', text }], patient: text.includes('5 week') ? { ageYears: 5 / 52 } : undefined })).acuity).toBe('emergency');
  });
});

describe('a severe word rates the pain only when it is said of a symptom', () => {
  it.each([
    ['the pain in my side is terrible', 8], ['terrible stomach cramps', 8], ['a really bad headache', 8], ['agony', 9],
    ['a terrible toothache', 8], ['severe cramping low down', 8],
    ['I feel awful with this cold', null], ['felt like something awful was about to happen', null], ['terrible night, no sleep', null],
  ])('%s -> %s', (text, level) => {
    expect(parseSeverity(text)).toBe(level);
  });

  it('a lone answer to the severity question still counts ("awful")', () => {
    expect(parseSeverity('awful', true)).toBe(8);
  });
});
