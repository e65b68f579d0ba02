/**
 * The media area's worker (engine/workers.ts): the orphan sweep (engine/media/media-orphans.ts)
 * every 30 minutes, and once at start-up, which is when a crash's leftovers are most likely.
 */
import type { Logger } from 'pino';
import type { Ports } from '../core/context.ts';
import type { JobQueue } from '../ports/jobs.ts';
import { sweepOrphanedMedia } from './media-orphans.ts';

export const ORPHAN_SWEEP_JOB = 'media.orphan_sweep';
export const ORPHAN_SWEEP_EVERY_MS = 30 * 60_000;

/** A WorkerRegistration (engine/workers.ts). */
export const registerMediaWorkers = async (ports: Ports & { jobs: JobQueue }, log: Logger): Promise<void> => {
  const { jobs, media } = ports;
  if (!media) return;
  const sweep = async () => {
    const n = await sweepOrphanedMedia(ports.db, media.store, ports.clock.now(), log);
    if (n) log.info({ deleted: n }, 'orphaned media deleted');
  };
  // One sweep per slot: the singleton key names the slot, so starts and runs coalesce.
  const sendNext = async () => {
    const slot = Math.floor(ports.clock.now().getTime() / ORPHAN_SWEEP_EVERY_MS) + 1;
    await jobs.send(ORPHAN_SWEEP_JOB, {}, { startAfter: new Date(slot * ORPHAN_SWEEP_EVERY_MS), singletonKey: `slot-${slot}` });
  };
  await jobs.work(ORPHAN_SWEEP_JOB, async () => {
    await sweep();
    await sendNext();
  });
  await sweep();
  await sendNext();
};
