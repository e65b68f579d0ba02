/**
 * The platform wired into the app (api/app.ts): buildApp opens jobs, outbox and bus on its
 * database, registers the areas' workers, and close() drains a running job before closing the
 * bus and the database (issue 34, item 1). PGlite, and PostgreSQL through DATABASE_URL. The
 * pricing-only host opens none (pricing-only.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationTopic } from '../../engine/platform/outbox.ts';
import type { PlatformPorts, WorkerRegistration } from '../../engine/workers.ts';
import { makeTestApp, type TestAppOptions } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { realPostgresAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { deferred, waitFor } from './platform-harness.ts';

let cluster: PgCluster | undefined;
beforeAll(async () => { if (realPostgresAvailable()) cluster = await startPgCluster(); });
afterAll(async () => { await cluster?.stop(); });

const variants: { name: string; opts(): Promise<Partial<TestAppOptions>> }[] = [
  { name: 'pglite', opts: async () => ({}) },
  ...(realPostgresAvailable() ? [{ name: 'postgres', opts: async () => ({ env: { DATABASE_URL: await cluster!.createDatabase() } }) }] : []),
];

describe.each(variants)('platform in the app on $name', (variant) => {
  it('registers workers; a job written with its event runs; close() waits for the running handler', async () => {
    const started = deferred();
    const release = deferred();
    const events: string[] = [];
    let finished = false;
    const worker: WorkerRegistration = async (ports) => {
      await ports.jobs.work<{ consultationId: string }>('platform-app-test', async (job) => {
        events.push(...(await ports.outbox.list({ consultationId: job.data.consultationId })).map((e) => e.event));
        started.resolve();
        await release.promise;
        finished = true;
      });
    };
    const t = await makeTestApp({ identity: fakeIdentity(), workers: [worker], jobs: { pollSeconds: 0.5 }, ...(await variant.opts()) });
    let closed = false;
    try {
      const ports = t.services.ports as PlatformPorts;
      expect(ports.jobs && ports.outbox && ports.bus).toBeTruthy();
      const woken: string[] = [];
      await ports.bus.subscribe(conversationTopic('c-app'), (p) => woken.push(p));
      await ports.db.transaction(async (tx) => {
        await ports.outbox.append(tx, { event: 'triage_started', userId: 'u-app', consultationId: 'c-app', status: 'TRIAGING', message: 'Triage started.' });
        await ports.jobs.send('platform-app-test', { consultationId: 'c-app' }, {}, tx);
      });
      await started.promise;
      await waitFor(() => woken.length === 1, 15_000, 'the wake-up');
      expect(events).toEqual(['triage_started']);
      const closing = t.close().then(() => { closed = true; });
      setTimeout(() => release.resolve(), 200);
      await closing;
      expect(finished).toBe(true);
    } finally {
      release.resolve();
      if (!closed) await t.close();
    }
  });
});
