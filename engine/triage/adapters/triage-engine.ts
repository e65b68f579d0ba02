/**
 * The composition root for triage: the engine the conversation jobs call. The rules engine is
 * always there (its red-flag screen runs first, and it answers when no LLM is configured or the
 * LLM fails); the LLM adapter is used only when TRIAGE_LLM_URL and TRIAGE_LLM_MODEL are set.
 */
import type { Config } from '../../core/config.ts';
import { createRulesEngine } from '../rules-engine.ts';
import { fallbackEngine, screenedEngine } from '../screened-engine.ts';
import type { TriageEngine } from '../triage.port.ts';
import { createOpenAiTriageEngine } from './triage.openai.ts';

export interface TriageEngineOptions {
  /** called when the LLM fails and the rules engine answers instead (log it) */
  onLlmError?: (err: unknown) => void;
}

/** screenedEngine(llm with rules fallback) when an LLM is configured, else screenedEngine(rules). */
export function createTriageEngine(config: Pick<Config, 'triageLlm'>, opts: TriageEngineOptions = {}): TriageEngine {
  const rules = createRulesEngine();
  const llm = config.triageLlm;
  if (!llm) return screenedEngine(rules, rules);
  const inner = createOpenAiTriageEngine({ baseUrl: llm.url, apiKey: llm.apiKey, model: llm.model, timeoutMs: llm.timeoutMs });
  return screenedEngine(fallbackEngine(inner, rules, opts.onLlmError), rules);
}
