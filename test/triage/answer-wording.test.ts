/**
 * Robustness of the conversation to how a patient (or an outside agent) words its answers (issue 34,
 * item 3: the level must not depend on the wording): fillers, a yes or no inside a longer sentence,
 * number words, short units, "42F", facts given before they are asked, answers that say nothing.
 */
import { describe, expect, it } from 'vitest';
import { createRulesEngine, MAX_QUESTION_TURNS } from '../../engine/triage/rules-engine.ts';
import { parseSex } from '../../engine/triage/triage-needs.ts';
import { parseAgeYears, parseDurationDays, parseSeverity, parseYesNo } from '../../engine/triage/triage-text.ts';
import { converse } from './triage-helpers.ts';

const engine = createRulesEngine();

describe('answer parsers', () => {
  it.each([
    ['well um, yeah, and it started on monday', 'yes'],
    ['Yep.', 'yes'],
    ['uh huh', 'yes'],
    ['I think so, my lips feel big', 'yes'],
    ['nope. but now my arm feels numb', 'no'],
    ['not that I know of', 'no'],
    ['no, nothing like that, oh and I am 58 years old and it has been three days and honestly about a four', 'no'],
    ['noo', 'no'], ['nopee', 'no'], ['n', 'no'], ['yse', 'yes'], ['yess', 'yes'],
    ['no to the rash, yes to the stiff neck', 'yes'],
    ['None of those', 'no'], ["I don't have any of those", 'no'], ["she hasn't", 'no'], ["not that I'm aware of", 'no'], ['neither', 'no'],
    ["i don't know", null], ['i am not sure', null],
    ['hmm, not sure', null],
    ['what do you mean?', null],
  ])('parseYesNo(%j) is %s', (text, want) => {
    expect(parseYesNo(text)).toBe(want);
  });

  it.each([
    ['3 wks', 21], ['2hrs', 2 / 24], ['about two days ago', 2], ['three wks', 21], ['half an hour', 1 / 48],
    ['a fortnight', 14], ['since tuesday', 4], ['started tuesday night', 4], ['Thursday', 4], ['twenty mins', 20 / 1440], ['3d', 3], ['1 wk', 7],
  ])('parseDurationDays(%j) is %f', (text, days) => {
    expect(parseDurationDays(text)).toBeCloseTo(days, 5);
  });

  it('does not read a duration or a temperature as a severity', () => {
    expect(parseSeverity('3 days', true)).toBeNull();
    expect(parseSeverity('38.5', true)).toBeNull();
  });

  it('does not read a count without a unit, or an age in short form, as a duration', () => {
    expect(parseDurationDays('3 of them')).toBeNull();
    expect(parseDurationDays('my 7mo')).toBeNull();
    expect(parseDurationDays('she is 4')).toBeNull();
  });

  it.each([
    ['6 or 7', 7], ['between 6 and 7', 7], ["the pain's about 8 i'd say", 8],
    ['eight out of ten', 8], ['7ish', 7], ["it's killing me", 8], ['manageable', 3], ['like a seven', 7], ["honestly i'd say it's about a two out of ten", 2], ['9/10', 9],
  ])('parseSeverity(%j, bare) is %i', (text, want) => {
    expect(parseSeverity(text, true)).toBe(want);
  });

  it.each([
    ['seventy four', 74], ["he's 74", 74], ['42F', 42], ["she's 4", 4], ['two', 2], ['twenty-nine', 29], ['7mo', 7 / 12],
    ['in my 40s', 45], ['late sixties', 68],
  ])('parseAgeYears(%j, bare) is %f', (text, want) => {
    expect(parseAgeYears(text, true)).toBeCloseTo(want, 5);
  });

  it("reads a relative's age as a post gives it, not a count or a weight", () => {
    expect(parseAgeYears('my mum (80) is confused')).toBe(80);
    expect(parseAgeYears('Dad, 74, has chest pain')).toBe(74);
    expect(parseAgeYears('my son is 3 and has a cough')).toBe(3);
    expect(parseAgeYears('my wife is 30 weeks pregnant')).toBeNull();
  });

  it('reads age and sex shorthand only where it stands for them', () => {
    expect(parseSex('42F')).toBe('female');
    expect(parseSex('58 M')).toBe('male');
    expect(parseSex('34 female')).toBe('female');
    expect(parseAgeYears('temp of 101 f last night')).toBeNull();
    expect(parseAgeYears('fell about 3 m off a ladder')).toBeNull();
  });
});

