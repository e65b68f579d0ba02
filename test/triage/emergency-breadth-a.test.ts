/**
 * Emergency breadth, part A (branch triage-emerg-a): the warning signs of the heart and circulation,
 * breathing, brain and nerves, eyes, ENT, mental health, endocrine and whole-body emergencies that
 * the published lists send to 999 / A&E (NHS condition pages, NICE CKS, ACEP, AAP, 988), each in
 * several lay wordings (third person, typos, similes); beside them the same-day (urgent) problems of
 * those systems, and the look-alikes that must not be an emergency (usual migraine aura, old
 * floaters, a known panic attack, a chest-wall strain, a faint at a blood test, a treated hypo).
 */
import { describe, expect, it } from 'vitest';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';
import type { TriageTurn } from '../../engine/triage/triage.port.ts';

const engine = createRulesEngine();
const screen = (text: string) => engine.screen({ turns: [{ role: 'patient', text }] });

const EMERGENT = [
  "suddenly seeing hundreds of tiny black dots in my left eye and flashing lights at the edge",
  "theres like a black curtain coming across my vision in my right eye since an hour ago",
  "my husband says a shadow is spreading over the bottom half of his sight in one eye",
  "loads of new floaters appeared in my eye today, looks like cobwebs, and some flashes",
  "new floaters in my eye out of nowhere this afternoon",
  "it's as if a veil has dropped over part of the vision in my left eye",
  "sudden flashes of light in my right eye and a big swarm of floaters",
  "my eye is really painful and red and feels hard as a rock, seeing halos round lights",
  "red painful eye with a headache on the same side and i keep being sick",
  "my dads right eye went red and agonising tonight and he's been vomiting, vision misty",
  "sudden ripping pain in my back between my shoulder blades, I'm 68",
  "my mum says it feels like something tore inside her chest and it went through to her back",
  "out of nowhere the worst pain of my life between my shoulder blades, sweating buckets",
  "my legs went weak a few days ago and now the weakness is spreading up to my arms",
  "started with tingling in my toes and it's crept up to my knees and now my fingers are tingly too",
  "both my legs are getting weaker and numb and it's moving up my body, i had a cold 2 weeks ago",
  "I have breast cancer and now bad back pain and my legs are going weak",
  "back pain and both legs have gone numb and wobbly",
  "bad back and my legs keep giving way",
  "my bum feels numb and I can't feel when I wipe, with my back pain",
  "back pain and I've got tingling between my legs and around my bottom",
  "bad back and i'm struggling to pee, it's just dribbling",
  "my husband had a fever for 3 days and now he's confused and behaving oddly",
  "my daughter has a temperature and is seeing things that aren't there",
  "my wife has flu and tonight she's acting weird and keeps asking what day it is",
  "he has a high temperature and has started saying strange things, not himself at all",
  "my son is hearing voices that tell him to kill people",
  "my flatmate thinks he's invincible and is climbing on the roof ledge",
  "she's psychotic and walked out into traffic",
  "my husband has a gun and is threatening to shoot the neighbour",
  "my brother is waving a knife around and says he'll hurt us",
  "i keep having thoughts about hurting my wife and i'm scared i'll do it",
  "I want to kill my boss, I've got a knife in my bag",
  "my 6 year old is peeing all the time and super thirsty and now she's being sick and breathing fast and deep",
  "type 1 diabetic, been vomiting all night and tummy pain",
  "my diabetic son is really drowsy and his breath smells fruity",
  "I have Addison's and I've got diarrhoea and vomiting and feel faint",
  "on steroid replacement for adrenal insufficiency, been sick all day and dizzy",
  "graves disease, temp 39.5, heart racing, really agitated and confused",
  "after eating some cashews my throat feels tight and I feel faint",
  "just got stung by a bee and my throat feels funny and I'm wheezing",
  "took a new antibiotic and now my mouth is tingly and I feel like I might pass out",
  "my dad was working in the garden in the heatwave, now he's confused and his skin is hot and dry",
  "my son collapsed at football in the heat and he's not making sense",
  "hot day at the festival, she's stopped sweating and is staggering about",
  "my baby's ribs are sucking in when she breathes and she's grunting",
  "toddler with croup, skin pulling in at the bottom of his neck every breath",
  "my son's chest is caving in under his ribs when he breathes",
  "his breathing is noisy and high pitched when he breathes in and he's drooling",
  "my heart rate is 190 and I feel faint",
  "pulse of 160 and I'm dizzy and short of breath",
  "my son passed out while running in PE",
  "my dad blacked out for a few seconds while on the treadmill",
  "fainted and was out for a couple of minutes, I'm 70",
  "i can't swallow even my own saliva and my throat is closing",
  "sore throat and now i cant even swallow water",
  "sudden loss of vision in one eye",
  "heart failure, can't lie flat, woke up gasping for air",
  "my chest hurts and my heart is racing at 170 bpm",
  "I'm 55, pressure in my chest after lifting boxes and I'm sweaty",
  "my mum's diabetic, really sleepy and confused and her sugar is 2.1",
  "got a sudden flurry of specks in my vision and what looks like a dark cloud moving in from the side",
  "wife's seeing sparks of light and theres a grey bit blocking the top of her vision now",
  "there's a curtain over the lower part of my eyesight since last night",
  "my eye feels rock hard and its killing me, throwing up too",
  "nan's left eye is bloodshot and excruciating, she's got a thumping headache and keeps retching",
  "my husband 74 sudden tearing pain in his tummy going to his back and he looks grey",
  "sharp pain like being ripped apart between my shoulder blades, came on suddenly",
  "ive had pins and needles in my feet for 3 days and now its moving up into my hands and my legs are weak",
  "legs getting weaker each day, now struggling to climb stairs and the numbness is creeping up to my waist",
  "i have lung cancer with spread to the bones, new back pain, and my legs feel like jelly",
  "my mum has myeloma and her back is killing her and she can't walk, her legs won't hold her",
  "my partner has a temp and is talking nonsense and doesn't know where she is",
  "grandad had a urine infection and now he's hallucinating and very muddled",
  "my son said the voices told him to jump off the bridge",
  "my dad thinks he can stop traffic with his mind and keeps walking into the road",
  "my partner is threatening me with a knife",
  "my ex turned up with a baseball bat and says he's going to kill me",
  "my 12 yo is type one and she's vomiting, tummy ache and breathing really deep",
  "ketones are 4 and i'm being sick",
  "my son is always weeing and drinking and now he's floppy and sleepy",
  "I'm steroid dependent and I've had d&v all day and feel faint",
  "my son has congenital adrenal hyperplasia and has been vomiting and is really drowsy",
  "after the peanut sauce my throat felt tight and now my voice is hoarse and I'm dizzy",
  "got stung by a wasp, throat feels thick and I'm feeling really faint",
  "ate shellfish, tongue tingling, lips swelling, feeling like I'm going to pass out",
  "my grandad has been sitting in the garden all day in the heat and is now confused and very hot to touch with dry skin",
  "my mate collapsed after the marathon in the heat, he's confused",
  "my baby is breathing really hard and her tummy is sucking in under her ribs",
  "my son is wheezing and the skin between his ribs is pulling in",
  "my little girl has croup and a horrible squeaky noise when she breathes in at rest",
  "my heart is going at 200 beats a minute and i feel like i'll faint",
  "my 16 yo fainted during netball and was out for a minute",
  "my mate passed out while doing squats at the gym and banged his head",
  "cant swallow anything not even sips of water, drooling",
  "sudden blindness in my right eye",
  "i keep waking up fighting for breath and I have to sleep sitting up",
  "heart racing at 180, chest tight and i feel dizzy",
  "my wife has type 1, sugar is 1.8 and she's not making sense",
  "the voices are telling me to hurt my kids",
  "my husband has stopped taking his meds, thinks he's god and tried to jump out the window",
  "my leg suddenly went cold, white and really painful and now my foot is numb",
  "my dad's foot has turned pale and cold and is agony, he can't feel his toes",
  "my blood pressure is 220/130 and I have a pounding headache and blurry vision",
  "my heart rate is 35 and I keep nearly passing out",
  "I'm 75, headache on my temple, jaw hurts when chewing and now I'm seeing double",
  "a bit of metal flew into my eye while I was grinding and it's really painful",
  "my son was poked in the eye with a stick and there's blood in the eye",
  "my daughter's eyelid is really swollen and red, she has a fever and it hurts her to move her eye",
  "I had my tonsils out 5 days ago and I'm spitting out fresh blood",
  "since giving birth last week my wife is seeing things and saying strange things and not sleeping",
  "she had the baby 10 days ago and now she's convinced the baby isn't hers and is very confused",
  "my husband stopped drinking 2 days ago and now he's shaking and seeing bugs on the walls",
  "my nan fell in her garden last night and was outside all night, she's freezing cold, very drowsy and confused",
  "we pulled my son out of the pool, he's coughing and struggling to breathe",
  "my face drooped for 10 minutes this morning but it's back to normal now",
  "my arm went weak and my speech was slurred for 5 minutes but it's gone now",
  "my grandad is really agitated, aggressive and confused all of a sudden, pulling at his catheter",
  "my son choked on a peanut, he's stopped coughing but now he's wheezing and breathless",
  "my husband has COPD and he's much more breathless than usual, can't finish a sentence and his lips are blue",
  "my friend took MDMA and is burning hot, sweating and jerking",
  "I have a very high temperature, my neck is stiff and light hurts my eyes",
  "she has a fever and a rash of tiny purple spots that don't fade",
  "my mum is on warfarin and hit her head",
  "she's had a fit for 6 minutes and it won't stop",
  "first ever fit, my husband, he's now drowsy",
  "my husband collapsed and isn't breathing",
  "my chest feels heavy and its going into my left arm, I'm 60",
  "my toddler has a temp and is floppy and won't wake up properly",
  "my baby is 6 weeks old with a temperature of 38.5",
];

