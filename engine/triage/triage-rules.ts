/**
 * Red-flag rules: the screen that runs before any engine and that no engine can overrule. Each rule
 * cites the published warning-sign list it comes from:
 *  - [ACEP] American College of Emergency Physicians, "Warning signs of a medical emergency"
 *    (emergencyphysicians.org, Know When to Go).
 *  - [NHS999] NHS, "When to call 999" (nhs.uk/nhs-services/urgent-and-emergency-care-services/when-to-call-999).
 *  - [NHS-<page>] the NHS condition page named (nhs.uk/conditions/...), its "call 999 / go to A&E"
 *    or "ask for an urgent GP appointment / get help from 111" box.
 *  - [AAP] American Academy of Pediatrics, HealthyChildren.org, "Fever and your baby".
 *  - [988] 988 Suicide & Crisis Lifeline; [APC] America's Poison Centers (1-800-222-1222).
 *  - [MedlinePlus-<page>] MedlinePlus medical encyclopedia, "when to contact a medical professional".
 * Labels are findings in plain words, never a diagnosis.
 */
import type { Findings } from './triage-findings.ts';

export interface RedFlagRule {
  id: string;
  /** the red flag as the patient and clinician read it ("chest pain with shortness of breath") */
  label: string;
  acuity: 'emergency' | 'urgent';
  when: (f: Findings) => boolean;
  /** the list this rule is drawn from (see the header) */
  source: string;
  /** suicidal intent: the reply leads with 988 */
  crisis?: boolean;
  /** poisoning: the reply adds Poison Control */
  poison?: boolean;
}

const has = (f: Findings, ...ids: string[]): boolean => ids.some((id) => f.present.has(id));
/** Lasting more than 3 days and never called sudden. */
const longStanding = (f: Findings): boolean => f.durationDays !== null && f.durationDays > 3 && !/\bsudden/.test(f.allText);
/** A measured temperature decides (NHS: a fever is 38 C or more); without one, the patient's word for it. */
const fever = (f: Findings): boolean => (f.tempC !== null ? f.tempC >= 38 : f.present.has('fever'));
/** NHS heart attack: the chest pain can feel like indigestion; with breathlessness or sweating that is the emergency. */
const chestIndigestion = (f: Findings): boolean => has(f, 'heartburn') && /\b(chest|breast ?bone)\b/.test(f.allText) && !/\bafter (eating|meals?|food|dinner|lunch)\b/.test(f.allText);
/** A named allergen or reaction: the 'allergen_exposure' concept also matches any 'ate' or 'took', too broad for a hoarse voice alone. */
const ALLERGEN = /allerg|\bnuts?\b|peanut|shellfish|prawn|sesame|\bsting\b|stung|\bwasp|\bbee\b|penicillin|antibiotic|reaction/;
const ANTICOAGULANT = /warfarin|apixaban|eliquis|rivaroxaban|xarelto|dabigatran|edoxaban|heparin|blood thinner|clopidogrel/;

// ---- triage-emerg-a
/** Patient text with the answered conditions and medicines (a known Addison's or diabetes is often only said there). */
const context = (f: Findings): string => `${f.allText} ${f.conditions ?? ''} ${f.medicines ?? ''}`.toLowerCase();
const EXERCISE = /\b(run|running|jog\w*|treadmill|gym|exercis\w*|workout|spin class|cycling|sprint\w*|training)\b/;
const SUDDEN = /\b(sudden\w*|all of a sudden|out of (nowhere|the blue)|in an instant|instantly)\b/;
const SEVERE_WORD = /\b(worst|horrend\w*|agony|agonis\w*|agoniz\w*|excruciating|unbearable|terrible|severe|awful|(really|very|extremely) painful)\b/;
const PALLOR = /\b(grey|gray|pale|ashen|clammy)\b/;
const MUSCLE_TEAR = /\b(tore|torn|tearing|ripped|pulled|strained) (a |my |his |her )?(muscle|ligament|tendon|hamstring|calf|cartilage)/;
const DIABETES = /diabet|\btype (1|one|i)\b|\bt1d?\b|\binsulin\b/;
const TYPE1 = /\btype (1|one|i)\b|\bt1d?\b|\binsulin\b/;
/** Being sick, not only feeling sick (nausea alone is not the NHS's warning). */
const VOMITING = /vomit|being sick|been sick|was sick|throw\w* up|threw up|can'?t keep/;
const ADRENAL = /addison'?s|adrenal (insufficiency|crisis|failure)|hypopituitar|congenital adrenal|steroid[- ]dependent|hydrocortisone(?! (cream|ointment|1%))/;
const HYPERTHYROID = /overactive thyroid|hyperthyroid|graves|thyrotoxic|carbimazole|propylthiouracil/;
const ANTITHYROID = /carbimazole|propylthiouracil|methimazole/;
/** NHS anaphylaxis triggers: a food, a sting or a medicine taken shortly before. */
const ALLERGY_FOOD = 'nuts?|peanuts?|cashews?|almonds?|walnuts?|pistachios?|hazelnuts?|pecans?|prawns?|shrimps?|shellfish|crab|lobster|mussels?|scallops?|fish|sesame|kiwi|eggs?|satay';
/** NHS anaphylaxis triggers, taken shortly before: a food eaten, a sting, or a medicine or injection just had. */
const ALLERGEN_EXPOSURE = new RegExp(`\\b(ate|eaten|eating|had|tried|tasted|bit into|after)\\b[\\w ',]{0,40}\\b(${ALLERGY_FOOD})\\b|\\b(stung|sting|stings|bitten)\\b|\\b(after|since|took|taken|taking|started|starting|just (had|took|taken|got))\\b[\\w ',]{0,40}\\b(injection|jab|vaccin\\w*|infusion|antibiotics?|penicillin|amoxicillin|contrast|latex|new (tablets?|medicine|medication|pills?))\\b|allergic reaction|\\b(hornet|wasp|bee)\\b`);
/**
 * NHS fainting: a faint with an obvious trigger (a blood test or needle, standing a long time, a hot
 * room, getting up fast) and a quick recovery does not usually need a doctor; one during exercise,
 * with chest pain, palpitations, a fit or a head injury, or in someone 65 or over, does.
 */
