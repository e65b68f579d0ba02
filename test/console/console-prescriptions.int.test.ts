/**
 * The clinician console lists a visit's prescription orders (the care-fixes brief, item 2): the
 * visit page shows each order's status, medicines and pharmacy, server-rendered and escaped, and
 * its live stream announces a new order and each status change the pharmacy partner reports, so
 * the page the script fetches again shows it. The provider API has the same list
 * (GET /api/provider/visits/{id}/prescriptions), under the visit page's access rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieSealer, SESSION_COOKIE } from '../../api/console/console-session.ts';
import { loadCookieKeys } from '../../api/identity/keys.ts';
import { makeTestApp, ManualClock, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { provider, until, type Json } from '../visits/visit-fixture.ts';
import { AMOXICILLIN, partnerOf, submitted, visitWith, type Doctor } from '../prescriptions/rx-fixture.ts';

const STEP_S = 60;
const CSRF = 'c'.repeat(43);
const clock = new ManualClock(Date.now());
let env: TestApp;
let identity: FakeIdentity;
let doctor: Doctor;
let visit: Awaited<ReturnType<typeof visitWith>>;
let cookie: string;

beforeAll(async () => {
  identity = fakeIdentity();
  env = await makeTestApp({
    identity, clock, triage: scriptedTriage(), listen: true, consoleHeartbeatMs: 200, jobs: { pollSeconds: 0.5, superviseSeconds: 1 },
    env: { CARE_REPLY_WAIT_SECONDS: '5', PHARMACY_PARTNER_STEP_SECONDS: String(STEP_S), PHARMACY_RECONCILE_SECONDS: '0' },
  });
  doctor = await provider(env, identity);
  visit = await visitWith(env, identity, doctor);
  const sealed = new CookieSealer(loadCookieKeys(env.config)[0]!).seal({ token: identity.adopt(doctor.accountId), csrf: CSRF, exp: Date.now() + 3_600_000 });
  cookie = `${SESSION_COOKIE}=${sealed}`;
}, 120_000);
afterAll(async () => { await env?.close(); });

/** The visit stream: `next(ok)` reads `version` events until one satisfies `ok`. */
async function openStream(url: string) {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { cookie, accept: 'text/event-stream' }, signal: abort.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  return {
    async next(ok: (version: string) => boolean): Promise<string> {
      for (;;) {
        const m = /event: version\ndata: ([\w-]+)\n\n/.exec(buf);
        if (m) {
          buf = buf.slice(m.index + m[0].length);
          if (ok(m[1]!)) return m[1]!;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buf += value;
      }
    },
    close: () => abort.abort(),
  };
}

async function page(): Promise<{ version: string; body: string; rx: string }> {
  const r = await env.app.inject({ method: 'GET', url: `/console/visits/${visit.id}`, headers: { cookie } });
  expect(r.statusCode).toBe(200);
  const start = r.body.indexOf('<h2>Prescriptions</h2>');
  expect(start).toBeGreaterThan(0);
  const end = r.body.indexOf('<h2>', start + 1);
  return { version: /data-version="([\w-]+)"/.exec(r.body)![1]!, body: r.body, rx: r.body.slice(start, end > 0 ? end : undefined) };
}

async function orderIds(): Promise<string[]> {
  const { rows } = await env.db.query<{ id: string }>('SELECT id FROM prescription_orders WHERE conversation_id = $1 ORDER BY created_at DESC, seq DESC', [visit.id]);
  return rows.map((r) => r.id);
}

describe('the visit page\'s prescriptions', () => {
  it('lists an order written on the page, escaped, and follows its status live', async () => {
    const before = await page();
    expect(before.rx).toContain('No prescriptions in this conversation yet.');
    const stream = await openStream(`${env.baseUrl}/console/visits/${visit.id}/events`);
    try {
      expect(await stream.next(() => true)).toBe(before.version);
      // Prescribed through the page's own form, with markup in the free text.
      const form = new URLSearchParams({
        csrf: CSRF, 'drug.name': 'Amoxicillin <script>alert(1)</script>', 'drug.strength': '500 mg', 'drug.form': 'capsule',
        quantity: '21', instructions: 'One capsule three times a day & "with food"', refillQuantity: '2',
      });
      const posted = await env.app.inject({
        method: 'POST', url: `/console/visits/${visit.id}/prescriptions`, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form.toString(),
      });
      expect(posted.statusCode, posted.body).toBe(303);
      const [id] = await orderIds();
      const added = await stream.next((v) => v !== before.version);
      const shown = await page();
      expect(added).toBe(shown.version);
      expect(shown.rx).toContain(`id="rx-${id!}"`);
      expect(shown.rx).toContain('<strong>Amoxicillin &lt;script&gt;alert(1)&lt;/script&gt;</strong> 500 mg capsule, quantity 21, refills 2');
      expect(shown.rx).toContain('One capsule three times a day &amp; &quot;with food&quot;');
      expect(shown.rx).not.toContain('<script>alert');
      expect(shown.rx).toContain('data-status="UNKNOWN"');
      expect(shown.rx).toContain('Chosen by the pharmacy partner');

      // The partner reports: RECEIVED, then IN_PROGRESS; each change wakes the stream.
      await submitted(env, id!);
      for (const [status, words] of [['RECEIVED', 'Received by the pharmacy partner'], ['IN_PROGRESS', 'Being filled']] as const) {
        clock.advance(STEP_S * 1000);
        await partnerOf(env).tick();
        const now = await until(() => page(), (p) => p.rx.includes(`data-status="${status}"`));
        expect(now.rx).toContain(words);
        // The stream announces exactly what the page now shows.
        expect(await stream.next((v) => v === now.version)).toBe(now.version);
      }
    } finally {
      stream.close();
    }
  });

  it('shows the chosen pharmacy, escaped, newest order first', async () => {
    const r = await doctor.api('POST', `/api/provider/visits/${visit.id}/prescriptions`, { ...AMOXICILLIN, drug: { name: 'Ibuprofen', strength: '200 mg', form: 'tablet' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.prescriptionOrder.prescriptionOrderId as string;
    // The directory needs a pricing snapshot this app has not got: the pharmacy is set as prescribing would keep it.
    const pharmacy = { accreditationNumber: '1234567893', companyName: 'Mission <b>Pharmacy</b>', address: '1 Valencia St', address2: null, city: 'San Francisco',
      zip: '94110', phone: '415-555-0199', fax: null, latitude: 37.77, longitude: -122.42, distanceKm: 1.2 };
    await env.db.query('UPDATE prescription_orders SET target_pharmacy = $2::jsonb WHERE id = $1', [id, JSON.stringify(pharmacy)]);
    const shown = await page();
    expect(shown.rx.indexOf(`rx-${id}`)).toBeLessThan(shown.rx.indexOf('Amoxicillin'));
    expect(shown.rx).toContain('Mission &lt;b&gt;Pharmacy&lt;/b&gt;<br>1 Valencia St<br>San Francisco 94110<br>415-555-0199');
  });
});

describe('GET /api/provider/visits/{id}/prescriptions', () => {
  it('answers the visit\'s orders to its clinician; 403 to a patient; 404 to a clinician it was never offered to', async () => {
    const mine = await doctor.api('GET', `/api/provider/visits/${visit.id}/prescriptions`);
    expect(mine.status).toBe(200);
    expect(mine.body.prescriptionOrders.map((o: Json) => o.prescriptionOrderId)).toEqual(await orderIds());
    expect(mine.body.prescriptionOrders[0]).toMatchObject({ conversationId: visit.id, prescriptions: [{ drug: { name: 'Ibuprofen' } }] });
    expect((await visit.api('GET', `/api/provider/visits/${visit.id}/prescriptions`)).status).toBe(403);
    const other = await provider(env, identity);
    expect((await other.api('GET', `/api/provider/visits/${visit.id}/prescriptions`)).status).toBe(404);
  });
});
