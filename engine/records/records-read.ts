/**
 * GET /api/health-records (service-spec.md, Health records; Health records view): the sections,
 * each a set of capped view blocks, with the connection and demographics.
 */
import type { HandlerContext } from '../core/context.ts';
import type { FhirResource } from './fhir-resource.ts';
import { demographicsOf } from './records-rows.ts';
import { sqlRecordsStore, STALE_SYNC_MS, type ConnectionRow } from './records-store.ts';
import type { Connection } from './records.schema.ts';
import {
  DATA_SECTIONS, recordCounts, SECTION_DEFS, sectionBlocks, type DataSection, type Section,
} from './records-views.ts';
import { resolvePatient } from './records-link.ts';

const HOW_TO_CONNECT = 'Call POST /api/health-records/link (MCP: link_health_records), optionally with patientId for a family member, and give the returned authorizationUrl to the user to open: they sign in at their insurer and approve sharing; the import then starts by itself. Care works without records, so never block on this.';

export function connectionOf(c: ConnectionRow, now: Date): Connection {
  const running = c.sync_started_at !== null && now.getTime() - c.sync_started_at.getTime() < STALE_SYNC_MS;
  return {
    payer: c.payer_label,
    importedAt: c.imported_at?.toISOString() ?? null,
    lastSyncedAt: c.last_synced_at?.toISOString() ?? null,
    syncStatus: c.sync_status,
    syncNote: c.sync_note,
    syncInProgress: running,
  };
}

function noteFor(conn: Connection): string {
  if (conn.syncInProgress && !conn.importedAt) return 'The first import from the insurer is still running: counts are 0 until it ends. Call again in a few seconds.';
  if (conn.syncInProgress) return 'A resync is running; these are the records of the last good sync until it ends.';
  if (conn.syncStatus === 'needs_relink') return 'The insurer no longer accepts our access: offer POST /api/health-records/link to the user. The records shown are from the last good sync.';
  if (conn.syncStatus === 'failed') return 'The last sync failed (see connection.syncNote); the records shown are from the last good sync.';
  return 'Records as the insurer holds them (claims, coverage and clinical data shared under the Patient Access API). Rows are newest first, at most 100 a view: when a view is truncated, call again with the same section and offset = nextOffset.';
}

export async function getHealthRecords(input: { section: Section; offset: number; patientId?: string }, ctx: HandlerContext) {
  const who = await resolvePatient(ctx, input.patientId);
  const store = sqlRecordsStore(ctx.ports.db);
  const row = await store.getConnection(who.patientId);
  const head = { section: input.section, patientId: who.patientId };
  if (!row) {
    return {
      ...head, connected: false as const,
      message: 'No insurance is connected for this patient, so there are no health records to show.',
      howToConnect: HOW_TO_CONNECT,
    };
  }
  const connection = connectionOf(row, ctx.ports.clock.now());
  const section = input.section;
  const types = section === 'summary' || section === 'everything'
    ? ['Patient', ...new Set(DATA_SECTIONS.flatMap((s) => SECTION_DEFS[s].types))]
    : ['Patient', ...SECTION_DEFS[section].types];
  const resources: FhirResource[] = row.generation > 0
    ? (await store.resources(who.patientId, row.generation, types)).map((r) => r.resource)
    : [];
  const patient = resources.find((r) => r.resourceType === 'Patient');
  const base = { ...head, connection, note: noteFor(connection) };
  const withDemo = section === 'summary' || section === 'coverage' || section === 'everything';
  const demographics = withDemo ? { demographics: demographicsOf(patient) } : {};
  if (section === 'summary') {
    // The coverage header rides along with the summary (the spec's "coverage header").
    return { ...base, ...demographics, recordCounts: recordCounts(resources), ...sectionBlocks('coverage', resources, 0) };
  }
  if (section === 'everything') {
    const sections = Object.fromEntries(DATA_SECTIONS.map((s) => [s, sectionBlocks(s, resources, input.offset)])) as Record<DataSection, ReturnType<typeof sectionBlocks>>;
    return { ...base, ...demographics, recordCounts: recordCounts(resources), sections };
  }
  return { ...base, ...demographics, ...sectionBlocks(section, resources, input.offset) };
}
