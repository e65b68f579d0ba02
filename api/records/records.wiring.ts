/**
 * Builds the health-records area for the composition root: its ports (payers from config, the
 * undici payer client, the token box, the `records.sync` job), the callback route and, unless
 * RECORDS_SANDBOX=off, the embedded sandbox payer.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../../engine/core/config.ts';
import type { Clock } from '../../engine/ports/clock.ts';
import type { Db } from '../../engine/ports/db.ts';
import { undiciPayerClient } from '../../engine/records/adapters/payer-client.undici.ts';
import type { PayerClient, RecordsPorts } from '../../engine/records/records.ports.ts';
import { sqlRecordsStore } from '../../engine/records/records-store.ts';
import { secretBox } from '../../engine/records/secret-box.ts';
import { CALLBACK_PATH, registerRecordsCallbackRoutes } from './records-callback.routes.ts';
import { recordsTokenKey } from './records-key.ts';
import { SandboxPayer } from './sandbox-payer.ts';
import { registerSandboxPayerRoutes } from './sandbox-payer.routes.ts';
import type { JobQueue } from '../../engine/ports/jobs.ts';
import { sendSync } from '../../engine/records/records.workers.ts';

export interface RecordsArea {
  ports: RecordsPorts;
  sandbox: SandboxPayer | null;
  mount(app: FastifyInstance): Promise<void>;
}

export function buildRecordsArea(a: { config: Config; db: Db; clock: Clock; log: Logger; jobs: JobQueue; client?: PayerClient }): RecordsArea {
  const { config, db, clock, jobs } = a;
  const box = secretBox(recordsTokenKey(config));
  const client = a.client ?? undiciPayerClient(config.recordsPayers);
  const redirectUri = `${config.baseUrl}${CALLBACK_PATH}`;
  const ports: RecordsPorts = { payers: config.recordsPayers, client, box, redirectUri, startSync: async (id) => {
    // Readers see syncInProgress from now, not only once a worker picks the job up.
    await sqlRecordsStore(db).requestSync(id, clock.now());
    await sendSync(jobs, id);
  } };
  const sandbox = config.recordsSandbox ? new SandboxPayer({ baseUrl: config.baseUrl, redirectUris: [redirectUri], now: () => clock.now().getTime() }) : null;
  return {
    ports, sandbox,
    async mount(app) {
      registerRecordsCallbackRoutes(app, { db, clock, ports });
      if (sandbox) await registerSandboxPayerRoutes(app, sandbox, config.baseUrl);
    },
  };
}
