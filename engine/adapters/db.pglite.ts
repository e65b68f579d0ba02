import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Db } from '../ports/db.ts';

type Queryable = Pick<PGlite, 'query' | 'exec'> | Transaction;

function wrap(q: Queryable, inTx: boolean, root: PGlite): Db {
  const db: Db = {
    kind: 'pglite',
    async query<T extends Record<string, unknown>>(sql: string, params: readonly unknown[] = []) {
      const res = await q.query<T>(sql, params as unknown[]);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    async transaction<R>(fn: (tx: Db) => Promise<R>): Promise<R> {
      if (inTx) return fn(db);
      return root.transaction((tx) => fn(wrap(tx, true, root)));
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
    async close() {
      if (!inTx) await root.close();
    },
  };
  return db;
}

/** Embedded PostgreSQL (PGlite, WASM) persisted under `dir`; `undefined` keeps it in memory (tests). */
export async function openPgliteDb(dir: string | undefined): Promise<Db> {
  if (dir) mkdirSync(dir, { recursive: true });
  const pg = await PGlite.create(dir ? { dataDir: dir } : {});
  return wrap(pg, false, pg);
}
