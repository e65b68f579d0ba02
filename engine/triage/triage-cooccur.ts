/**
 * Red-flag concepts recognised by co-occurrence rather than by fixed phrases: a family fires its
 * concept when a word of every one of its groups is present (affirmed: not negated, hypothetical,
 * historical or someone else's) within a short window of the same sentence. Fixed phrases missed
 * each new blind set's wording ("heavy pressure behind my breast bone", "gushing for 20 mins even
 * with pressure", "her inhaler isnt doing anything"); the published lists name a site and a
 * qualifier (NHS heart attack: chest + pressure/heaviness; NHS 999: bleeding + will not stop), and
 * patients put the two together in any order and with any words between.
 * Groups are written from the lists' own lay wording; a group never holds a bare intensity word
 * alone ("really bad") where a harmless complaint would match it.
 */
import { assertMention, isAffirmed } from './triage-context.ts';

export interface CooccurFamily {
  /** the concept it affirms (an id of triage-concepts.ts) */
  concept: string;
  /** each group must match (regex sources over normalized text) */
  groups: readonly string[];
  /** the most characters between the first and the last group's words (default 70, about 12 words) */
  window?: number;
  /** a sentence matching this never fires the family (a harmless reading of the same words) */
  unless?: string;
  /** the list the family follows */
  source: string;
}

const CHEST_SITE = "\\bchest\\b(?! (infection|cold|cough|hair|x-?ray|drain|physio))|\\bheart\\b(?! (rate monitor|burn))";
const CHEST_QUALITY = 'ripp\\w*|tearing|pains?|ache|aching|achy|hurt\\w*|sore|pressure|tight\\w*|heav(y|iness)|crush\\w*|squeez\\w*|stabb\\w*|burn\\w*|weight|discomfort|agony|twinges?|gripp\\w*|vi[cs]e';
const RADIATE = '(goes|going|went|spread\\w*|radiat\\w*|shoot\\w*|travel\\w*|moves|moving|runs|running|creep\\w*)( up| down| out| across)?( (in)?to| through| along)?';
const RADIATE_SITE = '\\b(jaw|arms?|neck|shoulders?|back|teeth)\\b';
const BREATH = '\\bbreath\\w*|\\bair\\b|wheez\\w*|gasp\\w*|\\bpant\\w*|\\bpuff\\w*|asthma|inhaler|puffer';
const SPEECH_LIMIT = "(can'?t|cannot|can barely|can hardly|barely|hardly|unable to|not able to|struggl\\w* to|too (breathless|puffed|winded) to) (talk|speak|say|get (his |her |my |their )?words out|finish (a |his |her |my )?sentences?)|full sentences?|(between|after (every|each)) (word|few words|sentence)";
const RELIEVER = 'inhaler|puffer|ventolin|salbutamol|albuterol|nebuli[sz]er|blue pump|reliever';
const NOT_HELPING = "(isn'?t|is not|not|doesn'?t|does not|didn'?t|did not|hasn'?t|has not|aren'?t|are not|haven'?t|have not) (doing (anything|a thing|much|any good)|help\\w*|work\\w*|mak\\w* (any |a |much )?difference|touch\\w* it)|no (help|use|good|difference|effect)|useless|doing nothing|not even touching";
const SPOT = '\\b(rash|spots?|dots?|marks?|blotch\\w*|pin ?pricks?|pinpoints?|specks?|bruis\\w*)\\b';
const GLASS = '\\bglass\\b';
/** a gap of words that holds no negation (as triage-concepts.ts GAP) */
const GAP = "(?:(?!\\b(?:not|no|never|isn'?t|wasn'?t|without)\\b)[\\w ']){0,20}";
const STAYS = "\\bstay\\w*|still (there|visible|see|showing|dark|red|purple)|can still see|(don'?t|doesn'?t|won'?t|didn'?t|do not|does not|did not|not) (fade|go (away|pale|white)|disappear|blanch|vanish|change|lighten)|\\bvisible\\b";
const PURPLE = '\\bpurple\\b|dark red|blood ?spots';
const JERK = 'jerk\\w*|convuls\\w*|thrash\\w*|twitch\\w*|shaking|shook|stiffen\\w*|went stiff|gone stiff|rigid';
const SEIZURE_CUE = "\\bfloor\\b|\\bground\\b|unresponsive|eyes( were| are| had| have| kept| keep)? (rolled|rolling|roll\\w*)|foam\\w*|frothing|bit (his|her|my|their) tongue|(blue|grey) lips|whole body|arms and legs|\\bfit\\b|seizure";
const INGEST = '\\b(ate|eaten|eating|swallow\\w*|drank|drunk|drinking|chew\\w*|necked|downed|took|taken|got (hold of|into|at)|had some|licked|sucked)\\b';
/** Ways a child gets a medicine by accident (a child "took" or "had" medicine is usually a dose given). */
const INGEST_ACCIDENT = '\\b(ate|eaten|swallow\\w*|drank|drunk|chew\\w*|got (hold of|into|at)|licked|sucked|found)\\b';
const CHILD = "toddler|\\bbaby\\b|\\b\\d+ ?(yo|y/o|yr|yrs|year|years|month|months|mo)\\b|little (boy|girl|one|lad|un)|\\b(son|daughter|kid|child|grandson|granddaughter|nephew|niece)\\b";
const AMOUNT_UNKNOWN = "not sure how many|(don'?t|do not) know how many|no idea how many|(some|a few|several|loads|lots|handful|bunch|half|all|most) of (them|the (pills|tablets|bottle|packet|box))|a (handful|load|bunch)|the (lot|whole)|whole (bottle|packet|pack|box|strip|tub)";
const INGEST_CHEMICAL = '\\b(ate|eaten|eating|swallow\\w*|drank|drunk|drinking|chew\\w*|licked|sucked|sipped|gulped|mouthful|in (his|her|my|their) mouth)\\b';
const MEDICINE = '\\b(tablets?|pills?|medicines?|medication|meds|capsules?|caplets?|paracetamol|tylenol|ibuprofen|aspirin|calpol|iron|vitamins?|gummies|antidepressants?|painkillers?|sleeping pills|insulin|patch(es)?)\\b';
const CHEMICAL = '\\b(bleach|detergent|dishwasher|cleaner|cleaning (product|fluid|spray|liquid)|chemicals?|poison\\w*|battery|batteries|magnets?|antifreeze|paint thinner|essential oil|e-?liquid|lighter fluid|paraffin|kerosene|mushrooms? (from|in) the (garden|woods|park|wild))\\b';
const WOUND = '\\bblood\\b|bleed\\w*|\\bcut\\b|slic\\w*|slash\\w*|gash\\w*|wound|knife|blade|chainsaw|lacerat\\w*';
const FLOW = `gushing|(soak|soaked|soaking|drenched|sodden) (through|right through|red|with blood|in blood)|(towel|tea towel|bandage|dressing|cloth|t-?shirt|shirt|tissues?)${GAP}\\b(soak\\w*|drenched|sodden|red)|through (the|a|my|his|her|two|three) (towel|tea towel|bandage|dressing|cloth|t-?shirt|shirt)|even with (pressure|pressing)|despite (pressure|pressing)|(won'?t|will not|doesn'?t|does not|isn'?t|is not|not) (stop|stopping|slow\\w*)(?! (me|him|her|it|us))|puddle|pool of blood`;
const HEAD = "\\bhead\\b(?!ache| ?lice)";
const STRIKE = '\\b(hit|hits|banged|bumped|knocked|struck|bashed|cracked|fell|fallen|falling|landed|slammed|smashed|clipped|kicked|headbutt\\w*)\\b';
const FACE = '\\b(face|mouth|smile|lips?|cheek|eyelid)\\b';
const DROOP = "droop\\w*|sag\\w* (on|to|at) (one|the (left|right)) side|slipped|slid\\b|hanging|lopsided|crooked|wonky|slack|fallen (on|to|at) (one|the (left|right)) side|gone down (on|at) (one|the (left|right)) side|pulled (down|to one side)";
const LIMB = "\\b(arms?|legs?|hand|side of (his|her|my|their) body)\\b";
const LIMB_USELESS = 'useless|limp|dead weight|floppy|no strength|(suddenly|all of a sudden|out of nowhere) (gone )?(weak|numb|heavy)';
const CANT_USE = "(won'?t|will not|can'?t|cannot|couldn'?t|unable to|not able to) (lift|raise|move|hold|grip|use)";
const ONSET = "sudden\\w*|all of a sudden|out of (nowhere|the blue)|just (now|happened|started)|woke up|minutes ago|an? (hour|few minutes) ago|this morning|tonight|right now";
const LIGHT = '\\b(light|lights|bright|brightness|sunlight)\\b';
const LIGHT_HURTS = "hurt\\w*|kill\\w*|pain\\w*|bother\\w*|sting\\w*|(can'?t|cannot) (stand|bear|look)|sensitive|unbearable|agony|squint\\w*";
const CONFUSED = "(doesn'?t|does not|didn'?t|can'?t|cannot|couldn'?t) (know|recogni[sz]e|remember) (what (year|day|month|time)|where (she|he|they|i) (is|are|am|was)|who (i am|we are|she is|he is)|me|us|her own|his own|their own|his name|her name)|(talking|speaking|saying) (rubbish|gibberish|nonsense|jibberish)|away with the fairies|not making sense|(doesn'?t|does not) make sense";