const DOOM = /sense of (impending )?doom|(feel|feels|feeling|felt) like (i'?m|i am|he'?s|he is|she'?s|she is|they'?re) (going to|gonna|about to) die|something (awful|terrible|bad) (is )?(about to|going to) happen/;
/** The systems an allergic reaction reaches (NHS anaphylaxis; WAO / NIAID criteria: two or more after a likely trigger). */
function reactionSystems(f: Findings): number {
  const skin = has(f, 'hives', 'face_swelling');
  const airway = has(f, 'throat_odd', 'wheeze', 'dyspnea', 'severe_dyspnea', 'stridor', 'hoarse_voice', 'airway_swelling');
  const circulation = has(f, 'near_faint', 'fainted', 'unconscious');
  const gut = has(f, 'nausea_vomiting') && VOMITING.test(f.allText);
  // NHS anaphylaxis also names confusion or anxiety, a feeling of doom
  const mind = DOOM.test(f.allText) || has(f, 'confusion');
  return [skin, airway, circulation, gut, mind].filter(Boolean).length;
}
const simpleFaint = (f: Findings): boolean => has(f, 'faint_reflex') && !DIABETES.test(context(f)) && !has(f, 'faint_red', 'unconscious', 'chest_pain', 'palpitations', 'fast_pulse', 'seizure', 'head_injury', 'dyspnea', 'severe_dyspnea', 'confusion') && !(f.ageYears !== null && f.ageYears >= 65) && f.pregnant !== true;
/** NHS chest pain: pain from a strained muscle (after lifting, worse when pressed or moving) in a younger adult with no other warning sign. */
const chestWall = (f: Findings): boolean => has(f, 'chest_wall_cue') && !has(f, 'dyspnea', 'severe_dyspnea', 'sweating', 'chest_cardiac_quality', 'nausea_vomiting', 'near_faint', 'fainted', 'palpitations', 'fever', 'cough_blood', 'leg_swelling') && (f.ageYears === null || f.ageYears < 50);

