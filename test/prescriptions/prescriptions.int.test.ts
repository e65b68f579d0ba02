/**
 * Prescriptions end to end over REST (issue 36, item 1): a clinician prescribes in a visit, the
 * embedded pharmacy partner moves the order through its lifecycle on a clock the test moves, its
 * pushed events are applied with prescription_updated, lost pushes are recovered by the
 * reconciliation pull, pharmacy selection is refused with MANAGED_EXTERNALLY, and other accounts
 * and other roles are refused. Real PGlite, real job queue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, ManualClock, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { client, provider, until, type Json } from '../visits/visit-fixture.ts';
import { AMOXICILLIN, orderEvents, partnerOf, submitted, visitWith, type Doctor } from './rx-fixture.ts';
import { RECONCILE_JOB } from '../../engine/prescriptions/prescriptions.ports.ts';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadCookieKeys } from '../../api/identity/keys.ts';
import { CookieSealer, SESSION_COOKIE } from '../../api/console/console-session.ts';

const STEP_S = 60;
let env: TestApp;
let identity: FakeIdentity;
// Starts at the real time so that other timers (the matching deadline) stay in the future.
const clock = new ManualClock(Date.now());
let doctor: Doctor;
let visit: Awaited<ReturnType<typeof visitWith>>;

beforeAll(async () => {
  identity = fakeIdentity();
  env = await makeTestApp({
    identity, clock, triage: scriptedTriage(), listen: true, jobs: { pollSeconds: 0.5, superviseSeconds: 1 },
    env: { CARE_REPLY_WAIT_SECONDS: '5', PHARMACY_PARTNER_STEP_SECONDS: String(STEP_S), PHARMACY_RECONCILE_SECONDS: '0' },
  });
  doctor = await provider(env, identity);
  visit = await visitWith(env, identity, doctor);
}, 120_000);
afterAll(async () => { await env.close(); });

async function prescribe(body: Json = AMOXICILLIN): Promise<string> {
  const r = await doctor.api('POST', `/api/provider/visits/${visit.id}/prescriptions`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const id = r.body.prescriptionOrder.prescriptionOrderId as string;
  await submitted(env, id);
  return id;
}

/** One step of the partner's clock: the timer's tick, as its job would run it. */
async function step(n = 1): Promise<void> {
  clock.advance(n * STEP_S * 1000);
  await partnerOf(env).tick();
}

const statusOf = async (id: string) => (await visit.api('GET', `/api/prescriptions/${id}`)).body.status as string;
const events = async (id: string) => (await orderEvents(env, id)).map((e) => e.event as string);

