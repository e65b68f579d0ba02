import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../engine/ports/db.ts';
import { backends, useBackends } from './backends.ts';

useBackends();

describe.each(backends)('Db transactions on $name', (backend) => {
  let db: Db | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  async function fresh(): Promise<Db> {
    db = await backend.open();
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, v text)');
    return db;
  }

  it('commits when the function returns', async () => {
    const d = await fresh();
    const out = await d.transaction(async (tx) => {
      await tx.query('INSERT INTO t VALUES ($1, $2)', [1, 'a']);
      return 'done';
    });
    expect(out).toBe('done');
    expect((await d.query('SELECT v FROM t WHERE id = 1')).rows).toEqual([{ v: 'a' }]);
  });

  it('rolls back every statement when the function throws, and rethrows', async () => {
    const d = await fresh();
    await expect(d.transaction(async (tx) => {
      await tx.query('INSERT INTO t VALUES ($1, $2)', [1, 'a']);
      await tx.query('INSERT INTO t VALUES ($1, $2)', [2, 'b']);
      throw new Error('boom');
    })).rejects.toThrow('boom');
    expect((await d.query('SELECT count(*)::int AS n FROM t')).rows[0]).toEqual({ n: 0 });
  });

  it('rolls back on a database error (constraint violation)', async () => {
    const d = await fresh();
    await expect(d.transaction(async (tx) => {
      await tx.query('INSERT INTO t VALUES (1, $1)', ['a']);
      await tx.query('INSERT INTO t VALUES (1, $1)', ['dup']);
    })).rejects.toThrow();
    expect((await d.query('SELECT count(*)::int AS n FROM t')).rows[0]).toEqual({ n: 0 });
  });

  it('nested transaction calls join the outer one (an inner throw rolls back everything)', async () => {
    const d = await fresh();
    await expect(d.transaction(async (tx) => {
      await tx.query('INSERT INTO t VALUES (1, $1)', ['outer']);
      await tx.transaction(async (inner) => {
        await inner.query('INSERT INTO t VALUES (2, $1)', ['inner']);
      });
      throw new Error('after inner');
    })).rejects.toThrow('after inner');
    expect((await d.query('SELECT count(*)::int AS n FROM t')).rows[0]).toEqual({ n: 0 });
  });

  it('reports rowCount for updates and passes parameters, never interpolating them', async () => {
    const d = await fresh();
    await d.query('INSERT INTO t VALUES (1, $1), (2, $1)', ["x'); DROP TABLE t; --"]);
    const r = await d.query('UPDATE t SET v = $1', ['y']);
    expect(r.rowCount).toBe(2);
    expect((await d.query('SELECT count(*)::int AS n FROM t')).rows[0]).toEqual({ n: 2 });
  });
});
