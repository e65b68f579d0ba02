/**
 * Care benchmark (issue 34, "Speed and quality"; STYLE.md 10: a script, not a timed test).
 *
 * One server on embedded defaults (PGlite under a temp DATA_DIR, the deterministic triage engine,
 * the real job queue, outbox and notification bus) listening on 127.0.0.1; N simulated agents
 * (default 200) at once, each over its own keep-alive connection: start a conversation, wait for
 * the first reply, then answer the assistant's questions with send_message + waitForReply until
 * triage ends (PAYMENT_REQUIRED or EMERGENCY) or 8 rounds. Prints p50/p95/p99 of the
 * send-with-waitForReply round trip, beside a baseline measured in the same run under the same
 * concurrency (GET /api/consultations/{id}, a read of the same conversation), the events written
 * per second, and the message audit: every message each agent sent is stored exactly once and each
 * send got exactly one reply. Goal (2 cores): p95 < 250 ms; 0 messages lost or duplicated.
 *
 * Agents are signed in through a test identity (tokens minted in-process), not the OAuth flow: the
 * benchmark measures care, not password hashing. Between one answer and the next, an agent waits a
 * random think time (`--think-ms MIN-MAX`, default 0: the issue's 200 agents each sending as soon as
 * it has the reply, a closed loop; `--think-ms 1000-3000` models the agent relaying the question
 * and the patient typing, which makes arrivals bursty).
 *
 *   npm run bench:care -- [--agents 200] [--rounds 8] [--think-ms 0]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Agent, request } from 'undici';
import { buildApp } from '../../api/app.ts';
import { loadConfig } from '../../engine/core/config.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { freePort } from '../helpers/free-port.ts';

const { values: args } = parseArgs({ options: {
  agents: { type: 'string', default: '200' },
  rounds: { type: 'string', default: '8' },
  'think-ms': { type: 'string', default: '0' },
} });
const [THINK_MIN, THINK_MAX] = ((): [number, number] => {
  const [a, b] = args['think-ms'].split('-').map(Number);
  return [a ?? 0, b ?? a ?? 0];
})();
const think = () => (THINK_MAX > 0 ? new Promise((r) => setTimeout(r, THINK_MIN + Math.random() * (THINK_MAX - THINK_MIN))) : Promise.resolve());
const AGENTS = Number(args.agents);
const ROUNDS = Number(args.rounds);
const say = (s: string) => process.stdout.write(`${s}\n`);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies read loosely

interface Stats { n: number; p50: number; p95: number; p99: number }
function stats(ms: number[]): Stats {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}
const fmt = (x: number) => x.toFixed(1).padStart(8);

/** Opening narratives (most non-emergency; a few emergencies, as real traffic would have). */
const NARRATIVES = [
  'I have had a sore throat for two days and it hurts to swallow.',
  'I have a cough and a runny nose since the weekend.',
  'My lower back has been aching for a week after moving furniture.',
  'I have a red itchy rash on my forearm that appeared yesterday.',
  'It burns when I pee and I need to go all the time, since yesterday.',
  'I have had a headache on and off for three days.',
  'My left ear hurts and feels blocked since Tuesday.',
  'I twisted my ankle playing soccer yesterday and it is swollen.',
  'I have crushing chest pain and I am short of breath.',
  'My face is drooping on one side and my speech is slurred.',
];