describe('the partner lifecycle', () => {
  it('UNKNOWN until the partner speaks, then received, in progress, ready for pickup, completed, each with prescription_updated', async () => {
    const id = await prescribe();
    const order = await visit.api('GET', `/api/prescriptions/${id}`);
    expect(order.status).toBe(200);
    // Every field of the spec's shape.
    expect(order.body).toEqual({
      prescriptionOrderId: id, status: 'UNKNOWN', timestamp: expect.any(String),
      prescriptions: [{
        prescriptionId: expect.stringMatching(/^rxi_/), drug: { name: 'Amoxicillin', din: null, strength: '500 mg', form: 'capsule' },
        quantity: 21, instructions: AMOXICILLIN.instructions, hasRefill: false, refillQuantity: 0,
      }],
      targetPharmacy: null, conversationId: visit.id, patientId: expect.any(String), statusReason: null, updatedAt: expect.any(String),
    });
    expect(await events(id)).toEqual(['prescription_added']);
    // Not due yet: the partner says nothing.
    await partnerOf(env).tick();
    expect(await statusOf(id)).toBe('UNKNOWN');
    const seen = ['UNKNOWN'];
    for (const want of ['RECEIVED', 'IN_PROGRESS', 'READY_FOR_PICKUP']) {
      await step();
      seen.push(await until(() => statusOf(id), (s) => s === want));
    }
    await step(2);
    expect(await statusOf(id)).toBe('READY_FOR_PICKUP');
    await step();
    seen.push(await until(() => statusOf(id), (s) => s === 'COMPLETED'));
    expect(seen).toEqual(['UNKNOWN', 'RECEIVED', 'IN_PROGRESS', 'READY_FOR_PICKUP', 'COMPLETED']);
    expect(await events(id)).toEqual(['prescription_added', ...Array(4).fill('prescription_updated')]);
    const { rows } = await env.db.query('SELECT from_status, to_status FROM prescription_status_changes WHERE order_id = $1 ORDER BY seq', [id]);
    expect(rows.map((r) => `${r.from_status}->${r.to_status}`)).toEqual(['null->UNKNOWN', 'UNKNOWN->RECEIVED', 'RECEIVED->IN_PROGRESS', 'IN_PROGRESS->READY_FOR_PICKUP', 'READY_FOR_PICKUP->COMPLETED']);
    // Final: more ticks change nothing.
    await step(5);
    expect(await statusOf(id)).toBe('COMPLETED');
  });

  it('events carry the order id and nothing of its content (service-spec.md, Events)', async () => {
    const id = await prescribe({ ...AMOXICILLIN, drug: { name: 'Sertraline', strength: '50 mg', form: 'tablet' } });
    await step();
    await until(() => statusOf(id), (s) => s === 'RECEIVED');
    // The thread says so too (waking the patient's agent), naming the order, not the drug.
    const thread = JSON.stringify((await visit.api('GET', `/api/consultations/${visit.id}`)).body);
    expect(thread).toContain(`sent a prescription to the pharmacy partner (order ${id})`);
    expect(thread).not.toMatch(/sertraline/i);
    for (const e of await orderEvents(env, id)) {
      expect(e.data).toEqual({ prescriptionOrderId: id });
      expect(e.consultation_id).toBe(visit.id);
      expect(e.user_id).toBe(visit.userId);
      expect(JSON.stringify(e)).not.toMatch(/sertraline|50 mg|tablet|capsule/i);
    }
  });

  it('a drug named Test Reject ends in ERROR with the reason; Test Unclaimed is CANCELLED after pickup time', async () => {
    const rejected = await prescribe({ ...AMOXICILLIN, drug: { name: 'Test Reject', strength: '1 mg', form: 'tablet' } });
    const unclaimed = await prescribe({ ...AMOXICILLIN, drug: { name: 'Test Unclaimed', strength: '1 mg', form: 'tablet' } });
    for (let i = 0; i < 6; i++) await step();
    const r = (await until(() => visit.api('GET', `/api/prescriptions/${rejected}`), (x) => x.body.status === 'ERROR')).body;
    expect(r.statusReason).toMatch(/could not fill/);
    const u = (await until(() => visit.api('GET', `/api/prescriptions/${unclaimed}`), (x) => x.body.status === 'CANCELLED')).body;
    expect(u.statusReason).toMatch(/returned it to stock/);
  });
});

describe('missed events', () => {
  it('pushes lost on the way are recovered by the reconciliation pull, once, in order', async () => {
    const id = await prescribe();
    const partner = partnerOf(env);
    partner.dropPush = () => true;
    try {
      await step();
      await step();
      // The partner moved the order twice; we heard nothing.
      expect(await statusOf(id)).toBe('UNKNOWN');
    } finally {
      partner.dropPush = () => false;
    }
    await env.services.ports.jobs!.send(RECONCILE_JOB, {});
    expect(await until(() => statusOf(id), (s) => s === 'IN_PROGRESS')).toBe('IN_PROGRESS');
    expect(await events(id)).toEqual(['prescription_added', 'prescription_updated', 'prescription_updated']);
    const { rows } = await env.db.query<{ via: string; outcome: string }>(
      'SELECT via, outcome FROM prescription_partner_events WHERE order_id = $1 ORDER BY partner_seq', [id]);
    expect(rows).toEqual([{ via: 'pull', outcome: 'applied' }, { via: 'pull', outcome: 'applied' }]);
    // Pulling again (and a repeated push) changes nothing: deduplicated on the partner's event id.
    await env.services.ports.jobs!.send(RECONCILE_JOB, {});
    const cursorBefore = (await env.db.query('SELECT cursor FROM pharmacy_partner_cursors')).rows[0]?.cursor;
    expect(cursorBefore).toBeTruthy();
    expect(await events(id)).toHaveLength(3);
  });

  it('a later event pushed before an earlier lost one moves forward; the earlier one, pulled later, is stale', async () => {
    const id = await prescribe();
    const partner = partnerOf(env);
    partner.dropPush = (e) => e.clientRef === id && e.state === 'received';
    try {
      await step();
      expect(await statusOf(id)).toBe('UNKNOWN');
      await step();
      expect(await until(() => statusOf(id), (s) => s === 'IN_PROGRESS')).toBe('IN_PROGRESS');
    } finally {
      partner.dropPush = () => false;
    }
    await env.services.ports.jobs!.send(RECONCILE_JOB, {});
    await until(async () => (await env.db.query('SELECT 1 FROM prescription_partner_events WHERE order_id = $1 AND outcome = $2', [id, 'stale'])).rows.length, (n) => n === 1);
    expect(await statusOf(id)).toBe('IN_PROGRESS');
    expect(await events(id)).toEqual(['prescription_added', 'prescription_updated']);
  });
});

