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
  // ---- triage-emerg-b
  gate_baby: { key: 'gate_baby', prompt: 'Has your baby had a temperature of 38C or more, green vomit, blood in the nappy, been floppy or unusually sleepy, or taken much less milk than usual?', why: 'In a baby these need urgent care (NHS, Colic; AAP, Fever and your baby).', onYes: ['infant_warning'] },
  gate_pregnancy: { key: 'gate_pregnancy', prompt: 'In this pregnancy, do you have a bad headache, changes in your vision (flashing lights or blurring), sudden swelling of your face or hands, pain just below your ribs, heavy bleeding, fluid leaking, or (from about 24 weeks) the baby moving less than usual?', why: 'These need the maternity unit straight away (NHS, Pre-eclampsia; Baby movements; Vaginal bleeding in pregnancy).', onYes: ['pregnancy_red'] },
  gate_heat: { key: 'gate_heat', prompt: 'After 30 minutes in a cool place with fluids, is the person still unwell, confused, or hot without sweating?', why: 'These are signs of heatstroke, which needs emergency care (NHS, Heat exhaustion and heatstroke).', onYes: ['heatstroke_gate', 'heat_red'] },
  // ---- triage-emerg-a
  gate_faint: { key: 'gate_faint', prompt: 'Did it happen during exercise, or with chest pain, a racing or pounding heart or a fit, or did it take more than a minute to come round?', why: 'Any of these needs emergency care (NHS, Fainting).', onYes: ['faint_red'] },
  gate_retina: { key: 'gate_retina', prompt: 'Have you noticed a sudden shower of new floaters, flashes of light, or a shadow or curtain over part of your vision?', why: 'These need an eye emergency check the same day (NHS, Detached retina).', onYes: ['retina_warning'] },
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
  /** the NHS page is about babies (teething, colic, nappy rash): being under 1 alone does not rule out self-care */
  babies?: true;
  /** the NHS page is about pregnancy (morning sickness, swollen ankles): being pregnant alone does not rule out self-care */
  pregnancy?: true;
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
    selfCare: (f) => days(f) <= 3 && sev(f) <= 6 && (f.ageYears === null || f.ageYears >= 1) && !f.present.has('blood_stool') && !f.present.has('dehydration'),
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
  { id: 'hay_fever', label: 'hay fever symptoms', concepts: ['hay_fever'], gates: [], supersedes: ['cold', 'eye', 'rash'],
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
  { id: 'burn', label: 'a burn', concepts: ['burn', 'sunburn', 'sunburn_lay'], gates: ['gate_burn'], supersedes: ['rash'],
    selfCare: (f) => sev(f) <= 6 && days(f) <= 7 && !feverish(f) && !(f.present.has('burn_blisters') && f.present.has('sunburn')),
    advice: 'cool it under cool running water for 20 minutes, cover loosely with cling film or a clean dressing, drink plenty of water, and stay out of the sun' },
  { id: 'bite_sting', label: 'a bite or sting', concepts: ['bite_sting', 'bite_lay'], gates: ['gate_allergy'], supersedes: ['rash', 'injury', 'lump'],
    selfCare: (f) => sev(f) <= 5 && days(f) <= 3,
    advice: 'wash the area, use a cold compress, and a pharmacist can suggest an antihistamine or cream for the itch; try not to scratch' },
  { id: 'animal_bite', label: 'an animal bite', concepts: ['animal_bite'], gates: ['gate_wound'] },
  { id: 'injury', label: 'an injury', concepts: ['injury', 'deformity', 'sprain_lay'], gates: ['gate_injury'],
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
  { id: 'head_injury', label: 'a head injury', concepts: ['head_injury'], gates: ['gate_head'], supersedes: ['lump'],
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
  { id: 'teething', label: 'teething', concepts: ['teething'], gates: ['gate_meningitis'], babies: true, pregnancy: true,
    selfCare: (f) => sev(f) <= 5 && !feverish(f),
    advice: 'let the baby chew on a clean, cooled teething ring, gently rub the gum with a clean finger, and a pharmacist can advise on sugar-free pain relief for babies' },
  { id: 'mouth_ulcer', label: 'a mouth ulcer', concepts: ['mouth_ulcer'], gates: [],
    selfCare: (f) => days(f) <= 21 && sev(f) <= 5,
    advice: 'use a soft toothbrush, avoid spicy or acidic food, and a pharmacist can suggest a gel or mouthwash; most heal within 1 to 2 weeks' },
  { id: 'refill', label: 'a prescription refill', concepts: ['refill'], gates: [] },
  { id: 'contraception', label: 'contraception', concepts: ['contraception'], gates: [] },
  { id: 'fatigue', label: 'tiredness', concepts: ['fatigue'], gates: ['gate_general'] },
  { id: 'lump', label: 'a lump or skin change', concepts: ['lump'], gates: [] },
  // ---- triage-levels
  // Self-care when the NHS page's conditions hold ("you can usually treat it yourself / a pharmacist
  // can help"); a clinician when they do not (too young or old, too long, fever, a warning sign).
  { id: 'baby_teething', label: 'teething', concepts: ['teething', 'teething_signs'], gates: ['gate_meningitis'], supersedes: ['teething', 'dental', 'rash', 'mouth_ulcer'], babies: true,
    // NHS teething: teething does not cause a high temperature (38 C or more); that needs a clinician
    selfCare: (f) => sev(f) <= 5 && !feverish(f) && (f.ageYears === null || f.ageYears <= 3) && !f.present.has('dehydration'),
    advice: 'let your baby chew on a clean, cooled teething ring, gently rub the gum with a clean finger, and a pharmacist can advise on sugar-free pain relief for babies' },
  { id: 'baby_colic', label: 'a baby crying for long spells', concepts: ['baby_colic'], gates: ['gate_meningitis'], supersedes: ['fatigue', 'abdominal'], babies: true,
    // NHS colic: under 6 months, feeding and otherwise well; see a GP if vomiting, blood in poo, not feeding, or a fever
    selfCare: (f) => (f.ageYears === null ? f.present.has('infant') : f.ageYears < 0.5) && !feverish(f) && sev(f) <= 6
      && !f.present.has('nausea_vomiting') && !f.present.has('blood_stool') && !f.present.has('dehydration') && !f.present.has('diarrhea'),
    advice: 'hold or cuddle your baby when they cry, try gently rocking them, keep feeding as usual, and wind them after feeds; a health visitor can help, and it usually settles by 6 months' },
  { id: 'nappy_rash', label: 'nappy rash', concepts: ['nappy_rash'], gates: ['gate_rash'], supersedes: ['rash'], babies: true,
    selfCare: (f) => days(f) <= 7 && sev(f) <= 5 && !feverish(f),
    advice: 'change the nappy often, clean gently with water, leave the nappy off for a while each day, and a pharmacist can suggest a barrier cream' },
  { id: 'conjunctivitis', label: 'a red or sticky eye', concepts: ['conjunctivitis'], gates: ['gate_eye'], supersedes: ['eye', 'rash', 'cold'],
    // NHS conjunctivitis: a pharmacist can help; urgent GP for a baby under 28 days, pain, light sensitivity, vision change, contact lenses
    selfCare: (f) => days(f) <= 14 && sev(f) <= 5 && !f.present.has('eye_urgent') && !f.present.has('photophobia') && !f.present.has('eye_acute')
      // NHS eye injuries: something in the eye, a scratch or a chemical is not conjunctivitis
      && !/\b(something|grit|dust|sand|metal|glass|chemicals?|bleach) (in|into|went in)|scratch\w*|poked|splash\w*/.test(f.allText),
    advice: 'clean the eyelids gently with cotton wool soaked in cooled boiled water, do not share towels, leave contact lenses out, and a pharmacist can advise on drops' },
  { id: 'mouth_sore', label: 'a mouth ulcer', concepts: ['mouth_sore'], gates: [], supersedes: ['mouth_ulcer', 'rash'],
    selfCare: (f) => days(f) <= 21 && sev(f) <= 5,
    advice: 'use a soft toothbrush, avoid spicy or acidic food, and a pharmacist can suggest a gel or mouthwash; most heal within 1 to 2 weeks' },
  { id: 'usual_headache', label: 'a headache', concepts: ['usual_headache'], gates: ['gate_headache'], supersedes: ['headache', 'gut', 'dizziness', 'eye'],
    // NHS headaches / migraine: a tension-type headache or a known migraine like the usual ones; NICE CKS red flags (new after 50, fever, worsening) need a clinician
    selfCare: (f) => days(f) <= 14 && sev(f) <= 7 && !feverish(f) && (f.ageYears === null || f.ageYears < 50 || /\b(usual|normal|regular|always|same as)\b/.test(f.allText))
      && !/\b(nothing|not|isn'?t|unlike) (like|the same as) (my|the|his|her) (usual|normal|other)|different (from|to|than) (my|the|his|her) (usual|normal)|never had (one|a headache|anything) like|(?<!\b(not|never|isn'?t|wasn'?t) (the |my |a )?)worst\b/.test(f.allText)
      && !f.present.has('neck_stiffness') && !f.present.has('worsening') && !f.present.has('vision_loss'),
    advice: 'rest in a quiet, dark room, drink plenty of water, take your usual painkiller or paracetamol or ibuprofen as the packet says, and take regular breaks from screens' },
  { id: 'pharmacy_skin', label: 'a skin problem a pharmacist can treat', concepts: ['pharmacy_skin'], gates: [], supersedes: ['rash', 'minor_skin', 'lump', 'injury', 'constipation'],
    // NHS piles, threadworms, warts and verrucas, fungal nail infection, cold sores, head lice, athlete's foot, eczema: a pharmacist can help unless it is infected, bleeding or with a fever
    selfCare: (f) => sev(f) <= 5 && !feverish(f) && !f.present.has('blood_stool') && !/\b(weeping|oozing|pus|infected|spreading)\b/.test(f.allText)
      // NHS cold sores: near the eye needs a GP; NHS diabetes: a foot problem with diabetes needs a GP or podiatrist
      && !f.present.has('eye') && !f.present.has('conjunctivitis') && !nearEye(f) && !diabeticFoot(f),
    advice: 'a pharmacist can suggest a treatment you can buy without a prescription and tell you if it needs a GP' },
  { id: 'childhood_rash', label: 'a rash with a cold or a childhood illness', concepts: ['childhood_rash', 'rash_blanches'], gates: ['gate_rash'], supersedes: ['rash', 'fever', 'mouth_ulcer', 'mouth_sore', 'cold', 'cough', 'minor_skin', 'pharmacy_skin'],
    // NHS chickenpox, hand foot and mouth, rashes in children: a well child at home; a baby under 1, a high fever, not drinking or an adult need a clinician
    selfCare: (f) => (f.ageYears === null || (f.ageYears >= 1 && f.ageYears < 16)) && days(f) <= 10 && sev(f) <= 6 && (f.tempC === null || f.tempC < 39) && !f.present.has('dehydration'),
    advice: 'give plenty of fluids, use paracetamol as the packet says if they are uncomfortable, keep nails short and skin cool, and keep them off nursery or school until the spots have crusted or they feel well' },
  { id: 'impetigo', label: 'crusty sores on the skin', concepts: ['impetigo'], gates: [], supersedes: ['rash', 'minor_skin', 'cut', 'childhood_rash', 'pharmacy_skin'] },
  { id: 'faint_trigger', label: 'a faint with a known trigger', concepts: ['faint_trigger'], gates: ['gate_general'], supersedes: ['injury', 'heat'],
    // NHS fainting: no need to see a doctor if the cause is known (a blood test, needles) and recovery was quick
    selfCare: (f) => (f.ageYears === null || f.ageYears < 65) && !f.present.has('recurrent'),
    advice: 'lie down with your legs raised if you feel faint again, drink water and have something to eat; next time tell the nurse beforehand so you can lie down for the test' },
  { id: 'heat_exhaustion', label: 'feeling unwell after the heat', concepts: ['heat_exhaustion'], gates: ['gate_general'], supersedes: ['headache', 'dizziness', 'gut'],
    // NHS heat exhaustion: self-care when cooled within 30 minutes and better; 999 if not better, confused, or a fit
    selfCare: (f) => /\b(better|back to normal|recovered|fine now|ok now|okay now|gone now|settled)\b/.test(f.allText) && !/\b(not|no|never|isn'?t|hasn'?t|haven'?t|doesn'?t|don'?t)\b[\w ']{0,20}\b(better|recovered|settled|back to normal)\b/.test(f.allText) && (f.ageYears === null || (f.ageYears >= 5 && f.ageYears < 75)) && (f.tempC === null || f.tempC < 39),
    advice: 'stay somewhere cool, keep drinking water or a sports drink, and rest; get help if you feel worse or are not better within 30 minutes' },
  { id: 'ovulation_pain', label: 'pain in the middle of the cycle', concepts: ['ovulation_pain'], gates: ['gate_abdomen'], supersedes: ['abdominal', 'vaginal', 'rash'],
    // NHS ovulation pain: painkillers and a warm bath; see a GP if severe, long, or with a fever or unusual bleeding
    selfCare: (f) => sev(f) <= 5 && f.pregnant !== true && !feverish(f) && !f.present.has('vaginal_bleeding') && days(f) <= 2,
    advice: 'a warm bath or hot water bottle and paracetamol or ibuprofen as the packet says usually help; see a GP if the pain is severe or changes' },
  { id: 'puffy_ankles', label: 'puffy ankles or feet', concepts: ['puffy_ankles'], gates: ['gate_leg'], supersedes: ['injury'],
    // NHS swollen ankles, feet and legs: both sides, after a flight or standing, going down with legs raised; one leg, pain, breathlessness need a clinician
    selfCare: (f) => puffyAnklesOk(f),
    advice: 'raise your legs when you can, walk about regularly, wear comfortable shoes, and drink plenty of water' },
  { id: 'flu_like', label: 'flu-like symptoms', concepts: ['flu'], gates: ['gate_breathing'], supersedes: ['fever', 'cough', 'cold', 'fatigue', 'headache', 'sore_throat'],
    // NHS flu: rest and fluids; see a GP if 65 or over, pregnant, a long-term condition or weak immune system, or not better after 7 days
    selfCare: (f) => days(f) <= 7 && sev(f) <= 6 && (f.ageYears === null || (f.ageYears >= 5 && f.ageYears < 65)) && (f.tempC === null || f.tempC < 39.5)
      && (f.conditions === null || /^(none|no|nil|nothing)\b/i.test(f.conditions)) && !f.present.has('not_improving'),
    advice: 'rest, keep warm, drink plenty of water, and take paracetamol or ibuprofen as the packet says; it usually gets better within a week' },
  { id: 'sinus_headache', label: 'sinus pain', concepts: ['sinus'], gates: ['gate_meningitis'], supersedes: ['sinus', 'headache', 'cold'],
    // NHS sinusitis: a headache with facial pressure and a blocked nose after a cold; see a GP after 10 days, or if severe or with a high temperature
    selfCare: (f) => days(f) <= 10 && sev(f) <= 6 && (f.tempC === null || f.tempC < 39) && !f.present.has('neck_stiffness') && !f.present.has('face_swelling') && !nearEye(f),
    advice: 'rest, drink plenty of fluids, take paracetamol or ibuprofen as the packet says, and a warm cloth over the face can ease the pressure; it usually clears within 2 to 3 weeks' },
  { id: 'panic_known', label: 'a panic attack', concepts: ['panic_known'], gates: ['gate_self_harm'], supersedes: ['palpitations', 'breathing', 'mental_health', 'dizziness'],
    // NHS panic disorder: a known panic attack that has passed is managed with breathing and the usual plan; chest pain, a first attack or an older person need a clinician
    selfCare: (f) => !f.present.has('chest_pain') && (f.ageYears === null || f.ageYears < 50) && sev(f) <= 6,
    advice: 'breathe slowly in through your nose and out through your mouth, remind yourself it will pass, and keep using the plan you have; talk to your GP or therapist if attacks are becoming more frequent' },
  { id: 'new_antidepressant', label: 'side effects of a new medicine', concepts: ['new_antidepressant'], gates: ['gate_self_harm'], supersedes: ['mental_health', 'gut', 'insomnia', 'headache', 'dizziness'],
    // NHS sertraline / citalopram: feeling sick, jittery, loose poo, poor sleep in the first weeks usually settle; a fever, confusion or thoughts of self-harm do not wait
    selfCare: (f) => days(f) <= 14 && sev(f) <= 5 && !feverish(f) && !f.present.has('confusion') && !f.present.has('seizure'),
    advice: 'these effects usually ease within a week or two; take the tablet with food, keep taking it as prescribed, and talk to your GP or pharmacist if they bother you or last longer' },
  { id: 'wound_infected', label: 'a wound that may be infected', concepts: ['wound_infected'], gates: ['gate_wound'], supersedes: ['cut'] },
  { id: 'shingles', label: 'a painful rash on one side', concepts: ['shingles_rash'], gates: ['gate_eye'], supersedes: ['rash', 'pharmacy_skin', 'childhood_rash', 'heat_rash'] },
  { id: 'croup', label: 'a barking cough', concepts: ['croup'], gates: ['gate_breathing'], supersedes: ['cough', 'cold', 'flu_like'] },
  { id: 'rectal_blood', label: 'bleeding from the bottom', concepts: ['rectal_blood_lay'], gates: ['gate_abdomen'], supersedes: ['constipation', 'pharmacy_skin'] },
  { id: 'period_pain', label: 'period pain', concepts: ['period_pain'], gates: ['gate_abdomen'], supersedes: ['abdominal', 'vaginal', 'back_pain'],
    // NHS period pain: painkillers and heat; see a GP if the pain or bleeding has changed, is severe, or with a fever
    selfCare: (f) => days(f) <= 7 && sev(f) <= 7 && f.pregnant !== true && !feverish(f) && !/\b(heavier|more painful|worse than (usual|normal|before)|changed|between periods|after sex|missed)\b/.test(f.allText),
    advice: 'ibuprofen or paracetamol as the packet says, a hot water bottle on your tummy, a warm bath and gentle exercise can help' },
  { id: 'overuse_pain', label: 'pain from overuse', concepts: ['overuse_pain'], gates: ['gate_injury'], supersedes: ['injury'],
    // NHS heel pain / shin splints / tennis elbow: rest, ice and painkillers; see a GP if not better in a few weeks
    selfCare: (f) => days(f) <= 42 && sev(f) <= 6 && !f.present.has('deformity') && !f.present.has('leg_swelling') && !feverish(f),
    advice: 'rest it, use an ice pack wrapped in a towel, wear comfortable supportive shoes, and take paracetamol or ibuprofen as the packet says' },
  { id: 'stye', label: 'a lump on the eyelid', concepts: ['stye_lay'], gates: ['gate_eye'], supersedes: ['lump', 'eye', 'rash'],
    // NHS styes: a warm compress; see a GP if it is very painful or swollen, affects vision, or lasts weeks
    selfCare: (f) => days(f) <= 21 && sev(f) <= 4 && !f.present.has('eye_urgent') && !f.present.has('photophobia') && !f.present.has('face_swelling'),
    advice: 'hold a clean warm flannel on the eyelid for 5 to 10 minutes a few times a day, and do not squeeze it or wear eye make-up until it has gone' },
  { id: 'dry_eyes', label: 'dry or tired eyes', concepts: ['dry_eyes'], gates: ['gate_eye'], supersedes: ['eye', 'conjunctivitis', 'injury'],
    // NHS dry eyes: a pharmacist can help; see an optician or GP if not better after a few weeks, painful, or vision changes
    selfCare: (f) => days(f) <= 60 && sev(f) <= 4 && !f.present.has('eye_urgent') && !f.present.has('photophobia') && !f.present.has('eye_acute'),
    advice: 'take regular breaks from screens, keep the room air moist, and a pharmacist can suggest eye drops' },
  { id: 'ingrown_nail', label: 'an ingrown toenail', concepts: ['ingrown_nail'], gates: [], supersedes: ['injury', 'pharmacy_skin'],
    selfCare: (f) => sev(f) <= 5 && !feverish(f) && !/\b(pus|infected|oozing|spreading)\b/.test(f.allText) && !diabeticFoot(f),
    advice: 'soak the foot in warm salty water, keep it clean and dry, wear wide comfortable shoes, and let the nail grow out before cutting straight across' },
  { id: 'heat_rash', label: 'a heat rash', concepts: ['heat_rash'], gates: ['gate_rash'], supersedes: ['rash', 'heat_exhaustion'],
    selfCare: (f) => days(f) <= 7 && sev(f) <= 4 && !feverish(f),
    advice: 'keep the skin cool, wear loose cotton clothes, and a pharmacist can suggest calamine lotion or an antihistamine' },
  { id: 'thrush', label: 'thrush', concepts: ['thrush'], gates: ['gate_urinary'], supersedes: ['vaginal', 'rash'],
    // NHS thrush: a pharmacist can help if it has been diagnosed before; a GP the first time, under 16 or over 60, pregnant, or often
    selfCare: (f) => (f.ageYears === null || (f.ageYears >= 16 && f.ageYears <= 60)) && f.pregnant !== true && !feverish(f) && /\b(again|before|usual|always|had it)\b/.test(f.allText),
    advice: 'a pharmacist can suggest an antifungal cream or tablet; wash with water and an emollient rather than soap, and wear cotton underwear' },
  { id: 'travel_sickness', label: 'travel sickness', concepts: ['travel_sickness'], gates: [], supersedes: ['gut'],
    selfCare: (f) => f.pregnant !== true,
    advice: 'a pharmacist can suggest travel sickness tablets to take before the journey; sit where there is least movement and look at the horizon' },
  { id: 'baby_minor', label: 'a common baby skin or feeding change', concepts: ['baby_minor'], gates: ['gate_meningitis'], supersedes: ['rash', 'lump', 'minor_skin', 'gut', 'pharmacy_skin'], babies: true,
    // NHS cradle cap, baby acne, reflux in babies: common and harmless; a GP if not feeding, not gaining weight, projectile or green sick, blood, or a fever
    selfCare: (f) => !feverish(f) && sev(f) <= 4 && !f.present.has('dehydration') && !f.present.has('blood_stool') && !/\b(not|isn'?t|won'?t|hasn'?t|doesn'?t) (gaining|putting on|feeding|taking)|refus\w*|(?<!\b(no|not|never) )projectile|losing weight|weight loss/.test(f.allText) && !f.present.has('green_vomit'),
    advice: 'these are common in babies and usually clear up on their own; a health visitor or pharmacist can advise' },
  { id: 'morning_sickness', label: 'sickness in pregnancy', concepts: ['morning_sickness'], gates: ['gate_gut'], supersedes: ['gut'], pregnancy: true,
    // NHS vomiting in pregnancy: small frequent meals and rest; a midwife or GP if fluids will not stay down, dark pee or not peeing, blood, or belly pain
    selfCare: (f) => f.pregnant === true && !f.present.has('dehydration') && !f.present.has('abdominal_pain') && !f.present.has('vaginal_bleeding') && !f.present.has('vomit_blood') && !feverish(f),
    advice: 'eat small, frequent plain snacks, sip drinks often, rest, and ginger may help; a pharmacist can advise on what is safe in pregnancy' },
  { id: 'pregnancy_swelling', label: 'swollen ankles in pregnancy', concepts: ['puffy_ankles'], gates: ['gate_leg'], supersedes: ['puffy_ankles', 'injury'], pregnancy: true,
    // NHS swelling in pregnancy: gradual ankle swelling by the evening is common; sudden swelling of the face or hands, a headache or vision problems can be pre-eclampsia
    selfCare: (f) => f.pregnant !== true ? puffyAnklesOk(f) : !f.present.has('face_swelling') && !f.present.has('headache') && !f.present.has('vision_loss') && !f.present.has('eye_urgent') && !f.present.has('leg_swelling')
      && !f.present.has('dyspnea') && !/\b(sudden\w*|hands|fingers|face)\b/.test(f.allText) && /\b(evening|end of the day|by (the )?night|standing|hot weather|on my feet)\b/.test(f.allText),
    advice: 'put your feet up when you can, avoid standing for long, wear comfortable shoes, and drink plenty of water' },
  // ---- triage-emerg-b
  // the warning-sign question every pregnancy gets; it never stands in the way of self-care its other complaints allow
  { id: 'pregnancy', label: 'your pregnancy', concepts: ['pregnant'], gates: ['gate_pregnancy'], babies: true, pregnancy: true, selfCare: () => true },
  { id: 'crying_baby', label: 'a crying baby', concepts: ['infant_crying'], gates: ['gate_baby'], babies: true, pregnancy: true, supersedes: ['fatigue'],
    selfCare: (f) => f.present.has('infant_well') && !feverish(f) && !f.present.has('nausea_vomiting') && !f.present.has('blood_stool') && (f.ageYears === null || (f.ageYears >= 0.04 && f.ageYears < 0.5)),
    advice: 'hold and cuddle your baby, try gentle rocking, a warm bath or white noise, and wind them after feeds; a health visitor can help, and it usually stops by 4 months (NHS, Colic)' },
  { id: 'hfmd', label: 'spots on the hands and feet with mouth ulcers', concepts: ['hfmd'], gates: ['gate_meningitis'], supersedes: ['rash', 'fever', 'mouth_ulcer', 'minor_skin'],
    selfCare: (f) => days(f) <= 10 && sev(f) <= 6 && (f.ageYears === null || f.ageYears >= 1) && !f.present.has('dehydration'),
    advice: 'give plenty of fluids (cool drinks and ice lollies help sore mouths), soft food, and paracetamol or ibuprofen as the packet says; it usually clears in 7 to 10 days' },
  { id: 'heat', label: 'feeling unwell in the heat', concepts: ['heat_exposure'], gates: ['gate_heat'], supersedes: ['dizziness', 'headache', 'gut'],
    selfCare: (f) => f.present.has('recovered') && sev(f) <= 5 && !f.present.has('confusion'),
    advice: 'stay somewhere cool, drink plenty of water or a rehydration drink, and rest; avoid the sun in the hottest part of the day' },
  { id: 'minor_cut', label: 'a cut or wound', concepts: ['cut_lay'], gates: ['gate_wound'],
    selfCare: (f) => sev(f) <= 5 && !f.present.has('wound_deep') && !f.present.has('arterial_bleed') && !f.present.has('bleeding_severe') && !f.present.has('wound_infected'),
    advice: 'press on it to stop the bleeding, clean it under running water, and cover it with a plaster or dressing; watch for redness, swelling or pus' },
  { id: 'sunburn', label: 'sunburn', concepts: ['sunburn_lay'], gates: ['gate_burn'], supersedes: ['rash', 'burn'],
    selfCare: (f) => sev(f) <= 6 && days(f) <= 7,
    advice: 'cool the skin with a cool shower or damp towel, use aftersun or calamine, drink plenty of water, and stay out of the sun until it heals' },
  { id: 'ankle_swelling', label: 'swollen ankles or feet', concepts: ['ankle_swelling'], gates: ['gate_leg'], babies: true, pregnancy: true,
    selfCare: (f) => sev(f) <= 4 && !f.present.has('one_leg') && !f.present.has('leg_swelling') && !f.present.has('hand_face_swelling') && !f.present.has('visual_disturbance') && !f.present.has('headache') && /\b(go(es)? down|gone down|overnight|(by|in|at|towards) the (evening|end of the day)|after (a|the|my) (long )?(flight|day|journey|drive)|feet up|both)\b/.test(f.allText),
    advice: 'raise your feet when you can, walk regularly, avoid standing for long, and wear comfortable shoes; see a GP if it is only one leg, painful, or does not go down' },
  // ---- triage-emerg-a
  { id: 'faint', label: 'a faint', concepts: ['fainted'], gates: ['gate_faint'],
    selfCare: (f) => f.present.has('faint_reflex') && !f.present.has('faint_red') && sev(f) <= 4 && days(f) <= 2,
    advice: 'if you feel faint again, lie down with your legs raised or sit with your head between your knees; drink water and eat something, and tell the nurse before your next blood test so you can lie down for it' },
  // without chest pain the cue (lifting, tender to press) says nothing about self-care: the other complaints decide
  { id: 'chest_wall', label: 'pain after lifting or straining', concepts: ['chest_wall_cue'], gates: ['gate_chest'], supersedes: ['chest_pain'],
    selfCare: (f) => !f.present.has('chest_pain') || sev(f) <= 5 && days(f) <= 14 && (f.ageYears === null || f.ageYears < 50) && !['dyspnea', 'sweating', 'chest_cardiac_quality', 'nausea_vomiting', 'near_faint', 'fainted', 'palpitations', 'fever', 'leg_swelling'].some((c) => f.present.has(c)),
    advice: 'rest from lifting, use a warm compress, and take paracetamol or ibuprofen as the packet says; it usually eases within a few days to weeks, and call 999 if the pain becomes heavy or tight, spreads, or comes with breathlessness or sweating' },
  { id: 'hypo_treated', label: 'a low blood sugar that has come back up', concepts: ['hypo_treated'], gates: [],
    selfCare: (f) => sev(f) <= 4 && !f.present.has('confusion'),
    advice: 'have a starchy snack or your next meal, check your sugar again within 15 minutes of any symptoms, and tell your diabetes team if hypos are happening more often' },
  { id: 'floaters', label: 'floaters in the vision', concepts: ['floaters'], gates: ['gate_retina'], supersedes: ['eye'],
    selfCare: (f) => days(f) >= 28 && sev(f) <= 3,
    advice: 'floaters that have been there a long time and are not changing are usually harmless; see an optician if they change, and go to A&E at once for a sudden shower of new floaters, flashes or a shadow over your vision' },
  { id: 'palp_trigger', label: 'a skipped or extra heartbeat', concepts: ['palp_trigger'], gates: ['gate_palpitations'], supersedes: ['palpitations'],
    selfCare: (f) => sev(f) <= 4 && !['near_faint', 'dizziness', 'fast_pulse', 'chest_pain', 'dyspnea'].some((c) => f.present.has(c)),
    advice: 'cut down on caffeine, alcohol and energy drinks, and try to rest and manage stress; see a GP if they last a long time, get worse, or you have a heart condition' },
];

/** A complaint for free text no concept names: the general warning-sign gate, and a clinician. */
/** Swelling or redness around the eye (NHS sinusitis and cold sores: a GP the same day). */
function nearEye(f: Findings): boolean {
  return /\b(swell\w*|swollen|red\w*|puffy|spread\w*|sores?)\b[\w ,']{0,30}\b(around|round|near|under|over|up to|by) (my |his |her |the )?(left |right )?eyes?\b/.test(f.allText);
}

/** A foot, toe or nail problem with diabetes (NHS diabetes: foot problems need a GP or podiatrist). */
function diabeticFoot(f: Findings): boolean {
  return /\b(diabet\w*|insulin|metformin|gliclazide)\b/.test(`${f.allText} ${f.conditions ?? ''} ${f.medicines ?? ''}`) && /\b(foot|feet|toes?|heels?|soles?|nails?|verruca\w*)\b/.test(f.allText);
}

/** NHS swollen ankles, feet and legs: both sides, after a flight, a journey or standing, short, with no sign of a clot. */
function puffyAnklesOk(f: Findings): boolean {
  return !f.present.has('leg_swelling') && !f.present.has('dyspnea') && !f.present.has('chest_pain') && days(f) <= 3 && sev(f) <= 4
    && /\b(flight|flying|plane|journey|drive|standing|on my feet|end of the day|hot weather)\b/.test(f.allText);
}

export const OTHER: Complaint = { id: 'other', label: 'your symptoms', concepts: [], gates: ['gate_general'] };
