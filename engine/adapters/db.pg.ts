import pg from 'pg';
import type { Db } from '../ports/db.ts';
import { PgListener } from './pg-listener.ts';

type Client = pg.Pool | pg.PoolClient;

/** The connection string a root PostgreSQL Db was opened with (for pg-boss's own pool); kept off the port. */
const CONNECTION = Symbol('carebridge.pg.connectionString');

/** The URL `db` was opened with, when it is a root node-postgres Db from this adapter. */
export function pgConnectionString(db: Db): string | undefined {
  return (db as Db & { [CONNECTION]?: string })[CONNECTION];
}

function wrap(client: Client, pool: pg.Pool, inTx: boolean, listener?: PgListener): Db {
  const db: Db = {
    kind: 'postgres',
    async query<T extends Record<string, unknown>>(sql: string, params: readonly unknown[] = []) {
      const res = await client.query<T>(sql, params as unknown[]);
      return { rows: res.rows, rowCount: res.rowCount ?? res.rows.length };
    },
    async transaction<R>(fn: (tx: Db) => Promise<R>): Promise<R> {
      if (inTx) return fn(db);
      const conn = await pool.connect();
      try {
        await conn.query('BEGIN');
        const out = await fn(wrap(conn, pool, true));
        await conn.query('COMMIT');
        return out;
      } catch (e) {
        await conn.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        conn.release();
      }
    },
    async exec(sql: string) {
      await client.query(sql);
    },
    async close() {
      if (inTx) return;
      await listener?.close();
      await pool.end();
    },
  };
  if (listener) db.listen = (channel, fn, onReconnect) => listener.listen(channel, fn, onReconnect);
  return db;
}

/** A real PostgreSQL through node-postgres (DATABASE_URL). */
export async function openPgDb(connectionString: string, max = 10): Promise<Db> {
  const pool = new pg.Pool({ connectionString, max });
  // Surface a bad URL at start-up, not on the first request.
  const c = await pool.connect();
  c.release();
  pool.on('error', () => undefined); // idle-client errors are reported on the next query
  const db = wrap(pool, pool, false, new PgListener(connectionString));
  return Object.assign(db, { [CONNECTION]: connectionString });
}
