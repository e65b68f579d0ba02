/**
 * The `carebridge` commands (STYLE.md 11: thin; parses flags, calls plain functions, prints). Each
 * area registers its commands from its own `*.command.ts` file.
 */
import { Command } from 'commander';
import { registerServe } from './serve.command.ts';
import { registerMigrate } from './migrate.command.ts';
import { registerIngest, type IngestCliOptions } from './ingest.command.ts';
import { registerSnapshot } from './snapshot.command.ts';
import { registerDemo } from './demo.command.ts';
import { registerLogin } from './login.command.ts';
import { registerProviders } from './providers.command.ts';

/** Parses `argv` (process.argv) and runs the command; sets process.exitCode. */
export async function runCli(argv: readonly string[], o: IngestCliOptions = {}): Promise<void> {
  const program = new Command()
    .name('carebridge')
    .description('Healthcare pricing and care service for AI agents')
    .showHelpAfterError()
    .exitOverride((err) => {
      // commander errors (unknown flag, missing argument) are usage errors: exit code 2.
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      throw err;
    });

  registerServe(program);
  registerMigrate(program);
  registerIngest(program, o);
  registerSnapshot(program, o);
  registerDemo(program);
  registerLogin(program);
  registerProviders(program);

  try {
    await program.parseAsync([...argv]);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (!e.code?.startsWith('commander.')) {
      process.stderr.write(`carebridge: ${e.message ?? String(err)}\n`);
      process.exitCode = process.exitCode || 1;
    }
  }
}
