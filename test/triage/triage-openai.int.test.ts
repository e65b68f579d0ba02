/**
 * The OpenAI-compatible triage adapter against a local HTTP server on 127.0.0.1 that speaks the
 * chat completions protocol (issue 34, item 3): a valid answer, invalid JSON, a schema mismatch,
 * a timeout, a 500, and the red-flag screen overruling a non-emergency LLM answer.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../engine/core/config.ts';
import { createTriageEngine } from '../../engine/triage/adapters/triage-engine.ts';
import { createOpenAiTriageEngine, TriageLlmError } from '../../engine/triage/adapters/triage.openai.ts';
import type { TriageInput } from '../../engine/triage/triage.port.ts';

type Behaviour = { status?: number; content?: string; raw?: string; delayMs?: number };

let server: Server;
let baseUrl: string;
let behaviour: Behaviour;
const seen: Array<{ url: string; auth: string | undefined; body: Record<string, unknown> }> = [];

const VALID = {
  acuity: 'routine',
  redFlags: [],
  reply: 'Thank you. How long have you had the sore throat?',
  asked: ['duration'],
  informationNeed: [{ key: 'duration', prompt: 'How long have you had it?', why: 'Timing matters.', priority: 'required', redFlagGate: false }],
  complete: false,
  summary: null,
};

async function readBody(req: IncomingMessage): Promise<string> {
  let s = '';
  for await (const chunk of req) s += String(chunk);
  return s;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void (async () => {
      const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
      seen.push({ url: req.url ?? '', auth: req.headers.authorization, body });
      if (behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs));
      if (res.destroyed) return;
      res.writeHead(behaviour.status ?? 200, { 'content-type': 'application/json' });
      res.end(behaviour.raw ?? JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: behaviour.content ?? JSON.stringify(VALID) }, finish_reason: 'stop' }] }));
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  behaviour = {};
  seen.length = 0;
});

const SORE_THROAT: TriageInput = { turns: [{ role: 'patient', text: 'I have a sore throat' }] };

async function failure(p: Promise<unknown>): Promise<TriageLlmError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(TriageLlmError);
  return err as TriageLlmError;
}

describe('createOpenAiTriageEngine', () => {
  it('posts a chat completion with the model, bearer key and json_schema, and returns the checked answer', async () => {
    const engine = createOpenAiTriageEngine({ baseUrl, apiKey: 'sk-test', model: 'test-model' });
    const r = await engine.assess(SORE_THROAT);
    expect(r).toEqual({ ...VALID, engine: 'llm:test-model' });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('/v1/chat/completions');
    expect(seen[0]!.auth).toBe('Bearer sk-test');
    expect(seen[0]!.body.model).toBe('test-model');
    const format = seen[0]!.body.response_format as { type: string; json_schema: { schema: { properties: Record<string, unknown> } } };
    expect(format.type).toBe('json_schema');
    expect(Object.keys(format.json_schema.schema.properties)).toContain('acuity');
    const messages = seen[0]!.body.messages as Array<{ role: string; content: string }>;
    expect(messages[0]!.role).toBe('system');
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'I have a sore throat' });
  });

  it('content that is not JSON is llm_invalid_json', async () => {
    behaviour = { content: 'Sure! The acuity is routine.' };
    const err = await failure(createOpenAiTriageEngine({ baseUrl, model: 'm' }).assess(SORE_THROAT));
    expect(err.code).toBe('llm_invalid_json');
  });

  it('JSON that does not match the schema is llm_schema, naming the field', async () => {
    behaviour = { content: JSON.stringify({ ...VALID, acuity: 'maybe' }) };
    const err = await failure(createOpenAiTriageEngine({ baseUrl, model: 'm' }).assess(SORE_THROAT));
    expect(err.code).toBe('llm_schema');
    expect(err.message).toContain('acuity');
  });

  it('a body that is not a chat completion is llm_protocol', async () => {
    behaviour = { raw: '<html>gateway</html>' };
    expect((await failure(createOpenAiTriageEngine({ baseUrl, model: 'm' }).assess(SORE_THROAT))).code).toBe('llm_protocol');
  });

  it('no answer within the timeout is llm_timeout', async () => {
    behaviour = { delayMs: 3_000 };
    const err = await failure(createOpenAiTriageEngine({ baseUrl, model: 'm', timeoutMs: 150 }).assess(SORE_THROAT));
    expect(err.code).toBe('llm_timeout');
  });

  it('an HTTP 500 is llm_http', async () => {
    behaviour = { status: 500, raw: '{"error":"internal"}' };
    const err = await failure(createOpenAiTriageEngine({ baseUrl, model: 'm' }).assess(SORE_THROAT));
    expect(err.code).toBe('llm_http');
    expect(err.message).toContain('500');
  });
});

describe('createTriageEngine(config)', () => {
  const config = () => loadConfig({ TRIAGE_LLM_URL: baseUrl, TRIAGE_LLM_API_KEY: 'k', TRIAGE_LLM_MODEL: 'test-model' });

  it('uses the LLM when configured, behind the screen', async () => {
    const r = await createTriageEngine(config()).assess(SORE_THROAT);
    expect(r.engine).toBe('llm:test-model');
    expect(seen).toHaveLength(1);
  });

  it('the screen overrules a non-emergency LLM answer to chest pain with breathlessness', async () => {
    behaviour = { content: JSON.stringify({ ...VALID, acuity: 'self_care', reply: 'Rest and drink water.' }) };
    const r = await createTriageEngine(config()).assess({ turns: [{ role: 'patient', text: 'I have chest pain and I am really short of breath' }] });
    expect(r.acuity).toBe('emergency');
    expect(r.reply).toMatch(/^Call 911 now/);
    expect(r.redFlags).toContain('chest pain with shortness of breath');
    expect(seen).toHaveLength(0); // the screen answered before the LLM was asked
  });

  it('an LLM failure falls back to the rules engine and is reported', async () => {
    behaviour = { status: 500, raw: '{}' };
    const errors: unknown[] = [];
    const r = await createTriageEngine(config(), { onLlmError: (e) => errors.push(e) }).assess(SORE_THROAT);
    expect(r.engine).toBe('rules-v1');
    expect((errors[0] as TriageLlmError).code).toBe('llm_http');
  });

  it('without TRIAGE_LLM_* it is the rules engine; a URL without a model stops start-up', async () => {
    const r = await createTriageEngine(loadConfig({})).assess(SORE_THROAT);
    expect(r.engine).toBe('rules-v1');
    expect(loadConfig({}).triageLlm).toBeUndefined();
    expect(() => loadConfig({ TRIAGE_LLM_URL: baseUrl })).toThrow(ConfigError);
    expect(() => loadConfig({ TRIAGE_LLM_URL: 'ftp://x', TRIAGE_LLM_MODEL: 'm' })).toThrow(/TRIAGE_LLM_URL/);
  });
});
