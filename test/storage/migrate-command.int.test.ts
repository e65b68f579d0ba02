/**
 * `carebridge migrate` (runMigrate, the function the command prints): applies every migration to
 * the configured database once, then nothing; on PGlite under DATA_DIR and on a real PostgreSQL
 * through DATABASE_URL when initdb/pg_ctl are available.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runMigrate } from '../../cli/migrate.command.ts';
import { loadConfig } from '../../engine/core/config.ts';
import { listMigrations } from '../../engine/storage/migrate.ts';
import { realPostgresAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';

const all = listMigrations().map((m) => ({ version: m.version, name: m.name }));
let cluster: PgCluster | undefined;
beforeAll(async () => { if (realPostgresAvailable()) cluster = await startPgCluster(); });
afterAll(async () => { await cluster?.stop(); });

it('PGlite under DATA_DIR/pg: applies all, then nothing; the data persists across opens', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-migrate-'));
  try {
    const config = loadConfig({ DATA_DIR: dir });
    const first = await runMigrate(config);
    expect(first.database).toBe(`PGlite at ${join(dir, 'pg')}`);
    expect(first.applied).toEqual(all);
    expect((await runMigrate(config)).applied).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it.runIf(realPostgresAvailable())('PostgreSQL via DATABASE_URL: applies all, then nothing; the URL\'s password is not printed', async () => {
  const url = await cluster!.createDatabase();
  const withPassword = url.replace('postgres@', 'postgres:s3cret@');
  const config = loadConfig({ DATABASE_URL: withPassword, DATA_DIR: tmpdir() });
  const first = await runMigrate(config);
  expect(first.database).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+\/t_/);
  expect(first.database).not.toContain('s3cret');
  expect(first.applied).toEqual(all);
  expect((await runMigrate(config)).applied).toEqual([]);
});
