/**
 * NegEx / ConText handling (issue 34, item 3): negated findings, findings of someone else (family
 * history), past and hypothetical findings do not raise red flags; per sentence and per clause.
 * Each case has a positive control so the test fails if the concept were never recognised.
 */
import { describe, expect, it } from 'vitest';
import { assertMention, isAffirmed } from '../../engine/triage/triage-context.ts';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';
import { first } from './triage-helpers.ts';

const engine = createRulesEngine();

function assertion(sentence: string, mention: string) {
  const i = sentence.indexOf(mention);
  if (i < 0) throw new Error(`"${mention}" not in "${sentence}"`);
  return assertMention(sentence, i, i + mention.length);
}

describe('assertMention', () => {
  it.each([
    ['no chest pain', 'chest pain', 'negated'],
    ['i deny any shortness of breath', 'shortness of breath', 'negated'],
    ['denies shortness of breath', 'shortness of breath', 'negated'],
    ['i am not short of breath', 'short of breath', 'negated'],
    ['no fever, cough or rash', 'rash', 'negated'],
    ['the bleeding has stopped', 'bleeding', 'negated'],
    ['my father had a stroke', 'stroke', 'other'],
    ['there is a family history of heart attack', 'heart attack', 'other'],
    ['my mother died of a heart attack at 60', 'heart attack', 'other'],
    ['i had a stroke 5 years ago', 'stroke', 'historical'],
    ['what if i get chest pain on the plane?', 'chest pain', 'hypothetical'],
    ["i'm worried about a stroke", 'stroke', 'hypothetical'],
  ] as const)('"%s": %s is %s', (sentence, mention, kind) => {
    const a = assertion(sentence, mention);
    expect(isAffirmed(a)).toBe(false);
    if (kind === 'negated') expect(a.negated).toBe(true);
    if (kind === 'other') expect(a.other).toBe(true);
    if (kind === 'historical') expect(a.historical).toBe(true);
    if (kind === 'hypothetical') expect(a.hypothetical).toBe(true);
  });

  it.each([
    ['i have chest pain', 'chest pain'],
    ['chest pain but no trouble breathing', 'chest pain'],
    ['no fever but i have a cough', 'cough'],
    ['my husband is having a stroke right now', 'stroke'],
    ['my son had a seizure ten minutes ago', 'seizure'],
    ['my cough is not getting better', 'cough'],
  ] as const)('"%s": %s is affirmed', (sentence, mention) => {
    expect(isAffirmed(assertion(sentence, mention))).toBe(true);
  });
});

describe('the engine with negation and experiencer', () => {
  it.each([
    'No chest pain, no shortness of breath, just a cough.',
    'I have a cough. I deny any shortness of breath or chest pain.',
    'My father had a stroke last year. I have a mild headache.',
    'I have a sore throat. My mum had a heart attack when she was 70.',
    "I'm not short of breath. I have a cough.",
    'I had a seizure as a child. Now I have a rash on my arm.',
  ])('"%s" is not an emergency', async (text) => {
    const r = await first(engine, text);
    expect(r.acuity).not.toBe('emergency');
    expect(r.complete).toBe(false);
    expect(r.asked.length).toBeGreaterThan(0);
  });

  it('"chest pain but no trouble breathing": chest pain is kept (urgent, gate asked), breathlessness is not', async () => {
    const r = await first(engine, 'I have chest pain but no trouble breathing');
    expect(r.acuity).toBe('urgent');
    expect(r.redFlags).toEqual(['chest pain']);
    expect(r.asked).toEqual(['gate_chest']);
    const control = await first(engine, 'I have chest pain and trouble breathing');
    expect(control.acuity).toBe('emergency');
  });

  it('a negation inside the finding itself ("I can\'t breathe") is not a negation', async () => {
    expect((await first(engine, "I can't breathe")).acuity).toBe('emergency');
    expect((await first(engine, "She has a rash that doesn't fade under a glass")).acuity).toBe('emergency');
  });

  it('a report on someone else\'s behalf is about the person triaged', async () => {
    expect((await first(engine, "My wife's face is drooping and her speech is slurred")).acuity).toBe('emergency');
    expect((await first(engine, 'My father had a stroke and my face is fine')).acuity).not.toBe('emergency');
  });
});
