/**
 * A "server" for jobs-restart.int.test.ts: opens the database named by argv (a PGlite data dir or
 * a postgres:// URL) and, in one transaction, sends a job to `crash` (whose worker runs here) and
 * one to `queued` (no worker here). The `crash` handler prints `started <crashId> <retryCount>
 * <queuedId>` and then hangs until the test kills this process with SIGKILL.
 */
import { openPgDb } from '../../engine/adapters/db.pg.ts';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import { openPgBossJobs } from '../../engine/adapters/jobs.pgboss.ts';
import { migrate } from '../../engine/storage/migrate.ts';

const target = process.argv[2]!;
const db = target.startsWith('postgres') ? await openPgDb(target, 2) : await openPgliteDb(target);
await migrate(db);
const jobs = await openPgBossJobs({ db, schema: 'crash_jobs', pollSeconds: 0.5, superviseSeconds: 1, queues: ['crash', 'queued'] });
let queuedId: string | null = null;
await jobs.work('crash', async (job) => {
  process.stdout.write(`started ${job.id} ${job.retryCount} ${queuedId}\n`);
  await new Promise(() => undefined);
});
await db.transaction(async (tx) => {
  queuedId = await jobs.send('queued', { n: 2 }, {}, tx);
  await jobs.send('crash', { n: 1 }, { expireInSeconds: 1, retryDelaySeconds: 1 }, tx);
});
