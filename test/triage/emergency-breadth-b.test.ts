/**
 * Emergency breadth, part B (issue 34: generalise to unseen cases): the gut, urinary and genital,
 * pregnancy and after-birth, baby and child, poisoning, environmental, skin, trauma, liver and
 * travel presentations the published lists send to 999 / A&E (NHS condition pages, AAP
 * HealthyChildren, CDC, ACEP), each in several lay wordings (parent, partner, typos, third
 * person), and the benign look-alikes those pages set apart, which must not be emergencies.
 */
import { describe, expect, it } from 'vitest';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';
import { converse, first, itScreensRedFlags } from './triage-helpers.ts';

const engine = createRulesEngine();

const EMERGENCIES: Array<[what: string, message: string, flag: RegExp]> = [
  // pregnancy and after the birth
  ['pre-eclampsia: headache and flashing lights at 33 weeks (NHS)', "33 weeks pregnant, awful headache and I keep seeing flashing lights", /pregnancy/],
  ['pre-eclampsia: puffy face and pain under the ribs', "I'm 28 weeks pregnant, my face has gone really puffy and I've got pain under my right ribs", /pregnancy/],
  ['pre-eclampsia: third person, rings will not fit, blurry vision', "my wife is 36 weeks pregnant, her rings won't fit anymore and her vision has gone blurry", /pregnancy/],
  ['fetal movements: not felt the baby move today (NHS)', "I'm 32 weeks pregnant and I haven't felt the baby move at all today", /baby moving less/],
  ['fetal movements: baby much quieter', '30 weeks pregnant and the baby has been moving a lot less since yesterday', /baby moving less/],
  ['waters: broken at 33 weeks (NHS signs of labour)', 'my waters have just broken and I am only 33 weeks pregnant', /waters breaking/],
  ['after the birth: soaking a pad an hour (NHS)', 'had my baby last week and now I am soaking through a pad every hour', /after giving birth/],
  ['after the birth: big clots, feeling faint', 'gave birth 5 days ago, passing huge clots and I feel faint', /bleeding|faint/],
  ['postnatal psychosis: hearing voices after the baby', 'since having our baby 2 weeks ago my wife has started hearing voices and thinks people are watching her', /after having a baby/],
  // babies and children
  ['soft spot bulging (NHS meningitis)', "my 4 month old's soft spot is bulging and she's being sick", /soft spot/],
  ['dehydration: no wet nappy for 12 hours and very sleepy', 'my 9 month old has had diarrhoea, no wet nappy for 12 hours and he is very sleepy', /dehydration|sleepy/],
  ['Kawasaki: fever 5 days, red eyes, cracked lips', 'my 2 year old has had a fever for 5 days now, her eyes are red and her lips are cracked and red', /fever for 5 days/],
  ['intussusception: bouts of screaming with legs drawn up and vomiting', 'my 11 month old keeps screaming in bouts and drawing his knees up, and he has vomited three times', /screaming/],
  ['intussusception: redcurrant jelly poo', 'there is red jelly-like poo in my baby\'s nappy', /jelly/],
  ['green vomit in a toddler (NHS)', 'my 3 year old keeps being sick and it is green', /green vomit/],
  ['green vomit with wet nappies mentioned', 'my 5 week old has been sick 3 times and the last one was green, nappies still wet', /green vomit/],
  ['eyelid cellulitis in a crying child with a fever', "my daughter's eyelid is swollen, red and hot and she's crying with a temperature of 39", /eyelid/],
  ['button battery: swallowed (AAP)', 'my daughter swallowed a small round battery from a toy', /battery|poisoning/],
  ['magnets: swallowed', 'my 4 year old swallowed two magnets', /battery|magnets|poisoning/],
  // poisoning and the environment
  ['carbon monoxide: family with headaches, better outside (NHS)', 'me and my husband both have headaches and feel sick at home but we feel better when we go out', /carbon monoxide|poisoning/],
  ['carbon monoxide: gas fire and the whole family dizzy', 'the whole family has been dizzy with headaches since we started using the gas fire', /carbon monoxide|poisoning/],
  ['heatstroke: hot, not sweating (NHS)', 'my grandad has been out in the sun all day, he is very hot and has stopped sweating', /heatstroke/],
  ['hypothermia: ice cold and mumbling (NHS)', 'found my dad in the garden, he is freezing cold to the touch and mumbling', /very cold/],
  ['smoke: house fire, hoarse and breathless', 'there was a fire in our kitchen and I breathed in a lot of smoke, now my voice is hoarse', /smoke/],
  // skin and infection
  ['eyelid cellulitis with fever (NHS cellulitis)', "my son's eyelid is red, swollen and hot and he has a fever", /eyelid/],
  ['spreading redness with fever', 'the redness on my leg is spreading really fast and I have a fever', /spreading|serious infection/],
  ['tick bite, then fever and rash (CDC)', 'I was bitten by a tick 5 days ago and now I have a high temperature and a rash', /tick bite/],
  ['fever after travel to a malaria area (CDC)', 'just back from Uganda and I have a high fever and chills', /malaria/],
  // injuries
  ['a fingertip cut off', 'I have cut the tip of my finger off with a knife', /cut off/],
  ['a fall from a balcony', 'my friend fell off a balcony and is lying on the ground', /fall from a height|serious injury/],
  ['bleach in the eye (NHS eye injuries)', 'I splashed bleach in my eye', /chemical|burn/],
  ['oven cleaner sprayed into the face, eye burning (unnamed chemical)', 'My husband was cleaning the oven with some heavy duty stuff and it sprayed back into his face, his eye is burning', /chemical/],
  ['pain far more than a small cut deserves, with a fever (NHS necrotising fasciitis)', 'she cut her knee 2 days ago and is screaming in pain way more than the little cut deserves, and she has a high temperature', /pain far worse/],
  ['blood spurting from a wound', 'cut my arm on glass and blood is spurting out', /bleeding|spurting/],
  // genitals and urinary
  ['psychosis with a weapon (NHS psychosis: 999 if in danger)', 'my brother thinks the neighbours are spying on him and he has a knife in his room, says he will deal with them', /weapon|harm/],
  ['priapism (NHS)', 'I have had an erection for 6 hours that will not go down', /erection/],
  ['urinary retention with pain (NHS)', "I can't pee at all since last night and my lower tummy is really painful", /unable to pee|bladder/],
  // more of the published lists
  ['bowel obstruction: no wind, swollen tummy, vomiting (NHS)', "I haven't passed wind for two days, my belly is swollen and I keep throwing up", /pass wind/],
  ['hernia that will not go back (NHS)', "my hernia has gone hard and I can't push it back in", /hernia/],
  ['kidney stone with shivering (NHS)', 'I know I have kidney stones and now I am shivering with a fever', /kidney stone/],
  ['bleeding at 28 weeks (NHS later pregnancy)', "I'm 28 weeks pregnant and I've started bleeding", /24 weeks|pregnancy/],
  ['regular contractions at 33 weeks (NHS premature labour)', 'I am 33 weeks pregnant and having contractions every 5 minutes', /contractions/],
  ['a child who will not walk, with a fever (NHS limping child)', "my 3 year old won't put weight on her leg and has a fever", /will not walk/],
  ['snake bite (NHS)', 'my dog and I were walking and an adder bit my hand', /snake/],
  ['something stuck in a wound (NHS cuts)', "there's a nail stuck in my foot from the building site", /stuck in a wound/],
  ['metal in the eye from grinding (NHS eye injuries)', 'something flew into my eye when I was grinding metal', /eye/],
  ['yellow with bleeding gums (liver)', 'my skin has gone yellow and my gums keep bleeding', /yellow/],
  ['sickle cell with a fever (NHS)', 'my son has sickle cell and his temperature is 38.5', /sickle/],
];

