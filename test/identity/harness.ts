/**
 * A listening Fastify app with only the identity mounted (no REST/MCP), on an in-memory PGlite
 * with the real migrations. The port is chosen before building because the issuer must know
 * its origin.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { onFreePort } from '../helpers/free-port.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import { loadConfig, type Config } from '../../engine/core/config.ts';
import type { Clock } from '../../engine/ports/clock.ts';
import type { Db } from '../../engine/ports/db.ts';
import { migrate } from '../../engine/storage/migrate.ts';
import type { Identity } from '../../api/identity/identity.ts';
import { createIdentity } from '../../api/identity/oidc.ts';

export interface IdentityHarness {
  /** The public origin (config.baseUrl; the issuer). */
  baseUrl: string;
  /** Where the app actually listens (differs from baseUrl when BASE_URL is given). */
  listenUrl: string;
  config: Config;
  db: Db;
  identity: Identity;
  close(): Promise<void>;
}

/**
 * `db`: a migrated-or-empty database the caller owns (default: a fresh in-memory PGlite).
 * `clock`: what the account code (sign-in delays, link expiry) reads; oidc-provider keeps its own.
 */
export async function startIdentityApp(env: Record<string, string> = {}, external?: Db, clock?: Clock): Promise<IdentityHarness> {
  return onFreePort((port) => startOn(port, env, external, clock));
}

async function startOn(port: number, env: Record<string, string>, external: Db | undefined, clock: Clock | undefined): Promise<IdentityHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cb-identity-'));
  const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  const db = external ?? await openPgliteDb(undefined);
  await migrate(db);
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const identity = await createIdentity({ config, db, log, ...(clock ? { clock } : {}) });
  const app = Fastify({ loggerInstance: log }) as unknown as FastifyInstance;
  await identity.mount(app);
  try {
    await app.listen({ port, host: '127.0.0.1' });
  } catch (e) {
    await app.close();
    await identity.close();
    if (!external) await db.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    baseUrl: config.baseUrl,
    listenUrl: `http://127.0.0.1:${port}`,
    config,
    db,
    identity,
    async close() {
      await app.close();
      await identity.close();
      if (!external) await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
