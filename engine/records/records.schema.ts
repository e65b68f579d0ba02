/**
 * Health-records contracts (service-spec.md, Health records; Health records view). One zod
 * schema per contract (STYLE.md 2): request validation, MCP schemas and OpenAPI. The shapes of
 * the link and sync calls are "not shown" in the spec and are designed here.
 */
import { z } from 'zod';
import { SECTIONS } from './records-views.ts';

const PatientId = z.string().min(1).max(64).optional()
  .describe('A family member from GET /api/profile (patients[].patientId); omit for the account holder.');

export const GetHealthRecordsInputSchema = z.object({
  section: z.enum(SECTIONS).default('summary')
    .describe('summary (default; call first), coverage, conditions, medications, allergies, immunizations, labs, vitals, visits, claims, or everything (all sections at once, large).'),
  offset: z.number().int().min(0).max(1_000_000).default(0)
    .describe('Row offset for paging a truncated view: the view\'s nextOffset. Ignored for summary.'),
  patientId: PatientId,
}).strict();

export const ConnectionSchema = z.object({
  payer: z.string().nullable(),
  importedAt: z.string().nullable().describe('First successful import.'),
  lastSyncedAt: z.string().nullable().describe('Last successful sync; the records shown are from it.'),
  syncStatus: z.string().nullable().describe('ok, failed (the last good data is kept), needs_relink (the payer refused our tokens: link again), or null before the first sync ends.'),
  syncNote: z.string().nullable(),
  syncInProgress: z.boolean(),
});
export type Connection = z.infer<typeof ConnectionSchema>;

export const ViewBlockSchema = z.object({
  count: z.number().int().describe('The true total, even when rows are capped.'),
  truncated: z.boolean().optional(),
  showing: z.string().optional(),
  nextOffset: z.number().int().optional().describe('Call again with this offset for the next rows.'),
  rows: z.array(z.record(z.string(), z.unknown())).describe('Newest first, at most 100.'),
});

/** The response: view blocks are top-level keys named by view (coverage, problems, labs, …). */
export const HealthRecordsSchema = z.object({
  section: z.string(),
  patientId: z.string(),
  connected: z.literal(false).optional(),
  message: z.string().optional(),
  howToConnect: z.string().optional(),
  connection: ConnectionSchema.nullable().optional(),
  demographics: z.record(z.string(), z.unknown()).nullable().optional(),
  recordCounts: z.record(z.string(), z.number().int()).optional(),
  note: z.string().optional(),
  sections: z.record(z.string(), z.record(z.string(), ViewBlockSchema)).optional(),
}).catchall(z.unknown());

export const LinkHealthRecordsInputSchema = z.object({
  patientId: PatientId,
  payer: z.string().min(1).max(40).optional().describe('Key of a configured payer; omit for the default (the embedded sandbox unless configured otherwise).'),
}).strict();

export const LinkHealthRecordsOutputSchema = z.object({
  authorizationUrl: z.string().describe('Hand this to the user to open in their browser; never open it yourself.'),
  payer: z.object({ key: z.string(), label: z.string() }),
  patientId: z.string(),
  expiresAt: z.string().describe('The link works once, until then.'),
  agentInstructions: z.array(z.string()),
});

export const SyncHealthRecordsInputSchema = z.object({ patientId: PatientId }).strict();

export const SyncHealthRecordsOutputSchema = z.object({
  started: z.boolean().describe('false when a sync was already running (it continues).'),
  patientId: z.string(),
  connection: ConnectionSchema,
  agentInstructions: z.array(z.string()),
});