const LOOK_ALIKES: Array<[what: string, message: string]> = [
  ['light brown spotting at 7 weeks without pain (NHS)', "I'm 7 weeks pregnant with some light brown spotting, no pain, not soaking pads"],
  ['swollen ankles in the evening in late pregnancy', '35 weeks pregnant and my ankles swell by the evening, no headache or vision problems'],
  ['baby moving normally', '30 weeks pregnant and the baby is moving loads, just checking my heartburn'],
  ['colic in a settled baby (NHS colic)', 'my 6 week old cries every evening for hours but feeds well and is happy in the day'],
  ['hand, foot and mouth (NHS)', 'my toddler has hand foot and mouth, spots on her hands and feet, drinking fine'],
  ['a viral rash that fades under a glass', 'my daughter has a blotchy red rash that fades when I press a glass on it, she is playing happily'],
  ['traveller\'s diarrhoea without fever', 'back from Spain with diarrhoea for 2 days, no fever, keeping fluids down'],
  ['a small cut that stopped with pressure', 'I cut my finger on a knife, it stopped bleeding after I pressed on it'],
  ['heat exhaustion that settled with cooling (NHS)', 'I felt dizzy in the heat but after resting in the shade and drinking water I feel fine now'],
  ['cold after a walk, warmed up', 'I got cold and shivery on a walk but I am warm now with a cup of tea'],
  ['hay fever puffy eyes', 'my eyes are puffy and itchy from hay fever'],
  ['a tick bite with no symptoms', 'I pulled a tick off my leg this morning, no rash, feel fine'],
  ['a holiday to Spain with a cold', 'came back from Spain with a cold and a runny nose'],
  ['green snot, not vomit', 'my 2 year old has green snot and a cough'],
  ['a battery for the remote, nobody swallowed it', 'I need to change the battery in the remote'],
  ['gradual testicle ache with burning pee', 'my testicle has slowly got achy over 3 days and it burns when I pee'],
  ['breath-holding that resolved at once', 'my toddler held his breath in a tantrum and went a bit blue for a second then was fine straight away'],
  ['a shampoo in the eye', 'got shampoo in my eye, it stings a bit'],
  ['a trip over a step', 'I tripped over a step and grazed my knee'],
  ['a family cold with headaches, no home cause', 'the whole family has a cold with runny noses'],
  ['a home checked for carbon monoxide, nobody else ill', 'headache and blocked nose for 5 days, nobody else at home has headaches and our CO alarm is working'],
  ['constipation with wind passing', 'constipated for 3 days but passing wind fine, no vomiting'],
  ['Braxton Hicks at 30 weeks', '30 weeks pregnant with the odd painless tightening, braxton hicks I think'],
  ['a splinter', 'I have a splinter stuck in my finger'],
  ['a finger trapped in a door', 'trapped my finger in the car door, bruised but moves fine'],
  ['sticky yellow crust on the eyelids', 'sticky eye with yellow crust in the mornings, vision fine'],
  ['sickle cell trait', 'I have sickle cell trait and I am planning a pregnancy'],
  ['a short fall from a step', 'my son fell about 2 feet off the step and grazed his knee'],
  ['a feeling of something stuck in the throat', 'feels like something is stuck in my throat when I swallow'],
  ['a guinea pig bite with a fever, not travel', "I've been bitten by my guinea pig and have a fever"],
  ['a sticky swollen eye with a fever (conjunctivitis)', 'my son has a fever and his eye is swollen and red with sticky gunk'],
  ['a quiet 6-week-old baby, not a pregnancy', 'my 6 weeks old baby is very quiet today but feeding'],
  ['looking green after a car journey', 'he looks green and feels sick after the car journey'],
  ['green poo in a baby who was sick once', 'my baby has green poo and was sick after a feed'],
  ['dust in the eye while cleaning glasses', 'I was cleaning my glasses and got a speck of dust in my eye'],
  ['baby powder in the eye', 'got some baby powder in her eye, she rubbed it'],
  ['two rungs off a ladder with a bruise', 'my dad fell off a ladder, 2 rungs, bruised his leg'],
  ['paranoid worry without voices or danger', 'I get a bit paranoid that people at work talk about me'],
];

