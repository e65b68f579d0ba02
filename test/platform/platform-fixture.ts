/**
 * A listening app and signed-up users for the HTTP-level platform tests.
 *
 * TEMPORARY: tokens come from the test-only identity until test/helpers/oauth-flow.ts (the real
 * OAuth sign-up flow) lands; then signUpUser switches to it and the app uses the real identity.
 */
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';

export interface ListeningApp extends TestApp {
  identityKind: 'fake' | 'real';
  fake?: FakeIdentity;
}

export async function startListeningApp(): Promise<ListeningApp> {
  const db: Db = await openPgliteDb(undefined);
  const fake = fakeIdentity();
  const t = await makeTestApp({ db, identity: fake, listen: true });
  // The fake identity's challenge URL must name the real origin.
  const real = fakeIdentity(t.baseUrl);
  Object.assign(fake, { resourceMetadataUrl: real.resourceMetadataUrl });
  return { ...t, identityKind: 'fake', fake, close: async () => { await t.close(); await db.close(); } };
}

export async function signUpUser(env: ListeningApp, email: string): Promise<{ token: string }> {
  const { token } = await env.fake!.signUp(env.db, email);
  return { token };
}
