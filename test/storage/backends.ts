/**
 * The storage backends every storage test runs against: PGlite always, and a throwaway real
 * PostgreSQL when initdb/pg_ctl are on PATH (issue 2, item 4). Use with describe.each and call
 * `useBackends()` once per file for the lifecycle of the cluster and the shared PGlite.
 */
import { afterAll, beforeAll } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import { openPgDb } from '../../engine/adapters/db.pg.ts';
import type { Db } from '../../engine/ports/db.ts';
import { realPostgresAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';

export interface Backend {
  name: 'pglite' | 'postgres';
  /** A fresh, empty database. */
  open(): Promise<Db>;
  /** A second connection (pool) to the same database as `db`, for concurrency tests. */
  openSibling(db: Db): Promise<Db>;
}

let cluster: PgCluster | undefined;
const urls = new WeakMap<Db, string>();
// One PGlite per file (starting one costs seconds of WASM start-up on a loaded 2-core machine);
// each test gets its own schema via search_path, so tests still start from an empty database.
let pglite: Db | undefined;
let schemas = 0;

async function freshPgliteSchema(): Promise<Db> {
  pglite ??= await openPgliteDb(undefined);
  const root = pglite;
  const schema = `t${++schemas}`;
  await root.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
  return { ...root, close: async () => { await root.exec('SET search_path TO public'); } };
}

export const backends: Backend[] = [
  {
    name: 'pglite',
    open: freshPgliteSchema,
    // PGlite is single-connection: the "sibling" is the same handle.
    openSibling: async (db) => db,
  },
  ...(realPostgresAvailable()
    ? [{
      name: 'postgres' as const,
      async open() {
        if (!cluster) throw new Error('call useBackends() in the test file');
        const url = await cluster.createDatabase();
        const db = await openPgDb(url, 4);
        urls.set(db, url);
        return db;
      },
      async openSibling(db: Db) {
        return openPgDb(urls.get(db)!, 4);
      },
    }]
    : []),
];

/** Starts the real cluster (when available) for this file and stops it after. */
export function useBackends(): void {
  beforeAll(async () => {
    if (realPostgresAvailable()) cluster = await startPgCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
    cluster = undefined;
    await pglite?.close();
    pglite = undefined;
  });
}