const POISON_UNLESS = 'as (usual|normal|prescribed|directed)|every (day|morning|night)|prescribed|(one|two|1|2) (tablets?|pills?|paracetamol|ibuprofen)|(the right|a normal|my normal|my usual|his usual|her usual) dose|(took|takes|had|given) (his|her|their) (medicine|calpol|antibiotics|dose)';
const ARM_UNLESS = "(can'?t|cannot) (lift|raise|move) (it|my arm|his arm|her arm) (above|over|past)|frozen shoulder|(pulled|strained|sprained|broke|broken|twisted|injured|hurt|fractured) |arthritis|carpal|cast|sling";

const BREATH_HARD = "struggl\\w*|\\bhard\\b|difficult\\w*|trouble|problems?|labou?red|(can'?t|cannot|couldn'?t|unable to|not able to) (get|catch|take)|effort|fight\\w*";
const BREATH_OBJECT = "\\bbreath(e|ing)?\\b|\\bget (enough |any )?air\\b|\\bair (in|into)\\b";
/** An intensity or onset cue (ACEP: "sudden or severe pain"; NHS 999's own words) */
const ALARM_CUE = "sudden\\w*|out of (nowhere|the blue)|\\bworst\\b|severe\\w*|agony|agonis\\w*|agoniz\\w*|excruciating|unbearable|crushing|collaps\\w*|unresponsive|\\bblue\\b|\\bgrey\\b|\\bblood\\b|bleed\\w*|gushing|(can'?t|cannot) (breathe|move|feel|see|speak)";
/** A high-risk body system (ACEP's list: chest, breathing, head, abdomen, nerves, bleeding) */
const ALARM_SITE = "\\bchest\\b|\\bheart\\b|breath\\w*|\\bhead\\w*|tummy|testic\\w*|\\bballs?\\b|groin|\\bface\\b|\\barms?\\b|\\blegs?\\b|speech|vision|eyesight|\\bneck\\b|back passage|vomit\\w*|\\bpoo\\b|stools?|urine|\\bpee\\b|\\bwee\\b|\\blips\\b";

const NECK = '\\bneck\\b';
const NECK_STIFF = "stiff\\w*|rigid|(can'?t|cannot|unable to|too (stiff|sore|painful) to) (bend|move|turn|look down|touch|put)|chin (to|on) (his |her |my )?chest";
const ONSET_FAST = 'sudden\\w*|out of (nowhere|the blue)|instant\\w*|in (a few )?seconds|all at once|like (a|being|i (got|was)|he (got|was)|she (got|was)) (hit|struck|kicked|shot)|thunder\\w*|explo\\w*|\\bbolt\\b';
const PAIN_SEVERE = "\\bworst\\b|explo\\w*|severe|excruciating|agony|agonis\\w*|agoniz\\w*|unbearable|blinding|splitting|10 ?(\\/|out of) ?10|like (a|being|i (got|was)|he (got|was)|she (got|was)) (hit|struck|kicked|shot)|never (had|felt) (anything|pain) like";
const HEAD_PAIN = 'headache|head ?ache|(pain|ache|pounding|throbbing|pressure)[\\w ]{0,20}\\bhead\\b|\\bhead\\b[\\w ]{0,15}(pain|hurts?|pounding|throbbing|explod\\w*)';

const NOSEBLEED = 'nose ?bleed\\w*|nose (is |keeps |has been |started |was )?bleeding|bleeding from (my|his|her|their|the) nose';
const LONG_OR_HEAVY = "\\b([1-9]\\d|\\d{3}|ten|fifteen|twenty|thirty|forty|forty-five|fifty|sixty) ?(min|mins|minutes)\\b|\\b(an?|one|two|three|\\d) (hours?|hrs?)\\b|half an hour|(won'?t|will not|doesn'?t|does not|not|can'?t|cannot) (stop|stopping|slow\\w*)|keeps? (gushing|going|coming|bleeding)|gushing|clots|soak\\w*";
const SPLASH = '\\b(splash\\w*|spill\\w*|spray\\w*|squirt\\w*|sprinkl\\w*|got|went|poured|flicked)\\b';
const CORROSIVE = '\\b(bleach|chemicals?|acid|caustic|lye|oven cleaner|drain cleaner|ammonia|alkali|cement|lime|hair dye|chlorine)\\b';
const EYE_FACE_SKIN = '\\b(eyes?|face|skin|mouth|arms?|hands?)\\b';

const SPEECH = '\\b(speech|words|talking|speaking)\\b';
const SPEECH_WRONG = "slurr\\w*|garbled|jumbled|muddled|mixed up|mush\\w*|gibberish|jibberish|nonsense|incoherent|not making (any )?sense|coming out wrong|all wrong|strange|weird|funny|\\boff\\b";

/** 988 warning signs: a means and a plan, or wishing not to exist */
const MEANS = "\\b(rope|noose|belt to hang|gun|firearm|pills? (saved|ready|stockpiled|hoarded)|tablets? (saved|ready)|razor|blades?|bridge|ledge|cliff|train tracks?|car exhaust|charcoal)\\b";
const PLAN = "know (where|how|when) (i'?d|i would|i'?ll|i will|to|i can|i'?m going to) (do it|end it)|(have|got|made) a plan|planned (it|how|when)|worked out (how|where|when)|decided (how|when|where)|(going to|gonna|will) do it (tonight|today|tomorrow|this weekend|soon)";
const NOT_EXIST = "(want|wish|wishing|wanted) (to|i could) (disappear|vanish|not exist|stop existing|not be here|be gone|fall asleep and not wake)( forever| for good| permanently)?|(disappear|vanish) (forever|for good|permanently)";

const SUGAR = "\\bsugars?\\b|glucose|\\bbm\\b|\\bbg\\b|\\bhypo\\b|meter|libre|dexcom";
const LOW_VALUE = "\\b(0|1|2|3)(\\.\\d)?(?!\\.?\\d)(?! ?(days?|weeks?|months?|years?|hours?|hrs?|mins?|minutes?|times?|tablets?|units?|o'?clock|am|pm|x)\\b)( ?mmol\\w*)?\\b|\\b[2-5]\\d ?mg|\\b(low|dropping|dropped|crashing|crashed|plummet\\w*)\\b|\\bhypo\\b";
const FONTANELLE = "soft spot|fontanell?e";
const BULGING = "bulg\\w*|swollen|swelling|raised|tense|sticking out|puffed up|domed";
const GREEN = "\\bgreen\\b|\\bbile\\b|bilious|yellow-green|dark green";
const VOMIT_WORD = "vomit\\w*|\\bsick\\b|throw\\w* up|threw up|puk\\w*|spit\\w* up";
const CO_SOURCE = "carbon monoxide|\\bco (alarm|detector|poisoning)|fumes|gas (leak|fire|heater)|exhaust|generator (inside|indoors|in the (house|garage))|charcoal (bbq|barbecue|grill) (inside|indoors)";
const CO_SIGN = "headaches?|dizz\\w*|\\bsick\\b|vomit\\w*|nause\\w*|drowsy|sleepy|confus\\w*|faint\\w*|all of us|whole family|everyone (in the house|here)|collapsed|alarm (is )?(going off|went off|beeping)";