describe('conversations in other words', () => {
  it('a bare "yes" to a multi-part warning-sign question is an emergency (the safe reading)', async () => {
    const { results } = await converse(engine, ['sore throat since yesterday', 'yeah']);
    expect(results[0]!.asked).toEqual(['gate_airway']);
    expect(results[1]!.acuity).toBe('emergency');
  });

  it('a "yes" buried in a rambling answer is still a yes', async () => {
    const { results } = await converse(engine, ['chest pain for about an hour', "well um, yep, oh and i'm 55 years old, i take statins... hope that helps"]);
    expect(results[0]!.asked).toEqual(['gate_chest']);
    expect(results[1]!.acuity).toBe('emergency');
  });

  it('"no, but now my arm feels numb" answers the question and adds an emergency', async () => {
    const { results } = await converse(engine, ['feel dizzy, came on half an hour ago', 'no, but now my arm feels numb and my words are coming out wrong']);
    expect(results[1]!.acuity).toBe('emergency');
  });

  it('facts in the first message are not asked again, however written', async () => {
    const { results } = await converse(engine, ["42F sore throat for 2 days, no fever, can swallow fine. not pregnant, no meds, allergic to penicillin"]);
    const needs = results[0]!.informationNeed.map((n) => n.key);
    for (const k of ['age', 'sex', 'duration', 'pregnancy', 'medicines', 'allergies']) expect(needs).not.toContain(k);
    const other = await converse(engine, ["I'm 60 and male, sore throat since yesterday, no allergies, otherwise healthy"]);
    const left = other.results[0]!.informationNeed.map((n) => n.key);
    for (const k of ['age', 'sex', 'duration', 'allergies', 'conditions']) expect(left).not.toContain(k);
  });

  it('several facts without punctuation ("58 male 3 days") answer several questions', async () => {
    const { results } = await converse(engine, ['I have a sore throat', 'no', '58 male 3 days']);
    expect(results[1]!.asked).toEqual(['age', 'sex', 'duration']);
    expect(results[2]!.asked).toEqual(['severity', 'medicines', 'allergies']);
  });

  it.each([
    ['a numbered list, one a line', ['1. 34\n2. female\n3. 3 days', '1. 4\n2. no\n3. none', 'none', 'none']],
    ['a numbered list on one line', ['1) 34 2) female 3) 3 days', '1) 4 2) no 3) none', '1) none 2) none']],
    ['a form', ['Age 34, sex F, duration 3 days', 'severity 4, pregnant no, meds none', 'allergies: none, conditions: none']],
    ['full sentences', ["I'm 34 and female. It started 3 days ago.", "It's about 4/10. I'm not pregnant and I don't take any medication.", 'I have no allergies and no long-term conditions.']],
  ])('answers as %s reach the same end as short ones', async (_name, answers) => {
    const { results } = await converse(engine, ['sore throat', 'no', ...answers]);
    const last = results.at(-1)!;
    expect(last.complete).toBe(true);
    expect(last.acuity).toBe('self_care');
    expect(last.summary).toContain('age 34 years, female, not pregnant');
    expect(last.summary).toContain('Severity: 4/10.');
  });

  it('"Pregnant: no" and "Fever: no" are denials, not mentions', async () => {
    const { results } = await converse(engine, ['sore throat 2 days, 30F. Pregnant: no. Fever: no. Allergies: none']);
    const needs = results[0]!.informationNeed.map((n) => n.key);
    expect(needs).not.toContain('pregnancy');
    expect(needs).not.toContain('allergies');
  });

  it('"I am a girl" is read as the sex (it used to throw)', async () => {
    const { results } = await converse(engine, ['I have a sore throat', 'no', 'I am 16, I am a girl, 2 days']);
    expect(results[2]!.informationNeed.map((n) => n.key)).not.toContain('sex');
  });

  it('"hasn\'t had a wee all day" about an older parent is a report on their behalf, not family history', async () => {
    const { results } = await converse(engine, ['my mum (80) is confused, shaking and shivering, hasnt had a wee all day and is breathing very fast']);
    expect(results[0]!.acuity).toBe('emergency');
  });

  it('a cut with pus is for a clinician, a plain one self-care; a red lump from a mosquito bite is self-care (NHS, Cuts and grazes; Insect bites)', async () => {
    const answers = ['no', '45, female, 3 days', '3, no, none', 'none', 'none'];
    const infected = await converse(engine, ["cut my finger on a knife 3 days ago, now it's red and swollen and there's pus coming out", ...answers]);
    const clean = await converse(engine, ['cut my finger on a knife 3 days ago, it is healing fine', ...answers]);
    // a clinician (NHS: see a GP); the breadth rules call an infected wound same-day
    expect(infected.results.at(-1)!.complete).toBe(true);
    expect(['routine', 'urgent']).toContain(infected.results.at(-1)!.acuity);
    expect(clean.results.at(-1)!).toMatchObject({ complete: true, acuity: 'self_care' });
    const bite = await converse(engine, ['itchy red lump on my leg from a mosquito bite this morning', 'no', '35, male, since this morning', '2, none, none', 'none']);
    expect(bite.results.at(-1)!).toMatchObject({ complete: true, acuity: 'self_care' });
  });

  it('an allergy history is not an allergen exposure: a croupy, hoarse child whose parent says "allergic to penicillin"', async () => {
    const { results } = await converse(engine, [
      'my 2 year old has a barky cough and a hoarse voice after a cold, temp 37.9',
      'no',
      'female, 2, since tonight',
      'allergic to penicillin. no. mild',
    ]);
    expect(results.map((r) => r.acuity)).not.toContain('emergency');
  });

  it('the same answers, terse or verbose, give the same level as plain ones', async () => {
    const plain = await converse(engine, ['I have a sore throat', 'no', '34, female, 3 days', 'about a 6 out of 10. No. No', 'no']);
    const terse = await converse(engine, ['I have a sore throat', 'nope', '34, f, 3d', '6, nope, nah', 'nah']);
    const verbose = await converse(engine, [
      'I have a sore throat',
      'well um, no, nothing like that... hope that helps',
      "well um, it's been going on for three days now i reckon, and i'm a woman, and i'm thirty four years old",
      "so, i don't take any medicines, and i'm definitely not pregnant, and honestly i'd say it's about a six out of ten",
      'no other health problems really',
    ]);
    for (const c of [plain, terse, verbose]) {
      const last = c.results.at(-1)!;
      expect(last.complete).toBe(true);
      expect(last.acuity).toBe('self_care');
    }
  });

  it('a patient who answers nothing useful still reaches an end, never self-care with warning signs unasked', async () => {
    const messages = ['i have a headache and a sore throat and a cough and some tummy pain'];
    for (let i = 0; i < 20; i++) messages.push(i % 2 === 0 ? 'not sure' : 'hmm');
    const { results } = await converse(engine, messages);
    const end = results.findIndex((r) => r.complete || r.acuity === 'emergency');
    expect(end).toBeGreaterThan(0);
    expect(end).toBeLessThanOrEqual(MAX_QUESTION_TURNS);
    expect(results[end]!.acuity).toBe('routine');
  });
});
