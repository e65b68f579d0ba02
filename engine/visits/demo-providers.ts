/**
 * Demo provider accounts (issue 35, item 3): on embedded defaults (PGlite under DATA_DIR, no
 * DATABASE_URL) the first start seeds a demo clinician and a demo care-team account, licensed in
 * US-CA, and writes their emails and generated passwords to DATA_DIR/demo-accounts.json
 * (`[{ role, email, password }]`, mode 0600) so a person can sign in to try a visit. Never on a
 * real PostgreSQL: production providers are added with `carebridge providers add`.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Db } from '../ports/db.ts';
import { isAppError } from '../core/errors.ts';
import { addProvider, type ProviderRole } from './provider-store.ts';

export interface DemoAccount { role: ProviderRole; email: string; password: string }

// Check-digit-valid NPIs (CMS: Luhn over the prefix 80840), reserved here for the demo accounts.
const DEMO = [
  { role: 'clinician' as const, email: 'clinician@demo.carebridge.local', npi: '1234567893', name: 'Dr. Demo Clinician' },
  { role: 'care_team' as const, email: 'care-team@demo.carebridge.local', npi: '1245319599', name: 'Demo Care Team' },
];

/** Seeds the demo providers once; returns the file written, or null when it already existed. */
export async function seedDemoProviders(db: Db, dataDir: string, log: Logger): Promise<string | null> {
  const file = join(dataDir, 'demo-accounts.json');
  if (existsSync(file)) {
    log.info({ file }, 'demo provider accounts: see the file for their sign-in');
    return null;
  }
  const accounts: DemoAccount[] = [];
  for (const d of DEMO) {
    try {
      const { password } = await addProvider(db, { email: d.email, role: d.role, npi: d.npi, regions: ['US-CA'], name: d.name });
      accounts.push({ role: d.role, email: d.email, password });
    } catch (err) {
      // Already there (the file was deleted): its password is not known any more; skip it.
      if (!isAppError(err) || err.code !== 'conflict') throw err;
      log.warn({ email: d.email }, 'demo provider already exists; its password is not re-issued');
    }
  }
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(accounts, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  log.info({ file, accounts: accounts.map((a) => ({ role: a.role, email: a.email })) }, 'demo provider accounts created; passwords are in the file');
  return file;
}
