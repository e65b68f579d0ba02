/**
 * The approval sheet priced by our own engine (issue 39, item 1) on the demo pricing snapshot
 * (built through the real pipeline, as the pricing API tests open it): network status and the
 * contracted rate for the provider named, under the plan the agent's hints describe; for
 * move_referral the same for the source; the agent's figures kept as the agent's and flagged
 * where the published rates disagree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_REQUEST, openDemoPricing, type DemoPricing } from '../pricing/api-demo-app.ts';
import { client, type Client } from '../visits/visit-fixture.ts';
import { linkMember, newUser, startRecordsApp, waitForSync, type RecordsEnv } from '../records/records-fixture.ts';
import { agentFlags } from '../../engine/carejobs/care-job-pricing.ts';
import type { PriceCheck } from '../../engine/carejobs/care-jobs.schema.ts';
import type { Json } from './carejobs-fixture.ts';

let pricing: DemoPricing;
let t: RecordsEnv;
let api: Client;
beforeAll(async () => {
  pricing = await openDemoPricing();
  // The health-records app (its sandbox insurer), so that a user can link coverage.
  t = await startRecordsApp({ pricing: pricing.ports });
  api = client(t, (await t.identity.signUp(t.db)).token);
}, 180_000);
afterAll(async () => {
  await t?.close();
  pricing?.close();
});

const office = { providerName: DEMO_REQUEST.providerName, city: 'San Francisco', state: 'CA', zip: DEMO_REQUEST.zip };
const hints = { payerName: 'Golden Poppy', employerName: 'Pacific Tile & Stone' };

describe('the sheet on the demo snapshot', () => {
  it('book_appointment: network status and the contracted rate under the agent\'s plan hints; an estimate far off is flagged', async () => {
    const plain = await api('POST', '/api/care-jobs', {
      jobType: 'book_appointment', planHints: hints, params: { provider: office, serviceCode: DEMO_REQUEST.code },
    });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    const p = plain.body.sheet.pricing as Json;
    expect(p.planBasis).toBe('agent_hints');
    expect(p.plan).toContain('Golden Poppy');
    const check = p.checks[0] as PriceCheck;
    expect(check).toMatchObject({ role: 'target', found: true, inNetwork: true, networkStatus: 'listed', serviceCode: '99213' });
    expect(check.rate ?? check.rateRange?.median).toBeGreaterThan(0);
    const published = Math.round((check.rate ?? check.rateRange!.median) * 100);

    const close = await api('POST', '/api/care-jobs', {
      jobType: 'book_appointment', planHints: hints, params: { provider: office, serviceCode: DEMO_REQUEST.code, estimates: { targetCents: published } },
    });
    expect(close.body.sheet.agentClaims).toMatchObject({ estimates: { targetCents: published }, flags: [] });
    const far = await api('POST', '/api/care-jobs', {
      jobType: 'book_appointment', planHints: hints, params: { provider: office, serviceCode: DEMO_REQUEST.code, estimates: { targetCents: published * 3 } },
    });
    expect(far.body.sheet.agentClaims.flags).toEqual([expect.stringContaining('The agent estimated')]);
  });

  it('move_referral: the target and the source are both priced; claimed savings the rates do not bear out are flagged', async () => {
    const r = await api('POST', '/api/care-jobs', {
      jobType: 'move_referral', planHints: hints,
      params: {
        specialty: 'family medicine', serviceCode: DEMO_REQUEST.code, referral: { description: 'Follow-up visits' },
        source: { providerName: 'Sierra Vista Medical Group', city: 'San Francisco', state: 'CA' }, target: office, savingsCents: 9_000_000,
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const checks = r.body.sheet.pricing.checks as PriceCheck[];
    expect(checks.map((c) => c.role)).toEqual(['target', 'source']);
    expect(checks[0]).toMatchObject({ found: true, inNetwork: true });
    expect(checks[1]).toMatchObject({ found: true, providerName: expect.stringMatching(/Sierra Vista/i) });
    expect(checks[1]!.inNetwork).not.toBe(true);
    // Not found in the plan's network: no contracted rate, so the savings cannot be checked, and the sheet says so.
    expect(checks[1]!.rate).toBeNull();
    expect(r.body.sheet.agentClaims).toMatchObject({ savingsCents: 9_000_000, flags: [] });
    expect(r.body.sheet.agentClaims.note).toContain('No published rate to check the claimed savings');

    // Both in network: the claimed savings are checked against the published rates.
    const both = await api('POST', '/api/care-jobs', {
      jobType: 'move_referral', planHints: hints,
      params: {
        specialty: 'family medicine', serviceCode: DEMO_REQUEST.code, referral: { description: 'Follow-up visits' },
        source: { providerName: 'Sunrise Family Clinic', city: 'San Francisco', state: 'CA' }, target: office, savingsCents: 9_000_000,
      },
    });
    const c2 = both.body.sheet.pricing.checks as PriceCheck[];
    expect(c2[1]).toMatchObject({ role: 'source', found: true, inNetwork: true });
    // The only Sunrise Family Clinic with this plan is not in San Francisco: the sheet says so.
    if (c2[1]!.city?.toLowerCase() !== 'san francisco') expect(c2[1]!.note).toContain('not San Francisco');
    expect(both.body.sheet.agentClaims.flags).toEqual([expect.stringContaining('claimed savings')]);
  });

  it('with linked insurance records the sheet prices under the linked plan, before any hints', async () => {
    const maria = await newUser(t);
    await linkMember(t, maria, 'GP100001');
    await waitForSync(maria);
    const r = await maria.post('/api/care-jobs', { jobType: 'book_appointment', planHints: { payerName: 'Golden Poppy', employerName: 'Redwood Robotics' }, params: { provider: office, serviceCode: DEMO_REQUEST.code } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const p = (r.body.sheet as Json).pricing as Json;
    expect(p).toMatchObject({ planBasis: 'linked_coverage', plan: expect.stringContaining('Pacific Tile') });
    expect(p.checks[0]).toMatchObject({ found: true, inNetwork: true });
  });

  it('a provider the snapshot does not know is said so, and the job is still created', async () => {
    const r = await api('POST', '/api/care-jobs', { jobType: 'cancel_or_reschedule', params: { appointmentLabel: 'Fri 3pm', provider: { providerName: 'Nonexistent Zebra Clinic', city: 'Fresno', state: 'CA' } } });
    expect(r.status).toBe(200);
    expect(r.body.sheet.pricing.checks[0]).toMatchObject({ found: false });
    expect(r.body.sheet.pricing.planBasis).toBe('none');
  });
});

describe('agentFlags', () => {
  const check = (role: 'target' | 'source', rate: number | null, range: { min: number; max: number; median: number } | null = null): PriceCheck => ({
    role, found: true, providerName: 'x', npi: null, city: null, state: null, inNetwork: true, networkStatus: 'listed', networkNote: null,
    serviceCode: '99213', serviceName: null, rate, rateRange: range, rateNote: null, rangeNote: null, note: '',
  });
  it('agrees within 10% or $5, flags beyond; a range is checked by its bounds; savings against the difference', () => {
    expect(agentFlags({ targetCents: 10_400 }, undefined, [check('target', 100)])).toEqual([]);
    expect(agentFlags({ targetCents: 12_000 }, undefined, [check('target', 100)])).toHaveLength(1);
    expect(agentFlags({ targetCents: 15_000 }, undefined, [check('target', null, { min: 90, max: 160, median: 120 })])).toEqual([]);
    expect(agentFlags({ targetCents: 30_000 }, undefined, [check('target', null, { min: 90, max: 160, median: 120 })])).toHaveLength(1);
    expect(agentFlags(undefined, 5_000, [check('target', 100), check('source', 150)])).toEqual([]);
    expect(agentFlags(undefined, 5_000, [check('target', 150), check('source', 100)])).toHaveLength(1);
    expect(agentFlags({ targetCents: 1 }, 5_000, [])).toEqual([]);
  });
});