describe('the patient side', () => {
  it('lists the account\'s orders newest first, paged', async () => {
    // Written at the same clock time: insertion order decides.
    const a = await prescribe();
    const b = await prescribe();
    const page1 = await visit.api('GET', '/api/prescriptions?limit=1');
    expect(page1.status).toBe(200);
    expect(page1.body.prescriptionOrders.map((o: Json) => o.prescriptionOrderId)).toEqual([b]);
    expect(page1.body.nextOffset).toBe(1);
    const page2 = await visit.api('GET', '/api/prescriptions?limit=1&offset=1');
    expect(page2.body.prescriptionOrders.map((o: Json) => o.prescriptionOrderId)).toEqual([a]);
    const all = await visit.api('GET', '/api/prescriptions?limit=100');
    expect(all.body.count).toBe(all.body.prescriptionOrders.length);
    expect(all.body.nextOffset).toBeNull();
  });

  it('MCP get_prescriptions answers what REST answers; another\'s order is an isError not_found', async () => {
    const id = await prescribe();
    const mcp = new McpClient({ name: 'rx-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${env.baseUrl}/`), { requestInit: { headers: { Authorization: `Bearer ${visit.token}` } } }));
    try {
      const tools = (await mcp.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['get_prescriptions', 'get_prescription_order', 'search_pharmacies']));
      expect(tools).not.toContain('provider_prescribe');
      const viaMcp = await mcp.callTool({ name: 'get_prescriptions', arguments: { limit: 100 } });
      expect(viaMcp.isError).toBeFalsy();
      expect(viaMcp.structuredContent).toEqual((await visit.api('GET', '/api/prescriptions?limit=100')).body);
      expect((viaMcp.structuredContent as Json).prescriptionOrders.map((o: Json) => o.prescriptionOrderId)).toContain(id);
      const other = await mcp.callTool({ name: 'get_prescription_order', arguments: { id: 'rx_not_yours' } });
      expect(other.isError).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it('pharmacy selection is refused with MANAGED_EXTERNALLY', async () => {
    const id = await prescribe();
    const r = await visit.api('POST', `/api/prescriptions/${id}/pharmacy`, { accreditationNumber: '1234567893' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'MANAGED_EXTERNALLY', needsAuth: false, prescriptionOrderId: id });
  });

  it('another account sees none of it', async () => {
    const id = await prescribe();
    const other = client(env, (await identity.signUp(env.db)).token);
    expect((await other('GET', `/api/prescriptions/${id}`)).status).toBe(404);
    expect((await other('POST', `/api/prescriptions/${id}/pharmacy`, {})).status).toBe(404);
    const list = await other('GET', '/api/prescriptions');
    expect(list.body).toEqual({ prescriptionOrders: [], count: 0, nextOffset: null });
    expect((await visit.api('GET', '/api/prescriptions/rx_nope')).status).toBe(404);
    expect((await visit.api('GET', '/api/prescriptions?patientId=pat_not_mine')).body.error).toBe('not_found');
  });

  it('without a pricing snapshot the pharmacy search answers 503 pricing_data_unavailable', async () => {
    const r = await visit.api('GET', '/api/pharmacies?zip=94110');
    expect(r.status).toBe(503);
    expect(r.body.error).toBe('pricing_data_unavailable');
  });
});

describe('who may prescribe', () => {
  it('only the clinician holding the visit: a patient, the care team and another clinician are refused', async () => {
    const url = `/api/provider/visits/${visit.id}/prescriptions`;
    const patient = await visit.api('POST', url, AMOXICILLIN);
    expect(patient.status).toBe(403);
    expect(patient.body.code).toBe('not_a_provider');
    const team = await provider(env, identity, 'care_team');
    expect((await team.api('POST', url, AMOXICILLIN)).body.code).toBe('role_not_allowed');
    const other = await provider(env, identity);
    const r = await other.api('POST', url, AMOXICILLIN);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('not_your_visit');
    expect((await doctor.api('POST', '/api/provider/visits/conv_nope/prescriptions', AMOXICILLIN)).status).toBe(404);
  });

  it('refuses bad bodies naming the field', async () => {
    const url = `/api/provider/visits/${visit.id}/prescriptions`;
    const cases: [Json, string][] = [
      [{ ...AMOXICILLIN, quantity: 0 }, 'quantity'],
      [{ ...AMOXICILLIN, drug: { name: 'X', strength: '', form: 'tablet' } }, 'drug.strength'],
      [{ ...AMOXICILLIN, hasRefill: true, refillQuantity: 0 }, 'refillQuantity'],
      [{ ...AMOXICILLIN, refillQuantity: 2 }, 'refillQuantity'],
      [{ ...AMOXICILLIN, pharmacyNpi: '12345' }, 'pharmacyNpi'],
    ];
    for (const [body, field] of cases) {
      const r = await doctor.api('POST', url, body);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.field).toBe(field);
    }
  });

  it('not after the visit ended (409 no_open_visit)', async () => {
    const second = await visitWith(env, identity, doctor);
    expect((await doctor.api('POST', `/api/provider/visits/${second.id}/end`)).status).toBe(200);
    const r = await doctor.api('POST', `/api/provider/visits/${second.id}/prescriptions`, AMOXICILLIN);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('no_open_visit');
  });
});

describe('the console\'s prescribe form', () => {
  const CSRF = 'c'.repeat(43);
  const cookie = () => `${SESSION_COOKIE}=${new CookieSealer(loadCookieKeys(env.config)[0]!).seal({ token: doctor.token, csrf: CSRF, exp: Date.now() + 3_600_000 })}`;
  const post = (form: Record<string, string>) => env.app.inject({
    method: 'POST', url: `/console/visits/${visit.id}/prescriptions`, headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
  const form = { csrf: CSRF, 'drug.name': 'Ibuprofen', 'drug.strength': '400 mg', 'drug.form': 'tablet', quantity: '20', instructions: 'One tablet up to three times a day with food.', refillQuantity: '1', pharmacyNpi: '' };

  it('shows the form on the visit page, labelled; a good form prescribes (303 back to the visit)', async () => {
    const page = await env.app.inject({ method: 'GET', url: `/console/visits/${visit.id}`, headers: { cookie: cookie() } });
    expect(page.statusCode).toBe(200);
    for (const id of ['drug.name', 'drug.strength', 'drug.form', 'quantity', 'instructions', 'refillQuantity', 'pharmacyNpi']) {
      expect(page.body).toContain(`<label for="${id}">`);
      expect(page.body).toContain(`id="${id}" name="${id}"`);
    }
    const before = (await visit.api('GET', '/api/prescriptions?limit=100')).body.count as number;
    const r = await post(form);
    expect(r.statusCode, r.body).toBe(303);
    expect(r.headers.location).toBe(`/console/visits/${visit.id}`);
    const after = (await visit.api('GET', '/api/prescriptions?limit=1')).body;
    expect(after.count).toBe(before + 1);
    expect(after.prescriptionOrders[0]).toMatchObject({ prescriptions: [{ drug: { name: 'Ibuprofen' }, quantity: 20, hasRefill: true, refillQuantity: 1 }] });
  });

  it('a bad field comes back on the page with the error next to it and the values kept; a forged form is refused', async () => {
    const r = await post({ ...form, quantity: 'lots' });
    expect(r.statusCode).toBe(400);
    expect(r.body).toContain('id="quantity-error"');
    expect(r.body).toContain('href="#quantity"');
    expect(r.body).toContain('value="Ibuprofen"');
    const forged = await post({ ...form, csrf: 'x'.repeat(43) });
    expect(forged.statusCode).toBe(403);
  });
});
