/**
 * Linked coverage for pricing on the demo snapshot (issue 36, item 3): with a bearer token and a
 * linked insurer, network-status resolves the plan from the imported Coverage before planHints
 * and says so; patientId selects a family member's coverage; anonymous callers never get it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDemoPricing, type DemoPricing } from '../pricing/api-demo-app.ts';
import { addDependent, linkMember, newUser, startRecordsApp, type RecordsEnv, type User } from './records-fixture.ts';

let pricing: DemoPricing;
let env: RecordsEnv;
let maria: User;
let dependentId: string;
const BODY = { providerName: 'Poppyfield Family Medicine', zip: '94103', code: '99213' };

beforeAll(async () => {
  pricing = await openDemoPricing();
  env = await startRecordsApp({ pricing: pricing.ports });
  maria = await newUser(env);
  await linkMember(env, maria, 'GP100001');
  dependentId = await addDependent(env, maria);
  // The dependent's record is a member of another employer's plan (Redwood Robotics).
  await linkMember(env, maria, 'GP100003', dependentId);
}, 120_000);
afterAll(async () => { await env?.close(); pricing?.close(); });

type Plan = { payerSource: string; matchTier: string; sponsor: string | null; basis: string };

describe('network-status with linked coverage', () => {
  it('a bearer caller with no planHints gets the linked plan (main host)', async () => {
    const r = await maria.post('/api/pricing/network-status', BODY);
    expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(200);
    const plan = r.body.plan as Plan;
    expect(plan).toMatchObject({ payerSource: 'linked_coverage', matchTier: 'exact_plan', sponsor: 'Pacific Tile & Stone Co. (synthetic demo)' });
    expect(plan.basis).toMatch(/linked insurance/);
  });

  it('the public host with a bearer does the same; anonymous does not', async () => {
    const pub = await env.app.inject({ method: 'POST', url: '/api/pricing.v1/network-status', headers: { authorization: `Bearer ${maria.token}` }, payload: BODY });
    expect(pub.json<{ plan: Plan }>().plan).toMatchObject({ payerSource: 'linked_coverage', matchTier: 'exact_plan' });
    const anon = await env.app.inject({ method: 'POST', url: '/api/pricing.v1/network-status', payload: BODY });
    expect(anon.json<{ plan: Plan }>().plan.payerSource).toBe('none');
  });

  it('patientId selects the family member\'s coverage', async () => {
    const r = await maria.post('/api/pricing/network-status', { ...BODY, patientId: dependentId });
    expect(r.body.plan).toMatchObject({ payerSource: 'linked_coverage', matchTier: 'exact_plan', sponsor: 'Redwood Robotics Inc. (synthetic demo)' });
  });

  it('a user with nothing linked falls back to planHints; another user\'s patientId is refused', async () => {
    const other = await newUser(env);
    const r = await other.post('/api/pricing/network-status', { ...BODY, planHints: { payerName: 'Golden Poppy', employerName: 'Redwood Robotics' } });
    expect(r.body.plan).toMatchObject({ payerSource: 'planHints', sponsor: 'Redwood Robotics Inc. (synthetic demo)' });
    const foreign = await other.post('/api/pricing/network-status', { ...BODY, patientId: dependentId });
    expect(foreign.status).toBe(404);
  });
});