const EYE = "\\beyes?\\b|eyeball";
const EYE_SEVERE = "sudden\\w*|(really|very|extremely|so) (painful|sore)|agony|severe|excruciating|unbearable|throbbing";
const VEHICLE = "\\b(car|van|lorry|truck|bus|motorbike|motorcycle|vehicle|taxi|tractor)\\b";
const HIT_BY = "(knocked (off|down|over)|run over|ran over|\\bhit\\b|struck|clipped|mowed down)( (his|her|my|their) (bike|bicycle|scooter))? by|run over|ran over|crash\\w*|collision|collided|smash\\w*|ploughed into|rolled (over|the)|overturned|went into";
const RETCH = "vomit\\w*|threw up|throw\\w* up|brought up|bringing up|puk\\w*|retch\\w*|heav\\w* up";

// ---- triage-emerg-a
const SHADOW_MOVES = `(shadow|curtain|veil|blind|cloud|smudge|film|(dark|grey|gray|black) (patch|area|shape|bit|cloud|smudge))${GAP}\\b(coming|came|come|comes|creeping|creeps|crept|moving|moved|moves|spreading|spread|drawn|pulled|closing|dropping|dropped|coming down|blocking|blocks|blocked|covering|covers|blotting|obscuring|taking up)\\b|(shadow|curtain|veil)${GAP}\\b(over|across|covering) (the )?(top|bottom|side|part|half|edge|corner)`;
const EYE_OR_SIGHT = "\\b(eyes?|vision|sight|eyesight|see|seeing|seen)\\b";
const BREATH_IN = "\\bbreath(es|ing|e)? in\\b|\\binhal(e|es|ed|ing|ation)\\b|breathing (has |is )?(started to |begun to )?sound(s|ing)? (noisy|funny|strange)";
const NOISE = "\\bnois(y|ier|e)\\b|whistl\\w*|\\bsound\\b|squeak\\w*|crowing|rasp\\w*|high[- ]pitched|honk\\w*|stridor";
const NOSE_NOISE = "snor\\w*|snuffl\\w*|snort\\w*|blocked nose|stuffy|bunged|congest\\w*|in (his|her|my|their) sleep|through (his|her|my|their) nose|breath\\w* out|exhal\\w*";
const CANT_SWALLOW = "(can'?t|cannot|couldn'?t|unable to|not able to)( even)? (swallow\\w*|get)\\b";
const SWALLOW_WHAT = "\\b(spit|saliva|water|fluids?|liquids?|sips?|(my|his|her|their) own)\\b";
const WEAK_TINGLE = "weak\\w*|numb\\w*|tingl\\w*|pins and needles|heavy|floppy";
const CLIMBS = "(spread\\w*|creep\\w*|crept|mov\\w*|working (its|it'?s) way|travel\\w*|climb\\w*) up\\b|now (in|into|up to|affecting|reached|got to) (my |his |her |their |both )?(hands|arms|thighs|hips|body|chest|waist|knees|fingers)|up (into|to) (my |his |her |their |both )?(hands|arms|thighs|hips|body|chest|waist|knees|fingers)|now (my |his |her |their )?(hands|arms)( too| as well| also)\\b";
const BOTH_LEGS = "\\bboth (of )?(my |his |her |their )?legs\\b|\\b(my|his|her|their) legs\\b|\\blegs (are|feel|have|went|gone|keep)\\b";
const LEGS_FAIL = "((have |has |had )?(gone|going|went|got|getting|feel|feels|felt|are|is|become|became) (all |really |very |a bit |so )?)?(weak\\w*|numb\\w*|wobbly|like jelly|giving way|gave way|tingl\\w*|pins and needles|(can'?t|cannot|struggl\\w* to) (walk|stand))";
const SADDLE = "\\b(bottom|groin|genitals|saddle|private parts|privates|back passage|inner thighs|between (my|his|her|the|their) (legs|thighs))\\b|down (below|there)";
const SADDLE_NUMB = "numb\\w*|no feeling|tingl\\w*|pins and needles|\\bdead\\b|(can'?t|cannot|couldn'?t) feel";
const WEAPON = "\\b(knife|knives|gun|hammer|axe|machete|baseball bat|crowbar|weapon|screwdriver)\\b";
const THREAT = "won'?t (put|let go of|give|hand) (it|the \\w+|them)|(waving|brandish\\w*|pointing|swinging) (it|a|the|them)|threaten\\w*|(going to|gonna|will|wants? to|said (he'?d|she'?d|they'?d)) (hurt|kill|stab|smash|attack|deal with)|(smash|bash|cave|kick|stave) (his|her|their|someone'?s) (head|face|skull) in|came at (me|us|her|him)|deal with (them|him|her)|(hurt|harm|kill) (our|my|his|her) (mum|mom|dad|family|wife|husband|kids?|children|partner)";
const CAME_ROUND = "\\b(came|come|coming|comes) (a)?round\\b|\\b(came|come) to\\b";
const OUT_COLD = "\\b(out|went down|go down|collapsed|dropped|fell|fallen|floor|ground|unconscious|passed|blacked|fainted)\\b";
const OUT_FOR = "\\b(knocked out|out cold|unconscious|passed out|blacked out)( for)? (a few|a couple of|about|maybe|around|under|over|\\d+|a|ten|five|two|three|several)( \\w+)? (seconds?|secs?|minutes?|mins?)\\b|\\b(was|been|is) out for (a few|a couple of|about|maybe|around|under|\\d+|ten|five|two|three|several)( \\w+)? (seconds?|secs?)\\b";
const LIMB_PART = "\\b(legs?|foot|feet|toes|arms?|hands?|fingers)\\b";
const COLD_PALE = "\\b((has |have |had )?(gone|turned|went|going|gone all) )?(cold|freezing|icy|white|pale|blue|bluish|mottled|grey|gray|no pulse)\\b";
const LIMB_ALARM = "sudden\\w*|all of a sudden|agony|agonis\\w*|excruciating|(really|very|extremely) painful|(can'?t|cannot) move|no pulse";
const RECENT = "sudden\\w*|out of nowhere|all of a sudden|since (this morning|lunch\\w*|last night|yesterday|an hour|earlier)|this (morning|afternoon|evening)|today|tonight|hours? ago|minutes ago|woke up|just now";
const EYE_WORD = "\\b(eyes?|eyeball)\\b";
const EYE_HIT = "\\b(metal|shard|splinter|grinding|grinder|drilling|hammering|chisel\\w*|stick|twig|pencil|dart|pellet|bb gun|air ?gun|firework|high speed|flew|flying|shot|stabbed|poked|pierc\\w*|punctur\\w*)\\b|\\bglass\\b|blood in (the|my|his|her|their) eye";
const HARM_THOUGHT = `(thoughts?|urges?|impulses?) (of|about|to) (hurt\\w*|harm\\w*|kill\\w*|stab\\w*|strangl\\w*|smother\\w*|attack\\w*) (someone|somebody|people|others|him|her|them|my \\w+)|(going to|gonna|will|want to|could) (smash|bash|cave|kick) (his|her|their) (head|face) in|(voices?|someone|they|god|the devil)${GAP}\\b(tell\\w*|told|order\\w*|command\\w*) (him|her|me|them) to (hurt|harm|kill|attack|stab|hit) (our|my|his|her|their|the|people|someone|others|him|her|them)`;

