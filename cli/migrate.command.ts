import type { Command } from 'commander';
import { loadConfig, type Config } from '../engine/core/config.ts';
import { describeDb, openDb } from '../engine/adapters/db.open.ts';
import { listMigrations, migrate } from '../engine/storage/migrate.ts';

export interface MigrateReport {
  /** Where (never the password): "PGlite at …" or "PostgreSQL at host:port/db". */
  database: string;
  applied: { version: number; name: string }[];
}

/** Applies pending migrations to the configured database (STYLE.md 11: the CLI only prints this). */
export async function runMigrate(config: Config): Promise<MigrateReport> {
  const db = await openDb(config);
  try {
    const versions = await migrate(db);
    const names = new Map(listMigrations().map((m) => [m.version, m.name]));
    return { database: describeDb(config), applied: versions.map((version) => ({ version, name: names.get(version) ?? '' })) };
  } finally {
    await db.close();
  }
}

/** `carebridge migrate`: applies pending migrations (PGlite under DATA_DIR, or DATABASE_URL) and prints them. */
export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (PGlite under DATA_DIR, or DATABASE_URL)')
    .action(async () => {
      const report = await runMigrate(loadConfig(process.env));
      process.stdout.write(`${report.database}\n`);
      if (report.applied.length === 0) process.stdout.write('schema up to date; nothing applied\n');
      for (const m of report.applied) process.stdout.write(`applied ${String(m.version).padStart(3, '0')}_${m.name}\n`);
    });
}
