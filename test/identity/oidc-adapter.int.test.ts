/** The oidc-provider storage adapter on a real (in-memory PGlite) database. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import pino from 'pino';
import { UNUSED_CLIENT_DAYS, createOidcAdapter, hashId } from '../../api/identity/oidc-adapter.ts';
import type { Db } from '../../engine/ports/db.ts';
import { migrate } from '../../engine/storage/migrate.ts';
import { obtainTokens, prepareAuthorization, driveBrowser, exchangeCode, refresh } from '../helpers/oauth-flow.ts';
import { backends, useBackends } from '../storage/backends.ts';
import { startIdentityApp, type IdentityHarness } from './harness.ts';

// PGlite always; a throwaway real PostgreSQL too when initdb/pg_ctl are on PATH.
useBackends();

describe.each(backends)('oidc adapter on $name', (backend) => {
  let db: Db;
  let Adapter: ReturnType<typeof createOidcAdapter>;
  beforeAll(async () => {
    db = await backend.open();
    await migrate(db);
    Adapter = createOidcAdapter(db, pino({ level: 'silent' }));
  });
  afterAll(async () => { await db?.close(); });

  test('stores the id only as a hash, and finds by the id', async () => {
    const at = new Adapter('AccessToken');
    const id = 'secret-token-value-0123456789abcdefghij';
    await at.upsert(id, { jti: id, accountId: 'acc1', grantId: 'g1', kind: 'AccessToken', exp: 9_999_999_999 }, 3600);
    const { rows } = await db.query<{ id_hash: string; payload: unknown; grant_id: string }>(`SELECT id_hash, payload, grant_id FROM oidc_payloads WHERE model = 'AccessToken'`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id_hash).toBe(hashId(id));
    expect(JSON.stringify(rows[0])).not.toContain(id);
    expect(rows[0]!.grant_id).toBe('g1');
    expect(await at.find(id)).toMatchObject({ jti: id, accountId: 'acc1', grantId: 'g1' });
    expect(await at.find('another-id')).toBeUndefined();
    // Models are separate namespaces.
    expect(await new Adapter('RefreshToken').find(id)).toBeUndefined();
  });

  test('the id is not kept in clear inside the payload either (e.g. an interaction’s returnTo)', async () => {
    const interaction = new Adapter('Interaction');
    const uid = 'interaction-uid-0123456789abcdefghijklmn';
    const payload = { jti: uid, returnTo: `https://cb.example/oauth/authorize/${uid}`, params: { state: 's' }, kind: 'Interaction' };
    await interaction.upsert(uid, payload, 3600);
    const dump = JSON.stringify((await db.query(`SELECT * FROM oidc_payloads WHERE model = 'Interaction'`)).rows);
    expect(dump).not.toContain(uid);
    expect(await interaction.find(uid)).toEqual(payload);
  });

  test('consume marks the payload; destroy removes it', async () => {
    const rt = new Adapter('RefreshToken');
    await rt.upsert('rt-1', { jti: 'rt-1', grantId: 'g2' }, 3600);
    expect((await rt.find('rt-1'))?.consumed).toBeUndefined();
    await rt.consume('rt-1');
    expect(typeof (await rt.find('rt-1'))?.consumed).toBe('number');
    // Two redemptions that both read the token before either consumed it (the race oidc-provider's
    // own check-then-consume leaves open): the second consume is invalid_grant.
    await rt.upsert('rt-race', { jti: 'rt-race', grantId: 'g3' }, 3600);
    const [seenA, seenB] = await Promise.all([rt.find('rt-race'), rt.find('rt-race')]);
    expect(seenA?.consumed ?? seenB?.consumed).toBeUndefined();
    const outcomes = await Promise.allSettled([rt.consume('rt-race'), rt.consume('rt-race')]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { error: 'invalid_grant' } });
    await rt.destroy('rt-1');
    expect(await rt.find('rt-1')).toBeUndefined();
  });

  test('expired rows are not found', async () => {
    const code = new Adapter('AuthorizationCode');
    await code.upsert('code-1', { jti: 'code-1' }, 60);
    await db.query(`UPDATE oidc_payloads SET expires_at = now() - interval '1 second' WHERE id_hash = $1`, [hashId('code-1')]);
    expect(await code.find('code-1')).toBeUndefined();
  });

  test('revokeByGrantId removes only that grant’s rows of that model', async () => {
    const at = new Adapter('AccessToken');
    await at.upsert('a1', { jti: 'a1', grantId: 'G' }, 3600);
    await at.upsert('a2', { jti: 'a2', grantId: 'G' }, 3600);
    await at.upsert('a3', { jti: 'a3', grantId: 'H' }, 3600);
    await at.revokeByGrantId('G');
    expect(await at.find('a1')).toBeUndefined();
    expect(await at.find('a2')).toBeUndefined();
    expect(await at.find('a3')).toBeDefined();
  });

  test('findByUid and findByUserCode (the user code is stored hashed)', async () => {
    const session = new Adapter('Session');
    await session.upsert('cookie-value', { jti: 'cookie-value', uid: 'uid-1', accountId: 'acc' }, 3600);
    expect(await session.findByUid('uid-1')).toMatchObject({ uid: 'uid-1', accountId: 'acc' });
    expect(await session.findByUid('uid-2')).toBeUndefined();
    const device = new Adapter('DeviceCode');
    await device.upsert('dc-1', { jti: 'dc-1', userCode: 'ABCD-EFGH' }, 600);
    const dump = JSON.stringify((await db.query(`SELECT * FROM oidc_payloads WHERE model = 'DeviceCode'`)).rows);
    expect(dump).not.toContain('ABCD-EFGH');
    expect(await device.findByUserCode('ABCD-EFGH')).toMatchObject({ userCode: 'ABCD-EFGH' });
    expect(await device.findByUserCode('WXYZ-WXYZ')).toBeUndefined();
  });

  test('upsert replaces; rows without expiry (clients) live until destroyed', async () => {
    const client = new Adapter('Client');
    await client.upsert('client-1', { client_id: 'client-1', redirect_uris: ['http://127.0.0.1/cb'] }, undefined);
    await client.upsert('client-1', { client_id: 'client-1', redirect_uris: ['http://127.0.0.1/cb2'] }, undefined);
    expect(await client.find('client-1')).toEqual({ client_id: 'client-1', redirect_uris: ['http://127.0.0.1/cb2'] });
    await new Adapter('Grant').upsert('grant-1', { jti: 'grant-1', clientId: 'client-1', accountId: 'a' }, 3600);
    const { rows } = await db.query<{ expires_at: unknown }>(`SELECT expires_at FROM oidc_payloads WHERE model = 'Client' AND id_hash = $1`, [hashId('client-1')]);
    expect(rows[0]!.expires_at).toBeNull();
  });
});

describe.each(backends)('the OAuth flow on $name', (backend) => {
  let db: Db;
  let h: IdentityHarness;
  beforeAll(async () => {
    db = await backend.open();
    h = await startIdentityApp({}, db);
  });
  afterAll(async () => {
    await h?.close();
    await db?.close();
  });

  test('sign-up, code exchange, refresh rotation and reuse detection', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: `pg-${backend.name}@example.com`, password: 'correct horse battery' });
    const first = await exchangeCode(p, callback!);
    expect(await h.identity.verifyAccessToken(first.access_token)).not.toBeNull();
    const second = await refresh(p, first.refresh_token!);
    await expect(refresh(p, first.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await h.identity.verifyAccessToken(second.access_token)).toBeNull();
    // Sign in again to the same account from a new client.
    const again = await obtainTokens(h.baseUrl, { email: `pg-${backend.name}@example.com`, password: 'correct horse battery', signIn: true });
    expect((await h.identity.verifyAccessToken(again.accessToken))?.userId).toBeDefined();
  });

  test('an unused client registration expires; the first grant makes it permanent', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const clientRow = () => db.query<{ days: number | null }>(
      `SELECT extract(epoch FROM expires_at - now())::float8 / 86400 AS days FROM oidc_payloads WHERE model = 'Client' AND id_hash = $1`,
      [hashId(p.client.client_id)]);
    const before = (await clientRow()).rows[0]!.days!;
    expect(before).toBeGreaterThan(UNUSED_CLIENT_DAYS - 1);
    expect(before).toBeLessThanOrEqual(UNUSED_CLIENT_DAYS);
    await driveBrowser(p.authorizationUrl, p.redirectUri, { email: `grant-${backend.name}@example.com`, password: 'correct horse battery' });
    expect((await clientRow()).rows[0]!.days).toBeNull();
  });

});
