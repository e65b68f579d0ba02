/**
 * `carebridge providers add` (issue 35, item 3): a provider account (clinician or care team) with
 * its NPI and licensed regions, against DATABASE_URL or the PGlite under DATA_DIR. A password is
 * generated when none is given and printed once.
 */
import type { Command } from 'commander';
import { loadConfig, type Config } from '../engine/core/config.ts';
import { describeDb, openDb } from '../engine/adapters/db.open.ts';
import { migrate } from '../engine/storage/migrate.ts';
import type { Db } from '../engine/ports/db.ts';
import { isAppError } from '../engine/core/errors.ts';
import { addProvider, NewProviderSchema, type NewProvider, type Provider } from '../engine/visits/provider-store.ts';

export interface ProvidersAddReport { database: string; provider: Provider; password: string | null }

/**
 * Creates the provider; `password` in the report only when it was generated (to print once).
 * `given` (tests): a database the caller owns, used instead of opening the configured one.
 */
export async function runProvidersAdd(config: Config, input: NewProvider, given?: Db): Promise<ProvidersAddReport> {
  const db = given ?? await openDb(config);
  try {
    await migrate(db);
    const r = await addProvider(db, input);
    return { database: describeDb(config), provider: r.provider, password: r.generated ? r.password : null };
  } finally {
    if (!given) await db.close();
  }
}

export function registerProviders(program: Command): void {
  const providers = program.command('providers').description('provider accounts (clinicians, care team)');
  providers
    .command('add')
    .description('create a provider account (against DATABASE_URL, or the PGlite under DATA_DIR)')
    .requiredOption('--email <email>', 'sign-in email')
    .option('--password <password>', 'sign-in password (default: a long random one, printed once)')
    .requiredOption('--role <role>', 'clinician or care_team')
    .requiredOption('--npi <npi>', 'National Provider Identifier, 10 digits')
    .requiredOption('--regions <codes>', 'licensed ISO 3166-2 regions, comma separated (e.g. US-CA,US-NV)')
    .requiredOption('--name <name>', 'display name shown to patients')
    .action(async (o: { email: string; password?: string; role: string; npi: string; regions: string; name: string }) => {
      const parsed = NewProviderSchema.safeParse({ ...o, regions: o.regions.split(',').map((r) => r.trim()).filter(Boolean) });
      if (!parsed.success) {
        const i = parsed.error.issues[0]!;
        process.stderr.write(`carebridge providers add: --${String(i.path[0] ?? 'input')}: ${i.message}\n`);
        process.exitCode = 2;
        return;
      }
      try {
        const r = await runProvidersAdd(loadConfig(process.env), parsed.data);
        process.stdout.write(`${r.database}\nadded ${r.provider.role} ${r.provider.displayName} <${r.provider.email}> NPI ${r.provider.npi}, licensed in ${r.provider.regions.join(', ')}\n`);
        if (r.password) process.stdout.write(`password (shown once): ${r.password}\n`);
      } catch (err) {
        if (!isAppError(err)) throw err;
        process.stderr.write(`carebridge providers add: ${err.details.field ? `--${err.details.field}: ` : ''}${err.reason}\n`);
        process.exitCode = 1;
      }
    });
}
