/**
 * A fresh app per test (STYLE.md 8): in-memory PGlite, its own config, closed after. Tests use
 * `app.inject` for REST, or `listen: true` for the real MCP client and the real OAuth flow.
 */
import { onFreePort } from './free-port.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig, type Config } from '../../engine/core/config.ts';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { buildApp, type AppDeps, type BuiltApp } from '../../api/app.ts';

export interface TestApp extends BuiltApp {
  config: Config;
  db: Db;
  /** Set when `listen: true`: the origin the app listens on (= config.baseUrl). */
  baseUrl: string;
}

export interface TestAppOptions extends Omit<AppDeps, 'db'> {
  /** Listen on 127.0.0.1 (needed for real HTTP clients). The port is chosen before build so the issuer matches. */
  listen?: boolean;
  env?: Record<string, string>;
  db?: Db;
}

export { freePort } from './free-port.ts';

export async function makeTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  // Listening, the port is part of the config (the issuer): a port taken meanwhile means a new app.
  return opts.listen ? onFreePort((port) => buildTestApp(opts, port)) : buildTestApp(opts, 8787);
}

async function buildTestApp(opts: TestAppOptions, port: number): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cb-app-'));
  const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...opts.env });
  // With DATABASE_URL in env the app opens (and owns) PostgreSQL itself; otherwise in-memory PGlite.
  const injected = opts.db ?? (config.databaseUrl ? undefined : await openPgliteDb(undefined));
  const ownsDb = !opts.db && injected !== undefined;
  const { listen, env: _env, db: _db, ...deps } = opts;
  let built: BuiltApp;
  try {
    built = await buildApp(config, {
      // A test's clients may leave sockets open (a pooled keep-alive one busy at close, one never
      // used): close() ends them at once rather than waiting for their timeouts (tens of seconds).
      logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), checkOutput: true, forceCloseConnections: true,
      ...deps, ...(injected ? { db: injected } : {}),
    });
  } catch (e) {
    if (ownsDb) await injected.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const db = built.services.ports.db;
  if (listen) {
    try {
      await built.app.listen({ port, host: '127.0.0.1' });
    } catch (e) {
      await built.close();
      if (ownsDb) await injected.close();
      rmSync(dataDir, { recursive: true, force: true });
      throw e;
    }
  }
  return {
    ...built,
    config,
    db,
    baseUrl: config.baseUrl,
    close: async () => {
      await built.close();
      if (ownsDb) await injected.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A clock tests move by hand (rate-limit windows, expiries) instead of sleeping. */
export class ManualClock {
  private t: number;

  constructor(t = Date.parse('2026-06-01T12:00:00Z')) {
    this.t = t;
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
