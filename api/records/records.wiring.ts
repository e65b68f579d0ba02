/**
 * Builds the health-records area for the composition root: its ports (payers from config, the
 * undici payer client, the token box, the sync runner), the linked-coverage port pricing reads,
 * the callback route and, unless RECORDS_SANDBOX=off, the embedded sandbox payer.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../../engine/core/config.ts';
import type { Clock } from '../../engine/ports/clock.ts';
import type { Db } from '../../engine/ports/db.ts';
import { undiciPayerClient } from '../../engine/records/adapters/payer-client.undici.ts';
import { recordsLinkedCoverage } from '../../engine/records/linked-coverage.ts';
import type { PayerClient, RecordsPorts } from '../../engine/records/records.ports.ts';
import { sqlRecordsStore } from '../../engine/records/records-store.ts';
import { secretBox } from '../../engine/records/secret-box.ts';
import { CALLBACK_PATH, registerRecordsCallbackRoutes } from './records-callback.routes.ts';
import { recordsTokenKey } from './records-key.ts';
import { SandboxPayer } from './sandbox-payer.ts';
import { registerSandboxPayerRoutes } from './sandbox-payer.routes.ts';
import { SyncRunner } from './sync-runner.ts';

export interface RecordsArea {
  ports: RecordsPorts;
  linkedCoverage: ReturnType<typeof recordsLinkedCoverage>;
  runner: SyncRunner;
  sandbox: SandboxPayer | null;
  mount(app: FastifyInstance): Promise<void>;
}

export function buildRecordsArea(a: { config: Config; db: Db; clock: Clock; log: Logger; client?: PayerClient }): RecordsArea {
  const { config, db, clock, log } = a;
  const box = secretBox(recordsTokenKey(config));
  const client = a.client ?? undiciPayerClient(config.recordsPayers);
  const runner = new SyncRunner({ store: sqlRecordsStore(db), client, box, payers: config.recordsPayers, clock, log });
  const redirectUri = `${config.baseUrl}${CALLBACK_PATH}`;
  const ports: RecordsPorts = { payers: config.recordsPayers, client, box, redirectUri, startSync: (id) => runner.start(id) };
  const sandbox = config.recordsSandbox ? new SandboxPayer({ baseUrl: config.baseUrl, redirectUris: [redirectUri], now: () => clock.now().getTime() }) : null;
  return {
    ports, runner, sandbox, linkedCoverage: recordsLinkedCoverage(db),
    async mount(app) {
      registerRecordsCallbackRoutes(app, { db, clock, ports });
      if (sandbox) await registerSandboxPayerRoutes(app, sandbox, config.baseUrl);
    },
  };
}
