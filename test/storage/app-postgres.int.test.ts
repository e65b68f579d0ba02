/**
 * The app on a real PostgreSQL through DATABASE_URL (no injected Db): migrations on start,
 * /readyz reports postgres, and a profile round trip works end to end.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { realPostgresAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { openPgDb } from '../../engine/adapters/db.pg.ts';

let cluster: PgCluster | undefined;
beforeAll(async () => { if (realPostgresAvailable()) cluster = await startPgCluster(); });
afterAll(async () => { await cluster?.stop(); });

it.runIf(realPostgresAvailable())('DATABASE_URL: buildApp opens PostgreSQL, migrates, serves the profile', async () => {
  const url = await cluster!.createDatabase();
  const identity = fakeIdentity();
  // The app opens its own pool from DATABASE_URL; the test seeds an account through a second pool.
  const seed = await openPgDb(url, 2);
  const t = await makeTestApp({ identity, env: { DATABASE_URL: url } });
  try {
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.json()).toMatchObject({ status: 'ready', database: 'postgres' });
    const { token } = await identity.signUp(seed, 'pg-user@example.test');
    const auth = { authorization: `Bearer ${token}` };
    const patch = await t.app.inject({ method: 'PATCH', url: '/api/profile/patient', headers: auth, payload: { givenName: 'Pat', birthDate: '1985-07-04', state: 'tx' } });
    expect(patch.statusCode, patch.body).toBe(200);
    const profile = await t.app.inject({ method: 'GET', url: '/api/profile', headers: auth });
    expect(profile.json()).toMatchObject({ email: 'pg-user@example.test', patients: [{ relationship: 'self', demographics: { givenName: 'Pat', birthDate: '1985-07-04', state: 'TX' } }] });
  } finally {
    await t.close();
    await seed.close();
  }
});
