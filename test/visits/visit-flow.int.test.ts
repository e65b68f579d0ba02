/**
 * The paid visit end to end over REST (issue 35, items 2-4): payment link and its refusals, the
 * hosted page approval moving the conversation to MATCHING, matching offering it to a licensed
 * clinician, accept capturing the hold once (two at once: one 200, one 409), provider messages
 * waking the patient's wait, notes, end, and releases on cancel. Real PGlite, real job queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { client, events, gatedConversation, ledger, payLink, provider, until, type Client } from './visit-fixture.ts';

let env: TestApp;
let identity: FakeIdentity;

beforeAll(async () => {
  identity = fakeIdentity();
  env = await makeTestApp({ identity, triage: scriptedTriage(), env: { CARE_REPLY_WAIT_SECONDS: '5' }, jobs: { pollSeconds: 0.5, superviseSeconds: 1 } });
});
afterAll(async () => { await env.close(); });

async function paidAndOffered(doctor: { api: Client }) {
  const c = await gatedConversation(env, identity);
  const link = await c.api('POST', `/api/consultations/${c.id}/payment`);
  expect(link.status, JSON.stringify(link.body)).toBe(200);
  expect((await payLink(env, link.body.paymentUrl)).statusCode).toBe(303);
  await until(() => doctor.api('GET', '/api/provider/queue'), (q) => q.body.waiting?.some((w: { conversationId: string }) => w.conversationId === c.id));
  return c;
}

describe('the visit-payment link', () => {
  it('answers every spec field in PAYMENT_REQUIRED; no_payment_gate elsewhere; a declined card stays PAYMENT_REQUIRED', async () => {
    const c = await gatedConversation(env, identity);
    const r = await c.api('POST', `/api/consultations/${c.id}/payment`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      paymentUrl: expect.stringMatching(/\/pay\/ps_/), sessionId: expect.any(String), priceCents: 4900, price: 49, currency: 'usd',
      summaryLoading: false, instructions: expect.any(String), agentInstructions: expect.any(Array), nextStep: 'wait_for_reply',
      nextStepArgs: { conversationId: c.id },
    });
    const declined = await payLink(env, r.body.paymentUrl, '4000 0000 0000 0002');
    expect(declined.statusCode).toBe(402);
    expect(declined.body).toContain('declined');
    expect((await c.api('GET', `/api/consultations/${c.id}`)).body.status).toBe('PAYMENT_REQUIRED');

    const idle = await gatedConversation(env, identity);
    expect((await idle.api('DELETE', `/api/consultations/${idle.id}`)).body.status).toBe('IDLE');
    const refused = await idle.api('POST', `/api/consultations/${idle.id}/payment`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'no_payment_gate', status: 'IDLE' });
  });

  it('confirm without a saved card is payment_hold_failed and leaves the gate open', async () => {
    const c = await gatedConversation(env, identity);
    const r = await c.api('POST', `/api/consultations/${c.id}/confirm`);
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ error: 'payment_hold_failed' });
    expect((await c.api('GET', `/api/consultations/${c.id}`)).body.status).toBe('PAYMENT_REQUIRED');
  });

  it('summary_loading (202) while the summary is written, with the link valid regardless', async () => {
    const c = await gatedConversation(env, identity);
    await env.db.query(`UPDATE conversations SET payment_gate = jsonb_set(payment_gate, '{isLoading}', 'true') WHERE id = $1`, [c.id]);
    const r = await c.api('POST', `/api/consultations/${c.id}/payment`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ error: 'summary_loading', summaryLoading: true, paymentUrl: expect.stringMatching(/\/pay\/ps_/), priceCents: 4900 });
  });

  it('confirm with a saved card places the hold and moves to MATCHING; a repeat returns the same hold', async () => {
    const c = await gatedConversation(env, identity);
    const setup = await c.api('POST', '/api/subscription/setup');
    expect((await payLink(env, setup.body.setupUrl)).statusCode).toBe(303);
    const r = await c.api('POST', `/api/consultations/${c.id}/confirm`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'MATCHING', hold: { status: 'authorized', last4: '4242', amountCents: 4900 }, nextStep: 'wait_for_reply' });
    expect((await c.api('POST', `/api/consultations/${c.id}/confirm`)).body.hold.holdId).toBe(r.body.hold.holdId);
    expect((await c.api('DELETE', `/api/consultations/${c.id}`)).body.previousStatus).toBe('MATCHING');
    expect(await ledger(env, c.id)).toEqual(['authorize', 'release']);
  });

  it('a link paid after the gate was dismissed is released, and the conversation stays IDLE', async () => {
    const c = await gatedConversation(env, identity);
    const link = await c.api('POST', `/api/consultations/${c.id}/payment`);
    expect((await c.api('DELETE', `/api/consultations/${c.id}`)).body).toMatchObject({ status: 'IDLE', previousStatus: 'PAYMENT_REQUIRED' });
    expect((await payLink(env, link.body.paymentUrl)).statusCode).toBe(303);
    await until(() => ledger(env, c.id), (l) => l.includes('release'));
    expect(await ledger(env, c.id)).toEqual(['authorize', 'release']);
    expect((await c.api('GET', `/api/consultations/${c.id}`)).body.status).toBe('IDLE');
  });
});

describe('the provider visit', () => {
  it('approval -> MATCHING -> accept (captured once) -> messages wake the patient -> notes -> end', async () => {
    const doctor = await provider(env, identity);
    const c = await paidAndOffered(doctor);
    expect((await c.api('GET', `/api/consultations/${c.id}`)).body.status).toBe('MATCHING');

    const wait = c.api('POST', `/api/consultations/${c.id}/wait`, { timeoutSeconds: 10 });
    // Let the wait start in MATCHING (connected means: a provider joined DURING the wait).
    await new Promise((r) => setTimeout(r, 500));
    const acc = await doctor.api('POST', `/api/provider/visits/${c.id}/accept`);
    expect(acc.status, JSON.stringify(acc.body)).toBe(200);
    expect(acc.body).toMatchObject({ status: 'WITH_PROVIDER', holdStatus: 'captured' });
    expect((await wait).body).toMatchObject({ connected: true, statusChanged: 'WITH_PROVIDER', status: 'WITH_PROVIDER' });

    const seen = (await c.api('GET', `/api/consultations/${c.id}`)).body;
    expect(seen.providerVisit).toMatchObject({ active: true, providerName: doctor.displayName });
    const wait2 = c.api('POST', `/api/consultations/${c.id}/wait`, { lastSeenMessageId: seen.messages.at(-1).id, timeoutSeconds: 10 });
    expect((await doctor.api('POST', `/api/provider/visits/${c.id}/messages`, { text: 'Hello, how are you feeling?' })).status).toBe(200);
    expect((await wait2).body.reply).toMatchObject({ sender: 'provider', senderId: doctor.accountId, content: 'Hello, how are you feeling?' });

    const note = { chiefComplaint: 'Sore throat', assessment: 'Likely viral pharyngitis.', plan: 'Fluids, rest.', summary: 'Seen for a sore throat.' };
    expect((await doctor.api('POST', `/api/provider/visits/${c.id}/notes`, note)).body).toMatchObject({ hasNotes: true });
    const end = await doctor.api('POST', `/api/provider/visits/${c.id}/end`);
    expect(end.body).toMatchObject({ status: 'IDLE', hasNotes: true });

    const after = (await c.api('GET', `/api/consultations/${c.id}`)).body;
    expect(after).toMatchObject({ status: 'IDLE', providerVisit: { active: false }, pastVisits: [{ consultId: acc.body.consultId, hasNotes: true }] });
    const notes = await c.api('GET', `/api/consultations/${c.id}/notes`);
    expect(notes.body).toEqual({ conversationId: c.id, hasNotes: true, notes: [{ chatId: acc.body.consultId, providerId: doctor.accountId, timestamp: expect.any(String), note }] });
    expect(await events(env, c.id)).toEqual(['triage_started', 'triage_reply', 'payment_gate_open', 'provider_matching', 'provider_joined', 'provider_message', 'visit_ended']);
    expect(await ledger(env, c.id)).toEqual(['authorize', 'capture']);
  });

  it('two clinicians accepting at once: one 200, the other 409; the hold is captured once', async () => {
    const a = await provider(env, identity);
    const b = await provider(env, identity);
    const c = await paidAndOffered(a);
    const [ra, rb] = await Promise.all([a.api('POST', `/api/provider/visits/${c.id}/accept`), b.api('POST', `/api/provider/visits/${c.id}/accept`)]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    expect([ra, rb].find((r) => r.status === 409)!.body).toMatchObject({ error: 'conflict', code: 'already_accepted' });
    await new Promise((r) => setTimeout(r, 300)); // let the queued capture job run too: it must not capture again
    expect(await ledger(env, c.id)).toEqual(['authorize', 'capture']);
  });

  it('cancel in MATCHING releases the hold', async () => {
    const doctor = await provider(env, identity);
    const c = await paidAndOffered(doctor);
    expect((await c.api('DELETE', `/api/consultations/${c.id}`)).body).toMatchObject({ status: 'IDLE', previousStatus: 'MATCHING' });
    expect(await ledger(env, c.id)).toEqual(['authorize', 'release']);
    expect((await doctor.api('POST', `/api/provider/visits/${c.id}/accept`)).body).toMatchObject({ error: 'conflict', code: 'not_matching' });
  });

  it('role checks: a patient gets 403 on the provider API; care team cannot accept; an unlicensed clinician cannot', async () => {
    const patient = await identity.signUp(env.db);
    const papi = client(env, patient.token);
    for (const [m, u] of [['GET', '/api/provider/queue'], ['POST', '/api/provider/visits/conv_x/accept'], ['POST', '/api/provider/visits/conv_x/end']] as const) {
      const r = await papi(m, u);
      expect(r.status, u).toBe(403);
      expect(r.body.error).toBe('forbidden');
    }
    const care = await provider(env, identity, 'care_team');
    expect((await care.api('GET', '/api/provider/queue')).status).toBe(200);
    expect((await care.api('POST', '/api/provider/visits/conv_x/accept')).body).toMatchObject({ error: 'forbidden', code: 'role_not_allowed' });

    const doctor = await provider(env, identity);
    const c = await paidAndOffered(doctor);
    const nv = await provider(env, identity, 'clinician', ['US-NV']);
    expect((await nv.api('POST', `/api/provider/visits/${c.id}/accept`)).body).toMatchObject({ error: 'forbidden', code: 'not_licensed' });
    // Another clinician cannot write into the visit of the one who accepted.
    expect((await doctor.api('POST', `/api/provider/visits/${c.id}/accept`)).status).toBe(200);
    const other = await provider(env, identity);
    expect((await other.api('POST', `/api/provider/visits/${c.id}/messages`, { text: 'hi' })).body).toMatchObject({ error: 'forbidden', code: 'not_your_visit' });
    expect((await c.api('DELETE', `/api/consultations/${c.id}`)).body.previousStatus).toBe('WITH_PROVIDER');
    expect(await ledger(env, c.id)).toEqual(['authorize', 'capture']);
  });
});
