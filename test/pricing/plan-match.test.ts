/** Plan identifier matching (employer, plan name, group number) and the plan-block words. */
import { describe, expect, test } from 'vitest';
import { bestPlans, normalizeGroupNumber, planNameSimilarity, plansByGroupNumber } from '../../engine/pricing/plan-resolution.match.ts';
import { planBasis, planTypeNote } from '../../engine/pricing/plan-resolution.words.ts';
import type { PlanRow } from '../../engine/pricing/network-status.ports.ts';

const plan = (plan_key: string, plan_name: string, plan_sponsor_name: string | null, plan_id = '000', market = 'group'): PlanRow => ({
  plan_key, plan_name, plan_sponsor_name, plan_id, plan_id_type: 'EIN', plan_market_type: market, reporting_entity_name: 'X', reporting_entity_type: 'health insurance issuer', issuer_name: null, payer_key: 'x',
});
const plans = [
  plan('a', 'Golden PPO 1500', 'Pacific Tile & Stone Co.'),
  plan('b', 'Golden Select HMO', 'Redwood Robotics Inc.'),
  plan('c', 'Golden PPO 3000', 'Pacific Tile & Stone Co.'),
  plan('d', 'HealthSelect of Texas 123456', 'Employees Retirement System of Texas', '746000000'),
];

describe('employer and plan name', () => {
  test('exact after normalisation scores 1; partial names and typos clear the threshold; others do not', () => {
    expect(planNameSimilarity('pacific tile and stone co', 'Pacific Tile & Stone Co.')).toBe(1);
    expect(planNameSimilarity('Pacific Tile', 'Pacific Tile & Stone Co.')).toBeGreaterThanOrEqual(0.8);
    expect(planNameSimilarity('Redwod Robotics', 'Redwood Robotics Inc.')).toBeGreaterThanOrEqual(0.8);
    expect(planNameSimilarity('Acme Corp', 'Redwood Robotics Inc.')).toBeLessThan(0.5);
  });

  test('an employer with two plans returns both; the plan name then picks one', () => {
    expect(bestPlans(plans, 'Pacific Tile', (p) => p.plan_sponsor_name).plans.map((p) => p.plan_key)).toEqual(['a', 'c']);
    expect(bestPlans(plans, 'golden ppo 3000', (p) => p.plan_name).plans.map((p) => p.plan_key)).toEqual(['c']);
    expect(bestPlans(plans, 'Nonexistent Employer', (p) => p.plan_sponsor_name).plans).toEqual([]);
  });
});

describe('group number', () => {
  test('matches the plan id or a token of the plan name, ignoring punctuation', () => {
    expect(normalizeGroupNumber(' 123-456 a')).toBe('123456A');
    expect(plansByGroupNumber(plans, '123-456').map((p) => p.plan_key)).toEqual(['d']);
    expect(plansByGroupNumber(plans, '74-6000000').map((p) => p.plan_key)).toEqual(['d']);
    expect(plansByGroupNumber(plans, '999')).toEqual([]);
  });
});

describe('words', () => {
  test('basis says what the numbers rest on, and "synthetic demo data" for synthetic snapshots', () => {
    expect(planBasis({ tier: 'none', synthetic: false })).toMatch(/No plan resolved/);
    expect(planBasis({ tier: 'payer', synthetic: true, payerLabel: 'Golden', plans: 3, files: 2, exact: false })).toMatch(/Payer-level estimate.*synthetic demo data/s);
    expect(planBasis({ tier: 'employer', synthetic: false, payerLabel: 'Golden', plans: 1, files: 1, exact: true, planName: 'Golden PPO 1500', sponsor: 'Pacific' })).toMatch(/“Golden PPO 1500” sponsored by Pacific/);
    expect(planTypeNote([plans[0]!])).toMatch(/employer group health plan/);
    expect(planTypeNote([])).toBeNull();
  });
});
