/**
 * Health-records operations (issue 36, item 2; service-spec.md, Health records). REST routes and
 * MCP tools are generated from these declarations. All require a bearer token.
 */
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import { AppError } from '../core/errors.ts';
import { getHealthRecords, connectionOf } from './records-read.ts';
import { recordsPorts, resolvePatient, startLink } from './records-link.ts';
import { sqlRecordsStore } from './records-store.ts';
import {
  GetHealthRecordsInputSchema, HealthRecordsSchema, LinkHealthRecordsInputSchema, LinkHealthRecordsOutputSchema,
  SyncHealthRecordsInputSchema, SyncHealthRecordsOutputSchema,
} from './records.schema.ts';

export const getHealthRecordsOp = defineOperation({
  name: 'get_health_records',
  title: 'Get health records',
  description: 'Read-only view of the user\'s (or a family member\'s, by patientId) insurance and health records imported from their insurer: coverage, conditions, medications, allergies, immunizations, labs, vitals, visits and claims. Call without section first (summary: connection status, coverage, demographics and a count per category), then drill into a section. Rows are newest first, at most 100 a view; when a view says truncated, call again with the same section and offset = nextOffset. `connected: false` means no insurer is linked: offer link_health_records to the user (care never depends on it).',
  input: GetHealthRecordsInputSchema,
  output: HealthRecordsSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/health-records' }],
  handler: (input, ctx) => getHealthRecords(input, ctx),
});

export const linkHealthRecordsOp = defineOperation({
  name: 'link_health_records',
  title: 'Connect an insurer\'s health records',
  description: 'Starts connecting the user\'s health insurer (its Patient Access API, SMART on FHIR) for the account holder or, with patientId, a family member. Returns an authorizationUrl for the USER to open in their browser, where they sign in at the insurer and approve sharing; the import then runs by itself. Never open the URL yourself.',
  input: LinkHealthRecordsInputSchema,
  output: LinkHealthRecordsOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/health-records/link' }],
  handler: (input, ctx) => startLink(ctx, input),
});

export const syncHealthRecordsOp = defineOperation({
  name: 'sync_health_records',
  title: 'Resync health records',
  description: 'Imports the linked insurer\'s records again (in the background). The records shown stay those of the last good sync until the new one completes; a failed sync keeps them and says why in connection.syncNote. Poll get_health_records until connection.syncInProgress is false.',
  input: SyncHealthRecordsInputSchema,
  output: SyncHealthRecordsOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/health-records/sync' }],
  handler: async (input, ctx) => {
    const ports = recordsPorts(ctx);
    const who = await resolvePatient(ctx, input.patientId);
    const row = await sqlRecordsStore(ctx.ports.db).getConnection(who.patientId);
    if (!row) {
      throw new AppError('conflict', 'No insurer is linked for this patient; link one first with POST /api/health-records/link.', { code: 'not_linked', field: 'patientId' });
    }
    const connection = connectionOf(row, ctx.ports.clock.now());
    const started = !connection.syncInProgress;
    if (started) ports.startSync(who.patientId);
    return {
      started, patientId: who.patientId, connection: { ...connection, syncInProgress: true },
      agentInstructions: ['Call get_health_records (section summary) until connection.syncInProgress is false; then read connection.syncStatus and syncNote.'],
    };
  },
});

export const recordsOperations: AnyOperation[] = [getHealthRecordsOp, linkHealthRecordsOp, syncHealthRecordsOp];
