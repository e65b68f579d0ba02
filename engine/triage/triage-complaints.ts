/**
 * Complaints: what the patient came about, recognised from concepts, each with its red-flag gate
 * questions (asked before anything else, one at a time) and, for the ones NHS pages say can
 * usually be looked after at home, when self-care fits and what the self-care advice is.
 * The advice says what to do and how soon; it never names a diagnosis (STYLE.md, Clinical wording).
 */
import type { Findings } from './triage-findings.ts';

export interface GateQuestion {
  key: string;
  prompt: string;
  why: string;
  /** concepts a "yes" affirms (they feed the red-flag rules) */
  onYes: string[];
}

export const GATES: Record<string, GateQuestion> = {
  gate_airway: { key: 'gate_airway', prompt: 'Are you having any trouble breathing, or trouble swallowing (more than just pain), drooling, or a high-pitched noise when breathing in?', why: 'With a sore throat these need emergency care (NHS, Sore throat).', onYes: ['swallow_difficulty'] },
  gate_breathing: { key: 'gate_breathing', prompt: 'Are you so short of breath that it is hard to speak in full sentences, or are your lips or face turning blue or grey?', why: 'Severe difficulty breathing needs emergency care (NHS, When to call 999).', onYes: ['severe_dyspnea'] },
  gate_meningitis: { key: 'gate_meningitis', prompt: 'Is there a stiff neck, a rash that does not fade when you press a glass against it, or any new confusion?', why: 'With a fever these can be signs of a serious infection (NHS, Meningitis; Sepsis).', onYes: ['meningitis_gate'] },
  gate_headache: { key: 'gate_headache', prompt: 'Did the headache come on suddenly and very severely (within a minute or so), or is there a stiff neck, weakness, confusion or trouble speaking?', why: 'A sudden, very severe headache needs emergency care (NHS, Headaches).', onYes: ['thunderclap'] },
  gate_abdomen: { key: 'gate_abdomen', prompt: 'Is the pain sudden and severe, or are you vomiting blood or passing black, tarry poo?', why: 'Sudden severe tummy pain or bleeding needs emergency care (ACEP warning signs).', onYes: ['severe_abdominal'] },
  gate_urinary: { key: 'gate_urinary', prompt: 'Do you have a fever or shivers, or pain in your back or side just under the ribs?', why: 'With urinary symptoms these mean a clinician should see you today (NHS, Urinary tract infections).', onYes: ['fever', 'flank_pain'] },
  gate_gut: { key: 'gate_gut', prompt: 'Is there blood in your vomit or poo, or are you unable to keep fluids down, or passing very little urine?', why: 'Blood or dehydration need care today (NHS, Diarrhoea and vomiting).', onYes: ['dehydration'] },
  gate_back: { key: 'gate_back', prompt: 'Do you have numbness around your bottom or genitals, new trouble controlling your bladder or bowels, or weakness in your legs?', why: 'With back pain these need emergency care (NHS, Cauda equina syndrome).', onYes: ['cauda_equina', 'leg_weakness'] },
  gate_chest: { key: 'gate_chest', prompt: 'Does the pain feel heavy, tight or crushing, spread to your arm, jaw, neck or back, or come with sweating, feeling sick or shortness of breath?', why: 'Chest pain like this needs emergency care (NHS, Chest pain; Heart attack).', onYes: ['chest_cardiac_quality'] },
  gate_injury: { key: 'gate_injury', prompt: 'Is it out of shape, numb or cold, or can you not put any weight on it or use it at all?', why: 'These mean it may need an X-ray today (NHS, Broken bones).', onYes: ['deformity'] },
  gate_wound: { key: 'gate_wound', prompt: 'Is it still bleeding after 10 minutes of firm pressure, or is the wound deep or gaping?', why: 'Bleeding that will not stop needs emergency care; a deep wound may need stitches (NHS, Cuts and grazes).', onYes: ['wound_deep'] },
  gate_burn: { key: 'gate_burn', prompt: 'Is the burn larger than the palm of the hand, white or charred, or on the face, hands, feet or genitals?', why: 'Burns like these need emergency care (NHS, Burns and scalds).', onYes: ['severe_burn'] },
  gate_allergy: { key: 'gate_allergy', prompt: 'Is there any swelling of your lips, tongue or throat, or any trouble breathing?', why: 'These can be signs of a severe allergic reaction (NHS, Anaphylaxis).', onYes: ['airway_swelling'] },
  gate_ear: { key: 'gate_ear', prompt: 'Is there swelling, redness or pain behind the ear, or a stiff neck?', why: 'These mean a clinician should see you today (NHS, Ear infections).', onYes: ['ear_mastoid'] },
  gate_eye: { key: 'gate_eye', prompt: 'Has your vision changed, is the eye very painful, or does light hurt it?', why: 'These mean the eye should be seen today (NHS, Red eye).', onYes: ['eye_urgent'] },
  gate_rash: { key: 'gate_rash', prompt: 'Does the rash stay visible when you press the side of a clear glass firmly against it?', why: 'A rash that does not fade under a glass needs emergency care (NHS, Meningitis).', onYes: ['rash_nonblanching'] },
  gate_self_harm: { key: 'gate_self_harm', prompt: 'Are you having any thoughts of harming yourself or ending your life?', why: 'If so, help is available right now (988 Suicide & Crisis Lifeline).', onYes: ['suicidal'] },
  gate_neuro: { key: 'gate_neuro', prompt: 'Did it start suddenly with weakness or numbness on one side, a drooping face, trouble speaking or loss of vision?', why: 'These are stroke warning signs (NHS, Stroke: FAST).', onYes: ['arm_weakness'] },
  gate_palpitations: { key: 'gate_palpitations', prompt: 'Do you have chest pain, shortness of breath or fainting with it?', why: 'With a racing heart these need emergency care (NHS, Heart palpitations).', onYes: ['chest_pain', 'dyspnea'] },
  gate_nosebleed: { key: 'gate_nosebleed', prompt: 'Has it been bleeding for more than 10 minutes even with firm pinching of the soft part of the nose?', why: 'A nosebleed that long needs emergency care (NHS, Nosebleed).', onYes: ['nosebleed_long'] },
  gate_dental: { key: 'gate_dental', prompt: 'Is there swelling spreading towards your eye or neck, or any trouble breathing or swallowing?', why: 'These need emergency care (NHS, Toothache).', onYes: ['dental_red'] },
  gate_head: { key: 'gate_head', prompt: 'Since the injury, has there been any vomiting, passing out, drowsiness, confusion, a fit, or trouble with speech or vision?', why: 'After a head injury these need emergency care (NHS, Head injury and concussion).', onYes: ['head_injury_red'] },
  gate_leg: { key: 'gate_leg', prompt: 'Are you short of breath, or do you have chest pain or cough up blood?', why: 'With a swollen leg these need emergency care (NHS, DVT).', onYes: ['dyspnea'] },
  gate_general: { key: 'gate_general', prompt: 'Do you have any of these right now: chest pain, trouble breathing, fainting, sudden weakness or confusion, or severe pain?', why: 'These are warning signs of an emergency (ACEP).', onYes: ['general_red'] },
};

