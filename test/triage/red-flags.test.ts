/**
 * The red-flag screen, family by family (issue 34, item 3): each published warning sign in plain
 * patient words gives `emergency`, a red flag, and a reply that starts with the instruction.
 */
import { describe, expect, it } from 'vitest';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';
import { first } from './triage-helpers.ts';

const engine = createRulesEngine();

const FAMILIES: Array<[family: string, message: string, flag: RegExp]> = [
  ['chest pain with breathlessness', 'I have chest pain and I am short of breath', /chest pain with shortness of breath/],
  ['heart attack signs (NHS)', 'There is a crushing pain in my chest going down my left arm', /chest pain that feels heavy/],
  ['stroke: face (FAST)', 'My husband\'s face is drooping on one side', /face drooping/],
  ['stroke: arm (FAST)', 'I suddenly can\'t lift my left arm', /arm or leg weakness/],
  ['stroke: speech (FAST)', 'My mother\'s speech is suddenly slurred', /speech/],
  ['stroke: eyes (BE-FAST)', 'I suddenly lost the vision in my right eye', /vision/],
  ['anaphylaxis', 'I ate a peanut and my tongue is swelling', /lips, tongue or throat/],
  ['severe bleeding', 'My hand is bleeding heavily and it won\'t stop', /bleeding/],
  ['severe breathing difficulty', 'I can\'t breathe properly and can\'t finish a sentence', /difficulty breathing/],
  ['blue lips', 'My son\'s lips are turning blue', /difficulty breathing/],
  ['seizure', 'My daughter is having a seizure right now', /seizure/],
  ['unconscious', 'My dad collapsed and he won\'t wake up', /collapse/],
  ['sudden confusion', 'My grandmother is suddenly confused and doesn\'t know where she is', /confusion/],
  ['meningitis: rash', 'He has a rash that doesn\'t fade when I press a glass on it', /rash that does not fade/],
  ['meningitis: stiff neck and fever', 'I have a fever and a stiff neck', /stiff neck/],
  ['infant fever', 'My 5 week old baby has a temperature of 38.2', /baby under 3 months/],
  ['heavy bleeding in pregnancy', 'I am 12 weeks pregnant and bleeding heavily', /pregnan|bleeding/],
  ['poisoning / overdose', 'My son swallowed a bottle of bleach', /poisoning/],
  ['thunderclap headache', 'I suddenly got the worst headache of my life', /sudden, very severe headache/],
  ['severe burns', 'I have a large burn on my arm from boiling oil, it is white and charred', /burn/],
  ['head injury with vomiting', 'I hit my head on a shelf and have vomited twice since', /head injury/],
  ['vomiting blood', 'I have been vomiting blood this evening', /vomiting or coughing up blood/],
  ['cauda equina', 'I have back pain and numbness between my legs and I wet myself', /bladder or bowel/],
  ['testicular pain', 'I have sudden severe pain in my testicle', /testicle/],
  ['fever on chemotherapy', 'I am on chemotherapy and I have a fever of 38.5', /immune system/],
  ['sudden severe tummy pain', 'I have sudden severe stomach pain', /tummy pain/],
];

describe('red-flag families', () => {
  it.each(FAMILIES)('%s -> emergency, 911 first', async (_family, message, flag) => {
    const r = await first(engine, message);
    expect(r.acuity).toBe('emergency');
    expect(r.redFlags.join('; ')).toMatch(flag);
    expect(r.reply).toMatch(/^Call 911 now/);
    expect(r.complete).toBe(false);
    expect(r.asked).toEqual([]);
    expect(r.engine).toBe('rules-v1');
  });

  it('suicidal intent -> emergency, the reply leads with 988 and names 911', async () => {
    for (const text of ['I want to kill myself', 'I have been thinking about suicide and I have a plan', 'I don\'t want to be alive anymore']) {
      const r = await first(engine, text);
      expect(r.acuity, text).toBe('emergency');
      expect(r.reply, text).toMatch(/^Please call or text 988 now/);
      expect(r.reply, text).toContain('911');
      expect(r.redFlags, text).toContain('thoughts of suicide or self-harm');
    }
  });

  it('poisoning adds Poison Control after the 911 instruction', async () => {
    const r = await first(engine, 'My toddler took a handful of my sleeping pills');
    expect(r.reply).toMatch(/^Call 911 now/);
    expect(r.reply).toContain('1-800-222-1222');
  });

  it('urgent (not emergency) rules: fever for more than 3 days, UTI with flank pain, worsening', async () => {
    const cases = [
      ['I have had a fever for 5 days', /fever for more than 3 days/],
      ['It burns when I pee and I have pain in my side under the ribs', /urinary symptoms with fever or pain in the side/],
      ['My cough is getting worse and worse', /getting worse/],
    ] as const;
    for (const [text, flag] of cases) {
      const r = await first(engine, text);
      expect(r.acuity, text).toBe('urgent');
      expect(r.redFlags.join('; '), text).toMatch(flag);
    }
  });

  it('look-alikes that are not emergencies: long-standing weakness, a minor bump, a fit of coughing, heat stroke worry', async () => {
    for (const text of [
      "My shoulder has been stiff and painful for 6 weeks and I can't lift my arm above my head",
      'My 5 year old bumped his head, cried straight away and is playing normally',
      'I had a fit of coughing last night',
      'I am confused about how to take my tablets',
    ]) {
      const r = await first(engine, text);
      expect(r.acuity, text).not.toBe('emergency');
    }
    const control = await first(engine, 'I suddenly cannot lift my arm');
    expect(control.acuity).toBe('emergency');
  });

  it('the reply never names a diagnosis', async () => {
    const r = await first(engine, 'I have chest pain and I am short of breath');
    expect(r.reply).not.toMatch(/heart attack|angina|pulmonary|embolism|you have/i);
  });
});