describe('emergency breadth B: warning signs in lay words', () => {
  itScreensRedFlags(engine, EMERGENCIES, LOOK_ALIKES);
});

describe('emergency breadth B: the pregnancy warning-sign question', () => {
  it('is asked in pregnancy, and a yes is an emergency (NHS pre-eclampsia, baby movements)', async () => {
    const { results } = await converse(engine, ["I'm 35 weeks pregnant and have had a headache since this morning", 'no']);
    expect(results.flatMap((r) => r.asked)).toContain('gate_pregnancy');
    const i = results.findIndex((r) => r.asked.includes('gate_pregnancy'));
    const { results: after } = await converse(engine, ["I'm 35 weeks pregnant and have had a headache since this morning", ...(i === 1 ? ['no'] : []), 'yes']);
    expect(after.at(-1)!.acuity).toBe('emergency');
  });

  it('a no leaves swollen ankles in late pregnancy to self-care', async () => {
    const { results } = await converse(engine, ['36 weeks pregnant, my ankles swell a bit by the evening and go down overnight', 'no', 'no', '31, female, a week, 2 out of 10', 'none', 'none', 'none', 'no']);
    expect(results.flatMap((r) => r.asked)).toContain('gate_pregnancy');
    expect(results.at(-1)!.acuity).toBe('self_care');
  });
});

describe('emergency breadth B: self-care look-alikes stay self-care (NHS pages written for babies and pregnancy)', () => {
  it('colic in a 5-week-old who feeds well is self-care, after the warning-sign question', async () => {
    const { results } = await converse(engine, ['my 5 week old cries for hours every evening but is feeding well and happy in the day', 'no', 'male', 'none', 'no', 'no', 'no', 'no', 'no']);
    const last = results.at(-1)!;
    expect(last.complete).toBe(true);
    expect(last.acuity).toBe('self_care');
  });

  it('the same crying baby with green vomit is an emergency', async () => {
    const r = await first(engine, 'my 5 week old cries for hours every evening and has been sick, the sick was green');
    expect(r.acuity).toBe('emergency');
  });
});
