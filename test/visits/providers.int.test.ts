/**
 * Provider accounts: `carebridge providers add` against the PGlite under DATA_DIR (a generated
 * password signs in; a bad NPI names the flag), and the demo seed at first start (a 0600 file of
 * `[{ role, email, password }]` whose passwords sign in; a second start does not re-seed).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../engine/core/config.ts';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import { migrate } from '../../engine/storage/migrate.ts';
import { AccountsService } from '../../engine/identity/accounts.ts';
import { findProvider } from '../../engine/visits/provider-store.ts';
import { seedDemoProviders, type DemoAccount } from '../../engine/visits/demo-providers.ts';
import { runProvidersAdd } from '../../cli/providers.command.ts';
import { runCli } from '../../cli/program.ts';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cb-prov-'));
  dirs.push(d);
  return d;
}
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

describe('carebridge providers add', () => {
  it('creates a clinician with a generated password that signs in; a bad NPI is refused naming --npi', async () => {
    const config = loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: 'silent' });
    const db = await openPgliteDb(undefined);
    try {
      const r = await runProvidersAdd(config, { email: 'dr.who@clinic.test', role: 'clinician', npi: '1234567893', regions: ['us-ca', 'US-NV'], name: 'Dr. Who' }, db);
      expect(r.password).toMatch(/^.{40,}$/);
      expect(r.provider).toMatchObject({ role: 'clinician', npi: '1234567893', regions: ['US-CA', 'US-NV'], displayName: 'Dr. Who' });
      expect(await new AccountsService(db).verifyLogin('dr.who@clinic.test', r.password!)).toMatchObject({ id: r.provider.accountId });
      expect(await findProvider(db, r.provider.accountId)).toMatchObject({ role: 'clinician' });
    } finally {
      await db.close();
    }
    const err: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((s: string) => { err.push(s); return true; });
    try {
      await runCli(['node', 'carebridge', 'providers', 'add', '--email', 'x@clinic.test', '--role', 'clinician', '--npi', '12', '--regions', 'US-CA', '--name', 'X']);
    } finally {
      process.stderr.write = write;
    }
    expect(process.exitCode).toBe(2);
    process.exitCode = 0;
    expect(err.join('')).toContain('--npi');
  });
});

describe('demo provider accounts', () => {
  it('are seeded once, into a 0600 file whose passwords sign in (a clinician and a care-team account)', async () => {
    const dir = tempDir();
    const db = await openPgliteDb(undefined);
    try {
      await migrate(db);
      const log = pino({ level: 'silent' });
      const file = await seedDemoProviders(db, dir, log);
      expect(file).toBe(join(dir, 'demo-accounts.json'));
      expect(statSync(file!).mode & 0o777).toBe(0o600);
      const accounts = JSON.parse(readFileSync(file!, 'utf8')) as DemoAccount[];
      expect(accounts.map((a) => a.role)).toEqual(['clinician', 'care_team']);
      expect(await new AccountsService(db).verifyLogin(accounts[0]!.email, accounts[0]!.password)).not.toBeNull();
      expect(await seedDemoProviders(db, dir, log)).toBeNull();
      expect((await db.query('SELECT count(*)::int AS n FROM providers')).rows[0]!.n).toBe(2);
    } finally {
      await db.close();
    }
  });
});