/** What a simulated patient says to the assistant's questions (read from the prompts). */
function answerTo(prompts: string[]): string {
  const out: string[] = [];
  const said = new Set<string>();
  const add = (k: string, s: string) => { if (!said.has(k)) { said.add(k); out.push(s); } };
  for (const p of prompts.map((x) => x.toLowerCase())) {
    if (/how long|when did|since when|start/.test(p)) add('duration', 'It started two days ago.');
    else if (/severe|scale|how bad|rate/.test(p)) add('severity', 'About a 4 out of 10.');
    else if (/how old|age/.test(p)) add('age', 'I am 34 years old.');
    else if (/sex|male|female/.test(p)) add('sex', 'I am female.');
    else if (/pregnan/.test(p)) add('pregnancy', 'I am not pregnant.');
    else if (/medic|medicine|drug|taking/.test(p)) add('medications', 'I take no medicines.');
    else if (/allerg/.test(p)) add('allergies', 'I have no allergies.');
    else if (/condition|health problem|history/.test(p)) add('conditions', 'I have no long-term conditions.');
    else add(p, 'No, I do not have that.');
  }
  return out.length ? out.join(' ') : 'No other symptoms.';
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cb-bench-care-'));
  const port = await freePort();
  const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const identity = fakeIdentity(config.baseUrl);
  const built = await buildApp(config, { identity, logger: pino({ level: 'silent' }) });
  await built.app.listen({ port, host: '127.0.0.1' });
  const dispatcher = new Agent({ connections: AGENTS + 8, keepAliveTimeout: 60_000, pipelining: 1 });
  const call = async (token: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: Json; ms: number }> => {
    const t0 = performance.now();
    const r = await request(`${config.baseUrl}${path}`, {
      dispatcher, method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}), headersTimeout: 120_000, bodyTimeout: 120_000,
    });
    const json = await r.body.json() as Json;
    return { status: r.statusCode, json, ms: performance.now() - t0 };
  };

  try {
    const users = [];
    for (let i = 0; i < AGENTS; i++) users.push(await identity.signUp(built.services.ports.db, `bench-${i}@example.test`));
    say(`care benchmark: ${AGENTS} agents, up to ${ROUNDS} rounds, think time ${THINK_MIN}-${THINK_MAX} ms, ${cpus().length} cores, ${new Date().toISOString()}`);

    const sendLat: number[] = [];
    const readLat: number[] = [];
    const errors: string[] = [];
    const sentBy = new Map<string, string[]>(); // conversationId -> texts the agent sent, in order
    const sends = new Map<string, number>(); // conversationId -> sends made (each should get one reply)
    const outcomes = new Map<string, number>();
    // Agents arrive over the first think interval, not all in the same millisecond.
    const t0 = performance.now();
    const { rows: [ev0] } = await built.services.ports.db.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox_events');

    await Promise.all(users.map(async (u, i) => {
      await think();
      const narrative = NARRATIVES[i % NARRATIVES.length]!;
      const s = await call(u.token, 'POST', '/api/consultations', { contextMessage: narrative, region: 'US-CA' });
      if (s.status !== 200) { errors.push(`start ${s.status} ${JSON.stringify(s.json).slice(0, 200)}`); return; }
      const id = s.json.conversationId as string;
      sentBy.set(id, [narrative]);
      sends.set(id, 1);
      let state = (await call(u.token, 'POST', `/api/consultations/${id}/wait`, {})).json;
      for (let round = 0; round < ROUNDS && state.conversation?.status === 'TRIAGING'; round++) {
        await think();
        const prompts = (state.conversation.informationNeed as Json[]).map((n) => n.prompt as string);
        const text = answerTo(prompts);
        const r = await call(u.token, 'POST', `/api/consultations/${id}/messages`, { text, lastSeenMessageId: state.latestMessageId });
        if (r.status !== 200) { errors.push(`send ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`); break; }
        sendLat.push(r.ms);
        sentBy.get(id)!.push(text);
        sends.set(id, sends.get(id)! + 1);
        state = r.json;
        if (state.stillWaiting) state = (await call(u.token, 'POST', `/api/consultations/${id}/wait`, {})).json;
        readLat.push((await call(u.token, 'GET', `/api/consultations/${id}?messageLimit=5`)).ms);
      }
      const status = String(state.conversation?.status ?? 'unknown');
      outcomes.set(status, (outcomes.get(status) ?? 0) + 1);
    }));
    const elapsed = (performance.now() - t0) / 1000;
    const { rows: [ev1] } = await built.services.ports.db.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox_events');
    const events = Number(ev1?.n ?? 0) - Number(ev0?.n ?? 0);

    // The audit: read every conversation back from the database.
    let lost = 0;
    let duplicated = 0;
    let unanswered = 0;
    let doubleAnswered = 0;
    for (const [id, texts] of sentBy) {
      const { rows } = await built.services.ports.db.query<{ sender: string; content: string; meta: { answersSeq?: number } }>(
        'SELECT sender, content, meta FROM conversation_messages WHERE conversation_id = $1 ORDER BY seq', [id]);
      const stored = rows.filter((r) => r.sender === 'user').map((r) => r.content);
      for (const t of texts) {
        const n = stored.filter((x) => x === t).length;
        const want = texts.filter((x) => x === t).length;
        if (n < want) lost += want - n;
        if (n > want) duplicated += n - want;
      }
      const replies = rows.filter((r) => r.sender === 'assistant').length;
      const want = sends.get(id)!;
      if (replies < want) unanswered += want - replies;
      if (replies > want) doubleAnswered += replies - want;
    }

    const send = stats(sendLat);
    const read = stats(readLat);
    say('');
    say('                              n      p50      p95      p99   (ms)');
    say(`send + waitForReply  ${String(send.n).padStart(10)} ${fmt(send.p50)} ${fmt(send.p95)} ${fmt(send.p99)}`);
    say(`baseline: GET detail ${String(read.n).padStart(10)} ${fmt(read.p50)} ${fmt(read.p95)} ${fmt(read.p99)}`);
    say(`ratio send/baseline p95: ${(send.p95 / read.p95).toFixed(2)}x`);
    say(`events written: ${events} in ${elapsed.toFixed(1)} s = ${(events / elapsed).toFixed(1)} events/s`);
    say(`outcomes: ${[...outcomes].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    say(`messages lost: ${lost}, duplicated: ${duplicated}; sends unanswered: ${unanswered}, answered twice: ${doubleAnswered}; errors: ${errors.length}`);
    for (const e of errors.slice(0, 5)) say(`  ${e}`);
    say(`goal p95 < 250 ms: ${send.p95 < 250 ? 'met' : 'NOT met'}; no loss or duplication: ${lost + duplicated + doubleAnswered === 0 ? 'met' : 'NOT met'}`);
    if (lost || duplicated || doubleAnswered || errors.length) process.exitCode = 1;
  } finally {
    await dispatcher.close();
    await built.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