const URGENT = [
  "my son has been paranoid for a week, thinks people are following him, no violence",
  "my daughter hasn't slept for 4 nights and is talking really fast, spending loads, manic",
  "I'm peeing loads and thirsty all the time and lost weight",
  "sore throat mostly on the left, struggling to open my mouth and my voice is muffled",
  "using my blue inhaler 4 times a day this week, it helps",
  "woke up deaf in my right ear",
  "one sided sore throat getting worse, my voice sounds muffled and it's hard to open my jaw",
  "my asthma's flaring, needing my inhaler every few hours but it works",
  "have to sleep on 4 pillows to breathe, ankles swollen",
  "suddenly cant hear anything in my left ear since this morning",
  "my sister has been really paranoid and thinks her phone is bugged, not sleeping",
  "blood pressure reading 185/120 at the pharmacy, I feel fine",
  "I'm 72 and I have a new headache and my scalp is tender when I brush my hair, jaw aches when I chew",
  "stopped drinking yesterday, bit shaky and sweaty, no hallucinations",
  "shingles rash on my forehead going down towards my eye",
];

const NOT_EMERGENT = [
  "i've had the same floater in my eye for years, it doesn't bother me",
  "migraine coming on, usual zigzag flashing lights before the headache",
  "tore a muscle in my back at the gym, hurts between my shoulder blades when I move",
  "achy pain between my shoulder blades from sitting at my desk all week",
  "sciatica down my left leg after lifting, can feel everything fine when I wipe",
  "hay fever, itchy throat and sneezing",
  "itchy mouth after eating an apple, no other symptoms, happens every time",
  "felt a bit dizzy in the sun but I'm fine after some water in the shade",
  "baby has a blocked nose and snuffly noisy breathing when feeding",
  "I fainted during my blood test, came round straight away",
  "she fainted after standing up too quickly, fine now",
  "moved a sofa and now my ribs hurt when I press on them",
  "I'm 25, pulled a muscle in my chest at the gym, hurts when I twist",
  "floaters in both eyes that ive had since i was a teen, no change",
  "red itchy eyes and a bit of a headache from hay fever",
  "both eyes red and sticky and I've got a tummy bug with vomiting",
  "pain between shoulder blades after sleeping funny, stiff when I turn",
  "numb fingers when it's cold, fine once they warm up",
  "back pain after gardening, legs fine, can wee normally",
  "I cut my finger with a kitchen knife while cooking, it's stopped bleeding",
  "so annoyed with my brother I could kill him lol he ate my leftovers",
  "I'm diabetic, sugar 11 after a big dinner, feel fine",
  "using hydrocortisone cream for eczema and my skin is itchy",
  "ate a prawn sandwich and now I have diarrhoea and stomach cramps",
  "bit of sunburn and a headache after a day at the beach, drinking water",
  "my son has croup, barky cough, no noise when he breathes in, playing normally",
  "my heart rate was 140 on my run, felt fine",
  "fainted at the sight of blood during my nephews cut, fine after",
  "i feel a bit low but I'm coping, no thoughts of harm",
  "my fingers go white and numb in the cold then red when they warm up, for years",
  "got an eyelash stuck in my eye, bit scratchy",
  "I get a tension headache most afternoons at work, mild",
  "heartburn after big meals, goes with Gaviscon",
];

