/**
 * The triage benchmark's API driver: the same vignettes through the real HTTP API of a real
 * server (buildApp listening on 127.0.0.1, PGlite, the job queue, the default triage engine), each
 * vignette as a new conversation: `start` is POST /api/consultations then wait_for_reply; `answer`
 * is send_message with waitForReply. The simulated patient reads what the assistant asked from the
 * conversation's informationNeed (`asked`, `key`, `prompt`), as an agent would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Agent, request } from 'undici';
import { buildApp, type BuiltApp } from '../../api/app.ts';
import { loadConfig } from '../../engine/core/config.ts';
import type { Acuity } from '../../engine/triage/triage.port.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { freePort } from '../helpers/free-port.ts';
import type { DriverFactory, ReplyState, TriageDriver } from './triage-driver.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies read loosely

export interface ApiDriverFactory extends DriverFactory {
  close(): Promise<void>;
}

function stateOf(body: Json): ReplyState {
  const conv = body.conversation as Json;
  const needs = (conv.informationNeed ?? []) as Json[];
  const asked = needs.filter((n) => n.asked).map((n) => n.key as string);
  const prompts: Record<string, string> = {};
  for (const n of needs) prompts[n.key as string] = n.prompt as string;
  const reply = [...(conv.messages as Json[])].reverse().find((m) => m.sender === 'assistant')?.content as string | undefined;
  const status = conv.status as string;
  return {
    reply: reply ?? '', asked, prompts,
    acuity: (conv.triage?.acuity ?? null) as Acuity | null,
    done: status === 'EMERGENCY' || status === 'PAYMENT_REQUIRED',
  };
}

export async function apiDriver(): Promise<ApiDriverFactory> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cb-bench-triage-'));
  const port = await freePort();
  const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const identity = fakeIdentity(config.baseUrl);
  const built: BuiltApp = await buildApp(config, { identity, logger: pino({ level: 'silent' }) });
  await built.app.listen({ port, host: '127.0.0.1' });
  const { token } = await identity.signUp(built.services.ports.db, 'triage-bench@example.test');
  const dispatcher = new Agent({ connections: 4 });
  const call = async (method: 'POST' | 'GET', path: string, body?: unknown): Promise<Json> => {
    const r = await request(`${config.baseUrl}${path}`, {
      dispatcher, method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const json = await r.body.json() as Json;
    // A refused send (emergency, payment) carries the conversation too: the state is what counts.
    if (r.statusCode !== 200 && !json.conversation) throw new Error(`${method} ${path}: ${r.statusCode} ${JSON.stringify(json).slice(0, 300)}`);
    return json;
  };
  return {
    name: 'api (HTTP, real server on PGlite, default engine)',
    async create(): Promise<TriageDriver> {
      let id = '';
      let latest: string | null = null;
      const settle = async (body: Json): Promise<ReplyState> => {
        let b = body;
        while (b.stillWaiting) b = await call('POST', `/api/consultations/${id}/wait`, {});
        latest = b.latestMessageId as string | null;
        return stateOf(b);
      };
      return {
        async start(narrative) {
          const s = await call('POST', '/api/consultations', { contextMessage: narrative, region: 'US-CA' });
          id = s.conversationId as string;
          return settle(await call('POST', `/api/consultations/${id}/wait`, {}));
        },
        async answer(text) {
          return settle(await call('POST', `/api/consultations/${id}/messages`, { text, lastSeenMessageId: latest }));
        },
      };
    },
    async close() {
      await dispatcher.close();
      await built.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
