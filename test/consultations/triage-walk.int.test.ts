/**
 * The walk of issue 34's "Done means", with the real pieces: a user signed up through the real
 * OAuth flow, the official MCP SDK client over HTTP, the deterministic triage engine, the job
 * queue, outbox and bus on PGlite. A sore throat reaches PAYMENT_REQUIRED after the questions are
 * answered; crushing chest pain reaches EMERGENCY at once; US-NY is refused.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpUser, startListeningApp, type ListeningApp } from '../platform/platform-fixture.ts';

let env: ListeningApp;
let token: string;
let client: Client;

beforeAll(async () => {
  env = await startListeningApp();
  ({ token } = await signUpUser(env, 'walk@example.test'));
  client = new Client({ name: 'carebridge-walk', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${env.baseUrl}/`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
});
afterAll(async () => {
  await client.close();
  await env.close();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tool results read loosely in tests

async function tool(name: string, args: Json): Promise<{ isError: boolean; body: Json }> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as { type: string; text: string }[];
  return { isError: Boolean(r.isError), body: (r.structuredContent as Json | undefined) ?? JSON.parse(content[0]!.text) as Json };
}

/** Answers from a patient who has a plain sore throat: the facts, whatever the assistant asks. */
function answer(prompts: string[]): string {
  const text = prompts.join(' ').toLowerCase();
  const parts: string[] = [];
  if (/how long|when|start/.test(text)) parts.push('It started three days ago.');
  if (/severe|scale|bad|rate/.test(text)) parts.push('The pain is about 4 out of 10.');
  if (/age|old/.test(text)) parts.push('I am 29 years old.');
  if (/sex/.test(text)) parts.push('I am male.');
  if (/medic|taking/.test(text)) parts.push('I am not taking any medicines.');
  if (/allerg/.test(text)) parts.push('I have no allergies.');
  if (/condition|health/.test(text)) parts.push('I have no other health conditions.');
  if (/fever|temperature/.test(text)) parts.push('I had a mild fever of 38 C yesterday.');
  parts.push('I can breathe and swallow fine, no drooling, no rash, no stiff neck.');
  return parts.join(' ');
}

describe('the agent walk over MCP', () => {
  it('lists the conversation tools with the spec\'s names', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['list_conversations', 'get_conversation', 'send_message', 'wait_for_reply', 'start_conversation']) expect(names).toContain(n);
  });

  it('US-NY is refused with the regions served', async () => {
    const r = await tool('start_conversation', { contextMessage: 'I have a sore throat.', region: 'US-NY' });
    expect(r.isError).toBe(true);
    expect(r.body).toMatchObject({ error: 'REGION_NOT_SUPPORTED', regions: ['US-CA'] });
  });

  it('a sore throat: the questions answered, PAYMENT_REQUIRED with the gate and a summary', async () => {
    const s = await tool('start_conversation', { contextMessage: 'I have had a sore throat for three days and it hurts to swallow.', region: 'US-CA' });
    expect(s.isError).toBe(false);
    const id = s.body.conversationId as string;
    let state = (await tool('wait_for_reply', { conversationId: id })).body;
    expect(state.reply.sender).toBe('assistant');
    for (let round = 0; round < 6 && state.conversation.status === 'TRIAGING'; round++) {
      expect(state.conversation.informationNeed.length).toBeGreaterThan(0);
      const text = answer(state.conversation.informationNeed.map((n: Json) => n.prompt as string));
      state = (await tool('send_message', { conversationId: id, text, lastSeenMessageId: state.latestMessageId })).body;
      expect(state.sent).toBe(true);
    }
    expect(state.conversation.status).toBe('PAYMENT_REQUIRED');
    expect(state).toMatchObject({ paymentRequired: true, statusChanged: 'PAYMENT_REQUIRED', paymentGate: { gateType: 'VISIT_HOLD', paymentType: 'pay_per_use' } });
    expect(state.paymentGate.consultationSummary.length).toBeGreaterThan(20);
    expect(state.conversation.triage.acuity).not.toBe('emergency');
    const list = (await tool('list_conversations', {})).body;
    expect(list.conversations.find((c: Json) => c.id === id)).toMatchObject({ status: 'PAYMENT_REQUIRED' });
  });

  it('crushing chest pain: EMERGENCY at once, the first words are the emergency instruction', async () => {
    const s = await tool('start_conversation', { contextMessage: 'I have crushing chest pain spreading to my left arm and I am short of breath.', region: 'US-CA' });
    const id = s.body.conversationId as string;
    const w = (await tool('wait_for_reply', { conversationId: id })).body;
    expect(w.conversation.status).toBe('EMERGENCY');
    expect(w.conversation.triage.acuity).toBe('emergency');
    expect(w.conversation.triage.redFlags.length).toBeGreaterThan(0);
    expect(w.userMessage).toMatch(/911/);
    const refused = await tool('send_message', { conversationId: id, text: 'It is getting better.', lastSeenMessageId: w.latestMessageId });
    expect(refused.isError).toBe(true);
    expect(refused.body).toMatchObject({ error: 'conversation_emergency', status: 'EMERGENCY' });
    const { rows } = await env.db.query<{ event: string }>('SELECT event FROM outbox_events WHERE consultation_id = $1 ORDER BY seq', [id]);
    expect(rows.map((r) => r.event)).toEqual(['triage_started', 'triage_reply', 'emergency']);
  });
});
