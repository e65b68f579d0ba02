/**
 * Multi-turn need filling (issue 34, item 3): red-flag gates first, the rest a few at a time,
 * short answers attributed through `asked`, `patient` facts not asked again, completion with a
 * summary, and determinism (the engine is stateless and recomputes from all turns).
 */
import { describe, expect, it } from 'vitest';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';
import type { TriageInput } from '../../engine/triage/triage.port.ts';
import { converse, first } from './triage-helpers.ts';

const engine = createRulesEngine();

describe('sore throat to completion', () => {
  it('asks the airway gate first, then the rest, and completes with a summary', async () => {
    const { results } = await converse(engine, [
      'I have a sore throat',
      'no',
      '34, female, 3 days',
      'about a 6 out of 10. No. No',
      'no',
    ]);
    expect(results[0]!.asked).toEqual(['gate_airway']);
    expect(results[0]!.informationNeed[0]).toMatchObject({ key: 'gate_airway', redFlagGate: true, priority: 'required' });
    expect(results[0]!.reply).toMatch(/trouble breathing, or trouble swallowing/);
    expect(results[1]!.asked).toEqual(['age', 'sex', 'duration']);
    expect(results[2]!.asked).toEqual(['severity', 'pregnancy', 'medicines']);
    expect(results[3]!.asked).toEqual(['allergies', 'conditions']);
    const last = results[4]!;
    expect(last.complete).toBe(true);
    expect(last.acuity).toBe('self_care');
    expect(last.asked).toEqual([]);
    expect(last.reply).toMatch(/go ahead with a visit/);
    expect(last.summary).toContain('Main concern: a sore throat.');
    expect(last.summary).toContain('age 34 years, female, not pregnant');
    expect(last.summary).toContain('Duration: 3 days. Severity: 6/10.');
    expect(last.summary).toContain('Medicines: none. Allergies: none known. Conditions: none.');
    expect(last.summary).toMatch(/no diagnosis/i);
  });

  it('a sore throat with fever for 10 days completes as urgent, and `patient` age and sex are not asked', async () => {
    const { results } = await converse(engine, ['My throat has been sore for 10 days and I have a fever', 'no', '5/10, no, no', 'no'], { ageYears: 29, sex: 'male' });
    expect(results[1]!.asked).toEqual(['severity', 'medicines', 'allergies']);
    const last = results.at(-1)!;
    expect(last.complete).toBe(true);
    expect(last.acuity).toBe('urgent');
    expect(last.redFlags).toContain('a fever for more than 3 days');
    expect(last.reply).toMatch(/should see you today/);
  });
});

describe('answers attributed through `asked`', () => {
  it('a "yes" to a red-flag gate in a later turn turns the conversation into an emergency', async () => {
    const { results } = await converse(engine, ['I have a sore throat', 'yes, I am drooling']);
    expect(results[1]!.acuity).toBe('emergency');
    const bare = await converse(engine, ['I have a sore throat', 'yes']);
    expect(bare.results[1]!.acuity).toBe('emergency');
  });

  it('"3 days" goes to duration and "about a 6 out of 10" to severity', async () => {
    const input: TriageInput = {
      turns: [
        { role: 'patient', text: 'I have a headache' },
        { role: 'assistant', text: 'How long?', asked: ['duration'] },
        { role: 'patient', text: '3 days' },
        { role: 'assistant', text: 'How bad?', asked: ['severity'] },
        { role: 'patient', text: 'about a 6 out of 10' },
      ],
    };
    const r = await engine.assess(input);
    expect(r.informationNeed.map((n) => n.key)).not.toContain('duration');
    expect(r.informationNeed.map((n) => n.key)).not.toContain('severity');
    expect(r.informationNeed[0]!.key).toBe('gate_headache');
  });

  it('the same bare "no" means different things after different questions', async () => {
    const afterGate = await engine.assess({ turns: [
      { role: 'patient', text: 'I have a headache' },
      { role: 'assistant', text: 'q', asked: ['gate_headache'] },
      { role: 'patient', text: 'no' },
    ] });
    expect(afterGate.informationNeed.map((n) => n.key)).not.toContain('gate_headache');
    expect(afterGate.informationNeed.map((n) => n.key)).toContain('medicines');
    const afterMeds = await engine.assess({ turns: [
      { role: 'patient', text: 'I have a headache' },
      { role: 'assistant', text: 'q', asked: ['medicines'] },
      { role: 'patient', text: 'no' },
    ] });
    expect(afterMeds.informationNeed.map((n) => n.key)).toContain('gate_headache');
    expect(afterMeds.informationNeed.map((n) => n.key)).not.toContain('medicines');
  });

  it('age and sex from `patient` are not asked; pregnancy is asked only when it can apply', async () => {
    const man = await converse(engine, ['I have a sore throat', 'no'], { ageYears: 40, sex: 'male' });
    expect(man.results[1]!.asked).toEqual(['duration', 'severity', 'medicines']);
    expect(man.results[1]!.informationNeed.map((n) => n.key)).not.toContain('pregnancy');
    const woman = await converse(engine, ['I have a sore throat', 'no'], { ageYears: 30, sex: 'female' });
    expect(woman.results[1]!.asked).toEqual(['duration', 'severity', 'pregnancy']);
  });

  it('a question that is not answered is asked at most twice, so triage always ends', async () => {
    const { results } = await converse(engine, ['I have a cough', ...Array.from({ length: 10 }, () => 'hmm')]);
    expect(results.some((r) => r.complete)).toBe(true);
  });

  it('an empty greeting asks for the main concern', async () => {
    const r = await first(engine, 'hi');
    expect(r.asked).toEqual(['complaint']);
    expect(r.complete).toBe(false);
  });
});

describe('determinism and statelessness', () => {
  it('the same input gives the same result, from this engine and from a new one', async () => {
    const messages = ['I twisted my ankle yesterday, it is a bit swollen', 'no', '26, male, 1 day', '4/10, none, none', 'no'];
    const a = await converse(engine, messages);
    const b = await converse(engine, messages);
    const c = await converse(createRulesEngine(), messages);
    expect(b.results).toEqual(a.results);
    expect(c.results).toEqual(a.results);
    expect(a.results.at(-1)!.complete).toBe(true);
  });

  it('recomputes from the turns it is given: earlier calls leave nothing behind', async () => {
    await converse(engine, ['I have chest pain and I am short of breath']);
    const r = await first(engine, 'I have a mild cough');
    expect(r.acuity).not.toBe('emergency');
  });
});
