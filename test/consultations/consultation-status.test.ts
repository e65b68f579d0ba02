/**
 * The state machine's table against service-spec.md, "Conversation status": every row of the
 * spec is a move, EMERGENCY is final, and moves the spec does not have are absent.
 */
import { describe, expect, it } from 'vitest';
import { CONVERSATION_STATUSES, TRANSITIONS, findTransition, type ConversationStatus, type Trigger } from '../../engine/consultations/consultation-status.ts';

describe('conversation status table', () => {
  it.each([
    [null, 'start', 'TRIAGING', 'triage_started'],
    ['IDLE', 'patient_message', 'TRIAGING', 'triage_started'],
    ['TRIAGING', 'triage_complete', 'PAYMENT_REQUIRED', 'payment_gate_open'],
    ['PAYMENT_REQUIRED', 'payment_approved', 'MATCHING', 'provider_matching'],
    ['MATCHING', 'provider_joined', 'WITH_PROVIDER', 'provider_joined'],
    ['WITH_PROVIDER', 'visit_ended', 'IDLE', 'visit_ended'],
    ['TRIAGING', 'cancel', 'IDLE', 'status_changed'],
    ['PAYMENT_REQUIRED', 'cancel', 'IDLE', 'status_changed'],
    ['MATCHING', 'cancel', 'IDLE', 'status_changed'],
    ['WITH_PROVIDER', 'cancel', 'IDLE', 'status_changed'],
    ['IDLE', 'emergency', 'EMERGENCY', 'emergency'],
    ['TRIAGING', 'emergency', 'EMERGENCY', 'emergency'],
    ['WITH_PROVIDER', 'emergency', 'EMERGENCY', 'emergency'],
  ] as const)('%s --%s--> %s writes %s', (from, trigger, to, event) => {
    expect(findTransition(from as ConversationStatus | null, trigger as Trigger)).toEqual({ from, trigger, to, event });
  });

  it('EMERGENCY is not re-engageable: no move leaves it', () => {
    expect(TRANSITIONS.filter((t) => t.from === 'EMERGENCY')).toEqual([]);
  });

  it('has no move the spec does not name', () => {
    expect(findTransition('IDLE', 'cancel')).toBeNull();
    expect(findTransition('IDLE', 'triage_complete')).toBeNull();
    expect(findTransition('TRIAGING', 'payment_approved')).toBeNull();
    expect(findTransition('MATCHING', 'visit_ended')).toBeNull();
    expect(findTransition('PAYMENT_REQUIRED', 'provider_joined')).toBeNull();
  });

  it('each (from, trigger) appears once and every status is reachable', () => {
    const keys = TRANSITIONS.map((t) => `${t.from}:${t.trigger}`);
    expect(new Set(keys).size).toBe(keys.length);
    const reached = new Set(TRANSITIONS.map((t) => t.to));
    for (const s of CONVERSATION_STATUSES) expect(reached.has(s), s).toBe(true);
  });
});