/** The families, each drawn from its published list (see `source`). */
export const FAMILIES: readonly CooccurFamily[] = [
  { concept: 'chest_pain', groups: [CHEST_SITE, CHEST_QUALITY], window: 45, unless: 'heartburn|heart ?rate monitor|broken heart|heartbroken|chest (hair|infection)|blood pressure|chesty|(a bit|a little|slightly|mildly|a touch) (tight|heavy|sore|achy)|with (a|my|this|the) (cold|cough)', source: 'NHS heart attack; NHS chest pain; ACEP (chest pain or pressure)' },
  { concept: 'chest_cardiac_quality', groups: [RADIATE, RADIATE_SITE], window: 40, source: 'NHS heart attack (pain spreading to the arms, jaw, neck, back)' },
  { concept: 'chest_cardiac_quality', groups: ['\\b(left |right )?arms?\\b', 'tingl\\w*|numb\\w*|heavy|dead|weak'], window: 30, source: 'NHS heart attack (arm: pain, heaviness); ACEP' },
  { concept: 'severe_dyspnea', groups: [BREATH, SPEECH_LIMIT], window: 80, source: 'NHS 999 (severe difficulty breathing: not able to get words out)' },
  { concept: 'severe_dyspnea', groups: ['barely|hardly|only just|fighting|heaving|desperate', '\\bbreath(e|ing)\\b|for (air|breath)'], window: 20, unless: 'through (his|her|my) nose', source: 'NHS 999 (severe difficulty breathing; not breathing properly)' },
  { concept: 'dyspnea', groups: [BREATH_HARD, BREATH_OBJECT], window: 25, unless: "fresh air|air ?con|air (fryer|freshener|bed)|\\bhair\\b|through (his|her|my) nose|bad breath|breath (smells|stinks)", source: 'NHS shortness of breath; ACEP (difficulty breathing)' },
  { concept: 'alarm', groups: [ALARM_CUE, ALARM_SITE], window: 40, unless: 'nose ?bleed|blood (test|pressure|sugar|results?)|blue (eyes|jeans)', source: 'ACEP (sudden or severe pain; warning signs by body system): asked about first, never an emergency on its own' },
  { concept: 'asthma_not_helping', groups: [RELIEVER, NOT_HELPING], window: 50, source: 'NHS asthma attack (reliever inhaler not helping: call 999)' },
  { concept: 'rash_nonblanching', groups: [SPOT, GLASS, STAYS], window: 90, source: 'NHS meningitis (the glass test); NHS 999 (rash that does not fade)' },
  { concept: 'rash_nonblanching', groups: [PURPLE, SPOT], window: 30, source: 'NHS meningitis (purple, blotchy rash; pinprick spots)' },
  { concept: 'seizure', groups: [JERK, SEIZURE_CUE], window: 70, unless: 'shiver\\w*|\\bcold\\b|fever|temperature|chills|rigou?rs|nerv\\w*|anxi\\w*|panic|hands? (shake|shaking)|tremor|spasm', source: 'NHS 999 (seizure); NHS epilepsy (shaking, stiffness, not responding)' },
  { concept: 'poisoning', groups: [CHILD, INGEST_ACCIDENT, MEDICINE], window: 90, unless: POISON_UNLESS, source: 'America\'s Poison Centers; NHS poisoning (A&E: a child swallowed medicine not meant for them)' },
  { concept: 'poisoning', groups: [INGEST, MEDICINE, AMOUNT_UNKNOWN], window: 90, unless: POISON_UNLESS, source: 'America\'s Poison Centers; NHS overdose' },
  { concept: 'poisoning', groups: [INGEST_CHEMICAL, CHEMICAL], window: 60, unless: 'food poisoning|poison ivy|poison oak', source: 'America\'s Poison Centers; NHS poisoning (household products, button batteries)' },
  { concept: 'bleeding_severe', groups: [WOUND, FLOW], window: 70, unless: "nose ?bleed|\\bperiod\\b|won'?t stop (itching|hurting|aching|throbbing)", source: 'ACEP (uncontrolled bleeding); NHS 999 (heavy bleeding that will not stop)' },
  { concept: 'head_injury', groups: [STRIKE, HEAD], window: 40, unless: 'head ?first into (the )?(pool|water)|heads? (up|down|out)|hit the hay|(fell|fallen|falling) asleep|hit (me|him|her)', source: 'NHS head injury and concussion (a knock, bump or blow to the head)' },
  { concept: 'face_droop', groups: [FACE, DROOP], window: 35, unless: 'eyelid.{0,20}(stye|lump)|mouth ulcer', source: 'NHS stroke (FAST: face dropped on one side)' },
  { concept: 'arm_weakness', groups: [LIMB, LIMB_USELESS], window: 35, unless: ARM_UNLESS, source: 'NHS stroke (FAST: arm weakness)' },
  { concept: 'arm_weakness', groups: [LIMB, CANT_USE, ONSET], window: 90, unless: ARM_UNLESS, source: 'NHS stroke (FAST: arm weakness, cannot lift both arms)' },
  { concept: 'neck_stiffness', groups: [NECK, NECK_STIFF], window: 30, unless: 'slept (funny|awkward\\w*|wrong|badly)|crick|whiplash|desk|computer|gym|pulled|strain', source: 'NHS meningitis (stiff neck)' },
  { concept: 'thunderclap', groups: [ONSET_FAST, PAIN_SEVERE, HEAD_PAIN], window: 90, source: 'NHS headaches (call 999: a sudden, extremely painful headache); NICE CKS headache red flags (thunderclap)' },
  { concept: 'nosebleed_long', groups: [NOSEBLEED, LONG_OR_HEAVY], window: 90, unless: 'ago|last (week|month)|(a|per|every) (day|week)|times a', source: 'NHS nosebleed (A&E: bleeding for longer than 10 to 15 minutes, a lot of blood)' },
  { concept: 'severe_burn', groups: [SPLASH, CORROSIVE, EYE_FACE_SKIN], window: 60, source: 'NHS burns and scalds (A&E: chemical burns); NHS eye injuries (chemicals in the eye: A&E)' },
  { concept: 'speech_trouble', groups: [SPEECH, SPEECH_WRONG], window: 30, unless: "(child|toddler|son|daughter|baby)('?s)? (speech|talking) (is )?(delayed|late|behind)|speech (therapy|delay)|in (his|her|my) sleep|public speaking|(funny|weird|strange) (words|things)|(words|talking|speaking) (to|with|about)|hoarse|lost (my|his|her) voice", source: 'NHS stroke (FAST: speech slurred or garbled)' },
  { concept: 'suicidal', groups: [MEANS, PLAN], window: 120, unless: 'skipping rope|rope swing|climbing|for (the|my) (shed|boat|garden)', source: '988 Lifeline warning signs (having a plan, looking for a way)' },
  { concept: 'suicidal', groups: [NOT_EXIST], unless: 'disappear (from|for) (a|the) (bit|while|weekend|day|holiday)|(rash|spots|lump|pain|symptoms?) (to )?disappear', source: '988 Lifeline warning signs (wanting to die or not to exist)' },
  { concept: 'low_sugar', groups: [SUGAR, LOW_VALUE], window: 25, unless: 'low (carb|sugar diet|fat)|sugar[- ]free|cut (down|out)', source: 'NHS low blood sugar (hypoglycaemia: under 4 mmol/L)' },
  { concept: 'meningitis_gate', groups: [FONTANELLE, BULGING], window: 30, source: 'NHS meningitis (babies: a bulging soft spot on the head)' },
  { concept: 'orbital_cellulitis', groups: ["\\b(eyelids?|eye ?lids?|eye socket|around (his|her|my|their|the) eyes?|(his|her|my|their|the|one|left|right|that) eye)\\b", "swollen|swelling|swelled|puff\\w*", "\\b(red|hot|warm|tender|painful)\\b"], window: 60, unless: 'hay ?fever|pollen|stye|lump|spot|pimple|sting|stung|bite|bitten|allerg\\w*|conjunctivitis|sticky|gunk|crust\\w*|itch\\w*', source: 'NHS cellulitis (call 999 or go to A&E: cellulitis around the eyes); AAP (periorbital cellulitis)' },
  { concept: 'urinary', groups: ["\\b(burn\\w*|sting\\w*|pain\\w*|hurts?|sore|agony)\\b", "\\b(pee|peeing|wee|weeing|urine|urinat\\w*)\\b"], window: 20, unless: 'sunburn|nappy rash|blood (test|pressure)', source: 'NHS urinary tract infections (pain or burning when peeing)' },
  { concept: 'nausea_vomiting', groups: ["\\bsick\\b", "\\b(twice|once|\\d+ times|three times|a few times|several times|again|everywhere|all night|all over (the|him|her|me)|in the night|last night|this morning|in (his|her|the) (cot|bed))\\b"], window: 20, unless: "sick (of|and tired|note|leave|day|pay)|(call\\w*|off|phoned|went|go) (in )?sick|home ?sick|car ?sick|sea ?sick|travel ?sick|morning sickness", source: 'NHS diarrhoea and vomiting ("being sick")' },
  { concept: 'eye_chemical', groups: ["\\b(spray\\w*|splash\\w*|squirt\\w*|spill\\w*|flick\\w*|spat|spurted|went|got)\\b", "\\beyes?\\b", "\\b(cleaner|cleaning (products?|spray|fluid|liquid|stuff|solution)|oven|chemicals?|bleach|detergent|acid|caustic|unblocker|(washing|dishwasher|laundry) powder|dye|cement|plaster|lime|paint stripper|stripper|degreaser|disinfectant|descaler|ammonia|heavy duty)\\b"], window: 120, unless: 'contact lens (solution|cleaner)|saline|eye ?drops|shampoo|soap|suncream|sun cream', source: 'NHS eye injuries (chemicals in the eye: rinse, then A&E)' },
  { concept: 'green_vomit', groups: [GREEN, VOMIT_WORD], window: 30, source: 'NHS vomiting in babies (A&E: green or yellow-green vomit)' },
  { concept: 'poisoning', groups: [CO_SOURCE, CO_SIGN], window: 90, source: 'NHS carbon monoxide poisoning (go to A&E)' },
  { concept: 'eye_acute', groups: [EYE, EYE_SEVERE], window: 40, unless: 'sand|shampoo|soap|eyelash|contact lens (out|removed)', source: 'NHS red eye / acute glaucoma (A&E: a very painful red eye, halos, being sick)' },
  { concept: 'major_trauma', groups: [VEHICLE, HIT_BY], window: 50, unless: 'minor|(little|small) bump|car park|toy car|bumper car|parked|car door|door frame|(boot|bonnet|roof) of (the|my) (car|van)|getting (in|into|out of) (the|my|a) (car|van)', source: 'NHS 999 (severe injuries after a serious accident)' },
  { concept: 'vomit_blood', groups: [RETCH, '\\bblood\\b|bloody'], window: 50, unless: 'blood (test|pressure|sugar|results?|donation|thinners?)|(see|seeing|sight of) blood', source: 'ACEP (vomiting blood); NHS vomiting blood (A&E)' },
  { concept: 'photophobia', groups: [LIGHT, LIGHT_HURTS], window: 35, source: 'NHS meningitis (dislike of bright lights)' },
  { concept: 'confusion', groups: [CONFUSED], source: 'NHS 999 (sudden confusion); UK Sepsis Trust (slurred speech or confusion)' },
  // ---- triage-levels
  // a person with migraines names the new headache by the old ones ("my migraines are nothing like this")
  { concept: 'thunderclap', groups: [ONSET_FAST, PAIN_SEVERE, '\\bmigraines?\\b'], window: 120, source: 'NHS headaches (call 999: a sudden, extremely painful headache); NICE CKS headache red flags (thunderclap)' },
  // ---- triage-emerg-b
  { concept: 'swallowed_battery', groups: ["\\b(button|coin|watch|round|flat|little|small|tiny|remote|key ?fob|hearing aid)?[\\w ]{0,12}\\b(batter(y|ies)|button cells?|coin cells?|magnets?|magnetic (balls?|beads?))\\b", "swallow\\w*|\\b(ate|eaten|eating|gulped)\\b|in (his|her|their) mouth|put (it|one|them) in (his|her|their) mouth|(can'?t|cannot|couldn'?t) find|missing|gone from"], window: 70, unless: "phone|laptop|charg\\w*|car battery|battery (is |was )?(low|dead|flat|died)|smoke alarm|fridge magnets? (fell|on)", source: 'NHS swallowed objects (A&E: button batteries, magnets); AAP button battery; America\'s Poison Centers' },
  { concept: 'green_vomit', groups: [GREEN, "vomit\\w*|\\bsick\\b|throw\\w* up|threw up|puk\\w*|spit\\w* up|\\blots\\b|brought up|bringing up|posset\\w*|feeds?"], window: 80, unless: "green (poo\\w*|stools?|nappy|nappies|diapers?|snot|phlegm|mucus|bogeys?|sputum|discharge|gunk)|(poo\\w*|stools?|snot|phlegm|mucus|sputum|discharge|gunk|bogeys?)( is| are| was| were| looks?| has| have| gone| turned| going|been| a bit| quite| very| dark| bright| really)* green|green (tea|smoothie|juice|veg\\w*|beans|salad)|ate (something )?green|food colou?ring|look\\w* (a bit |quite |very |really )?green|(gone|turned|going) (a bit |quite |very )?green", source: 'NHS vomiting in babies (A&E: green or yellow-green vomit); AAP (green vomit)' },
  // ---- triage-emerg-a
  { concept: 'retina_warning', groups: [SHADOW_MOVES, EYE_OR_SIGHT], window: 90, unless: 'x-?ray|scan|lungs?|chest|migraine|aura|zig-?zag', source: 'NHS detached retina (A&E immediately: a dark shadow or curtain moving across your vision)' },
  { concept: 'retina_warning', groups: [`(sudden|suddenly|shower|burst|swarm|flurry|rush|loads|lots|hundreds|dozens)${GAP}\\b(specks|dots|black spots|dark spots|sparks|flashes|flashing lights|squiggles)\\b`, EYE_OR_SIGHT], window: 60, unless: 'migraine|aura|zig-?zag|rash|skin', source: 'NHS detached retina (A&E: dots or lines suddenly appear in your vision, flashes of light)' },
  { concept: 'retina_warning', groups: ['\\b(curtain|veil|shadow|cobwebs?)\\b', EYE_OR_SIGHT, RECENT], window: 120, unless: 'migraine|aura|zig-?zag|cataract|for (months|years)|x-?ray|scan', source: 'NHS detached retina (A&E immediately: a shadow or curtain over your vision)' },
  { concept: 'limbs_weak_both', groups: ['\\b(legs|both legs|feet)\\b', '\\b(hands|arms|fingers)\\b', "weak\\w*|tingl\\w*|numb\\w*|pins and needles|(can'?t|cannot|struggl\\w* to) (hold|grip|lift|walk|stand)"], window: 140, unless: 'anxi\\w*|panic|cold weather|in the cold|for (months|years)|diabet\\w*|after (the |a |my )?(gym|workout|run)', source: 'NHS Guillain-Barre syndrome (weakness and tingling in the legs and then the arms)' },
  { concept: 'stridor', groups: ['\\bbreath\\w*|\\binhal(e|es|ed|ing|ation)\\b', 'high[- ]pitched|crowing|stridor|squeak\\w*|honk\\w*|rasp\\w*'], window: 40, unless: NOSE_NOISE, source: 'NHS croup and epiglottitis (999: a high-pitched noise when breathing)' },
  { concept: 'stridor', groups: [BREATH_IN, NOISE], window: 40, unless: NOSE_NOISE, source: 'NHS croup and epiglottitis (999: a high-pitched noise when breathing in); AAP HealthyChildren croup (stridor at rest)' },
  { concept: 'swallow_difficulty', groups: [CANT_SWALLOW, SWALLOW_WHAT], window: 35, unless: 'keep|pills?|tablets?|capsules?|a drink|the (tap|kitchen)', source: 'NHS sore throat / epiglottitis / quinsy (999: cannot swallow, drooling)' },
  { concept: 'ascending_weakness', groups: [WEAK_TINGLE, CLIMBS], window: 80, unless: 'slept on|sleeping on|lying on|leaning on|rash|temperature|fever', source: 'NHS Guillain-Barre syndrome (A&E or 999: weakness or tingling spreading up the body, difficulty walking)' },
  { concept: 'legs_neuro', groups: [BOTH_LEGS, LEGS_FAIL], window: 45, unless: 'after (a|the|my|his|her) (run|walk|hike|gym|workout|marathon|game)|restless legs|cramp', source: 'NHS sciatica and cauda equina syndrome (A&E: weakness or numbness in both legs); NICE NG234 spinal cord compression' },
  { concept: 'cauda_equina', groups: [SADDLE, SADDLE_NUMB], window: 45, source: 'NHS cauda equina syndrome (A&E: numbness around the bottom or genitals)' },
  { concept: 'cauda_equina', groups: ['\\b(pee|wee|urine|bladder|stream)\\b', "dribbl\\w*|trickl\\w*|won'?t come|not coming|(can'?t|cannot) (start|get it going|empty)"], window: 30, unless: 'after (i|he|she) (pee|wee|finish)|prostate|when (i|he|she) (cough|sneeze|laugh)', source: 'NHS cauda equina syndrome (A&E: problems peeing)' },
  { concept: 'homicidal', groups: [WEAPON, THREAT], window: 120, unless: "(cut|sliced|nicked|caught|stabbed) (my|his|her) (own )?(finger|hand|thumb)|chopping|cooking|slipped|dropped|peeling|carving|sharpen", source: 'ACEP (homicidal feelings); NHS mental health crisis (999 if someone is in danger)' },
  { concept: 'homicidal', groups: [HARM_THOUGHT], source: 'ACEP (homicidal feelings)' },
  { concept: 'fainted', groups: [CAME_ROUND, OUT_COLD], window: 80, unless: "(came|come|coming) (a)?round (to|for) |round (to )?(mine|my house|ours|the house)|came to (see|visit|the|my|our|stay|help|pick)|for (tea|dinner|lunch|coffee|a (visit|chat|cuppa|drink))", source: 'NHS fainting; NHS999 (unconscious); ACEP (fainting)' },
  { concept: 'fainted', groups: [OUT_FOR], source: 'NHS fainting (a brief loss of consciousness)' },
  { concept: 'limb_ischaemia', groups: [LIMB_PART, COLD_PALE, LIMB_ALARM], window: 80, unless: "raynaud|in the cold|when (it'?s|its|it is) cold|winter|snow|chilblain|for (years|months)|always (been|get|have)|every (winter|time)", source: 'NHS peripheral arterial disease and Circulation Foundation (999: a sudden cold, pale, painful limb)' },
  { concept: 'eye_penetrating', groups: [EYE_WORD, EYE_HIT], window: 60, unless: 'contact lens|eyelash|dust|sand|soap|shampoo|make-?up|mascara|glasses|\\b(a |the )?(fly|bug|insect|gnat|midge|mosquito)\\b|(cut|scratch\\w*) (on|near|above|below) (my|his|her) eye', source: 'NHS eye injuries (A&E: something has pierced the eye, hit it at high speed, or there is blood in the eye after an injury)' },
  { concept: 'eye_blunt', groups: [EYE_WORD, '\\b(hit|punched|punch|elbowed|elbow|ball|racket|fist|kicked|headbutt\\w*|whacked|smacked|struck)\\b'], window: 40, unless: 'eyelash|hit the (hay|sack)', source: 'NHS eye injuries (a blow to the eye: urgent care; A&E if vision changes)' },
  { concept: 'seizure', groups: ["\\b(first|1st|another|big|major|epileptic|bad)( ever)? fits?\\b(?! of)"], source: 'NHS999 (seizure); NHS epilepsy (a first fit: call 999)' },
  { concept: 'palpitations', groups: ['\\b(heart|pulse|heartbeat)\\b', 'racing|pounding|thumping|hammering|flutter\\w*|skipping|irregular\\w*|all over the place|beating (really |very |so )?(fast|quick\\w*|hard|irregular\\w*)|going (really |very |so )?(fast|quick|like (mad|crazy|the clappers))'], window: 40, unless: 'heart ?rate monitor|after (a |my |the )?(run|gym|workout|exercise)|heartburn', source: 'NHS heart palpitations (heartbeat fast, pounding, fluttering or irregular)' },
  { concept: 'fainted', groups: ["\\b(keeps?|kept|keep) (collapsing|fainting|passing out|blacking out)\\b|\\bcollapsing\\b(?! lung)"], source: 'NHS fainting; ACEP (fainting)' },
  { concept: 'thirst_pee', groups: ['\\b(wee|wees|weeing|pee|pees|peeing|urinat\\w*|toilet|loo|bathroom)\\b', "thirst\\w*|drink\\w* (loads|lots|a lot|constantly|all the time|gallons|non-?stop|so much|more|litres)|(can'?t|cannot) stop drinking"], window: 80, source: 'NHS type 1 diabetes / Diabetes UK (the 4 Ts: toilet, thirsty, tired, thinner)' },
];

