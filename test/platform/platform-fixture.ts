/**
 * A listening app with the real OAuth server, and users signed up through the real OAuth flow
 * (test/helpers/oauth-flow.ts: dynamic registration, PKCE, the sign-up and consent forms, code
 * exchange), so the tokens the platform tests use are the tokens an agent would hold.
 */
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { obtainTokens } from '../helpers/oauth-flow.ts';

export type ListeningApp = TestApp;

export const TEST_PASSWORD = 'correct horse battery staple';

export async function startListeningApp(): Promise<ListeningApp> {
  const db: Db = await openPgliteDb(undefined);
  const t = await makeTestApp({ db, listen: true });
  return { ...t, close: async () => { await t.close(); await db.close(); } };
}

/** Signs a new user up through the real OAuth flow and returns their access token. */
export async function signUpUser(env: ListeningApp, email: string): Promise<{ token: string }> {
  const { accessToken } = await obtainTokens(env.baseUrl, { email, password: TEST_PASSWORD });
  return { token: accessToken };
}
