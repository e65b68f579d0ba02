/**
 * The concept lexicon: plain-language ways patients say each finding, as patterns over normalized
 * text (lower case, straight apostrophes; see triage-text.ts). A pattern may contain its own
 * negation ("can't breathe", "rash that doesn't fade"): the assertion scan only looks before the
 * match, so such words never negate their own concept. Rules (triage-rules.ts) and complaints
 * (triage-complaints.ts) name concepts by id.
 */

const BODY_SIDE = "(my |his |her |their |the |one |left |right )*";
const PERSON = '(my |his |her |their |the )?';

const LEXICON = {
  // --- cardiorespiratory
  chest_pain: `(pain|pressure|tightness|heaviness|discomfort|ache|aching)[\\w ]{0,25}\\bchest\\b|chest (pain|pains|hurts?|hurting|ache|aching|discomfort|pressure|tightness|heaviness|is (tight|heavy|sore))|pain (in|across|on) ${PERSON}chest|(tight|heavy|crushing|squeezing|pressing)( feeling| pain| sensation)? (in|on|across) ${PERSON}chest|${PERSON}chest (feels|is) (tight|heavy|like)|heart attack|angina`,
  chest_cardiac_quality: `crushing|squeezing|(heavy|heaviness|pressure|tight|tightness|elephant)[\\w ]{0,20}chest|chest[\\w ]{0,25}(heavy|heaviness|pressure|tight|tightness|squeez|crush)|(spread|spreading|radiat\\w*|going|goes|moving|moves|shoot\\w*)( down| up)? (in)?to ${BODY_SIDE}(arm|jaw|neck|back|shoulder)`,
  heart_attack_claim: `(having|have|had) a heart attack|heart attack (now|right now)`,
  sweating: `sweat(y|ing)|clammy|cold sweat|drenched in sweat`,
  dyspnea: `short(ness)? of breath|breathless|can'?t (catch|get) ${PERSON}breath|(can'?t|cannot|unable to|not able to|struggling to|struggle to) breathe|(trouble|difficulty|difficult|hard|problems?|struggling) (to )?breath(e|ing)|hard to breathe|gasping|out of breath|breathing (is |feels )?(difficult|hard|fast|labou?red|heavy)|winded|sob\\b`,
  severe_dyspnea: `(can'?t|cannot|unable to|struggling to|too (breathless|short of breath) to) (speak|talk|get (my |his |her )?words out|finish (a )?sentences?|say more than)|gasping|choking|(can'?t|cannot|unable to|not able to|struggling to) breathe|severe(ly)? (short(ness)? of breath|breathless)|(really|very|extremely|so) (short of breath|breathless)|fighting for breath|breathing (is )?(very|really) (hard|difficult)|(short of breath|breathless)[\\w ]{0,10}at rest`,
  blue_lips: `(blue|grey|gray|purple|bluish|greyish)(ish)? (lips|tongue|face|skin|fingers)|lips (are |look |turned |turning |going )?(blue|grey|gray|purple)|turn(ed|ing) blue|going blue|cyanos\\w*|mottled|blotchy (blue|grey)`,
  stridor: `high[- ]pitched (sound|noise|breathing|wheeze)|stridor|noisy breathing|croaking when (he|she|i) breathes?`,
  asthma_not_helping: `(inhaler|puffer|ventolin|salbutamol|albuterol) (is )?(isn'?t|is not|not|doesn'?t|does not|hasn'?t|has not|didn'?t) (help|work)\\w*`,
  palpitations: `palpitat\\w*|heart (is )?(racing|pounding|fluttering|skipping|beating (really |very )?fast)|racing heart|irregular heart ?beat`,
  // --- neurological (stroke: FAST / BE-FAST)
  face_droop: `(face|mouth|smile|lip|eye|eyelid) (is |has |looks |seems |went |started )?(droop\\w*|dropp\\w*|dropped|fallen|lopsided|uneven|sagg\\w*)|droop\\w* (face|mouth|smile)|(one side of|side of) ${PERSON}face (is |has )?(droop|drop|fall|numb|weak|sag)\\w*`,
  arm_weakness: `(weak|weakness|paralys\\w*|limp|dead)[\\w ]{0,15}(in )?${BODY_SIDE}(arm|leg|hand|side of ${PERSON}(body|face))|(numb|numbness|tingling)[\\w ]{0,15}(down |in |on )?(one|the (left|right)) side|sudden(ly)? (numb|numbness)|(can'?t|cannot|unable to) (lift|move|raise|hold up|feel) ${BODY_SIDE}(arms?|legs?|hand)|(arm|leg|side of ${PERSON}body) (is |feels |went |has gone |gone )?(weak|limp|dead|floppy)|(arm|leg) (suddenly )?(went|gone|has gone) (numb|weak|dead)|one[- ]sided weakness|paralys\\w*`,
  speech_trouble: `slurr\\w*|(speech|words|talking) (is |are |came out |went |sound |sounds )?(slurred|garbled|jumbled|strange|weird|muddled|wrong)|(can'?t|cannot|trouble|difficulty|struggling to|unable to) (speak|talk|get (my |his |her )?words out|find (the |his |her |my )?words|understand speech)|difficult(y)? (speaking|talking)|lost (his|her|my) speech`,
  stroke: `(?<!heat |sun)\\bstroke\\b|\\btia\\b|mini[- ]stroke`,
  vision_loss: `(lost|loss of|losing|lose) ${PERSON}(vision|sight|eyesight)|(sudden(ly)?|just) (went )?blind|can'?t see (out of|from|anything)|double vision|blurr?ed vision all of a sudden|vision (went|has gone|is gone|suddenly)|curtain (over|across|coming down)`,
  balance_loss: `sudden(ly)? (lost|loss of|losing) (my |his |her )?(balance|coordination)|(can'?t|cannot) (walk|stand) (straight|up|properly) (all of a sudden|suddenly)|suddenly (can'?t|cannot) (walk|stand)`,
  confusion: `confus(ed|ion)(?! (about|by|with|as to|whether|if|how|what|which|over))|disorient\\w*|(doesn'?t|does not|didn'?t) (know|recogni[sz]e) (where|who|me|us|what)|not making (any )?sense|talking nonsense|delirious|delirium|not (himself|herself|themself|myself)|(can'?t|cannot) (remember|say) (his|her|my|their) (own )?(name|age)`,
  unconscious: `unconscious|unresponsive|not responding|(won'?t|will not|can'?t|cannot|couldn'?t|not) (wake|rouse)( (him|her|them))?( up)?|(hard|difficult) to wake|collapsed|lost consciousness|knocked out|floppy`,
  fainted: `fainted|passed out|blacked out|fainting|passing out`,
  near_faint: `(going to|about to|gonna|might) (faint|pass out)|feel(ing)? (faint|like fainting)|light-?headed`,
  seizure: `seizure|convuls\\w*|(having|had|has|having a|'?s having) (a )?fits?\\b|\\bfitting\\b|(shaking|jerking|twitching) (uncontrollably|all over|and (unresponsive|won'?t))|epileptic fit`,
  thunderclap: `thunderclap|worst headache|(sudden|suddenly|out of nowhere|came on (all at once|instantly|in seconds))[\\w ,]{0,30}(severe|worst|terrible|excruciating|agonis\\w*|agoniz\\w*|explosive|really bad|very bad|awful|intense|blinding)[\\w ]{0,15}(headache|head pain|pain in (my|his|her) head)|headache[\\w ,]{0,40}(like (being|i'?ve been|i was|he was|she was) (hit|struck)|explod\\w*|came on (suddenly|in seconds|instantly|all at once|out of nowhere))|(sudden|suddenly)[\\w ,]{0,10}(very |really )?(bad|severe|terrible|excruciating|intense) headache|hit (me |him |her )?like a (bolt|thunder|hammer|brick)`,
  headache: `headache|migraine|head (hurts|is (pounding|throbbing|hurting|sore)|pain)|pain in ${PERSON}head|pounding head|sore head`,
  neck_stiffness: `stiff neck|neck (is |feels |has gone |gone )?stiff|(can'?t|cannot|unable to) (bend|touch|move|put) (my |his |her )?(neck|chin|head forward)|chin (to|on) (his |her |my )?chest`,
  photophobia: `(light|bright lights?|lights?) (hurts?|bothers?|is painful|really hurts)|sensitiv\\w* to light|(hurts?|bothers?) (my|his|her) eyes when|photophob\\w*|can'?t (look at|stand) (the )?light`,
  rash_nonblanching: `(rash|spots|blotches|marks)[\\w ]{0,30}(does ?n'?t|does not|doesn'?t|won'?t|will not|didn'?t|did not|not) (fade|go away|disappear|blanch|go pale)[\\w ]{0,30}(glass|press|pressed|pushed)|non[- ]?blanching|glass test|(purple|dark red) (spots|rash|blotches|pinpricks|bruises)|purpura|petechia\\w*|rash (that )?(doesn'?t|does not|won'?t) fade`,
  fever: `fever|feverish|(high|raised|a) (temp|temperature)|temperature (of|is|was|has been|went|keeps)|running a temp\\w*|hot and shivery|burning up|chills|shivering|rigou?rs`,
  head_injury: `(hit|banged|bumped|knocked|struck|injured|hurt|bashed|cracked) (my |his |her |their |the )?head|head (injury|trauma|knock|bump)|(fell|fall|fallen)[\\w ]{0,30}(on|onto|hit) (my |his |her |the )?head|concussion`,
  // --- allergy, bleeding, injury
  airway_swelling: `(lips?|tongue|throat|mouth) (is |are |has |have |started |keeps? |getting |got |going |feels? )?(swell\\w*|swollen|puff\\w*|closing|closing up|tight|tightening)|swell\\w* (of |in |up )?(of )?(my |his |her |the )?(lips?|tongue|throat|mouth)|(tight|closing) throat|anaphyla\\w*|allergic reaction[\\w ]{0,20}(bad|severe|breath|swell)`,
  face_swelling: `(face|eyes?|eyelids?) (is |are |has |have |started |keeps? |getting |got |going )?(swell\\w*|swollen|puff\\w*)|swell\\w* (of |in |up )?(my |his |her |the )?(face|eyes?)`,
  hives: `hives|welts|urticaria|itchy (rash|bumps|welts) all over`,
  allergen_exposure: `(ate|eaten|eating|took|taken|stung|sting|bite|bitten)\\b|allerg\\w*|nuts?\\b|peanuts?|shellfish|penicillin|bee|wasp`,
  epipen: `epi-?pen|adrenaline (auto|pen|shot|injector)|epinephrine (auto|pen|shot|injector)|auto-?injector`,
  bleeding_severe: `(bleeding|blood) (is )?(heavily|heavy|a lot|badly|everywhere|spurting|pouring|gushing|spraying|pumping)|(bleeding|blood)[\\w ]{0,10}(won'?t|will not|doesn'?t|does not|isn'?t|is not|not) (stop|stopping|slow)\\w*|(heavy|severe|uncontrolled|uncontrollable|profuse|massive|lots of|a lot of) (bleeding|blood)|(can'?t|cannot|couldn'?t) stop (the |it )?bleeding|soak\\w* (through )?(a |the |my |one )?(pad|pads|towel|towels|bandage|cloth|tampon)|puddle of blood|losing (a lot of|lots of) blood`,
  vaginal_bleeding: `vaginal(ly)? bleed\\w*|bleeding (from|down) (there|below|my vagina)|spotting|bleed\\w*[\\w ]{0,20}pregnan\\w*|pregnan\\w*[\\w ]{0,40}bleed\\w*|(i'?m|i am|started) bleeding|passing clots|period[\\w ]{0,10}(heavy|won'?t stop)`,
  vomit_blood: `(vomit\\w*|throw\\w* up|threw up|puk\\w*|being sick|was sick|sick)[\\w ,]{0,30}\\bblood|blood[\\w ]{0,15}(in (my |the )?(vomit|sick))|coffee[- ]grounds?|haematemesis|hematemesis`,
  cough_blood: `cough\\w*[\\w ]{0,12}blood|blood[\\w ]{0,15}(phlegm|sputum|when i cough)|haemoptysis|hemoptysis`,
  black_stool: `black,? (and )?(tarry|sticky)|tarry (stool|poo|poop)|black (stool|stools|poo|poop)`,
  blood_stool: `blood(y)? (in )?(my |the )?(poo|poop|stool|stools|diarrh\\w*)|bloody (diarrh\\w*|stool|poo)|bleeding from (my )?(bottom|rectum|back passage)|rectal bleeding`,
  severe_burn: `(severe|bad|large|big|deep|serious|huge) burns?|burn[\\w ]{0,25}(bigger than|larger than|white|charred|leathery|whole (arm|leg|back|chest))|burn(ed|t|s)? (on )?(my |his |her |the )?(face|eyes?|genitals)|chemical burn|electrical burn|electrocuted|electric shock|on fire|burned all over`,
  major_trauma: `(car|motorbike|motorcycle|bike|traffic|road) (accident|crash)|hit by a (car|truck|bus|vehicle)|fell (from|off) (a |the )?(height|ladder|roof|balcony|scaffold)|stabb\\w*|\\bshot\\b|gunshot|bone (is )?(sticking|poking) out|assaulted and|beaten up`,
  poisoning: `overdos\\w*|\\bod\\b|(swallowed|drank|drunk|ate|eaten|took|taken|ingested|swallowing)[\\w ]{0,30}(bleach|poison\\w*|detergent|antifreeze|cleaning|chemical|battery|batteries|button cell|mushroom|laundry pod|washing (tablet|capsule)|weed killer|whole (bottle|packet|pack|box)|too many|lots of (pills|tablets)|a handful|all (my|the|of my) (pills|tablets))|poison\\w*|too many (pills|tablets|paracetamol|tylenol|of (my|his|her))|(\\d+|twenty|thirty|a lot of|loads of|a bunch of) (paracetamol|acetaminophen|tylenol|pills|tablets|sleeping pills)`,
  suicidal: `suicid\\w*|kill(ing)? (my ?self|myself)|end (my life|it all|things)|take my (own )?life|(want|wanting|wanted|wish|wishing) (to|i (was|were)) (die|dead)|better off dead|(don'?t|do not) want to (live|be alive|be here|wake up)|(hurt|hurting|harm|harming|cut|cutting) myself|self[- ]harm\\w*|no reason to (live|go on)|not worth living|plan to end|thoughts of (dying|death|ending)`,
  homicidal: `(want|going|planning) to (kill|hurt|harm) (him|her|them|someone|somebody|people|my \\w+)`,
  // --- abdominal, urinary, pregnancy
  abdominal_pain: `(stomach|abdominal|belly|tummy|abdomen|gut)( ?ache| pain| pains| cramps?| hurts?| is (sore|hurting|painful))|pain in ${PERSON}(stomach|abdomen|belly|tummy|lower (right|left)|side|groin)|(stomach|tummy|belly|abdomen) (hurts|is hurting|aches)|cramp(s|ing)`,
  severe_abdominal: `(sudden|severe|excruciating|agonis\\w*|agoniz\\w*|unbearable|worst|terrible|extreme|intense|really bad|very bad)[\\w ]{0,15}(stomach|abdominal|belly|tummy|abdomen) (pain|ache|cramps?)|(stomach|abdominal|belly|tummy|abdomen) (pain|ache)[\\w ]{0,20}(severe|unbearable|excruciating|worst|agony)|(stomach|abdomen|belly|tummy) (is )?(rigid|hard as a board)|rigid (stomach|abdomen|belly)`,
  shoulder_tip_pain: `shoulder[- ]tip pain`,
  testicular_pain: `(sudden|severe|really bad|very bad|terrible|excruciating|intense)[\\w ]{0,20}(testic\\w*|testicles?|testes|balls?|scrotum|scrotal)[\\w ]{0,10}(pain|ache|hurts?|swollen|swelling)?|(testic\\w*|testicles?|scrotum|balls?)[\\w ]{0,20}(suddenly|agony|really hurts|very painful|severe)`,
  urinary: `(burn\\w*|sting\\w*|pain\\w*|hurts?|hurting) (when|while|as|after) (i |he |she )?(pee|peeing|wee|weeing|urinat\\w*)|(pee|peeing|urinating|urination|weeing|wee) (burns|hurts|stings|is painful)|painful (urination|peeing)|\\butis?\\b|urine infection|urinary (tract )?infection|bladder infection|cystitis|(peeing|weeing|urinating|going to the (toilet|bathroom)|need to pee|needing to pee|have to pee) (a lot|all the time|more|constantly|frequently|every)|frequent urination|cloudy (urine|pee)|smelly (urine|pee)|going all the time`,
  flank_pain: `pain[\\w ]{0,15}\\b(side|sides|flank|loin|kidneys?)\\b|\\b(side|flank|loin|kidney)s? (pain|hurts|ache)|under (my |the )?ribs|lower back[\\w ]{0,20}(one side|side)`,
  pregnant: `pregnan\\w*|(\\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty) weeks? (pregnant|along|gone)|expecting (a baby|twins)|trimester`,
  // --- other complaints
  sore_throat: `sore throat|throat (is |feels )?(sore|scratchy|raw|painful|hurts|hurting|pain|on fire)|(hurts|painful|pain) (to|when i) swallow|tonsil\\w*|strep`,
  swallow_trouble: `(hard to|difficult(y)?|trouble|struggl\\w* to|problems?) (swallow|swallowing)`,
  swallow_difficulty: `(can'?t|cannot|unable to|not able to) (swallow|swallowing)|drool\\w*|(can'?t|cannot) (swallow|open) (my |his |her )?(mouth|saliva|spit)|(can'?t|cannot|unable to) (eat or drink|drink anything|keep (my )?saliva)`,
  cold: `runny nose|stuffy nose|blocked nose|nasal congestion|congest\\w*|sneez\\w*|\\b(a|the|my|bad|head|chest|this) cold\\b|caught (a )?cold|cold symptoms|sniffl\\w*|bunged up`,
  cough: `cough\\w*`,
  flu: `\\bflu\\b|influenza|body ?aches|aching all over|ach(y|ing) (all over|body)|muscle aches`,
  nausea_vomiting: `vomit\\w*|throw\\w* up|threw up|being sick|been sick|nause\\w*|queasy|feel(ing)? sick`,
  diarrhea: `diarrh\\w*|loose (stool|stools|poo|poos|motions?|bowels?)|the runs|runny poo|watery (stool|stools|poo)`,
  constipation: `constipat\\w*|(can'?t|haven'?t|not) (poo|pooed|had a (poo|bowel movement))|hard (stools?|poo)`,
  dehydration: `(haven'?t|hasn'?t|not|no|hardly) (peed|weed|urinated|had a wee|been to the toilet|wet (a )?nappy|wet (a )?diaper|wet nappies|wet diapers)|dark (urine|pee|wee)|(can'?t|cannot|unable to|not able to) keep (anything|any ?thing|fluids|water|drinks|liquids|food) down|dry (nappies|diapers)|very thirsty|sunken eyes`,
  rash: `rash|hives|itch\\w*|spots\\b|eczema|red (patch|patches|skin|bumps?|blotch\\w*)|blister\\w*|\\bbumps?\\b|scaly|flaky skin`,
  minor_skin: `dandruff|athlete'?s foot|cold sore|acne|pimples?|spots on my face|dry skin|chapped|wart|verruca|head lice|nits`,
  back_pain: `back (pain|ache|hurts|is (hurting|sore|killing)|spasm|strain)|backache|(lower|upper|low) back|(pain|hurt|hurting) (in|to) ${PERSON}(lower |upper )?back|sciatica|(pulled|hurt|strained|tweaked|put out|did) (my |his |her )?back`,
  cauda_equina: `numb\\w*[\\w ]{0,20}(groin|genitals|bottom|buttocks|between (my|the|his|her) legs|saddle|private parts)|(can'?t|cannot|unable to|lost control of|loss of control of|trouble|no control (of|over)) [\\w ]{0,15}(bladder|bowels?|pee|wee|poo)|(wet|soiled) (myself|himself|herself)|incontinen\\w*`,
  leg_weakness: `(legs?) (are |is |feel |feels |gone |going )?(weak|numb|giving way)|weak(ness)? in (both )?(my |his |her )?legs`,
  injury: `sprain\\w*|strain\\w*|twist\\w* (my |his |her )?(ankle|knee|wrist|foot)|(ankle|knee|wrist|shoulder|elbow|hip|foot|toe|finger|hand|thumb) (pain|hurts|is (swollen|sore|painful)|swollen|injury|is bruised)|(hurt|injured|bruised|stubbed|jammed|banged|knocked|rolled) (my |his |her )?(ankle|knee|wrist|shoulder|elbow|hip|foot|toe|finger|hand|thumb|shin|leg|arm)|bruis\\w*|pulled (a )?muscle|muscle (pain|ache|strain)|\\bfell\\b|\\bfall\\b|tripped`,
  deformity: `(out of shape|deformed|bent the wrong way|at a (funny|strange|weird) angle|can'?t (put|bear) (any )?weight|(bone|it) (is )?(broken|fractured)|broke (my|his|her))`,
  wound_deep: `deep (cut|wound|gash)|gaping|(cut|wound|gash)[\\w ]{0,15}(deep|gaping|won'?t close|wide open)|needs? stitches`,
  ear_mastoid: `(swelling|swollen|red|redness|tender|painful)[\\w ]{0,20}behind ${PERSON}ears?`,
  cut: `\\bcut (my|his|her|myself|himself|herself)\\b|\\bcuts?\\b|graze\\w*|scrape\\w*|wound|splinter|lacerat\\w*|gash`,
  burn: `\\bburn(ed|t)? (my|his|her|their|myself|himself|herself)\\b|\\b(a|the|this|my|his|her) burn\\b|\\bburns? (on|to) (my|his|her)\\b|scald\\w*|burn(ed|t) (by|on|with|from)`,
  sunburn: `sunburn\\w*|sun ?burnt|burnt in the sun|burned in the sun`,
  bite_sting: `(insect|bug|mosquito|bee|wasp|spider|tick|flea|midge|horsefly|ant) (bite|bites|sting|stings)|bitten by (a |an )?(mosquito|insect|bug|spider|tick|flea|midge|horsefly)|(bee|wasp|hornet) stung|stung by|mosquito bit|(mosquito|insect|bug|spider)[\\w ]{0,10}\\bbit\\b`,
  animal_bite: `(dog|cat|animal|human|bat|rat|fox|monkey|raccoon|racoon|squirrel) (bit|bite|bites|scratched)|bitten by (a |an |my |the |our )?(dog|cat|animal|bat|rat|fox|monkey|raccoon|racoon|squirrel|person)`,
  ear: `ear ?ache|ear (pain|hurts?|infection|is (sore|painful|blocked|hurting))|(pain|fluid|discharge|pus|gunk) (in|from|coming out of|out of) ${PERSON}ears?|blocked ears?|ringing in ${PERSON}ears|tinnitus|(pulling|tugging) (at )?(his|her) ear`,
  ear_discharge: `(fluid|discharge|pus|gunk|liquid)[\\w ]{0,20}(from|out of|coming out of) ${PERSON}ears?|ears? (is )?(leaking|oozing|discharging)`,
  eye: `(red|pink|itchy|watery|sore|painful|sticky|gritty|swollen|bloodshot) eyes?|eyes? (is |are |feels? |has been )?(red|itchy|watering|sore|painful|sticky|gritty|swollen|bloodshot|crusty)|pink ?eye|conjunctivitis|stye|eye (pain|infection|discharge)`,
  eye_urgent: `contact lens\\w*|contacts\\b|(blurr?ed|blurry|changed|worse) (vision|sight)|vision (is )?(blurr?ed|blurry|worse)|(very|really) painful eye|eye[\\w ]{0,20}(really|very) (hurts|painful)`,
  hay_fever: `hay ?fever|seasonal allerg\\w*|pollen|allergies (are |is )?(playing up|bad|back|flaring)|itchy[\\w ,]{0,15}eyes[\\w ,]{0,20}sneez\\w*|sneez\\w*[\\w ,]{0,30}itchy[\\w ]{0,10}eyes|every (spring|summer)`,
  sinus: `sinus\\w*|facial pain|pressure (in|behind|around) ${PERSON}(face|cheeks|eyes|forehead|nose)`,
  dental: `tooth\\w*|teeth|dental|gum (pain|swelling|is swollen)|wisdom tooth|abscess in (my )?mouth`,
  dental_red: `swelling[\\w ]{0,30}(eye|neck|jaw)|(jaw|face|cheek) (is )?(really )?swollen`,
  dizziness: `dizz\\w*|vertigo|room (is )?spinning|off balance|unsteady`,
  mental_health: `anxi\\w*|panic attacks?|depress\\w*|low mood|feeling (down|low|hopeless|worthless|empty)|stress(ed)?\\b|overwhelmed|mental health|can'?t cope`,
  insomnia: `insomnia|can'?t (get to )?sleep|(trouble|difficulty|problems?) sleeping|not sleeping|wake up (at|in the middle)`,
  vaginal: `vaginal (discharge|itch\\w*|odou?r|dryness)|discharge\\b|thrush|yeast infection|\\b(std|sti|stds|stis)\\b|sexually transmitted|itch\\w* (down there|vagina)|(period|periods) (pain|late|heavy|irregular)|missed (my )?period|pelvic pain`,
  refill: `refill|repeat prescription|(run|ran|running) out of ${PERSON}(medic\\w*|pills|tablets|inhaler|prescription)|renew ${PERSON}prescription|need more ${PERSON}(medic\\w*|pills|tablets)`,
  contraception: `birth control|contracepti\\w*|the pill\\b|morning[- ]after|plan b\\b|emergency contraception`,
  nosebleed: `nose ?bleed\\w*|bleeding from ${PERSON}nose|nose (is |keeps |has been |started )?bleeding`,
  nosebleed_long: `(nose ?bleed\\w*|nose (is |keeps |has been )?bleeding)[\\w ,]{0,40}(more than|over|for) (10|ten|15|fifteen|20|twenty|30|thirty) (min|minutes)|(won'?t|will not|doesn'?t|does not|can'?t) stop[\\w ]{0,20}(nose|pinch)`,
  leg_swelling: `(swollen|swelling|painful|tender|red and (hot|warm)|hot)[\\w ]{0,10}(calf|calves|one leg|my leg)|(calf|leg) (is |has been )?(swollen|swelling|red and (hot|warm|swollen)|painful and swollen)`,
  worsening: `(getting|got|becoming|gone|going|get|gets) (much |a lot |even |a bit |rapidly |quickly )?(worse|bad to worse)|worse and worse|worsening|rapidly (getting )?worse|is spreading|keeps spreading`,
  not_improving: `not (getting )?(any )?better|isn'?t (getting )?(any )?better|not improving|no better|won'?t go away|not going away|hasn'?t (gotten|got) better|still (there|hurting|sore|bad)`,
  immunosuppressed: `chemo\\w*|immunosuppress\\w*|immune system is (weak|low)|weak(ened)? immune|neutropen\\w*|transplant|on steroids|\\bhiv\\b`,
  fatigue: `tired all the time|exhausted|fatigue|no energy|always tired`,
  lump: `\\blump\\b|\\bmole\\b|growth`,
  infant: `newborn|(\\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven) (day|week|month)s?[ -]old|\\bbaby\\b|infant`,
} as const;

export type ConceptId = keyof typeof LEXICON;

/** The compiled concept patterns, in a fixed order (determinism). */
export const CONCEPTS: ReadonlyArray<{ id: ConceptId; re: RegExp }> = Object.entries(LEXICON).map(
  ([id, src]) => ({ id: id as ConceptId, re: new RegExp(src, 'g') }),
);