export interface Complaint {
  id: string;
  /** plain words for the reply and summary ("a sore throat") */
  label: string;
  /** more general complaints this one replaces when both are present (athlete's foot over "a rash") */
  supersedes?: string[];
  concepts: string[];
  gates: string[];
  /** when self-care fits (NHS page's "you can usually treat it yourself" case); absent -> a clinician should see it */
  selfCare?: (f: Findings) => boolean;
  /** what to do at home, in plain words */
  advice?: string;
}

const days = (f: Findings): number => f.durationDays ?? 0;
const sev = (f: Findings): number => f.severity ?? 5;
/** A measured temperature decides (NHS: a fever is 38 C or more); without one, the patient's word for it. */
const feverish = (f: Findings): boolean => (f.tempC !== null ? f.tempC >= 38 : f.present.has('fever'));

/** In order of precedence for the "main concern" when several are present. */
export const COMPLAINTS: readonly Complaint[] = [
  { id: 'chest_pain', label: 'chest pain', concepts: ['chest_pain'], gates: ['gate_chest'] },
  { id: 'breathing', label: 'shortness of breath', concepts: ['dyspnea'], gates: ['gate_breathing'] },
  { id: 'palpitations', label: 'a racing or irregular heartbeat', concepts: ['palpitations'], gates: ['gate_palpitations'] },
  { id: 'mental_health', label: 'how you are feeling emotionally', concepts: ['mental_health'], gates: ['gate_self_harm'] },
  { id: 'headache', label: 'a headache', concepts: ['headache', 'thunderclap'], gates: ['gate_headache'],
    selfCare: (f) => sev(f) <= 6 && days(f) <= 3 && !feverish(f),
    advice: 'rest, drink plenty of fluids, and take paracetamol or ibuprofen as the packet says; regular breaks from screens can help' },
  { id: 'sore_throat', label: 'a sore throat', concepts: ['sore_throat', 'swallow_trouble'], gates: ['gate_airway'],
    selfCare: (f) => days(f) <= 7 && sev(f) <= 6 && !feverish(f),
    advice: 'drink plenty of fluids, gargle with warm salty water, and take paracetamol or ibuprofen as the packet says; it usually settles within a week' },
  { id: 'urinary', label: 'urinary symptoms', concepts: ['urinary'], gates: ['gate_urinary'] },
  { id: 'abdominal', label: 'tummy pain', concepts: ['abdominal_pain', 'severe_abdominal'], gates: ['gate_abdomen'],
    selfCare: (f) => sev(f) <= 4 && days(f) <= 2,
    advice: 'rest, sip water, eat plain food when you feel like it, and use a hot water bottle' },
  { id: 'gut', label: 'diarrhoea or vomiting', concepts: ['diarrhea', 'nausea_vomiting'], gates: ['gate_gut'],
    selfCare: (f) => days(f) <= 3 && sev(f) <= 6 && (f.ageYears === null || f.ageYears >= 5) && !f.present.has('blood_stool'),
    advice: 'drink plenty of fluids in small sips (oral rehydration sachets help), rest, and eat when you feel able; it usually stops within a few days' },
  { id: 'fever', label: 'a fever', concepts: ['fever'], gates: ['gate_meningitis'],
    selfCare: (f) => days(f) <= 3 && sev(f) <= 6 && (f.ageYears === null || f.ageYears >= 1),
    advice: 'rest, drink plenty of fluids, and take paracetamol or ibuprofen as the packet says' },
  { id: 'cough', label: 'a cough', concepts: ['cough'], gates: ['gate_breathing'],
    selfCare: (f) => days(f) < 21 && sev(f) <= 5 && !feverish(f) && !f.present.has('not_improving'),
    advice: 'rest, drink plenty of fluids, and try a hot drink with honey and lemon (not for babies under 1); a cough often lasts 3 to 4 weeks' },
  { id: 'cold', label: 'cold symptoms', concepts: ['cold', 'flu'], gates: ['gate_breathing'],
    selfCare: (f) => days(f) <= 10 && sev(f) <= 6 && !(feverish(f) && days(f) > 3),
    advice: 'rest, drink plenty of fluids, and take paracetamol or ibuprofen as the packet says; colds usually get better within 1 to 2 weeks' },
  { id: 'hay_fever', label: 'hay fever symptoms', concepts: ['hay_fever'], gates: [], supersedes: ['cold', 'eye'],
    selfCare: (f) => sev(f) <= 6,
    advice: 'a pharmacist can suggest antihistamine tablets, eye drops or a nasal spray; keeping windows shut and showering after being outside can help' },
  { id: 'earwax', label: 'a blocked ear', concepts: ['earwax'], gates: ['gate_ear'], supersedes: ['ear'],
    selfCare: (f) => days(f) <= 14 && sev(f) <= 3,
    advice: 'a pharmacist can advise on ear drops or olive oil drops to soften wax; do not use cotton buds in the ear' },
  { id: 'ear', label: 'ear pain', concepts: ['ear', 'ear_discharge'], gates: ['gate_ear'],
    selfCare: (f) => days(f) <= 3 && sev(f) <= 6 && !f.present.has('ear_discharge'),
    advice: 'take paracetamol or ibuprofen as the packet says and hold a warm cloth against the ear; it often gets better in about 3 days' },
  { id: 'eye', label: 'an eye problem', concepts: ['eye'], gates: ['gate_eye'], supersedes: ['lump'],
    selfCare: (f) => days(f) <= 7 && sev(f) <= 5 && !f.present.has('eye_urgent') && !f.present.has('photophobia'),
    advice: 'clean the eye gently with cooled boiled water, avoid contact lenses until it settles, and a pharmacist can advise on drops' },
  { id: 'back_pain', label: 'back pain', concepts: ['back_pain'], gates: ['gate_back'],
    selfCare: (f) => days(f) <= 42 && sev(f) <= 7 && !f.present.has('not_improving') && !f.present.has('flank_pain'),
    advice: 'keep moving gently, use heat, and take ibuprofen or paracetamol as the packet says; it usually improves within a few weeks' },
  { id: 'burn', label: 'a burn', concepts: ['burn', 'sunburn'], gates: ['gate_burn'], supersedes: ['rash'],
    selfCare: (f) => sev(f) <= 6 && days(f) <= 7,
    advice: 'cool it under cool running water for 20 minutes, cover loosely with cling film or a clean dressing, drink plenty of water, and stay out of the sun' },
  { id: 'bite_sting', label: 'a bite or sting', concepts: ['bite_sting'], gates: ['gate_allergy'], supersedes: ['rash', 'injury', 'lump'],
    selfCare: (f) => sev(f) <= 5 && days(f) <= 3,
    advice: 'wash the area, use a cold compress, and a pharmacist can suggest an antihistamine or cream for the itch; try not to scratch' },
  { id: 'animal_bite', label: 'an animal bite', concepts: ['animal_bite'], gates: ['gate_wound'] },
  { id: 'injury', label: 'an injury', concepts: ['injury', 'deformity'], gates: ['gate_injury'],
    selfCare: (f) => days(f) <= 7 && sev(f) <= 6 && !f.present.has('deformity'),
    advice: 'rest it, use an ice pack wrapped in a towel for 20 minutes every few hours, keep it raised, and take paracetamol or ibuprofen as the packet says' },
  { id: 'cut', label: 'a cut or wound', concepts: ['cut', 'wound_deep'], gates: ['gate_wound'],
    selfCare: (f) => sev(f) <= 5 && !f.present.has('wound_deep') && !f.present.has('wound_infection'),
    advice: 'press on it to stop the bleeding, clean it under running water, and cover it with a plaster or dressing; watch for redness, swelling or pus' },
  { id: 'nosebleed', label: 'a nosebleed', concepts: ['nosebleed'], gates: ['gate_nosebleed'],
    selfCare: () => true,
    advice: 'sit up, lean forward, and pinch the soft part of your nose for 10 to 15 minutes, breathing through your mouth' },
  { id: 'rash', label: 'a rash or skin problem', concepts: ['rash', 'hives'], gates: ['gate_rash'],
    selfCare: (f) => sev(f) <= 4 && days(f) <= 7 && !feverish(f),
    advice: 'keep the skin cool, avoid scratching, and a pharmacist can suggest a cream or antihistamine' },
  { id: 'minor_skin', label: 'a skin problem', concepts: ['minor_skin'], gates: [], supersedes: ['rash'],
    selfCare: (f) => sev(f) <= 5,
    advice: 'a pharmacist can suggest a treatment you can buy without a prescription' },
  { id: 'dental', label: 'tooth or gum pain', concepts: ['dental'], gates: ['gate_dental'] },
  { id: 'dizziness', label: 'dizziness', concepts: ['dizziness', 'near_faint'], gates: ['gate_neuro'] },
  { id: 'leg_swelling', label: 'a swollen or painful leg', concepts: ['leg_swelling'], gates: ['gate_leg'] },
  { id: 'sinus', label: 'sinus pain', concepts: ['sinus'], gates: ['gate_meningitis'],
    selfCare: (f) => days(f) <= 10 && sev(f) <= 6,
    advice: 'rest, drink plenty of fluids, take paracetamol or ibuprofen as the packet says, and a warm cloth over the face can ease the pressure' },
  { id: 'constipation', label: 'constipation', concepts: ['constipation'], gates: ['gate_abdomen'],
    selfCare: (f) => days(f) <= 7 && sev(f) <= 5,
    advice: 'drink plenty of water, add fibre (fruit, vegetables, wholegrains), and keep active; a pharmacist can suggest a gentle laxative' },
  { id: 'insomnia', label: 'trouble sleeping', concepts: ['insomnia'], gates: ['gate_self_harm'],
    selfCare: (f) => days(f) <= 28,
    advice: 'keep regular sleep times, avoid caffeine, alcohol and screens before bed, and keep the bedroom dark and quiet' },
  { id: 'vaginal', label: 'a gynaecological or sexual health concern', concepts: ['vaginal', 'vaginal_bleeding'], gates: ['gate_general'] },
  { id: 'heartburn', label: 'heartburn or indigestion', concepts: ['heartburn'], gates: ['gate_abdomen'], supersedes: ['abdominal'],
    selfCare: (f) => days(f) <= 21 && sev(f) <= 5,
    advice: 'eat smaller meals, avoid foods that set it off, don\'t eat within 3 to 4 hours of bed, and a pharmacist can suggest an antacid' },
  { id: 'head_injury', label: 'a head injury', concepts: ['head_injury'], gates: ['gate_head'],
    selfCare: (f) => sev(f) <= 4 && (f.ageYears === null || f.ageYears >= 1) && (f.ageYears === null || f.ageYears < 65),
    advice: 'rest, hold an ice pack wrapped in a towel on the bump, and have an adult stay with them for the first 24 hours; watch for vomiting, drowsiness or confusion' },
  { id: 'neck_pain', label: 'neck pain', concepts: ['neck_pain', 'neck_stiffness'], gates: ['gate_meningitis'],
    selfCare: (f) => days(f) <= 14 && sev(f) <= 6 && !feverish(f),
    advice: 'keep moving gently, use a warm compress, take paracetamol or ibuprofen as the packet says, and use a firm, low pillow' },
  { id: 'bloating', label: 'bloating or wind', concepts: ['bloating'], gates: ['gate_abdomen'],
    selfCare: (f) => days(f) <= 21 && sev(f) <= 5,
    advice: 'eat smaller meals slowly, cut down on foods that cause wind (such as beans and fizzy drinks), and a pharmacist can suggest a remedy' },
  { id: 'leg_cramps', label: 'leg cramps', concepts: ['leg_cramp'], gates: ['gate_leg'], supersedes: ['injury', 'abdominal'],
    selfCare: (f) => sev(f) <= 5 && !f.present.has('leg_swelling'),
    advice: 'stretch and massage the muscle during a cramp, and regular calf stretches before bed can help' },
  { id: 'hiccups', label: 'hiccups', concepts: ['hiccups'], gates: [],
    selfCare: (f) => days(f) <= 2,
    advice: 'try sipping ice-cold water, holding your breath for a short time, or breathing into a paper bag; they usually stop on their own' },
  { id: 'teething', label: 'teething', concepts: ['teething'], gates: ['gate_meningitis'],
    selfCare: (f) => sev(f) <= 5 && !feverish(f),
    advice: 'let the baby chew on a clean, cooled teething ring, gently rub the gum with a clean finger, and a pharmacist can advise on sugar-free pain relief for babies' },
  { id: 'mouth_ulcer', label: 'a mouth ulcer', concepts: ['mouth_ulcer'], gates: [],
    selfCare: (f) => days(f) <= 21 && sev(f) <= 5,
    advice: 'use a soft toothbrush, avoid spicy or acidic food, and a pharmacist can suggest a gel or mouthwash; most heal within 1 to 2 weeks' },
  { id: 'refill', label: 'a prescription refill', concepts: ['refill'], gates: [] },
  { id: 'contraception', label: 'contraception', concepts: ['contraception'], gates: [] },
  { id: 'fatigue', label: 'tiredness', concepts: ['fatigue'], gates: ['gate_general'] },
  { id: 'lump', label: 'a lump or skin change', concepts: ['lump'], gates: [] },
];

/** A complaint for free text no concept names: the general warning-sign gate, and a clinician. */
export const OTHER: Complaint = { id: 'other', label: 'your symptoms', concepts: [], gates: ['gate_general'] };
