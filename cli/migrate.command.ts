import type { Command } from 'commander';
import { loadConfig } from '../engine/core/config.ts';
import { describeDb, openDb } from '../engine/adapters/db.open.ts';
import { listMigrations, migrate } from '../engine/storage/migrate.ts';

/** `carebridge migrate`: applies pending migrations to the configured database and prints them. */
export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (PGlite under DATA_DIR, or DATABASE_URL)')
    .action(async () => {
      const config = loadConfig(process.env);
      const db = await openDb(config);
      try {
        const applied = await migrate(db);
        const names = new Map(listMigrations().map((m) => [m.version, m.name]));
        process.stdout.write(`${describeDb(config)}\n`);
        if (applied.length === 0) process.stdout.write('schema up to date; nothing applied\n');
        for (const v of applied) process.stdout.write(`applied ${String(v).padStart(3, '0')}_${names.get(v) ?? ''}\n`);
      } finally {
        await db.close();
      }
    });
}