describe('emergency breadth A: the red-flag screen in lay words', () => {
  it.each(EMERGENT)('emergency: %s', (text) => {
    expect(screen(text).acuity).toBe('emergency');
  });
  it.each(URGENT)('urgent, not an emergency: %s', (text) => {
    expect(screen(text).acuity).toBe('urgent');
  });
  it.each(NOT_EMERGENT)('not an emergency: %s', (text) => {
    expect(screen(text).acuity).not.toBe('emergency');
  });
});

/** Answers each asked need from `facts` (as the bench's simulated patient does), and "no" to every warning-sign question. */
async function outcome(opening: string, facts: Record<string, string>): Promise<string> {
  const turns: TriageTurn[] = [{ role: 'patient', text: opening }];
  for (let i = 0; i < 10; i++) {
    const r = await engine.assess({ turns: [...turns] });
    if (r.complete || r.acuity === 'emergency') return r.acuity;
    turns.push({ role: 'assistant', text: r.reply, asked: r.asked }, { role: 'patient', text: r.asked.map((k) => facts[k] ?? 'no').join('. ') });
  }
  return 'unfinished';
}

describe('emergency breadth A: look-alikes end in self-care after the questions', () => {
  const base = { allergies: 'none', pregnancy: 'no', medicines: 'none', conditions: 'none' };
  const CASES: Array<[string, string, Record<string, string>]> = [
    ['a usual panic attack in known panic disorder (NHS panic disorder)', "I've got panic disorder and just had another panic attack, heart going fast, hands tingly, couldn't get enough air. No chest pain, it's settling now", { ...base, age: '26', sex: 'female', duration: '20 minutes', severity: '4 out of 10', conditions: 'panic disorder' }],
    ['a faint at a blood test with a quick recovery (NHS fainting)', 'my daughter fainted during a blood test this morning, came round straight away and is back to normal', { ...base, age: '17', sex: 'female', duration: 'this morning', severity: '1 out of 10' }],
    ['a hypo treated and back to normal (NHS low blood sugar)', "I'm type 1, my sugar dropped to 3.3, had some jelly babies and it's back up to 6 and I feel fine", { ...base, age: '30', sex: 'male', duration: '30 minutes', severity: '1 out of 10', medicines: 'insulin', conditions: 'type 1 diabetes' }],
    ['heat exhaustion better after cooling down (NHS heat exhaustion)', 'felt dizzy and sick gardening in the sun, sat in the shade with water for half an hour and feel back to normal now', { ...base, age: '55', sex: 'female', duration: '1 hour', severity: '2 out of 10' }],
    ['floaters unchanged for months (NHS floaters)', "I've had the same couple of floaters in my right eye for months, no flashes, vision fine", { ...base, age: '42', sex: 'male', duration: '4 months', severity: '1 out of 10' }],
  ];
  it.each(CASES)('%s', async (_name, opening, facts) => {
    expect(await outcome(opening, facts)).toBe('self_care');
  });
});