export const RULES: readonly RedFlagRule[] = [
  // ---- emergencies: call 911 now
  { id: 'suicidal', label: 'thoughts of suicide or self-harm', acuity: 'emergency', crisis: true, source: 'ACEP (suicidal feelings); NHS999 (suicide attempt); 988', when: (f) => has(f, 'suicidal') },
  { id: 'homicidal', label: 'thoughts of harming someone else', acuity: 'emergency', source: 'ACEP (homicidal feelings)', when: (f) => has(f, 'homicidal') },
  { id: 'chest_breath', label: 'chest pain with shortness of breath', acuity: 'emergency', source: 'ACEP (chest pain; difficulty breathing); NHS-heart-attack; NHS-chest-pain', when: (f) => (has(f, 'chest_pain') || chestIndigestion(f)) && has(f, 'dyspnea', 'severe_dyspnea', 'sweating') },
  { id: 'chest_severe', label: 'severe chest pain', acuity: 'emergency', source: 'ACEP (chest pain or pressure; sudden or severe pain)', when: (f) => has(f, 'chest_pain') && f.severity !== null && f.severity >= 7 },
  { id: 'chest_cardiac', label: 'chest pain that feels heavy or tight, spreads, or comes with sweating or feeling sick', acuity: 'emergency', source: 'NHS-chest-pain (call 999); NHS-heart-attack; ACEP (chest pressure)', when: (f) => has(f, 'heart_attack_claim') || (has(f, 'chest_pain') && has(f, 'chest_cardiac_quality', 'sweating', 'nausea_vomiting', 'near_faint', 'fainted')) },
  // Stroke signs are sudden and new (NHS-stroke); weakness that has lasted days without the word
  // "sudden" (a stiff shoulder that will not lift) is urgent, not 911 (rule 'neuro_old' below).
  { id: 'stroke', label: 'sudden face drooping, arm or leg weakness, speech or vision trouble', acuity: 'emergency', source: 'NHS999 and NHS-stroke (FAST); BE-FAST (balance, eyes); ACEP (difficulty speaking, changes in vision)', when: (f) => has(f, 'face_droop', 'arm_weakness', 'speech_trouble', 'stroke', 'vision_loss', 'balance_loss') && !longStanding(f) },
  { id: 'anaphylaxis', label: 'swelling of the lips, tongue or throat, or an allergic reaction with breathing trouble', acuity: 'emergency', source: 'NHS999 (sudden swelling of lips, mouth, throat or tongue); NHS-anaphylaxis (throat tightness, hoarse voice)', when: (f) => has(f, 'airway_swelling', 'epipen') || (has(f, 'hoarse_voice') && (has(f, 'bite_sting') || ALLERGEN.test(f.allText))) || (has(f, 'face_swelling', 'hives') && has(f, 'dyspnea', 'severe_dyspnea', 'stridor', 'near_faint', 'fainted') && has(f, 'allergen_exposure', 'bite_sting')) || (has(f, 'face_swelling', 'hives') && has(f, 'dyspnea', 'severe_dyspnea', 'stridor')) },
  { id: 'breathing', label: 'severe difficulty breathing', acuity: 'emergency', source: 'NHS999 (severe difficulty breathing, blue lips); ACEP (difficulty breathing); NHS-asthma-attack', when: (f) => has(f, 'severe_dyspnea', 'blue_lips', 'stridor', 'asthma_not_helping') },
  { id: 'airway', label: 'unable to swallow or drooling', acuity: 'emergency', source: 'NHS-sore-throat (call 999: difficulty swallowing, drooling)', when: (f) => has(f, 'swallow_difficulty') },
  { id: 'bleeding', label: 'heavy bleeding that will not stop', acuity: 'emergency', source: 'ACEP (uncontrolled bleeding); NHS999 (heavy bleeding)', when: (f) => has(f, 'bleeding_severe') },
  { id: 'blood_gi', label: 'vomiting or coughing up blood, or black tarry stools', acuity: 'emergency', source: 'ACEP (coughing or vomiting blood); NHS-stomach-ulcer and NHS-vomiting-blood (A&E)', when: (f) => has(f, 'vomit_blood', 'cough_blood', 'black_stool') },
  { id: 'seizure', label: 'a seizure (fit)', acuity: 'emergency', source: 'NHS999 (seizure); ACEP', when: (f) => has(f, 'seizure') },
  { id: 'unconscious', label: 'collapse, fainting or being hard to wake', acuity: 'emergency', source: 'NHS999 (unconscious, cannot be woken); ACEP (fainting, difficulty waking)', when: (f) => has(f, 'unconscious') || (has(f, 'fainted') && !simpleFaint(f)) },
  { id: 'confusion', label: 'sudden confusion', acuity: 'emergency', source: 'NHS999 (sudden confusion, delirium); ACEP (confusion or changes in mental status)', when: (f) => has(f, 'confusion') },
  { id: 'meningitis', label: 'a rash that does not fade under a glass, or a stiff neck with fever', acuity: 'emergency', source: 'NHS999 (rash that does not fade); NHS-meningitis; NHS-sepsis', when: (f) => has(f, 'rash_nonblanching', 'meningitis_gate') || (has(f, 'neck_stiffness') && (fever(f) || has(f, 'photophobia'))) },
  { id: 'sepsis', label: 'signs of a serious infection: mottled or blotchy skin, breathing very fast, or no pee all day', acuity: 'emergency', source: 'NHS-sepsis (call 999); UK Sepsis Trust (slurred speech or confusion, extreme shivering, passing no urine in a day, severe breathlessness, feels like going to die, skin mottled)', when: (f) => has(f, 'sepsis_sign') && (fever(f) || has(f, 'infection', 'confusion', 'urinary')) },
  { id: 'child_drowsy', label: 'a young child who is very sleepy or hard to wake, or has a weak, high-pitched cry, while unwell', acuity: 'emergency', source: 'NHS999 (baby or young child: floppy, unusually sleepy, hard to wake); NHS-sepsis (children: weak, high-pitched cry; very sleepy or difficult to wake)', when: (f) => has(f, 'child_drowsy') && ((f.ageYears !== null && f.ageYears < 5) || has(f, 'infant')) && (fever(f) || has(f, 'nausea_vomiting', 'diarrhea', 'dehydration', 'infection', 'cough', 'rash')) },
  { id: 'infant_fever', label: 'a fever in a baby under 3 months old', acuity: 'emergency', source: 'AAP (under 3 months, 100.4 F / 38 C or higher: call the doctor now); NHS-fever-in-children', when: (f) => fever(f) && f.ageYears !== null && f.ageYears < 0.25 },
  { id: 'pregnancy_bleeding', label: 'heavy bleeding or severe tummy pain in pregnancy', acuity: 'emergency', source: 'NHS-vaginal-bleeding-in-pregnancy; NHS-ectopic-pregnancy (call 999: shoulder tip pain, severe pain, heavy bleeding, tummy pain with feeling faint)', when: (f) => f.pregnant === true && (has(f, 'bleeding_severe', 'severe_abdominal', 'shoulder_tip_pain') || (has(f, 'vaginal_bleeding') && /heav|a lot|soak|clots|pouring/.test(f.allText)) || (has(f, 'abdominal_pain') && f.severity !== null && f.severity >= 8) || (has(f, 'abdominal_pain') && has(f, 'near_faint', 'fainted'))) },
  { id: 'poisoning', label: 'a possible poisoning or overdose', acuity: 'emergency', poison: true, source: 'NHS999; NHS-poisoning; APC', when: (f) => has(f, 'poisoning') },
  { id: 'thunderclap', label: 'a sudden, very severe headache', acuity: 'emergency', source: 'NHS-headaches (call 999: sudden, extremely painful headache); ACEP (sudden severe pain)', when: (f) => has(f, 'thunderclap') || (has(f, 'headache') && has(f, 'neck_stiffness') && (fever(f) || has(f, 'photophobia', 'rash'))) },
  { id: 'burns', label: 'a severe or large burn', acuity: 'emergency', source: 'NHS999 (severe burns); NHS-burns-and-scalds (A&E: large, deep, white or charred; blisters on the face, hands, arms, feet, legs or genitals)', when: (f) => has(f, 'severe_burn') || (has(f, 'burn') && has(f, 'burn_blisters') && (has(f, 'burn_site') || (f.ageYears !== null && f.ageYears < 5))) },
  { id: 'dka', label: 'very high blood sugar with vomiting or fast breathing', acuity: 'emergency', source: 'NHS-diabetic-ketoacidosis (go to A&E)', when: (f) => has(f, 'high_sugar') && has(f, 'nausea_vomiting', 'dyspnea', 'confusion', 'abdominal_pain') },
  { id: 'trauma', label: 'a serious injury', acuity: 'emergency', source: 'NHS999 (severe injuries after a serious accident or assault)', when: (f) => has(f, 'major_trauma') },
  { id: 'head_injury', label: 'a head injury with vomiting, drowsiness, confusion or on blood thinners', acuity: 'emergency', source: 'NHS-head-injury-and-concussion (A&E)', when: (f) => has(f, 'head_injury') && (has(f, 'head_injury_red', 'nausea_vomiting', 'unconscious', 'fainted', 'confusion', 'seizure', 'vision_loss', 'speech_trouble') || ANTICOAGULANT.test(f.medicines ?? '') || ANTICOAGULANT.test(f.allText)) },
  { id: 'abdominal', label: 'sudden or severe tummy pain', acuity: 'emergency', source: 'ACEP (sudden or severe pain; unusual abdominal pain)', when: (f) => has(f, 'severe_abdominal') || (has(f, 'abdominal_pain') && f.severity !== null && f.severity >= 8) },
  { id: 'testicular', label: 'sudden, severe testicle pain', acuity: 'emergency', source: 'NHS-testicular-lumps-and-swellings (A&E: sudden, very painful); NHS-testicular-torsion (with being sick)', when: (f) => has(f, 'testicular_pain') || (has(f, 'testicle_mention') && (has(f, 'nausea_vomiting') || (f.severity !== null && f.severity >= 7) || /\bagony\b|excruciating|sudden/.test(f.allText)) && !longStanding(f)) },
  { id: 'cauda_equina', label: 'back pain with numbness around the bottom or loss of bladder or bowel control', acuity: 'emergency', source: 'NHS-back-pain and NHS-cauda-equina-syndrome (A&E)', when: (f) => has(f, 'cauda_equina') && has(f, 'back_pain', 'leg_weakness') },
  { id: 'immune_fever', label: 'a fever with a weakened immune system (for example during chemotherapy)', acuity: 'emergency', source: 'NHS-sepsis; NHS-chemotherapy side effects (fever: call the chemotherapy helpline or go to A&E)', when: (f) => fever(f) && (has(f, 'immunosuppressed') || /chemo|immunosuppress|transplant/.test(f.conditions ?? '')) },
  { id: 'dvt_breath', label: 'a swollen, painful leg with breathlessness or chest pain', acuity: 'emergency', source: 'NHS-DVT (call 999: breathless, chest pain)', when: (f) => has(f, 'leg_swelling') && has(f, 'dyspnea', 'chest_pain', 'cough_blood') },
  { id: 'palpitations_red', label: 'a racing heart with chest pain, breathlessness or fainting', acuity: 'emergency', source: 'NHS-heart-palpitations (call 999)', when: (f) => has(f, 'palpitations') && has(f, 'chest_pain', 'dyspnea', 'fainted', 'near_faint') },
  { id: 'nosebleed', label: 'a nosebleed lasting more than 10 minutes', acuity: 'emergency', source: 'NHS-nosebleed (A&E: longer than 10 minutes)', when: (f) => has(f, 'nosebleed_long') },
  { id: 'dental_swelling', label: 'tooth pain with swelling spreading to the eye or neck', acuity: 'emergency', source: 'NHS-toothache (A&E: swelling spreading to eye or neck)', when: (f) => has(f, 'dental') && has(f, 'dental_red') },
  { id: 'hypo', label: 'low blood sugar with drowsiness, confusion or a fit', acuity: 'emergency', source: 'NHS-low-blood-sugar (hypoglycaemia: call 999 if unconscious, having a fit, or not improving)', when: (f) => has(f, 'low_sugar') && (has(f, 'confusion', 'unconscious', 'seizure', 'child_drowsy', 'speech_trouble', 'fainted') || /\b(drowsy|groggy|out of it|won'?t wake|can'?t (eat|swallow|keep (it|anything) down)|not (improving|coming up|going up)|(still|keeps?) (dropping|low))\b/.test(f.allText)) },
  { id: 'green_vomit', label: 'green vomit in a baby', acuity: 'emergency', source: 'NHS-vomiting-in-babies (A&E: green or yellow-green vomit)', when: (f) => has(f, 'green_vomit') && ((f.ageYears !== null && f.ageYears < 1) || (f.ageYears === null && has(f, 'infant'))) },
  { id: 'eye_acute', label: 'a suddenly very painful eye with halos, vomiting or a change in vision', acuity: 'emergency', source: 'NHS-glaucoma (acute: go to A&E); NHS-red-eye (A&E: very painful, vision change)', when: (f) => has(f, 'eye_acute') && (has(f, 'nausea_vomiting', 'vision_loss', 'eye_urgent') || /\b(halos?|rainbows?|rings? (round|around) (the )?lights?)\b/.test(f.allText)) },
  { id: 'aortic', label: 'a sudden tearing or ripping pain in the chest or back', acuity: 'emergency', source: 'NHS-aortic-dissection (call 999: sudden severe chest or upper back pain, tearing)', when: (f) => (has(f, 'chest_pain') || (has(f, 'back_pain') && /\bsudden/.test(f.allText))) && /\b(ripp\w*|tearing)\b/.test(f.allText) && !/\b(tore|torn|tearing|ripped|pulled|strained) (a |my |his |her )?(muscle|ligament|tendon|hamstring)/.test(f.allText) },
  { id: 'general_gate', label: 'a warning sign named by the patient', acuity: 'emergency', source: 'ACEP (warning signs list, asked as one question)', when: (f) => has(f, 'general_red') },
  // ---- urgent: a clinician today
  { id: 'high_sugar', label: 'high blood sugar', acuity: 'urgent', source: 'NHS-high-blood-sugar (hyperglycaemia: contact your care team)', when: (f) => has(f, 'high_sugar') },
  { id: 'fever_3d', label: 'a fever for more than 3 days', acuity: 'urgent', source: 'MedlinePlus-fever (fever lasting longer than 3 days)', when: (f) => fever(f) && f.durationDays !== null && f.durationDays > 3 },
  { id: 'high_fever_young', label: 'a high fever in a child under 6 months', acuity: 'urgent', source: 'NHS-fever-in-children (3 to 6 months, 39 C or higher)', when: (f) => f.ageYears !== null && f.ageYears < 0.5 && f.tempC !== null && f.tempC >= 39 },
  { id: 'uti_upper', label: 'urinary symptoms with fever or pain in the side or back', acuity: 'urgent', source: 'NHS-urinary-tract-infections (urgent GP: high temperature, pain in the side)', when: (f) => has(f, 'urinary') && (fever(f) || has(f, 'flank_pain')) },
  { id: 'worsening', label: 'symptoms getting worse', acuity: 'urgent', source: 'NHS 111 (symptoms getting worse); MedlinePlus', when: (f) => has(f, 'worsening') },
  { id: 'breathless', label: 'shortness of breath', acuity: 'urgent', source: 'NHS-shortness-of-breath (urgent GP / 111); ACEP (difficulty breathing)', when: (f) => has(f, 'dyspnea') },
  { id: 'chest_pain', label: 'chest pain', acuity: 'urgent', source: 'NHS-chest-pain (111 if it comes and goes); ACEP', when: (f) => has(f, 'chest_pain') && !chestWall(f) },
  { id: 'pregnancy_symptom', label: 'bleeding or tummy pain in pregnancy', acuity: 'urgent', source: 'NHS-vaginal-bleeding-in-pregnancy (contact your midwife or 111); NHS-stomach-pain-in-pregnancy', when: (f) => f.pregnant === true && has(f, 'vaginal_bleeding', 'abdominal_pain') },
  { id: 'preeclampsia', label: 'a headache with vision changes or swelling in pregnancy', acuity: 'urgent', source: 'NHS-pre-eclampsia (get advice immediately)', when: (f) => f.pregnant === true && has(f, 'headache') && has(f, 'eye_urgent', 'vision_loss', 'face_swelling') },
  { id: 'dvt', label: 'a swollen, painful calf or leg', acuity: 'urgent', source: 'NHS-DVT (111 / urgent GP)', when: (f) => has(f, 'leg_swelling') },
  { id: 'eye', label: 'a painful red eye, light sensitivity or vision change', acuity: 'urgent', source: 'NHS-red-eye (urgent: painful, sensitive to light, vision change, contact lenses)', when: (f) => has(f, 'eye') && has(f, 'photophobia', 'eye_urgent') },
  { id: 'dehydration', label: 'signs of dehydration', acuity: 'urgent', source: 'NHS-diarrhoea-and-vomiting (111: signs of dehydration)', when: (f) => has(f, 'dehydration') },
  { id: 'gi_long', label: 'diarrhoea for more than 7 days or vomiting for more than 2 days', acuity: 'urgent', source: 'NHS-diarrhoea-and-vomiting', when: (f) => f.durationDays !== null && ((has(f, 'diarrhea') && f.durationDays > 7) || (has(f, 'nausea_vomiting') && /vomit|throw|threw|being sick/.test(f.allText) && f.durationDays > 2)) },
  { id: 'blood_stool', label: 'blood in the stool', acuity: 'urgent', source: 'NHS-blood-in-poo; NHS-diarrhoea-and-vomiting (bloody diarrhoea)', when: (f) => has(f, 'blood_stool') },
  { id: 'neuro_old', label: 'weakness, numbness, speech or vision trouble lasting days', acuity: 'urgent', source: 'NHS-stroke; NHS-transient-ischaemic-attack (get advice the same day)', when: (f) => has(f, 'face_droop', 'arm_weakness', 'speech_trouble', 'vision_loss', 'balance_loss') && longStanding(f) },
  { id: 'bite', label: 'an animal or human bite', acuity: 'urgent', source: 'NHS-animal-and-human-bites (get medical help)', when: (f) => has(f, 'animal_bite') },
  { id: 'fracture', label: 'an injury that may need an X-ray (out of shape, or cannot bear weight)', acuity: 'urgent', source: 'NHS-broken-arm-or-wrist / NHS-broken-leg (urgent treatment centre)', when: (f) => has(f, 'deformity') },
  { id: 'wound', label: 'a deep or gaping wound', acuity: 'urgent', source: 'NHS-cuts-and-grazes (minor injuries unit)', when: (f) => has(f, 'wound_deep') },
  { id: 'back_nerve', label: 'numbness or bladder or bowel changes', acuity: 'urgent', source: 'NHS-cauda-equina-syndrome', when: (f) => has(f, 'cauda_equina', 'leg_weakness') },
  { id: 'near_faint', label: 'feeling faint', acuity: 'urgent', source: 'ACEP (sudden dizziness, weakness)', when: (f) => has(f, 'near_faint') },
  { id: 'swallow', label: 'trouble swallowing', acuity: 'urgent', source: 'NHS-sore-throat; NHS-swallowing-problems', when: (f) => has(f, 'swallow_trouble') },
  { id: 'ear_mastoid', label: 'swelling or pain behind the ear', acuity: 'urgent', source: 'NHS-ear-infections (urgent: swelling behind the ear)', when: (f) => has(f, 'ear_mastoid') },
  { id: 'low_sugar', label: 'low blood sugar', acuity: 'urgent', source: 'NHS-low-blood-sugar (hypoglycaemia)', when: (f) => has(f, 'low_sugar') },
  { id: 'infant_fever_any', label: 'a fever in a baby under 1', acuity: 'urgent', source: 'NHS-fever-in-children (babies: get advice from 111 or a GP urgently); AAP (under 3 months: call the doctor now)', when: (f) => fever(f) && (f.ageYears !== null ? f.ageYears < 1 : has(f, 'infant')) },
  // Safer default: a sudden or severe cue in a high-risk body system that no rule above recognised is
  // at least urgent, and its warning-sign question is asked first (rules-engine.ts), never self-care.
  { id: 'alarm', label: 'a sudden or severe symptom in a part of the body where that can be serious', acuity: 'urgent', source: 'ACEP (sudden or severe pain; warning signs by body system)', when: (f) => has(f, 'alarm') },
  { id: 'severe_pain', label: 'severe pain (8 out of 10 or more)', acuity: 'urgent', source: 'ACEP (any sudden or severe pain)', when: (f) => f.severity !== null && f.severity >= 8 },
  // ---- triage-emerg-a
  { id: 'retina', label: 'new floaters, flashes of light, or a shadow or curtain over part of the vision', acuity: 'emergency', source: 'NHS-detached-retina (go to A&E or eye casualty immediately); NHS-floaters-and-flashes', when: (f) => has(f, 'retina_warning') },
  { id: 'glaucoma', label: 'a red, painful eye that feels hard, with a headache or being sick', acuity: 'emergency', source: 'NHS-glaucoma (acute angle-closure: go to A&E immediately); AAO angle-closure glaucoma', when: (f) => (has(f, 'eye_hard') && has(f, 'eye', 'red_eye', 'eye_acute', 'headache', 'nausea_vomiting')) || (has(f, 'red_eye', 'eye_acute') && has(f, 'nausea_vomiting') && (has(f, 'headache', 'eye_acute') || SEVERE_WORD.test(f.allText)) && !/\bboth (of )?(my |his |her |their )?eyes\b|\bcluster\b|(usual|normal|typical|regular) (migraine|headache)/.test(f.allText) && !(/\beyes\b/.test(f.allText) && !/\beye\b/.test(f.allText))) },
  { id: 'aortic_back', label: 'a sudden severe or tearing pain in the chest, back or between the shoulder blades', acuity: 'emergency', source: 'NHS-aortic-dissection (call 999: sudden severe pain in the chest or upper back, tearing or ripping)', when: (f) => (has(f, 'tearing_pain') && (has(f, 'chest_pain', 'back_pain', 'interscapular', 'abdominal_pain') || /\b(chest|back|tummy|stomach)\b/.test(f.allText)) && !MUSCLE_TEAR.test(f.allText)) || (has(f, 'interscapular') && SUDDEN.test(f.allText) && !/\b(lift\w*|twist\w*|bent|bending|gym|pulled|strain\w*|sneez\w*|spasm)\b/.test(f.allText) && ((f.severity !== null && f.severity >= 8) || SEVERE_WORD.test(f.allText) || PALLOR.test(f.allText) || has(f, 'sweating', 'near_faint', 'fainted'))) },
  { id: 'aaa', label: 'sudden severe tummy or back pain with feeling faint, in an older adult', acuity: 'emergency', source: 'NHS-abdominal-aortic-aneurysm (call 999: sudden severe pain in the tummy or lower back)', when: (f) => f.ageYears !== null && f.ageYears >= 50 && has(f, 'abdominal_pain', 'back_pain') && SUDDEN.test(f.allText) && (SEVERE_WORD.test(f.allText) || (f.severity !== null && f.severity >= 7)) && (has(f, 'near_faint', 'fainted', 'sweating') || PALLOR.test(f.allText)) },
  { id: 'ascending_weakness', label: 'weakness or tingling spreading up from the legs', acuity: 'emergency', source: 'NHS-guillain-barre-syndrome (go to A&E or call 999)', when: (f) => has(f, 'ascending_weakness') },
  { id: 'spinal_cord', label: 'back pain with weakness or numbness in both legs', acuity: 'emergency', source: 'NHS-sciatica (A&E: weakness or numbness in both legs); NICE NG234 metastatic spinal cord compression (cancer, back pain, leg weakness)', when: (f) => has(f, 'back_pain', 'interscapular', 'neck_pain') && (has(f, 'legs_neuro') || (has(f, 'cancer_history') && has(f, 'leg_weakness', 'arm_weakness', 'cauda_equina'))) },
  { id: 'encephalitis', label: 'sudden strange behaviour or confusion with a fever or infection', acuity: 'emergency', source: 'NHS-encephalitis (call 999: changes in mental state, confusion, behaving strangely); NHS-sepsis; NHS999 (sudden confusion)', when: (f) => has(f, 'behaviour_change') && (fever(f) || has(f, 'infection', 'flu', 'headache', 'seizure', 'neck_stiffness', 'head_injury', 'high_sugar', 'low_sugar') || SUDDEN.test(f.allText)) },
  { id: 'psych_danger', label: 'a danger to themselves or others from unusual beliefs or behaviour', acuity: 'emergency', source: 'NHS-mental-health crisis (call 999 if someone is in immediate danger); NHS-psychosis; ACEP (suicidal or homicidal feelings)', when: (f) => (has(f, 'psych_danger') || (has(f, 'psych_place') && (has(f, 'psychosis_signs', 'behaviour_change', 'suicidal', 'agitation', 'visual_hallucination') || /\b(manic|mania|psychotic|voices|delusion\w*|thinks (he|she|they)|jump)\b/.test(f.allText)))) && !(/\b(playing|superhero|pretend\w*|make[- ]believe|a game)\b/.test(f.allText) && f.ageYears !== null && f.ageYears < 12) },
  { id: 'dka_signs', label: 'signs of very high blood sugar: deep or fast breathing, very sleepy, or being sick with tummy pain', acuity: 'emergency', source: 'NHS-diabetic-ketoacidosis (go to A&E); NHS-type-1-diabetes (children: the 4 Ts)', when: (f) => ((has(f, 'thirst_pee', 'high_sugar') || DIABETES.test(context(f))) && has(f, 'deep_breathing', 'child_drowsy', 'confusion', 'unconscious')) || ((has(f, 'thirst_pee', 'high_sugar') || TYPE1.test(context(f))) && has(f, 'nausea_vomiting') && VOMITING.test(f.allText) && has(f, 'abdominal_pain', 'dehydration')) },
  { id: 'adrenal_crisis', label: 'being sick, faint or confused with Addison\'s disease or steroid dependence', acuity: 'emergency', source: 'NHS-addisons-disease (adrenal crisis: call 999); Society for Endocrinology adrenal crisis guidance', when: (f) => (has(f, 'adrenal') || ADRENAL.test(context(f))) && ((has(f, 'nausea_vomiting') && VOMITING.test(f.allText)) || has(f, 'diarrhea', 'near_faint', 'fainted', 'confusion', 'unconscious', 'severe_abdominal', 'child_drowsy')) },
  { id: 'thyroid_storm', label: 'a fever with a racing heart and agitation or confusion, with an overactive thyroid', acuity: 'emergency', source: 'NHS-overactive-thyroid (thyroid storm: call 999)', when: (f) => HYPERTHYROID.test(context(f)) && fever(f) && has(f, 'palpitations', 'fast_pulse') && (has(f, 'confusion', 'behaviour_change', 'nausea_vomiting', 'diarrhea') || /\bagitat/.test(f.allText)) },
  { id: 'anaphylaxis_throat', label: 'a strange feeling in the throat with feeling faint or breathless after a food, sting or medicine', acuity: 'emergency', source: 'NHS-anaphylaxis (call 999: throat tightness, feeling lightheaded or faint); Anaphylaxis UK', when: (f) => has(f, 'throat_odd') && ALLERGEN_EXPOSURE.test(f.allText) && has(f, 'near_faint', 'fainted', 'dyspnea', 'severe_dyspnea', 'hives', 'face_swelling', 'stridor', 'hoarse_voice', 'wheeze') },
  { id: 'heatstroke', label: 'signs of heatstroke: confusion, hot dry skin without sweating, or collapse in the heat', acuity: 'emergency', source: 'NHS-heat-exhaustion-and-heatstroke (call 999); CDC heat-related illness', when: (f) => has(f, 'heat_exposure') && (has(f, 'not_sweating', 'confusion', 'behaviour_change', 'unconscious', 'fainted', 'seizure', 'ataxic', 'heat_red') || (f.tempC !== null && f.tempC >= 40)) },
  { id: 'recession', label: 'the skin pulling in at the ribs or neck with each breath', acuity: 'emergency', source: 'NHS999 (child: breathing problems, ribs pulling in); NHS-croup; AAP HealthyChildren (retractions, nostril flaring)', when: (f) => has(f, 'recession') && /breath|cough|wheez|croup|chest|asthma|cold/.test(f.allText) },
  { id: 'fast_pulse', label: 'a very fast heartbeat with feeling faint, dizzy, breathless or chest pain', acuity: 'emergency', source: 'NHS-heart-palpitations (call 999: with chest pain, breathlessness, feeling faint)', when: (f) => has(f, 'fast_pulse') && !EXERCISE.test(f.allText) && (has(f, 'near_faint', 'fainted', 'chest_pain', 'dyspnea', 'dizziness') || /(?<!\b(no|not|without|any) )\b(faint\w*|pass(ing)? out|dizz\w*|light-?headed|black(ing)? out)\b/.test(f.allText)) },
  { id: 'woke_gasping', label: 'waking up gasping or unable to breathe', acuity: 'emergency', source: 'NHS-heart-failure and NHS-shortness-of-breath (call 999: severe shortness of breath)', when: (f) => has(f, 'woke_gasping') && !/\b(snor\w*|sleep apn\w*|nightmare|bad dream|acid|reflux|heartburn)/.test(f.allText) },
  { id: 'orthopnoea', label: 'breathless when lying flat', acuity: 'urgent', source: 'NHS-heart-failure (see a GP: breathless lying down); NHS-shortness-of-breath', when: (f) => has(f, 'orthopnoea') },
  { id: 'limb_ischaemia', label: 'a suddenly cold, pale, painful or numb arm or leg', acuity: 'emergency', source: 'NHS-peripheral-arterial-disease; Circulation Foundation (acute limb ischaemia: call 999)', when: (f) => has(f, 'limb_ischaemia') },
  { id: 'bp_symptoms', label: 'a very high blood pressure with a headache, chest pain, breathlessness, weakness or vision change', acuity: 'emergency', source: 'NHS-high-blood-pressure (180/120 or higher with symptoms: call 999 or go to A&E)', when: (f) => has(f, 'bp_high') && has(f, 'headache', 'vision_loss', 'eye_urgent', 'chest_pain', 'dyspnea', 'confusion', 'speech_trouble', 'arm_weakness', 'back_pain', 'seizure') },
  { id: 'slow_pulse', label: 'a very slow pulse with feeling faint', acuity: 'emergency', source: 'NHS-heart-block / NHS-heart-palpitations (call 999 with fainting or feeling faint)', when: (f) => has(f, 'slow_pulse') && (has(f, 'near_faint', 'fainted', 'chest_pain', 'dyspnea', 'dizziness') || /(?<!\b(no|not|without|any) )\b(faint\w*|pass(ing)? out|dizz\w*|light-?headed|black(ing)? out)\b/.test(f.allText)) },
  { id: 'eye_injury', label: 'something has hit or pierced the eye', acuity: 'emergency', source: 'NHS-eye-injuries (go to A&E)', when: (f) => has(f, 'eye_penetrating') },
  { id: 'eye_blow_vision', label: 'a blow to the eye with a change in vision', acuity: 'emergency', source: 'NHS-eye-injuries (A&E: changes in vision after an injury)', when: (f) => has(f, 'eye_blunt') && (has(f, 'vision_loss', 'eye_urgent') || /(can'?t|cannot|couldn'?t) see|blurr\w*|double|blood in (the|my|his|her) eye|(lost|losing) (my |his |her )?(vision|sight)/.test(f.allText)) },
  { id: 'orbital', label: 'a swollen eye with fever, or pain moving the eye', acuity: 'emergency', source: 'NHS-cellulitis (around the eye: A&E); NICE CKS cellulitis (periorbital/orbital: same-day admission)', when: (f) => has(f, 'eye_move_pain') && (fever(f) || has(f, 'face_swelling')) },
  { id: 'post_tonsil', label: 'bleeding after having tonsils out', acuity: 'emergency', source: 'NHS-tonsillitis (tonsillectomy recovery: go to A&E if you cough up or vomit blood)', when: (f) => has(f, 'post_tonsil') },
  { id: 'postpartum_psychosis', label: 'confusion, strange beliefs or seeing things after giving birth', acuity: 'emergency', source: 'NHS-postpartum-psychosis (a medical emergency: call 999)', when: (f) => has(f, 'postpartum') && has(f, 'psychosis_signs', 'behaviour_change', 'visual_hallucination', 'confusion', 'psych_danger') },
  { id: 'alcohol_withdrawal_severe', label: 'seeing things, confusion or a fit after stopping drinking', acuity: 'emergency', source: 'NHS-alcohol-misuse (withdrawal: hallucinations or fits need emergency care)', when: (f) => has(f, 'alcohol_withdrawal') && has(f, 'visual_hallucination', 'behaviour_change', 'confusion', 'seizure') },
  { id: 'choked', label: 'wheezing or breathlessness after choking', acuity: 'emergency', source: 'NHS-choking (A&E if symptoms continue after the object is out); Resuscitation Council UK', when: (f) => has(f, 'choked') && has(f, 'wheeze', 'dyspnea', 'severe_dyspnea', 'stridor') },
  { id: 'drug_reaction', label: 'overheating, a fit, confusion or chest pain after taking drugs', acuity: 'emergency', source: 'NHS-drugs (call 999); ACEP (overdose)', when: (f) => has(f, 'recreational') && (fever(f) || /\b(burning|boiling|really|very|so) hot\b|overheat\w*|jerk\w*|twitch\w*|rigid|stiff/.test(f.allText) || has(f, 'seizure', 'confusion', 'behaviour_change', 'unconscious', 'chest_pain', 'palpitations', 'fast_pulse', 'dyspnea', 'severe_dyspnea')) },
  { id: 'eye_move_pain', label: 'pain when moving the eye', acuity: 'urgent', source: 'NHS-optic-neuritis (urgent: pain moving the eye, vision change); NHS-red-eye', when: (f) => has(f, 'eye_move_pain') },
  { id: 'eye_blow', label: 'a blow to the eye', acuity: 'urgent', source: 'NHS-eye-injuries (see an urgent treatment centre or 111)', when: (f) => has(f, 'eye_blunt') },
  { id: 'malaria', label: 'a fever after travel to a malaria area', acuity: 'urgent', source: 'NHS-malaria (get medical help urgently if you have a fever after travel)', when: (f) => has(f, 'malaria_travel') && fever(f) },
  { id: 'bp_high', label: 'a very high blood pressure reading', acuity: 'urgent', source: 'NHS-high-blood-pressure (180/120 or higher: recheck and get advice the same day)', when: (f) => has(f, 'bp_high') },
  { id: 'gca', label: 'a new headache with a tender scalp or jaw pain when chewing', acuity: 'urgent', source: 'NHS-giant-cell-arteritis (urgent GP or 111; A&E if vision changes)', when: (f) => has(f, 'gca_sign') && (f.ageYears === null || f.ageYears >= 50) },
  { id: 'alcohol_withdrawal', label: 'shaking or sweats after stopping drinking', acuity: 'urgent', source: 'NHS-alcohol-misuse (withdrawal: get medical advice)', when: (f) => has(f, 'alcohol_withdrawal') },
  { id: 'shingles', label: 'a shingles rash', acuity: 'urgent', source: 'NHS-shingles (see a GP or 111 as soon as possible; urgently if near the eye)', when: (f) => has(f, 'shingles') },
  { id: 'allergy_systems', label: 'an allergic reaction affecting breathing or circulation after a food, sting or medicine', acuity: 'emergency', source: 'NHS-anaphylaxis (call 999: breathing difficulty, feeling faint, after a trigger); WAO anaphylaxis criteria', when: (f) => ALLERGEN_EXPOSURE.test(f.allText) && reactionSystems(f) >= 2 && (has(f, 'throat_odd', 'wheeze', 'dyspnea', 'severe_dyspnea', 'stridor', 'hoarse_voice', 'near_faint', 'fainted', 'unconscious') || DOOM.test(f.allText)) },
  { id: 'hypothermia', label: 'very cold with drowsiness, confusion or slurred speech', acuity: 'emergency', source: 'NHS-hypothermia (call 999); CDC hypothermia', when: (f) => has(f, 'cold_exposure') && (has(f, 'child_drowsy', 'confusion', 'behaviour_change', 'speech_trouble', 'unconscious', 'ataxic') || /\b(not|stopped|isn'?t|no longer) shivering|barely (responding|conscious|awake|breathing)|(very|really|so|extremely) (drowsy|sleepy)|slurr\w*|slow breathing|breathing (is |seems )?slow/.test(f.allText)) },
  { id: 'sepsis_mind', label: 'an infection with confusion, strange behaviour or being very drowsy', acuity: 'emergency', source: 'NHS-sepsis (call 999: confused, slurred speech or not making sense, very drowsy); UK Sepsis Trust', when: (f) => (fever(f) || has(f, 'infection')) && (has(f, 'behaviour_change') || /\b(very|really|extremely) drowsy|barely (awake|conscious|responding)|(hard|difficult) to (wake|rouse)\b/.test(f.allText)) },
  { id: 'heart_attack_atypical', label: 'pain in the jaw or left arm with sweating, feeling sick or breathless', acuity: 'emergency', source: 'NHS-heart-attack (pain can spread to the jaw or arm, with sweating, feeling sick, breathlessness, lightheadedness)', when: (f) => /\b(jaw|left arm)\b/.test(f.allText) && has(f, 'chest_cardiac_quality') && has(f, 'sweating') && !/\b(tooth|teeth|dental|wisdom|flu|fever|temperature)\b/.test(f.allText) && (!EXERCISE.test(f.allText) || has(f, 'nausea_vomiting', 'dyspnea', 'near_faint')) && (f.ageYears === null || f.ageYears >= 30) },
  { id: 'agitation', label: 'severe agitation or violence with confusion, drugs, voices or unusual beliefs', acuity: 'emergency', source: 'NHS-mental-health crisis (call 999 if someone is in danger); ACEP (confusion or changes in mental status)', when: (f) => has(f, 'agitation') && (has(f, 'psychosis_signs', 'behaviour_change', 'confusion', 'visual_hallucination', 'recreational', 'psych_danger', 'alcohol_withdrawal') || /\b(manic|mania|psychotic|drugs|high on|off (his|her|their) meds|stopped (his|her|their) (meds|medication))\b/.test(f.allText)) },
  { id: 'toxic_shock', label: 'a fever with a rash, vomiting or faintness while using a tampon or menstrual cup', acuity: 'emergency', source: 'NHS-toxic-shock-syndrome (go to A&E)', when: (f) => has(f, 'tampon') && fever(f) && (has(f, 'rash', 'near_faint', 'fainted', 'confusion', 'diarrhea') || (has(f, 'nausea_vomiting') && VOMITING.test(f.allText))) },
  { id: 'breathless_shock', label: 'breathlessness with cold sweats, feeling faint or confusion', acuity: 'emergency', source: 'NHS-shortness-of-breath (call 999: with chest pain, clammy, feeling faint or confused); NHS-heart-attack (no chest pain in some people)', when: (f) => has(f, 'dyspnea') && (has(f, 'near_faint', 'fainted', 'confusion') || (has(f, 'sweating') && !EXERCISE.test(f.allText) && !fever(f))) },
  { id: 'psychosis', label: 'hearing voices, unusual beliefs or not sleeping for days', acuity: 'urgent', source: 'NHS-psychosis (see a GP urgently or call 111)', when: (f) => has(f, 'psychosis_signs') },
  { id: 'quinsy', label: 'a sore throat much worse on one side, or trouble opening the mouth', acuity: 'urgent', source: 'NHS-quinsy (urgent GP or 111)', when: (f) => has(f, 'quinsy_sign') && has(f, 'sore_throat', 'swallow_trouble') },
  { id: 'asthma_review', label: 'asthma that is getting worse or needs the reliever inhaler often', acuity: 'urgent', source: 'NHS-asthma (see a GP if you use your reliever 3 or more times a week)', when: (f) => has(f, 'asthma_review') },
  { id: 'diabetes_signs', label: 'peeing a lot and being very thirsty', acuity: 'urgent', source: 'NHS-type-1-diabetes / Diabetes UK (the 4 Ts: see a GP the same day)', when: (f) => has(f, 'thirst_pee') },
  { id: 'antithyroid_infection', label: 'a sore throat, mouth ulcers or fever while taking carbimazole or propylthiouracil', acuity: 'urgent', source: 'NHS-carbimazole (contact a doctor straight away for a blood test)', when: (f) => ANTITHYROID.test(context(f)) && (fever(f) || has(f, 'sore_throat', 'mouth_ulcer')) },
  { id: 'hearing_sudden', label: 'sudden hearing loss', acuity: 'urgent', source: 'NHS-hearing-loss (urgent GP or 111 if it comes on suddenly)', when: (f) => has(f, 'sudden_hearing_loss') },
];

export interface ScreenOutcome {
  acuity: 'emergency' | 'urgent' | null;
  fired: RedFlagRule[];
}

/** Every rule that fires, emergencies first; the acuity is the highest of them. */
export function screenFindings(f: Findings): ScreenOutcome {
  const fired = RULES.filter((r) => r.when(f));
  const emergency = fired.filter((r) => r.acuity === 'emergency');
  if (emergency.length > 0) return { acuity: 'emergency', fired: emergency };
  return { acuity: fired.length > 0 ? 'urgent' : null, fired };
}
