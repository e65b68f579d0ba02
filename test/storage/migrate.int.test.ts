import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../engine/ports/db.ts';
import { listMigrations, migrate } from '../../engine/storage/migrate.ts';
import { backends, useBackends } from './backends.ts';

useBackends();

describe.each(backends)('migrations on $name', (backend) => {
  const open: Db[] = [];
  afterEach(async () => {
    for (const db of open.splice(0).reverse()) await db.close().catch(() => undefined);
  });

  it('applies every migration once, then nothing (idempotent)', async () => {
    const db = await backend.open();
    open.push(db);
    const all = listMigrations().map((m) => m.version);
    expect(all.length).toBeGreaterThan(0);
    expect(await migrate(db)).toEqual(all);
    expect(await migrate(db)).toEqual([]);
    const r = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(r.rows.map((x) => x.version)).toEqual(all);
    for (const t of ['accounts', 'patients', 'terms_acceptances', 'oidc_payloads']) {
      const c = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1', [t]);
      expect(c.rows[0]?.n, t).toBe(1);
    }
  });

  it('is safe when two instances migrate at once: each migration is applied exactly once', async () => {
    const a = await backend.open();
    open.push(a);
    const b = await backend.openSibling(a);
    if (b !== a) open.push(b);
    const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);
    const all = listMigrations().map((m) => m.version);
    expect([...ra, ...rb].sort((x, y) => x - y)).toEqual(all);
    const r = await a.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    expect(r.rows[0]?.n).toBe(all.length);
  });

  it('rolls a failing migration back completely and applies nothing of its batch', async () => {
    const db = await backend.open();
    open.push(db);
    const bad = [
      ...listMigrations(),
      { version: 998, name: 'ok_table', sql: 'CREATE TABLE ok_table (x int);' },
      { version: 999, name: 'broken', sql: 'CREATE TABLE broken (x int); SELECT no_such_function();' },
    ];
    await expect(migrate(db, bad)).rejects.toThrow();
    const r = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM information_schema.tables
       WHERE table_schema = current_schema() AND table_name IN ('ok_table', 'broken', 'accounts')`);
    expect(r.rows[0]?.n).toBe(0);
    // The real set still applies afterwards.
    expect((await migrate(db)).length).toBe(listMigrations().length);
  });
});