const COMPILED = FAMILIES.map((f) => ({
  ...f,
  res: f.groups.map((g) => new RegExp(g, 'g')),
  unlessRe: f.unless ? new RegExp(f.unless) : null,
}));

interface Span { start: number; end: number }

function spansOf(s: string, re: RegExp): Span[] {
  re.lastIndex = 0;
  return [...s.matchAll(re)].filter((m) => m[0].length > 0).map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

/**
 * The starts of the spans that are affirmed. A group's own words may carry a negation ("can't
 * stand the light", "won't slow down"), so the other groups' spans are blanked before a span is
 * asserted: "can't" denies the light no more than it denies itself.
 */
function affirmedStarts(s: string, own: Span[], others: Span[]): number[] {
  let masked = s;
  for (const o of others) masked = masked.slice(0, o.start) + ' '.repeat(o.end - o.start) + masked.slice(o.end);
  return own.filter((sp) => isAffirmed(assertMention(masked, sp.start, sp.end))).map((sp) => sp.start);
}

/** The concepts the co-occurrence families affirm in one normalized sentence. */
export function cooccurringConcepts(s: string): string[] {
  const out: string[] = [];
  for (const f of COMPILED) {
    if (out.includes(f.concept)) continue;
    if (f.unlessRe?.test(s)) continue;
    const spans = f.res.map((re) => spansOf(s, re));
    if (spans.some((sp) => sp.length === 0)) continue;
    const hits = spans.map((own, i) => affirmedStarts(s, own, spans.filter((_, j) => j !== i).flat()));
    if (hits.some((h) => h.length === 0)) continue;
    const win = f.window ?? 70;
    // some match of the first group with a match of every other group within the window
    const ok = hits[0]!.some((p) => hits.slice(1).every((h) => h.some((q) => Math.abs(q - p) <= win)));
    if (ok) out.push(f.concept);
  }
  return out;
}

/**
 * Sentence-level vetoes: a harmless explanation in the same sentence that the phrase patterns
 * cannot see (an arm that will not lift since a shoulder injury is not a stroke sign; spots that do
 * not fade with acne cream are not the glass test). Each is the look-alike the published page
 * itself sets apart; `unlessAlso` keeps the sign when a real warning is in the sentence too.
 */
export interface ConceptVeto {
  concepts: readonly string[];
  when: RegExp;
  unlessAlso?: RegExp;
}

export const VETOES: readonly ConceptVeto[] = [
  // NHS stroke vs musculoskeletal causes and a known cause of a facial change
  { concepts: ['arm_weakness', 'face_droop'], when: /\b(since|after|from|because of|due to) (i |he |she |my |his |her |the |a )?[\w' ]{0,25}(hurt|injur\w*|sprain\w*|strain\w*|pull\w*|broke|broken|fractur\w*|dislocat\w*|surgery|operation|dental|dentist|filling|botox|jab|injection|vaccin\w*|fall|fell|accident)|frozen shoulder|arthritis|bell'?s palsy|above (my|his|her|their) head|years ago|since (birth|childhood)|always been/, unlessAlso: /\b(sudden|suddenly|all of a sudden|out of nowhere|slurr\w*|confus\w*)/ },
  // NHS shortness of breath vs a blocked nose
  { concepts: ['severe_dyspnea', 'dyspnea'], when: /through (my|his|her|their|the) nose|blocked nose|stuffy nose|bunged up nose/, unlessAlso: /\b(blue|grey|gray|lips|gasping|can'?t (speak|talk))\b/ },
  // NHS asthma: a reliever that works less well than it did is a review, not an attack
  { concepts: ['asthma_not_helping'], when: /as (well|good|much) as|new (prescription|inhaler)|run(ning)? out|expired|\bempty\b|need (a|another|more)/, unlessAlso: /\b(attack|can'?t (breathe|speak|talk)|gasping|blue|grey)\b/ },
  // NHS meningitis glass test vs skin complaints
  { concepts: ['rash_nonblanching'], when: /\b(acne|pimples?|zits?|eczema|psoriasis|cream|scars?|moles?|freckles|tattoo|birthmark|age spots|sun spots)\b/, unlessAlso: /\b(glass|purple|fever|temperature|hot|floppy|drowsy)\b|\b(stay\w*|stayed|others?|some (of them )?(didn'?t|did not|don'?t))\b/ },
  // NHS 999 "sudden confusion" vs known dementia with nothing new
  { concepts: ['confusion'], when: /\b(dementia|alzheimer'?s|nothing new|as usual|normal for (him|her|them)|always (gets|is|been))\b/, unlessAlso: /\b(sudden|suddenly|today|tonight|(?<!nothing )new|worse|more confused|much more|fever|temperature|infection|fall|fell)\b/ },
  // NHS sepsis / flu: shaking or shivering with a fever (rigors) is not a fit unless the person is also unresponsive
  { concepts: ['seizure'], when: /\b(fever|temperature|temp|chills|shiver\w*|rigou?rs|cold|flu|anxi\w*|panic\w*|nerv\w*)\b/, unlessAlso: /\b(unresponsive|not responding|won'?t respond|eyes (rolled|rolling)|fit|fitting|seizure|convuls\w*|jerk\w*|foam\w*|floor)\b/ },
  // feeling sick at the sight of blood is not vomiting blood
  { concepts: ['vomit_blood'], when: /\b(see|seeing|saw|sight of|look at|looking at|thought of|think about) (the )?blood\b|blood (tests?|pressure|sugar|donation)/, unlessAlso: /\b(vomit\w*|threw up|throw\w* up|brought up|bringing up|puk\w*) [\w ]{0,25}\bblood\b(?! (tests?|pressure|sugar|donation))/ },
  // NHS 999 "serious accident": a minor bump with everyone well is not one
  { concepts: ['major_trauma'], when: /\b(minor|small|little|slight|low[- ]speed)\b[\w ]{0,20}\b(accident|crash|bump|collision|prang)|everyone (is |was )?(fine|ok|okay)|no (one|body) (was )?(hurt|injured)|no injuries/, unlessAlso: /\b(unconscious|bleeding|broken|trapped|(can'?t|cannot) move|not moving|neck pain|pregnant)\b/ },
  // NHS sleep apnoea: pauses in breathing while asleep, with snoring, are a GP matter
  { concepts: ['severe_dyspnea', 'unconscious'], when: /\b(snor\w*|in (his|her|my|their) sleep|sleep apn\w*|while (he|she|i|they) (sleeps?|is asleep))\b/, unlessAlso: /\b(blue|grey|gray|floppy|limp|won'?t wake|can'?t wake|unresponsive|not waking)\b/ },  // ---- triage-levels
  // NHS fainting: a faint with a known trigger (a blood test, needles, the sight of blood) and a quick recovery is not a collapse; a head injury, a fit, chest pain, a racing heart or a slow recovery keeps it one
  { concepts: ['fainted', 'near_faint'], when: /\b(blood (tests?|sample|taken|draw)|took (my |his |her |some )?blood|giving blood|gave blood|needles?|injections?|jabs?|vaccin\w*|sight of blood|standing (up )?(for (ages|hours|a long time|too long)|in the (heat|sun))|stood (for (ages|hours|a long time|too long)|up too (quickly|fast))|got up too (quickly|fast)|hot (hall|room|church|bath|shower|crowded|day)|crowded|(skipped|missed|hadn'?t had|had no|not had|no) (breakfast|lunch|dinner|meals?|food)|hadn'?t eaten|not eaten|assembly)\b/, unlessAlso: /\b(chest|heart|palpitat\w*|racing|breath\w*|exercis\w*|running|hit (my|his|her) head|banged (my|his|her) head|fit|fitting|seizure|jerk\w*|shaking|twitch\w*|(didn'?t|not|hasn'?t|won'?t) (come|coming) round|won'?t wake|still (out|unconscious)|pregnan\w*|bleed\w*|confus\w*|warfarin|blood thinners?|wheez\w*|hives|rash|swell\w*|swollen|itch\w*|blue|grey|gray|insulin|diabet\w*|hypos?|sugars?)\b/ },
  // NHS teething: dribbling while chewing and gnawing is teething, not drooling from a closing throat
  { concepts: ['swallow_difficulty'], when: /\b(teeth\w*|tooth|chew\w*|gnaw\w*|chomp\w*|munch\w*|mouthing|gums?)\b/, unlessAlso: /\b(can'?t|cannot|unable to|won'?t) (swallow|breathe|drink)|breath\w*|stridor|noisy|floppy|hoarse|muffled/ },
  // NHS migraine with aura: the usual zigzag lines of a known migraine are not an acute glaucoma eye; a red eye or halos keep it one
  { concepts: ['eye_acute'], when: /\b(migraines?|aura|zig-?zags?|shimmer\w*)\b/, unlessAlso: /\b(red|bloodshot|halos?|rainbows?|cloudy|blurr?ed)\b/ },
  // NHS meningitis glass test: a rash that fades under the glass is the reassuring result; one that does not fade, or purple spots, keep the flag
  { concepts: ['rash_nonblanching'], when: /\b(fades?|faded|fading|disappears?|disappeared|goes (pale|white|away)|went (pale|white|away)|blanch(es|ed|ing)?)\b/, unlessAlso: /(n'?t|not|never|won'?t) (fade|disappear|go (pale|white|away)|blanch)|non[- ]?blanch|purple|purpura|petech|bruis|dark red|pinprick|\b(some|others?|a few|one|few)\b[\w ,']{0,30}\b(don'?t|doesn'?t|won'?t|didn'?t|stay\w*)\b|\b(stay\w*|stayed|others?|some (of them )?(didn'?t|did not|don'?t))\b/ },
  // NHS carbon monoxide: a working alarm and a serviced boiler are the reassurance, not the exposure
  { concepts: ['poisoning'], when: /\b(working|checked|tested|serviced|fine)\b[\w ]{0,25}\b(co|carbon monoxide) (alarm|detector)|\b(co|carbon monoxide) (alarm|detector)\b[\w ]{0,25}\b(working|fine|checked|tested|silent|(hasn'?t|not|didn'?t) (gone|go) off)\b/, unlessAlso: /\b(alarm (is |was )?(going|went) off|beeping|sounding|all of us|whole family|everyone)\b|(overdos|swallow|pills|tablets|bleach|took)/ },
  // a monthly period, a cycle, migraines, hay fever, cold sores and panic attacks come back by their nature: not the 'keeps coming back' that needs a GP
  { concepts: ['recurrent'], when: /\b(periods?|cycle|migraines?|hay ?fever|cold sores?|panic attacks?|eczema|every (spring|summer))\b/ },
  // NHS 999 "serious accident": "I feel like I've been hit by a bus" is how flu feels, not an accident
  { concepts: ['major_trauma'], when: /\b(feel|feels|felt|feeling) (like|as if|as though) (i'?ve|i have|i'?d|i|he'?s|she'?s|he has|she has) (been |got )?(hit|run over|knocked (down|over))\b/ },
  // NHS panic disorder / heart palpitations: breathlessness and a racing heart in a known panic attack that has passed; chest pain, fainting, blue lips, a first attack or one that will not stop keep the flags
  { concepts: ['dyspnea', 'near_faint'], when: /\b(panic|anxiety) attacks?\b[\w ,']{0,140}\b(passed|settled|went away|gone|calmed|like (they|it) always|as usual|for years|again)\b|\b(one of my|my usual|another of my|my normal|usual) (panic|anxiety) attacks?\b/, unlessAlso: /\b(chest pain|pain in (my|his|her) chest|crushing|tight chest|blue|grey|gray|fainted|passed out|collapsed|first (ever|time)|never had (one|this|anything like this) before|still going|won'?t stop|hours|can'?t (speak|talk))\b/ },
  // NHS heartburn and acid reflux: a burning that rises after meals, with a sour taste or on lying down, eased by antacids; heavy, tight or spreading pain, sweating or breathlessness keep it chest pain (NHS heart attack)
  { concepts: ['chest_pain'], when: /\bburn\w*[\w ,']{0,80}\b(after (eating|meals?|food|dinner|lunch|tea|a curry|curry|spicy food|big meals?)|sour|acid\w*|reflux|lying (down|flat)|gaviscon|rennies?|antacids?)\b|\b(acid|reflux|sour taste)\b[\w ,']{0,80}\bburn\w*/, unlessAlso: /\b(crush\w*|squeez\w*|heavy|heaviness|tight\w*|pressure|arms?|jaw|neck|sweat\w*|clammy|breathless\w*|short of breath|exert\w*|exercis\w*|walking|stairs|running|grey|gray|pale|feel(ing)? sick|nause\w*|vomit\w*|faint\w*|dizz\w*|light-?headed)\b/ },
  { concepts: ['severe_dyspnea', 'unconscious'], when: /\b(snor\w*|in (his|her|my|their) sleep|sleep apn\w*|while (he|she|i|they) (sleeps?|is asleep))\b/, unlessAlso: /\b(blue|grey|gray|floppy|limp|won'?t wake|can'?t wake|unresponsive|not waking)\b/ },
  // ---- triage-emerg-b
  // NHS carbon monoxide: a home already checked (alarm working and silent, appliance serviced, nobody else ill) is the reassurance, not the sign
  { concepts: ['poisoning'], when: /\b(nobody|no one|no-one|none of us|nobody else|no-one else|no one else)\b[\w ]{0,30}\b(headaches?|symptoms|ill|unwell|sick|poorly)\b|\b(working|tested|new|checked) (co|carbon monoxide) (alarm|detector)|\b(alarm|detector) (is )?(fine|working|silent|not going off|hasn'?t gone off)|\b(boiler|gas fire|heater|cooker)\b[\w ]{0,20}\b(serviced|checked|new|replaced)\b/, unlessAlso: /\b(alarm|detector) (is |was |keeps |has been )?(going off|went off|beeping|sounding)|\b(better|fine) (when|once) (we|i|they) (go|get|leave|step)|\b(swallow\w*|overdos\w*|drank|ate|eaten|tablets|pills)\b/ },
  // NHS conjunctivitis, stye, hay fever, bites: a swollen eyelid with sticky discharge or an itch is not cellulitis round the eye unless the eye is shut, vision changes or it hurts to move
  { concepts: ['orbital_cellulitis'], when: /\b(sticky|gunk\w*|crust\w*|discharge|conjunctivitis|pink ?eye|hay ?fever|pollen|stye|sting|stung|bite|bitten|itch\w*)\b/, unlessAlso: /(can'?t|cannot|won'?t) open|(swollen|closed) shut|vision|(hurts|painful|pain) (to|when) (move|moving|look)|bulg\w*/ },
  // NHS baby poo / colds: green poo or green snot is common and harmless; only green vomit is the sign
  { concepts: ['green_vomit'], when: /\bgreen (poo\w*|stools?|nappy|nappies|diapers?|snot|phlegm|mucus|bogeys?|sputum|discharge|gunk)\b|\b(poo\w*|stools?|snot|phlegm|mucus|sputum|discharge|gunk|bogeys?)( is| are| was| were| looks?| has| have| gone| turned| going| been| a bit| quite| very| dark| bright| really)* green\b/, unlessAlso: /\b(sick|vomit\w*|puke|threw up|throwing up|bile)( is| are| was| were| looks?| has| have| gone| turned| been| a bit| quite| very| dark| bright| really)* (green|yellow-green)\b|\bgreen (sick|vomit|bile)\b|\bvomit\w* (up )?(green|bile)\b/ },
  // NHS 999 (a fall from a height): a fall from the bottom rungs of a ladder or a step stool with a bruise is a minor injury unless a warning sign comes with it
  { concepts: ['major_trauma', 'fall_height'], when: /\b(\d|one|two|three|a few|a couple of|couple of|bottom|first|second) (rungs?|steps?)\b|\b(little|small|short|low) (ladder|step ?ladder|stool)\b|\bstep ?(ladder|stool)\b/, unlessAlso: /\b(head|unconscious|knocked out|(can'?t|cannot) (move|feel|walk|get up|stand)|broken|neck|back|bleeding|confus\w*|blood thinners?|warfarin|hip)\b/ },
  // NHS rashes in children: a rash that fades under a glass is the reassuring result of the glass test, not a warning sign
  // NHS swallowed objects / APC: an object spat out or found again was not swallowed
  { concepts: ['swallowed_battery', 'poisoning'], when: /\b(spat|spit|spitting) (it|them|one|the \w+) (straight |right )?(back )?out\b|\b(found|got|have) (it|them) (here|back)\b|\bfound the (battery|batteries|magnets?)\b/, unlessAlso: /\b(swallowed|missing|can'?t find|another|more)\b/ },
  { concepts: ['rash_nonblanching'], when: /\b(fades?|faded|fading|disappears?|disappeared|goes (away|pale|white)|went (away|pale|white)|blanch(es|ed)?|vanish(es|ed)?)\b/, unlessAlso: /\b(don'?t|doesn'?t|does not|do not|won'?t|will not|didn'?t|did not|not|never|isn'?t|aren'?t) (fade|go (away|pale|white)|disappear|blanch|vanish)|\bpurple\b|still (there|see|visible)|\b(stay\w*|stayed|others?|some (of them )?(didn'?t|did not|don'?t))\b/ },
  // ---- triage-emerg-a
  // NHS panic disorder: a known patient's usual attack (fast heart, tingling, air hunger) is self-help unless chest pain, blue lips or collapse
  { concepts: ['severe_dyspnea', 'dyspnea', 'palpitations', 'near_faint', 'sepsis_sign'], when: /\b(panic disorder|anxiety disorder|(one of )?my (usual |normal |regular |typical )?panic attacks?|another panic attack|(usual|normal|regular|typical) panic attack|i (get|have|'ve had|suffer (from|with)) panic attacks|history of panic)\b/, unlessAlso: /\b(blue|grey|gray|lips|collapsed|fainted|unconscious|(?<!\b(no|or|nor|without|any) )chest (pain|tight\w*|pressure|heav\w*))\b/ },
  // NHS low blood sugar: a hypo treated and back to normal is self-care (999 only if it does not come up, drowsy, a fit)
  { concepts: ['low_sugar'], when: /\b(back (up )?(to|above|at)|came back up|gone back up|went back up|is back up|back to normal)\b|jelly ?babies|glucose (tablets|gel|sweets)|dextrose|lucozade/, unlessAlso: /\b(drowsy|confus\w*|won'?t|can'?t|not (coming|going) up|still (low|dropping)|unconscious|fit)\b/ },
  // NHS migraine / detached retina: the patient's usual aura is not a retinal warning
  { concepts: ['retina_warning'], when: /\b(migraine|aura|zig-?zags?)\b/, unlessAlso: /\b(curtain|shadow|veil|floaters)\b/ },
  // NHS migraine: the patient's usual aura (zigzags, shimmering) with their usual headache is not a sudden eye or vision emergency
  { concepts: ['eye_acute', 'vision_loss', 'retina_warning'], when: /^(?=.*\b(migraines?|aura|zig-?zags?)\b)(?=.*\b(usual|normal|always|typical|regular|same as|since i was|my migraines?)\b)/, unlessAlso: /\b(red|bloodshot|halos?|rainbows?|rock hard|weak\w*|numb\w*|slurr\w*|worst|first (ever|time)|different|never had|curtain|shadow|floaters)\b/ },
  // NHS heartburn and acid reflux: waking up choking on acid is reflux, not an airway emergency
  { concepts: ['severe_dyspnea', 'choked'], when: /\b(acid|reflux|heartburn|indigestion)\b/, unlessAlso: /\b(blue|grey|gray|can'?t (breathe|speak|talk)|gasping|collapsed|unconscious|swelling|swollen)\b/ },
  // NHS baby breathing: snuffly, noisy breathing with a blocked nose is common; stridor is the noise of a narrowed airway
  { concepts: ['stridor'], when: /\b(blocked|stuffy|bunged up|snotty) nose|snuffl\w*|congested|\bsnort\w*/, unlessAlso: /\b(drool\w*|blue|grey|gray|sucking in|pulling in|ribs|can'?t (breathe|swallow)|struggling to breathe|barking|bark\w*|croup)\b/ },
];

/** The concepts a sentence's own context vetoes (see VETOES). */
export function vetoedConcepts(s: string): Set<string> {
  const out = new Set<string>();
  for (const v of VETOES) if (v.when.test(s) && !v.unlessAlso?.test(s)) for (const c of v.concepts) out.add(c);
  return out;
}
