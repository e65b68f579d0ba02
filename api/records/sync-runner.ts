/**
 * Runs health-record syncs in the background of this process. The platform's durable JobQueue
 * (engine/ports/jobs.ts) is not implemented yet; when it lands, `startSync` sends a job whose
 * handler calls the same `syncRecords`. Until then a sync that dies with the process leaves its
 * connection marked running, and a new sync may take over once that mark is stale (10 minutes).
 */
import type { SyncDeps, SyncResult } from '../../engine/records/sync-records.ts';
import { syncRecords } from '../../engine/records/sync-records.ts';

export class SyncRunner {
  private readonly running = new Set<Promise<SyncResult | undefined>>();
  private readonly deps: SyncDeps;

  constructor(deps: SyncDeps) {
    this.deps = deps;
  }

  start(patientId: string): void {
    const p: Promise<SyncResult | undefined> = syncRecords(patientId, this.deps).catch((err: unknown) => {
      // syncRecords records payer failures itself; this is a storage failure (logged, never thrown at no one).
      this.deps.log.error({ err, patientId }, 'health records sync crashed');
      return undefined;
    }).finally(() => this.running.delete(p));
    this.running.add(p);
  }

  /** Settles when every sync started so far has ended (tests; graceful shutdown). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }
}
