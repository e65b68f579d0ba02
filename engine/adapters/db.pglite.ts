import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Db } from '../ports/db.ts';

type Queryable = Pick<PGlite, 'query' | 'exec'> | Transaction;

/** The PGlite instance behind a root Db (pg-boss needs its exec and listen); kept off the port. */
const INSTANCE = Symbol('carebridge.pglite');

/** The PGlite instance of a root Db from this adapter (copies made with `{ ...db }` keep it). */
export function pgliteInstance(db: Db): PGlite | undefined {
  return (db as Db & { [INSTANCE]?: PGlite })[INSTANCE];
}

function wrap(q: Queryable, inTx: boolean, root: PGlite, onClose: () => void): Db {
  const db: Db = {
    kind: 'pglite',
    async query<T extends Record<string, unknown>>(sql: string, params: readonly unknown[] = []) {
      const res = await q.query<T>(sql, params as unknown[]);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    async transaction<R>(fn: (tx: Db) => Promise<R>): Promise<R> {
      if (inTx) return fn(db);
      return root.transaction((tx) => fn(wrap(tx, true, root, onClose)));
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
    async close() {
      if (inTx) return;
      if (!root.closed) await root.close();
      onClose();
    },
  };
  if (!inTx) {
    // Channels are plain lower-case names (Db.listen): PGlite lower-cases an unquoted one anyway.
    db.listen = async (channel, fn) => {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`invalid LISTEN channel ${JSON.stringify(channel)}`);
      const unlisten = await root.listen(channel, fn);
      return async () => { if (!root.closed) await unlisten(); };
    };
    Object.assign(db, { [INSTANCE]: root });
  }
  return db;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
}

/**
 * PGlite is single-process: two processes opening one data directory corrupt it. A lock file next
 * to it (`<dir>.lock`, holding the owner's pid) turns that into a clear error; a lock left by a
 * process that no longer runs is taken over.
 */
// Directories this process holds. A lock file naming our own pid that is not in here was left by an
// earlier process that had the same pid (typical after a container restart: pid 1 again): stale.
const heldHere = new Set<string>();

function lockDir(dir: string): () => void {
  const lock = `${dir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      heldHere.add(lock);
      return () => {
        heldHere.delete(lock);
        rmSync(lock, { force: true });
      };
    } catch (e) {
      if ((e as { code?: string }).code !== 'EEXIST') throw e;
      const owner = Number(readFileSync(lock, 'utf8').trim());
      const ours = owner === process.pid;
      if (Number.isInteger(owner) && owner > 0 && (ours ? heldHere.has(lock) : alive(owner))) {
        throw new Error(`the embedded database ${dir} is in use by process ${owner}; stop it first (or use DATABASE_URL for a shared PostgreSQL)`);
      }
      rmSync(lock, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not lock the embedded database ${dir}`);
}

/** Embedded PostgreSQL (PGlite, WASM) persisted under `dir`; `undefined` keeps it in memory (tests). */
export async function openPgliteDb(dir: string | undefined): Promise<Db> {
  let unlock = () => undefined as void;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    unlock = lockDir(dir);
  }
  try {
    const pg = await PGlite.create(dir ? { dataDir: dir } : {});
    return wrap(pg, false, pg, unlock);
  } catch (e) {
    unlock();
    throw e;
  }
}
