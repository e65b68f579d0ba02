/**
 * zod schemas of the triage contract (STYLE.md 2): the result an external engine (the LLM adapter)
 * must return is checked with TriageResultSchema before anything trusts it.
 */
import { z } from 'zod';

export const AcuitySchema = z.enum(['emergency', 'urgent', 'routine', 'self_care']);

export const InformationNeedSchema = z.object({
  key: z.string().min(1).max(64),
  prompt: z.string().min(1).max(500),
  why: z.string().max(500),
  priority: z.enum(['required', 'recommended', 'optional']),
  redFlagGate: z.boolean(),
}).strict();

/** What an LLM must answer: the TriageResult without `engine` (the adapter sets it). */
export const TriageAnswerSchema = z.object({
  acuity: AcuitySchema,
  redFlags: z.array(z.string().max(300)).max(20),
  reply: z.string().min(1).max(4000),
  asked: z.array(z.string().max(64)).max(10),
  informationNeed: z.array(InformationNeedSchema).max(30),
  complete: z.boolean(),
  summary: z.string().max(8000).nullable(),
}).strict();

export type TriageAnswer = z.infer<typeof TriageAnswerSchema>;
