import { join } from 'node:path';
import type { Config } from '../core/config.ts';
import type { Db } from '../ports/db.ts';
import { openPgDb } from './db.pg.ts';
import { openPgliteDb } from './db.pglite.ts';

/**
 * The configured database (issue 2, item 4): a real PostgreSQL when DATABASE_URL is set,
 * otherwise embedded PGlite persisted under DATA_DIR/pg (no database server needed).
 */
export async function openDb(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Db> {
  return config.databaseUrl ? openPgDb(config.databaseUrl) : openPgliteDb(join(config.dataDir, 'pg'));
}

/** Where the data lives, for logs (never prints a password from DATABASE_URL). */
export function describeDb(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (!config.databaseUrl) return `PGlite at ${join(config.dataDir, 'pg')}`;
  try {
    const u = new URL(config.databaseUrl);
    return `PostgreSQL at ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}
