/**
 * A TriageEngine backed by an OpenAI-compatible chat completions endpoint
 * (`POST {baseUrl}/chat/completions`, bearer key, `response_format: json_schema`), over undici
 * with a timeout. The model's JSON is parsed and checked with TriageAnswerSchema; anything else
 * is a TriageLlmError with a code, so the caller can fall back to the rules engine. It is only
 * ever used behind screenedEngine: the red-flag screen runs first and cannot be overruled.
 */
import { request } from 'undici';
import { z } from 'zod';
import type { TriageEngine, TriageInput, TriageResult } from '../triage.port.ts';
import { TriageAnswerSchema } from '../triage.schema.ts';

export type TriageLlmErrorCode = 'llm_timeout' | 'llm_http' | 'llm_invalid_json' | 'llm_schema' | 'llm_protocol';

/** Why the LLM engine gave no usable answer; `code` says which failure, never the message text. */
export class TriageLlmError extends Error {
  override name = 'TriageLlmError';
  readonly code: TriageLlmErrorCode;
  constructor(code: TriageLlmErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export interface OpenAiTriageOptions {
  /** e.g. https://api.openai.com/v1 (no trailing /chat/completions) */
  baseUrl: string;
  apiKey?: string | undefined;
  model: string;
  /** whole-request timeout, default 20 s */
  timeoutMs?: number;
}

const SYSTEM_PROMPT = `You are the triage assistant of a US telehealth service. You never diagnose: you decide how soon the patient needs care and what a clinician needs to know.
Answer ONLY with a JSON object matching the given schema:
- acuity: "emergency" only if the patient must call 911 or go to an emergency department now; "urgent" to be seen today; "routine" for a clinician visit that is not urgent; "self_care" when it can usually be looked after at home (the visit is still offered).
- reply: the message the patient sees, kind and plain. When acuity is "emergency" it must START with the instruction ("Call 911 now ..."; for suicidal thoughts "Please call or text 988 now ...").
- redFlags: warning signs found, in plain words.
- informationNeed: what is still needed (keys like age, sex, duration, severity, pregnancy, medicines, allergies, conditions, or gate_<topic> for warning-sign questions), red-flag gate questions first.
- asked: the need keys your reply asks about (at most three).
- complete: true only when age, sex, duration, severity, medicines and allergies (and pregnancy when it could apply) are known; then summary is a short consultation summary for the clinician with no diagnosis; otherwise summary is null.`;

/** Drops string length limits: strict structured-output modes accept only a subset of JSON Schema; zod still checks them. */
function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node)
    .filter(([k]) => k !== '$schema' && k !== 'minLength' && k !== 'maxLength')
    .map(([k, v]) => [k, portable(v)]));
}

/** The JSON Schema sent as `response_format` (from the same zod schema that checks the answer). */
export function triageAnswerJsonSchema(): Record<string, unknown> {
  return portable(z.toJSONSchema(TriageAnswerSchema)) as Record<string, unknown>;
}

function toMessages(input: TriageInput): Array<{ role: 'system' | 'user' | 'assistant'; content: string }> {
  const who = input.patient
    ? `Known about the patient: age ${input.patient.ageYears ?? 'unknown'}, sex ${input.patient.sex ?? 'unknown'}.`
    : 'Nothing is known about the patient beyond the conversation.';
  return [
    { role: 'system', content: `${SYSTEM_PROMPT}\n${who}` },
    ...input.turns.map((t) => t.role === 'patient'
      ? { role: 'user' as const, content: t.text }
      : { role: 'assistant' as const, content: t.asked?.length ? `${t.text}\n[asked: ${t.asked.join(', ')}]` : t.text }),
  ];
}

/** Creates the LLM engine; its `engine` field is `llm:<model>`. */
export function createOpenAiTriageEngine(opts: OpenAiTriageOptions): TriageEngine {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = opts.timeoutMs ?? 20_000;
  return {
    async assess(input: TriageInput, signal?: AbortSignal): Promise<TriageResult> {
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      const body = JSON.stringify({
        model: opts.model,
        messages: toMessages(input),
        temperature: 0,
        response_format: { type: 'json_schema', json_schema: { name: 'triage_result', strict: true, schema: triageAnswerJsonSchema() } },
      });
      let status: number;
      let text: string;
      try {
        const res = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) },
          body,
          signal: combined,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        status = res.statusCode;
        text = await res.body.text();
      } catch (err) {
        if (signal?.aborted) throw err;
        if (timeout.aborted || (err as { code?: string }).code?.includes('TIMEOUT')) {
          throw new TriageLlmError('llm_timeout', `triage LLM did not answer within ${timeoutMs} ms`, { cause: err });
        }
        throw new TriageLlmError('llm_http', `triage LLM request failed: ${(err as Error).message}`, { cause: err });
      }
      if (status < 200 || status >= 300) throw new TriageLlmError('llm_http', `triage LLM answered HTTP ${status}`);
      let content: unknown;
      try {
        content = (JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message?.content;
      } catch (err) {
        throw new TriageLlmError('llm_protocol', 'triage LLM response is not a chat completion (not JSON)', { cause: err });
      }
      if (typeof content !== 'string') throw new TriageLlmError('llm_protocol', 'triage LLM response has no choices[0].message.content');
      let json: unknown;
      try {
        json = JSON.parse(content);
      } catch (err) {
        throw new TriageLlmError('llm_invalid_json', 'triage LLM content is not valid JSON', { cause: err });
      }
      const parsed = TriageAnswerSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new TriageLlmError('llm_schema', `triage LLM answer does not match the schema at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
      }
      return { ...parsed.data, engine: `llm:${opts.model}` };
    },
  };
}
