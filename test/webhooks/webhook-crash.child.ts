/**
 * A "server" for webhook-crash.int.test.ts: opens the database named by argv[2] (a PGlite data
 * dir or a postgres:// URL), starts the webhook deliverer with one delivery in flight at most, and
 * appends two events of argv[3]'s account in two transactions. The receiver holds the first
 * attempt open, so the second stays pending; the test then kills this process with SIGKILL.
 */
import pino from 'pino';
import { createOutboundGuard } from '../../engine/adapters/outbound-guard.ts';
import { openPgDb } from '../../engine/adapters/db.pg.ts';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import { createOutbox } from '../../engine/platform/outbox.ts';
import { systemClock } from '../../engine/ports/clock.ts';
import { startWebhookDeliverer } from '../../engine/webhooks/webhook-deliverer.ts';

const [target = '', userId = ''] = process.argv.slice(2);
const db = target.startsWith('postgres') ? await openPgDb(target, 2) : await openPgliteDb(target);
const outbound = createOutboundGuard({ allowlist: ['127.0.0.1'] });
await startWebhookDeliverer({ db, outbound, clock: systemClock, log: pino({ level: 'silent' }), concurrency: 1 });
const outbox = createOutbox(db);
for (const n of [1, 2]) {
  const e = await db.transaction((tx) => outbox.append(tx, { event: 'status_changed', userId, consultationId: `conv_crash${n}`, status: 'IDLE', message: `Event ${n}.` }));
  process.stdout.write(`appended ${e.eventId}\n`);
}
