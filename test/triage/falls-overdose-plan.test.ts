/**
 * Red flags added after the four triage branches were merged: a fall with a broken-hip picture, an
 * older person who cannot get up, an overdose told by its count, a plan with the means, and tummy
 * pain boring through to the back. Each in fresh lay wording, beside the look-alikes that must not fire.
 */
import { describe, expect, it } from 'vitest';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';

const engine = createRulesEngine();
const screen = (text: string) => engine.screen({ turns: [{ role: 'patient', text }] });

const EMERGENT = [
  'grandad (79) tripped on the rug and is lying on the floor, his hip hurts and he cannot get up',
  'my wife slipped in the garden, her right leg looks shorter than the other and the foot is turned outwards',
  'dad is 88, he fell in the night and we could not get him up off the floor',
  'I took like 20 paracetamol about 2 hours ago, I feel ok',
  'she swallowed a whole packet of sleeping pills with wine',
  'my friend says she has taken twelve ibuprofen and thirty co-codamol',
  'he sent a text saying sorry for everything and he has all of his tablets lined up and is going to take them',
  'she has a whole bottle of her antidepressants and says she is going to take them all tonight',
  'pain in the middle of my upper tummy that goes right through to my back and I keep vomiting',
  'stomach pain boring through into my back, really bad, since this morning',
];

const NOT_EMERGENT = [
  'I took 2 paracetamol tablets for a headache this morning',
  'took 500 mg paracetamol tablet at 8am',
  'I take all of my tablets every morning with breakfast',
  'fell over playing football and my hip is sore but I can walk on it fine',
  'slipped on the ice yesterday and my wrist is sore',
  'my lower back pain goes down into my leg',
  'the pharmacy gave me the wrong tablets so I am going to take them back',
  'said goodbye to my mum at the airport and now I have a cold',
];

describe('falls, overdoses by count, a plan with the means, pain through to the back', () => {
  it.each(EMERGENT)('emergency: %s', (text) => {
    expect(screen(text).acuity).toBe('emergency');
  });
  it.each(NOT_EMERGENT)('not an emergency: %s', (text) => {
    expect(screen(text).acuity).not.toBe('emergency');
  });
});
