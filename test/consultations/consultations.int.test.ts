/**
 * Conversations over REST (issue 34, item 2): every transition and refusal of the spec's tables,
 * the read-first gate, waitForReply, region rules, isolation between users, and bad input. The
 * triage engine is scripted here (test/helpers/scripted-triage.ts) so the state machine is driven
 * deliberately; the real engine's walk is in triage-walk.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { realPostgresAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { scriptedTriage, type ScriptedTriage } from '../helpers/scripted-triage.ts';

// The storage suite runs on PGlite and on a throwaway real PostgreSQL (issue 34, "Done means").
const BACKENDS = realPostgresAvailable() ? ['pglite', 'postgres'] as const : ['pglite'] as const;

describe.each(BACKENDS)('conversations on %s', (backend) => {
  let env: TestApp;
  let identity: FakeIdentity;
  let triage: ScriptedTriage;
  let cluster: PgCluster | undefined;

  beforeAll(async () => {
    identity = fakeIdentity();
    triage = scriptedTriage();
    const dbEnv: Record<string, string> = {};
    if (backend === 'postgres') {
      cluster = await startPgCluster();
      dbEnv.DATABASE_URL = await cluster.createDatabase();
    }
    env = await makeTestApp({ identity, triage, env: { CARE_REPLY_WAIT_SECONDS: '5', ...dbEnv } });
  });
  afterAll(async () => {
    await env.close();
    await cluster?.stop();
  });

  type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies read loosely in tests

  function client(token: string) {
    const headers = { authorization: `Bearer ${token}` };
    const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
      const r = await env.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as Json } : {}) });
      return { status: r.statusCode, body: r.json<Json>() };
    };
    return {
      call,
      start: (contextMessage: string, region = 'US-CA') => call('POST', '/api/consultations', { contextMessage, region }),
      get: (id: string, q = '') => call('GET', `/api/consultations/${id}${q}`),
      send: (id: string, body: Json) => call('POST', `/api/consultations/${id}/messages`, body),
      wait: (id: string, body: Json = {}) => call('POST', `/api/consultations/${id}/wait`, body),
      cancel: (id: string) => call('DELETE', `/api/consultations/${id}`),
      list: (q = '') => call('GET', `/api/consultations${q}`),
    };
  }

  async function newUser() {
    const u = await identity.signUp(env.db);
    return { ...u, api: client(u.token) };
  }

  async function events(conversationId: string): Promise<string[]> {
    const { rows } = await env.db.query<{ event: string }>('SELECT event FROM outbox_events WHERE consultation_id = $1 ORDER BY seq', [conversationId]);
    return rows.map((r) => r.event);
  }

  /** Starts a conversation and waits for its first triage reply. */
  async function started(api: ReturnType<typeof client>, text = 'I have had a sore throat for two days.') {
    const s = await api.start(text);
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    const w = await api.wait(s.body.conversationId);
    expect(w.status, JSON.stringify(w.body)).toBe(200);
    return { id: s.body.conversationId as string, first: w.body };
  }

  describe('starting a conversation', () => {
    it('returns at once with conversationId and TRIAGING; the first reply arrives asynchronously', async () => {
      const { api } = await newUser();
      const s = await api.start('I have had a sore throat for two days and it hurts to swallow.');
      expect(s.status).toBe(200);
      expect(s.body).toMatchObject({ conversationId: expect.stringMatching(/^conv_/), status: 'TRIAGING', region: 'US-CA', nextStep: 'wait_for_reply' });
      const w = await api.wait(s.body.conversationId);
      expect(w.body.stillWaiting).toBe(false);
      expect(w.body.reply).toMatchObject({ sender: 'assistant', type: 'text', senderId: 'carebridge-triage', content: expect.stringContaining('Question 1') });
      expect(w.body.replies).toHaveLength(1);
      expect(await events(s.body.conversationId)).toEqual(['triage_started', 'triage_reply']);
    });

    it('refuses a region not served with REGION_NOT_SUPPORTED naming the regions served', async () => {
      const { api } = await newUser();
      const r = await api.start('I have a rash.', 'US-NY');
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: 'REGION_NOT_SUPPORTED', needsAuth: false, field: 'region', regions: ['US-CA'], reason: expect.stringContaining('US-CA') });
      expect((await api.list()).body.total).toBe(0);
    });

    it.each([
      [{ contextMessage: 'x', region: 'California' }, 'region'],
      [{ contextMessage: '', region: 'US-CA' }, 'contextMessage'],
      [{ region: 'US-CA' }, 'contextMessage'],
      [{ contextMessage: 'hi', region: 'US-CA', extra: 1 }, 'extra'],
      [{ contextMessage: 'hi', region: 'US-CA', patientId: 'pat_nope' }, 'patientId'],
    ])('bad start %j is a 4xx naming %s', async (payload, field) => {
      const { api } = await newUser();
      const r = await api.call('POST', '/api/consultations', payload);
      expect([400, 404]).toContain(r.status);
      expect(r.body.field).toBe(field);
    });

    it('the detail carries every field of the spec', async () => {
      const { api } = await newUser();
      const { id } = await started(api);
      const d = (await api.get(id)).body;
      for (const k of ['conversationId', 'status', 'statusDescription', 'region', 'providerVisit', 'pastVisits', 'messages', 'omittedOlderMessages',
        'lastActivityAt', 'updatedAt', 'informationNeed', 'informationNeedAsOfMessageId', 'paymentGate', 'nextSteps', 'triage']) {
        expect(d, k).toHaveProperty(k);
      }
      expect(d.providerVisit).toEqual({ active: false, providerName: null, consultId: null });
      expect(d.paymentGate).toMatchObject({ gateType: 'NONE', paymentType: 'pay_per_use', isLoading: false });
      expect(d.informationNeed[0]).toEqual({ key: 'duration', asked: true, prompt: expect.any(String), why: expect.any(String), priority: 'required', redFlagGate: false });
      expect(d.informationNeedAsOfMessageId).toBe(d.messages[0].id);
      expect(d.triage).toEqual({ acuity: 'routine', redFlags: [], summary: null });
    });
  });

  describe('sending', () => {
    it('READ_REQUIRED when the caller has not seen the newest message; lastSeenMessageId satisfies the gate', async () => {
      const { api } = await newUser();
      const s = await api.start('My ear hurts.');
      // The first reply exists once triage ran, but this caller never read it.
      await expect.poll(async () => (await events(s.body.conversationId)).includes('triage_reply')).toBe(true);
      const refused = await api.send(s.body.conversationId, { text: 'Since Monday.' });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: 'READ_REQUIRED', sent: false, status: 'READ_REQUIRED', latestMessageId: expect.stringMatching(/^msg_/), needsAuth: false });
      expect(refused.body.conversation.messages.at(-1).id).toBe(refused.body.latestMessageId);
      const ok = await api.send(s.body.conversationId, { text: 'Since Monday.', lastSeenMessageId: refused.body.latestMessageId });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body).toMatchObject({ sent: true, messagesSent: 1, status: 'TRIAGING', stillWaiting: false });
      expect(ok.body.reply.content).toContain('Question 2');
      // A stale id (the first message) is refused again.
      const stale = await api.send(s.body.conversationId, { text: 'Also a fever.', lastSeenMessageId: refused.body.conversation.messages[0].id });
      expect(stale.body).toMatchObject({ error: 'READ_REQUIRED', sent: false });
    });

    it('messages[] sends several at once, in order, and triage answers them once', async () => {
      const { api } = await newUser();
      const { id, first } = await started(api);
      const before = triage.calls.length;
      const r = await api.send(id, { messages: ['Two days.', 'No fever.', 'No cough.'], lastSeenMessageId: first.latestMessageId });
      expect(r.body).toMatchObject({ sent: true, messagesSent: 3 });
      const contents = r.body.conversation.messages.map((m: Json) => m.content);
      expect(contents.slice(-4, -1)).toEqual(['Two days.', 'No fever.', 'No cough.']);
      expect(r.body.replies).toHaveLength(1);
      expect(triage.calls.length - before).toBe(1);
    });

    it('TRIAGING -> PAYMENT_REQUIRED: paymentRequired, paymentGate and payment_gate_open', async () => {
      const { api } = await newUser();
      const { id, first } = await started(api);
      const r = await api.send(id, { text: 'Three days, moderate pain. #complete', lastSeenMessageId: first.latestMessageId });
      expect(r.body).toMatchObject({
        sent: true, status: 'PAYMENT_REQUIRED', statusChanged: 'PAYMENT_REQUIRED', paymentRequired: true, connected: false,
        paymentGate: { gateType: 'VISIT_HOLD', consultationSummary: 'Scripted summary.', paymentType: 'pay_per_use', isLoading: false },
        nextStep: 'get_payment_link', nextStepArgs: { conversationId: id },
      });
      expect(r.body.userMessage).toContain('clinician');
      expect(await events(id)).toEqual(['triage_started', 'triage_reply', 'triage_reply', 'payment_gate_open']);
      // PAYMENT_REQUIRED refuses sends, with the state inline.
      const refused = await api.send(id, { text: 'Hello?', lastSeenMessageId: r.body.latestMessageId });
      expect(refused.status).toBe(402);
      expect(refused.body).toMatchObject({ error: 'PAYMENT_REQUIRED', sent: false, status: 'PAYMENT_REQUIRED', paymentRequired: true, paymentGate: { gateType: 'VISIT_HOLD' } });
      // Dismissing (DELETE) returns to IDLE; a new message re-runs triage on a new request.
      const c = await api.cancel(id);
      expect(c.body).toMatchObject({ success: true, status: 'IDLE', previousStatus: 'PAYMENT_REQUIRED', stopped: true });
      const d = (await api.get(id)).body;
      expect(d.paymentGate.gateType).toBe('NONE');
      const again = await api.send(id, { text: 'Now I have a cough too.', lastSeenMessageId: d.messages.at(-1).id });
      expect(again.body).toMatchObject({ sent: true, status: 'TRIAGING' });
      expect(again.body.reply.content).toContain('Question 1');
      expect((await events(id)).slice(-3)).toEqual(['status_changed', 'triage_started', 'triage_reply']);
    });

    it('an emergency moves to EMERGENCY, which refuses sends (repeating the advice) and cannot be cancelled', async () => {
      const { api } = await newUser();
      const { id, first } = await started(api);
      const r = await api.send(id, { text: 'Now crushing chest pain #emergency', lastSeenMessageId: first.latestMessageId });
      expect(r.body).toMatchObject({ status: 'EMERGENCY', statusChanged: 'EMERGENCY', paymentRequired: false });
      expect(r.body.userMessage).toContain('911');
      expect(r.body.conversation.triage).toMatchObject({ acuity: 'emergency', redFlags: ['scripted red flag'] });
      expect((await events(id)).slice(-2)).toEqual(['triage_reply', 'emergency']);
      const refused = await api.send(id, { text: 'It is better now', lastSeenMessageId: r.body.latestMessageId });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: 'conversation_emergency', sent: false, status: 'EMERGENCY' });
      expect(refused.body.userMessage).toContain('911');
      const c = await api.cancel(id);
      expect(c.status).toBe(409);
      expect((await api.get(id)).body.status).toBe('EMERGENCY');
    });

    it('waitForReply false returns at once; on timeout stillWaiting and the message is not re-sent', async () => {
      const { api } = await newUser();
      const { id, first } = await started(api);
      const release = triage.hold();
      try {
        const r = await api.send(id, { text: 'Four days.', lastSeenMessageId: first.latestMessageId, waitForReply: false });
        expect(r.body).toMatchObject({ sent: true, messagesSent: 1, stillWaiting: false, nextStep: 'wait_for_reply' });
        const w = await api.wait(id, { timeoutSeconds: 1 });
        expect(w.body).toMatchObject({ sent: false, messagesSent: 0, stillWaiting: true, nextStep: 'wait_for_reply' });
      } finally {
        release();
      }
      const w2 = await api.wait(id);
      expect(w2.body.stillWaiting).toBe(false);
      expect(w2.body.reply.content).toContain('Question 2');
      const d = (await api.get(id)).body;
      expect(d.messages.filter((m: Json) => m.content === 'Four days.')).toHaveLength(1);
    });

    it.each([
      [{ text: 'a', messages: ['b'] }, 'messages'],
      [{}, 'text'],
      [{ text: '' }, 'text'],
      [{ text: 'a', waitForReply: 'yes' }, 'waitForReply'],
      [{ messages: [] }, 'messages'],
      [{ text: 'a', lastSeenMessageId: 'msg_unknown' }, 'lastSeenMessageId'],
      [{ text: 'a', sneaky: true }, 'sneaky'],
    ])('bad send %j is a 400 naming %s', async (payload, field) => {
      const { api } = await newUser();
      const { id } = await started(api);
      const r = await api.send(id, payload);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_request', field });
    });
  });

  describe('cancel, region, list, isolation', () => {
    it('DELETE during triage stops the request (IDLE, history kept); again is a no-op', async () => {
      const { api } = await newUser();
      const { id } = await started(api);
      const c = await api.cancel(id);
      expect(c.body).toEqual({ success: true, conversationId: id, status: 'IDLE', previousStatus: 'TRIAGING', stopped: true, note: expect.any(String) });
      const again = await api.cancel(id);
      expect(again.body).toMatchObject({ success: true, status: 'IDLE', previousStatus: 'IDLE', stopped: false });
      const d = (await api.get(id)).body;
      expect(d.messages).toHaveLength(2);
      expect(d.informationNeed).toEqual([]);
    });

    it('PATCH region applies to the next request; an unsupported one is refused', async () => {
      const { api } = await newUser();
      const { id } = await started(api);
      const ok = await api.call('PATCH', `/api/consultations/${id}/region`, { region: 'us-ca' });
      expect(ok.body).toEqual({ success: true, region: 'US-CA', appliesToNextRequest: true });
      const bad = await api.call('PATCH', `/api/consultations/${id}/region`, { region: 'US-TX' });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ error: 'REGION_NOT_SUPPORTED', regions: ['US-CA'] });
      expect((await api.get(id)).body.status).toBe('TRIAGING');
    });

    it('lists newest activity first; status filters the page; limit caps it; total counts all', async () => {
      const { api } = await newUser();
      const a = await started(api, 'First concern.');
      const b = await started(api, 'Second concern.');
      await api.cancel(a.id);
      const all = await api.list();
      expect(all.body.total).toBe(2);
      expect(all.body.conversations.map((c: Json) => c.id)).toEqual([a.id, b.id]);
      expect(all.body.conversations[0]).toMatchObject({ title: 'First concern.', status: 'IDLE', region: 'US-CA', hasActiveProvider: false, pastVisitCount: 0, lastMessage: { type: 'text', preview: expect.any(String) } });
      expect((await api.list('?status=TRIAGING')).body.conversations.map((c: Json) => c.id)).toEqual([b.id]);
      expect((await api.list('?status=idle,triaging')).body.conversations).toHaveLength(2);
      // Applied to the page of `limit`: the one TRIAGING conversation is not on a page of 1.
      expect((await api.list('?limit=1&status=TRIAGING')).body.conversations).toEqual([]);
      const bad = await api.list('?status=CLOSED');
      expect(bad.status).toBe(400);
      expect(bad.body.field).toBe('status');
      expect((await api.list('?limit=0')).body.field).toBe('limit');
    });

    it('one user cannot read, write, wait on or cancel another user\'s conversation (the same 404 as none)', async () => {
      const owner = await newUser();
      const other = await newUser();
      const { id, first } = await started(owner.api);
      const missing = await other.api.get('conv_doesnotexist');
      for (const r of [
        await other.api.get(id),
        await other.api.send(id, { text: 'hi', lastSeenMessageId: first.latestMessageId }),
        await other.api.wait(id, { timeoutSeconds: 1 }),
        await other.api.cancel(id),
        await other.api.call('PATCH', `/api/consultations/${id}/region`, { region: 'US-CA' }),
      ]) {
        expect(r.status).toBe(404);
        expect(r.body).toEqual(missing.body);
      }
      expect((await other.api.list()).body).toEqual({ conversations: [], total: 0 });
    });

    it('requires a bearer token', async () => {
      const r = await env.app.inject({ method: 'GET', url: '/api/consultations' });
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ error: 'not_authenticated', needsAuth: true });
    });

    it('messages are capped with omittedOlderMessages; afterMessageId gives the delta', async () => {
      const { api } = await newUser();
      const { id, first } = await started(api);
      let last = first.latestMessageId as string;
      for (let i = 0; i < 3; i++) last = (await api.send(id, { text: `answer ${i}`, lastSeenMessageId: last })).body.latestMessageId;
      const capped = (await api.get(id, '?messageLimit=3')).body;
      expect(capped.messages).toHaveLength(3);
      expect(capped.omittedOlderMessages).toBe(5);
      const all = (await api.get(id)).body;
      const delta = (await api.get(id, `?afterMessageId=${all.messages[5].id}`)).body;
      expect(delta.messages.map((m: Json) => m.id)).toEqual(all.messages.slice(6).map((m: Json) => m.id));
    });
  });
});
