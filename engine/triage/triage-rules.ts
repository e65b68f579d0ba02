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

// ---- triage-emerg-b
/** Weeks of pregnancy the patient named ("34 weeks pregnant", "my wife is 29 weeks"); null when none. */
const PREG_WEEKS = /\b(\d{1,2}) ?(?:\+ ?\d ?)?(?:weeks?|wks?) (?:pregnant|along|gone|gestation)\b|\b(?:i'?m|im|i am|she'?s|she is|(?:wife|partner|girlfriend|fianc[eé]e?|sister|daughter) is|at) (?:about |around |nearly |almost |just (?:over |under )?)?(\d{1,2}) ?(?:weeks?|wks?)\b(?! (?:old|ago))/;
function pregnancyWeeks(f: Findings): number | null {
  const m = PREG_WEEKS.exec(f.allText);
  const n = m ? Number(m[1] ?? m[2]) : NaN;
  return n >= 4 && n <= 42 ? n : null;
}
/** Pregnant now: said so, answered so, or named the weeks. */
const pregnantNow = (f: Findings): boolean => f.pregnant === true || (f.pregnant === null && pregnancyWeeks(f) !== null);
/** A child (or a baby) by age, or by the words of the parent writing. */
const CHILD_WORDS = /\b(baby|toddler|son|daughter|boy|girl|kid|child|little one|grandson|granddaughter|nephew|niece|\d+ ?(month|week|day)s? old|\d+ ?(yo|y\/o|yr|yrs|year old))\b/;
const isChild = (f: Findings, under = 16): boolean => (f.ageYears !== null ? f.ageYears < under : has(f, 'infant') || CHILD_WORDS.test(f.allText));
/** Days of fever named in the text ("for 6 days", "nearly a week") or the answered duration. */
function daysNamed(f: Findings): number {
  const words: Record<string, number> = { five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
  const m = /\b(\d{1,2}|five|six|seven|eight|nine|ten) days\b/.exec(f.allText);
  const fromText = m ? (words[m[1]!] ?? Number(m[1])) : /\b(a|over a|nearly a|almost a|more than a|about a|\d) weeks?\b/.test(f.allText) ? 7 : 0;
  return Math.max(fromText, f.durationDays ?? 0);
}
/** A fall height named in metres or feet of 2 m (6 ft) or more (NHS 999: a fall from a height). */
function heightOver2m(t: string): boolean {
  return [...t.matchAll(/\b(\d+(?:\.\d)?) ?(m|metres?|meters?|feet|ft|foot)\b/g)].some((m) => Number(m[1]) >= (/^(m|met)/.test(m[2]!) ? 2 : 6));
}
const count = (f: Findings, ...groups: string[][]): number => groups.filter((g) => has(f, ...g)).length;
/** Given birth in the last weeks, as written (a relative's "had a baby" is a report, not family history). */
const POSTPARTUM = /\b(gave birth|given birth|(had|delivered|welcomed) (a|the|her|my|our|their) (baby|son|daughter|twins)|(since|after) (the|her|my) (birth|delivery|c-?section|caesarean|cesarean)|post-?(partum|natal)|(c-?section|caesarean|cesarean) (\d+|a|one|two|three|four|five|six) (days?|weeks?) ago|(new|newborn) baby|(our|my|her|the) baby is (\d+|one|two|three|four|five|six) (days?|weeks?) old)\b/;
const postpartum = (f: Findings): boolean => POSTPARTUM.test(f.allText);

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
  { id: 'unconscious', label: 'collapse, fainting or being hard to wake', acuity: 'emergency', source: 'NHS999 (unconscious, cannot be woken); ACEP (fainting, difficulty waking)', when: (f) => has(f, 'unconscious', 'fainted') },
  { id: 'confusion', label: 'sudden confusion', acuity: 'emergency', source: 'NHS999 (sudden confusion, delirium); ACEP (confusion or changes in mental status)', when: (f) => has(f, 'confusion') },
  { id: 'meningitis', label: 'a rash that does not fade under a glass, or a stiff neck with fever', acuity: 'emergency', source: 'NHS999 (rash that does not fade); NHS-meningitis; NHS-sepsis', when: (f) => has(f, 'rash_nonblanching', 'meningitis_gate') || (has(f, 'neck_stiffness') && (fever(f) || has(f, 'photophobia'))) },
  { id: 'sepsis', label: 'signs of a serious infection: mottled or blotchy skin, breathing very fast, or no pee all day', acuity: 'emergency', source: 'NHS-sepsis (call 999); UK Sepsis Trust (slurred speech or confusion, extreme shivering, passing no urine in a day, severe breathlessness, feels like going to die, skin mottled)', when: (f) => has(f, 'sepsis_sign') && (fever(f) || has(f, 'infection', 'confusion', 'urinary')) },
  { id: 'child_drowsy', label: 'a young child who is very sleepy or hard to wake, or has a weak, high-pitched cry, while unwell', acuity: 'emergency', source: 'NHS999 (baby or young child: floppy, unusually sleepy, hard to wake); NHS-sepsis (children: weak, high-pitched cry; very sleepy or difficult to wake)', when: (f) => has(f, 'child_drowsy') && ((f.ageYears !== null && f.ageYears < 5) || has(f, 'infant')) && (fever(f) || has(f, 'nausea_vomiting', 'diarrhea', 'dehydration', 'infection', 'cough', 'rash')) },
  { id: 'infant_fever', label: 'a fever in a baby under 3 months old', acuity: 'emergency', source: 'AAP (under 3 months, 100.4 F / 38 C or higher: call the doctor now); NHS-fever-in-children', when: (f) => fever(f) && f.ageYears !== null && f.ageYears < 0.25 },
  { id: 'pregnancy_bleeding', label: 'heavy bleeding or severe tummy pain in pregnancy', acuity: 'emergency', source: 'NHS-vaginal-bleeding-in-pregnancy; NHS-ectopic-pregnancy (call 999: shoulder tip pain, severe pain, heavy bleeding, tummy pain with feeling faint)', when: (f) => f.pregnant === true && (has(f, 'bleeding_severe', 'severe_abdominal', 'shoulder_tip_pain') || (has(f, 'vaginal_bleeding') && /(?<!\b(?:not|no|never|without|isn'?t|aren'?t|nothing) )(heav|a lot|soak|clots|pouring)/.test(f.allText)) || (has(f, 'abdominal_pain') && f.severity !== null && f.severity >= 8) || (has(f, 'abdominal_pain') && has(f, 'near_faint', 'fainted'))) },
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
  { id: 'chest_pain', label: 'chest pain', acuity: 'urgent', source: 'NHS-chest-pain (111 if it comes and goes); ACEP', when: (f) => has(f, 'chest_pain') },
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
  // ---- triage-emerg-b
  // pregnancy and after the birth
  { id: 'preeclampsia_severe', label: 'in pregnancy, two or more of: a bad headache, changes in vision, sudden swelling of the face or hands, pain just below the ribs', acuity: 'emergency', source: 'NHS-pre-eclampsia (severe headache, vision problems, pain just below the ribs, sudden swelling of face, hands or feet: get advice immediately); ACOG (preeclampsia with severe features: hospital)', when: (f) => pregnantNow(f) && (pregnancyWeeks(f) ?? 20) >= 20 && count(f, ['headache', 'thunderclap'], ['visual_disturbance', 'vision_loss', 'eye_urgent'], ['hand_face_swelling', 'face_swelling'], ['upper_abdo_pain']) >= 2 },
  { id: 'fetal_movements', label: 'a baby moving less than usual, or not at all, in pregnancy', acuity: 'emergency', source: 'NHS-baby-movements-in-pregnancy (call your maternity unit immediately; do not wait until the next day); Tommy\'s', when: (f) => has(f, 'fetal_movement_reduced') && (pregnantNow(f) || /\b(bump|pregnan)/.test(f.allText) || (/\b\d{1,2} ?(weeks?|wks?)\b/.test(f.allText) && !/\b(weeks?|days?|months?)[ -]old\b|newborn/.test(f.allText))) && (pregnancyWeeks(f) ?? 24) >= 22 },
  { id: 'waters_preterm', label: 'waters breaking before 37 weeks, or with green or brown fluid', acuity: 'emergency', source: 'NHS-signs-of-labour (call your maternity unit straight away if your waters break before 37 weeks, or the fluid is smelly or green or brown)', when: (f) => has(f, 'waters_broken') && (pregnantNow(f) || /\bpregnan|\bweeks\b/.test(f.allText)) && ((pregnancyWeeks(f) ?? 30) < 37 || /\b(green|brown|smelly|blood)/.test(f.allText)) },
  { id: 'postpartum_bleeding', label: 'heavy bleeding in pregnancy or after giving birth', acuity: 'emergency', source: 'NHS-your-body-after-the-birth and NHS-postpartum-haemorrhage (call 999: sudden heavy bleeding, soaking a pad an hour, large clots, feeling faint)', when: (f) => (postpartum(f) || pregnantNow(f)) && (has(f, 'heavy_pv_bleed') || (has(f, 'vaginal_bleeding') && has(f, 'near_faint', 'fainted'))) },
  { id: 'postnatal_psychosis', label: 'hearing voices, strange beliefs or confusion after having a baby', acuity: 'emergency', source: 'NHS-postpartum-psychosis (a medical emergency: call 999 or go to A&E)', when: (f) => has(f, 'psychosis') && (postpartum(f) || has(f, 'infant')) },
  { id: 'psychosis_danger', label: 'strange beliefs or voices with a weapon or a threat to harm someone', acuity: 'emergency', source: 'NHS-psychosis (call 999 or go to A&E if someone is in immediate danger); ACEP (homicidal feelings)', when: (f) => has(f, 'psychosis') && has(f, 'harm_risk') },
  { id: 'pregnancy_red', label: 'a warning sign in pregnancy', acuity: 'emergency', source: 'NHS-pre-eclampsia; NHS-baby-movements-in-pregnancy; NHS-vaginal-bleeding-in-pregnancy (call your maternity unit or 999)', when: (f) => has(f, 'pregnancy_red') && pregnantNow(f) },
  { id: 'waters_term', label: 'waters breaking', acuity: 'urgent', source: 'NHS-signs-of-labour (call your midwife or maternity unit when your waters break)', when: (f) => has(f, 'waters_broken') && pregnantNow(f) },
  { id: 'psychosis', label: 'hearing voices or beliefs that others find strange', acuity: 'urgent', source: 'NHS-psychosis (urgent GP appointment or NHS 111; 999 if at risk of harm)', when: (f) => has(f, 'psychosis') },
  // babies and children
  { id: 'fontanelle', label: 'a bulging soft spot on a baby\'s head', acuity: 'emergency', source: 'NHS-meningitis (babies: a bulging soft spot on the head); AAP', when: (f) => has(f, 'fontanelle_bulge') },
  { id: 'infant_dehydration', label: 'a young child with signs of serious dehydration (no wet nappy for hours, sunken eyes or soft spot, drowsy)', acuity: 'emergency', source: 'NHS-dehydration (babies and young children: sunken soft spot, few or no wet nappies, drowsy: urgent care, 999 if very unwell); NHS999 (baby not feeding, unusually sleepy)', when: (f) => isChild(f, 5) && has(f, 'dehydration_severe') && has(f, 'child_lethargic', 'child_drowsy', 'nausea_vomiting', 'diarrhea') && (has(f, 'child_lethargic', 'child_drowsy') || (f.ageYears !== null ? f.ageYears < 1 : has(f, 'infant'))) },
  { id: 'kawasaki', label: 'a fever for 5 days or more with red eyes, red cracked lips, a rash or swollen hands and feet', acuity: 'emergency', source: 'AAP-Kawasaki-disease (needs hospital treatment); NHS-Kawasaki-disease (high temperature 5 days or more with red eyes, red lips, rash, swollen hands and feet); AHA 2017', when: (f) => isChild(f, 18) && (fever(f) || has(f, 'fever')) && daysNamed(f) >= 5 && count(f, ['kd_eyes'], ['kd_mouth'], ['kd_extremity'], ['rash']) >= 2 },
  { id: 'intussusception', label: 'a baby or toddler with bouts of screaming and drawing up the legs, with vomiting or blood or jelly in the nappy', acuity: 'emergency', source: 'NHS-intussusception (call 999 or go to A&E: tummy pain that comes and goes, pulling knees to the chest, vomiting, redcurrant-jelly poo)', when: (f) => isChild(f, 6) && (has(f, 'intuss_stool') || (has(f, 'episodic_scream') && has(f, 'nausea_vomiting', 'blood_stool', 'child_lethargic') && (f.ageYears === null || f.ageYears >= 0.2))) },
  { id: 'green_vomit_child', label: 'green vomit in a child', acuity: 'emergency', source: 'NHS-vomiting-in-children-and-babies (A&E: green or yellow-green vomit); AAP (green vomit: possible bowel blockage)', when: (f) => has(f, 'green_vomit') && isChild(f, 16) },
  { id: 'swallowed_battery', label: 'a swallowed button battery or magnets', acuity: 'emergency', poison: true, source: 'NHS-swallowed-objects (go to A&E: button batteries, magnets); AAP-button-battery (emergency department right away even if the child seems fine); APC', when: (f) => has(f, 'swallowed_battery') },
  // poisoning, heat, cold, water, smoke
  { id: 'carbon_monoxide', label: 'headaches or sickness in several people in one home, or that ease away from it (possible carbon monoxide)', acuity: 'emergency', poison: true, source: 'NHS-carbon-monoxide-poisoning (symptoms in more than one person, better away from home; get fresh air and go to A&E)', when: (f) => has(f, 'headache', 'nausea_vomiting', 'dizziness', 'near_faint', 'confusion', 'child_drowsy', 'fatigue') && ((has(f, 'co_source') && has(f, 'household_affected', 'better_away')) || (has(f, 'household_affected') && has(f, 'better_away'))) },
  { id: 'heatstroke', label: 'signs of heatstroke: hot skin that is not sweating, confusion, or still unwell after cooling down', acuity: 'emergency', source: 'NHS-heat-exhaustion-and-heatstroke (call 999: still unwell after 30 minutes cooling, hot skin not sweating, confusion, fit, loss of consciousness)', when: (f) => has(f, 'heat_exposure') && has(f, 'anhidrosis', 'heatstroke_gate', 'confusion', 'seizure', 'unconscious') },
  { id: 'hypothermia', label: 'very cold skin with drowsiness, slowness or confusion', acuity: 'emergency', source: 'NHS-hypothermia (call 999: shivering stops, slurred speech, slow breathing, drowsy, confused)', when: (f) => (has(f, 'very_cold') || (has(f, 'cold_exposure') && /\b(freezing|cold|shivering)\b/.test(f.allText))) && has(f, 'slowed', 'confusion', 'unconscious', 'speech_trouble', 'child_drowsy') },
  { id: 'drowning', label: 'after going under water: coughing, breathing trouble or drowsiness', acuity: 'emergency', source: 'AAP-drowning (a child pulled from the water who needed rescue or has any symptoms: emergency care); NHS999', when: (f) => has(f, 'drowning') && (isChild(f) || has(f, 'cough', 'dyspnea', 'severe_dyspnea', 'confusion', 'unconscious', 'child_drowsy', 'nausea_vomiting', 'slowed') || /\bbreath/.test(f.allText)) },
  { id: 'smoke', label: 'breathing in smoke with coughing, a hoarse voice or breathing trouble', acuity: 'emergency', source: 'NHS-burns-and-scalds (call 999: breathed in smoke or fumes); ACEP (difficulty breathing)', when: (f) => has(f, 'smoke_exposure') && has(f, 'hoarse_voice', 'cough', 'dyspnea', 'severe_dyspnea', 'stridor', 'confusion', 'headache', 'near_faint', 'blue_lips') },
  // skin and infection
  { id: 'orbital_cellulitis', label: 'a red, swollen, hot eyelid with a fever or the eye closed', acuity: 'emergency', source: 'NHS-cellulitis (call 999 or go to A&E: cellulitis on the face or around the eyes); AAP (periorbital cellulitis)', when: (f) => has(f, 'orbital_cellulitis') && (fever(f) || has(f, 'eye_shut', 'vision_loss', 'visual_disturbance')) },
  { id: 'necrotising', label: 'pain far worse than the wound looks, or skin turning dark, with fever or severe pain', acuity: 'emergency', source: 'NHS-necrotising-fasciitis (go to A&E: intense pain out of proportion to the wound, skin changing colour, fever)', when: (f) => has(f, 'pain_out_of_proportion') && (has(f, 'cut', 'cut_lay', 'wound_deep', 'injury', 'bite_sting', 'animal_bite', 'rash', 'wound_infected') || /\b(scratch\w*|graze\w*|wound|cut|bite|bitten|injection|jab|surgery|operation|blister\w*)\b/.test(f.allText)) && (fever(f) || has(f, 'skin_blistering', 'severe_abdominal', 'alarm') || (f.severity !== null && f.severity >= 7) || /\b(agony|excruciating|unbearable)\b/.test(f.allText)) },
  { id: 'sjs', label: 'a blistering or peeling rash with sore mouth or eyes after a new medicine', acuity: 'emergency', source: 'NHS-Stevens-Johnson-syndrome (go to A&E: blistering, peeling rash with sore mouth, eyes or genitals, after a new medicine)', when: (f) => has(f, 'new_medicine') && has(f, 'skin_blistering') && has(f, 'mucosal_sores', 'mouth_ulcer') && /\b(all over|spread\w*|everywhere|body|chest|back|arms|legs|tummy|trunk)\b/.test(f.allText) && !/\bcold sores?\b/.test(f.allText) },
  { id: 'spreading_infection', label: 'redness spreading fast, with a fever', acuity: 'emergency', source: 'NHS-cellulitis (A&E: high temperature with spreading redness, feeling very unwell); NHS-sepsis', when: (f) => has(f, 'skin_spreading') && fever(f) },
  { id: 'tick_fever', label: 'a fever and a rash after a tick bite', acuity: 'emergency', source: 'CDC-Rocky-Mountain-spotted-fever and CDC tick-borne diseases (fever and rash after a tick bite: seek care immediately)', when: (f) => has(f, 'tick_bite') && fever(f) && has(f, 'rash', 'rash_nonblanching') && !has(f, 'bullseye') },
  { id: 'travel_fever', label: 'a fever after travel to a country with malaria', acuity: 'emergency', source: 'CDC-malaria (fever after travel to a malaria area is a medical emergency); NHS-malaria (get medical help immediately)', when: (f) => has(f, 'malaria_travel') && fever(f) },
  // injuries
  { id: 'amputation', label: 'a body part cut off', acuity: 'emergency', source: 'NHS999 (severe injuries); ACEP (major trauma)', when: (f) => has(f, 'amputation') },
  { id: 'fall_height', label: 'a fall from a height', acuity: 'emergency', source: 'NHS999 (a serious accident; falls from a height); ACEP', when: (f) => has(f, 'fall_height') && (/\b(roof|balcony|scaffold\w*|window|cliff|bridge|storeys?|stories|loft)\b/.test(f.allText) || heightOver2m(f.allText) || has(f, 'spinal_sign', 'head_injury', 'unconscious', 'deformity', 'confusion')) },
  { id: 'eye_chemical', label: 'a chemical in the eye', acuity: 'emergency', source: 'NHS-eye-injuries (chemicals in the eye: rinse with water, then go to A&E)', when: (f) => has(f, 'eye_chemical') },
  { id: 'arterial_bleed', label: 'blood spurting or pulsing from a wound', acuity: 'emergency', source: 'NHS-cuts-and-grazes (call 999: blood spurting; bleeding that does not stop with pressure); ACEP (uncontrolled bleeding)', when: (f) => has(f, 'arterial_bleed') },
  // genitals and urinary
  { id: 'priapism', label: 'an erection that will not go down', acuity: 'emergency', source: 'NHS-priapism (go to A&E: an erection lasting more than 4 hours, or painful)', when: (f) => has(f, 'priapism') },
  { id: 'urinary_retention', label: 'unable to pee, with a painful or swollen lower tummy', acuity: 'emergency', source: 'NHS-urinary-retention (acute: go to A&E); MedlinePlus-urinary-retention', when: (f) => has(f, 'urinary_retention') && !isChild(f, 2) && (has(f, 'abdominal_pain', 'lower_abdo_swollen', 'severe_abdominal') || (f.severity !== null && f.severity >= 6) || /\b(desperate|bursting|agony)\b/.test(f.allText)) },
  // more of the published lists
  { id: 'bowel_obstruction', label: 'unable to poo or pass wind, with a swollen tummy or vomiting', acuity: 'emergency', source: 'NHS-bowel-obstruction (A&E: swollen tummy, being sick, unable to poo or pass wind)', when: (f) => (has(f, 'no_wind') && has(f, 'nausea_vomiting', 'lower_abdo_swollen', 'abdominal_pain', 'bloating')) || (has(f, 'constipation') && has(f, 'lower_abdo_swollen') && has(f, 'nausea_vomiting')) },
  { id: 'hernia_stuck', label: 'a hernia that is hard, painful or cannot be pushed back', acuity: 'emergency', source: 'NHS-hernia (go to A&E: the hernia is firm or tender or cannot be pushed back in; sudden severe pain; being sick)', when: (f) => has(f, 'hernia_stuck') },
  { id: 'stone_fever', label: 'kidney stone pain with a fever or shivering', acuity: 'emergency', source: 'NHS-kidney-stones (go to A&E: severe pain with a high temperature or shivering)', when: (f) => (has(f, 'kidney_stone') || (has(f, 'flank_pain') && has(f, 'colicky'))) && (fever(f) || /\b(shiver\w*|shaking|chills|rigou?rs)\b/.test(f.allText)) },
  { id: 'paraphimosis', label: 'a foreskin stuck back and swollen', acuity: 'emergency', source: 'NHS-tight-foreskin (paraphimosis: go to A&E)', when: (f) => has(f, 'foreskin_stuck') && /\b(swollen|swelling|pain\w*|purple|blue|hurt\w*|agony)\b/.test(f.allText) },
  { id: 'late_pregnancy_bleeding', label: 'bleeding from 24 weeks of pregnancy', acuity: 'emergency', source: 'NHS-vaginal-bleeding-in-pregnancy (later pregnancy: call your maternity unit immediately)', when: (f) => pregnantNow(f) && (pregnancyWeeks(f) ?? 0) >= 24 && (has(f, 'vaginal_bleeding', 'heavy_pv_bleed') || (/\bbleed\w*|\bblood\b/.test(f.allText) && !has(f, 'nosebleed', 'blood_stool', 'cut', 'cut_lay', 'cough_blood', 'vomit_blood') && !/\b(nose|gums?|finger|hand|bottom|poo|stool|wee|pee|urine|pressure|test|sugar)\b/.test(f.allText))) },
  { id: 'preterm_labour', label: 'regular contractions before 37 weeks', acuity: 'emergency', source: 'NHS-premature-labour (call your maternity unit: regular contractions, waters breaking before 37 weeks)', when: (f) => has(f, 'contractions') && (pregnancyWeeks(f) ?? 40) >= 20 && (pregnancyWeeks(f) ?? 40) < 37 && /\b(regular\w*|every (\d+|few|five|ten|fifteen|twenty|couple of)|(\d+|five|ten) min\w* apart|closer together|getting (stronger|closer|worse)|painful)\b/.test(f.allText) && !/\bbraxton/.test(f.allText) },
  { id: 'limp_fever', label: 'a child who will not walk or use a limb, with a fever', acuity: 'emergency', source: 'NHS-limping-in-children (go to A&E: a limp with a high temperature or seeming unwell)', when: (f) => isChild(f) && has(f, 'limp_walk') && fever(f) },
  { id: 'snake_bite', label: 'a snake bite', acuity: 'emergency', source: 'NHS-snake-bites (call 999 or go to A&E); ACEP', when: (f) => has(f, 'snake_bite') },
  { id: 'frostbite', label: 'frostbite', acuity: 'emergency', source: 'NHS-frostbite (go to A&E if you think you have frostbite)', when: (f) => has(f, 'frostbite') },
  { id: 'lightning', label: 'a lightning strike', acuity: 'emergency', source: 'NHS999 (serious accident); CDC lightning (call 911)', when: (f) => has(f, 'lightning') },
  { id: 'impaled', label: 'something stuck in a wound', acuity: 'emergency', source: 'NHS-cuts-and-grazes (go to A&E: something stuck in the wound, like glass); ACEP', when: (f) => has(f, 'impaled') && !/\b(splinter|thorn|prickle|tick|throat|teeth|tooth|gullet|ear|nose)\b|\b(feels?|feeling|felt) like\b/.test(f.allText) },
  { id: 'crush', label: 'a crush injury', acuity: 'emergency', source: 'NHS999 (severe injuries after a serious accident); ACEP', when: (f) => has(f, 'crush') },
  { id: 'eye_penetrating', label: 'something sharp or fast in the eye', acuity: 'emergency', source: 'NHS-eye-injuries (go to A&E: something hit the eye at high speed, such as from grinding metal, or a sharp object)', when: (f) => has(f, 'eye_object') && /\b(metal|glass|grind\w*|hammer\w*|drill\w*|chisel\w*|shard|sharp|knife|stick|wire|high speed|shrapnel|pellet|nail)\b/.test(f.allText) },
  { id: 'liver_failure', label: 'yellow skin or eyes with bleeding, bruising, drowsiness or confusion', acuity: 'emergency', source: 'NHS-jaundice and British Liver Trust (A&E: jaundice with confusion, drowsiness, bleeding); NHS-paracetamol-overdose', when: (f) => has(f, 'jaundice') && has(f, 'bleed_easily', 'confusion', 'slowed', 'child_lethargic', 'child_drowsy', 'vomit_blood', 'black_stool') },
  { id: 'sickle_crisis', label: 'sickle cell disease with a fever, chest pain, breathlessness or severe pain', acuity: 'emergency', source: 'NHS-sickle-cell-disease (go to A&E: temperature of 38C or above, chest pain, breathlessness, severe pain not eased by usual painkillers, erection over 2 hours, stroke signs)', when: (f) => has(f, 'sickle') && (fever(f) || has(f, 'chest_pain', 'dyspnea', 'severe_dyspnea', 'priapism', 'arm_weakness', 'face_droop', 'speech_trouble', 'confusion', 'severe_abdominal', 'alarm') || (f.severity !== null && f.severity >= 7) || /\b(crisis|severe|agony|unbearable|excruciating)\b/.test(f.allText)) },
  { id: 'labour_term', label: 'signs of labour', acuity: 'urgent', source: 'NHS-signs-of-labour (call your midwife or maternity unit)', when: (f) => has(f, 'contractions') && pregnantNow(f) },
  { id: 'jaundice', label: 'yellow skin or eyes', acuity: 'urgent', source: 'NHS-jaundice (urgent GP appointment or 111)', when: (f) => has(f, 'jaundice') },
  { id: 'hernia', label: 'a lump that may be a hernia', acuity: 'urgent', source: 'NHS-hernia (see a GP)', when: (f) => /\bhernia\b/.test(f.allText) },
  // the urgent level of the same systems
  { id: 'eyelid_infection', label: 'a red, swollen, hot eyelid', acuity: 'urgent', source: 'NHS-cellulitis (urgent GP / 111)', when: (f) => has(f, 'orbital_cellulitis') },
  { id: 'spreading_redness', label: 'redness spreading fast', acuity: 'urgent', source: 'NHS-cellulitis (urgent GP / 111)', when: (f) => has(f, 'skin_spreading') },
  { id: 'tick_rash', label: 'a rash or fever after a tick bite', acuity: 'urgent', source: 'NHS-lyme-disease (see a GP: a circular red rash, flu-like symptoms after a tick bite)', when: (f) => has(f, 'tick_bite') && (fever(f) || has(f, 'bullseye', 'rash')) },
  { id: 'travel_unwell', label: 'feeling unwell after travel to a country with malaria', acuity: 'urgent', source: 'NHS-malaria (flu-like symptoms up to a year after travel: urgent advice)', when: (f) => has(f, 'malaria_travel') && has(f, 'headache', 'flu', 'nausea_vomiting', 'diarrhea') },
  { id: 'infant_warning', label: 'a warning sign in a baby', acuity: 'urgent', source: 'NHS-colic (see a GP or call 111 if the baby has a temperature, vomiting, blood in the poo, is floppy or not feeding); AAP', when: (f) => has(f, 'infant_warning') },
  { id: 'wound_infection', label: 'a cut or wound that looks infected', acuity: 'urgent', source: 'NHS-cuts-and-grazes (see a GP if the wound looks infected: pus, redness, swelling)', when: (f) => has(f, 'wound_infected') && has(f, 'cut', 'cut_lay', 'wound_deep', 'animal_bite', 'injury') },
  { id: 'pregnancy_warning', label: 'a headache, vision change or sudden swelling in pregnancy', acuity: 'urgent', source: 'NHS-pre-eclampsia (get advice immediately)', when: (f) => pregnantNow(f) && (pregnancyWeeks(f) ?? 20) >= 20 && has(f, 'visual_disturbance', 'hand_face_swelling', 'upper_abdo_pain') },
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
