/**
 * The link flow end to end (issue 36, item 2): link -> the sandbox payer's sign-in page -> our
 * callback -> the import over real HTTP -> GET /api/health-records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkMember, newUser, startRecordsApp, type RecordsEnv } from './records-fixture.ts';

let env: RecordsEnv;
beforeAll(async () => { env = await startRecordsApp(); });
afterAll(async () => { await env?.close(); });

describe('linking the sandbox insurer', () => {
  it('before linking: connected false with howToConnect', async () => {
    const u = await newUser(env);
    const r = await u.get('/api/health-records');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ section: 'summary', connected: false, howToConnect: expect.stringContaining('/api/health-records/link') });
  });

  it('links through the sign-in page and imports', async () => {
    const u = await newUser(env);
    await linkMember(env, u, 'GP100001');
    const r = await u.get('/api/health-records');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.connection).toMatchObject({ syncStatus: 'ok', syncInProgress: false, payer: expect.stringContaining('Golden Poppy') });
    expect(r.body.recordCounts).toMatchObject({ claims: 137, labs: 233 });
    expect(r.body.demographics).toMatchObject({ givenName: 'Maria', memberId: 'GP100001' });
  });
});

describe('secrets, refusals and resync', () => {
  it('stores the state only as a hash and the tokens only encrypted', async () => {
    const u = await newUser(env);
    const link = await u.post('/api/health-records/link');
    const state = new URL(link.body.authorizationUrl as string).searchParams.get('state')!;
    const pending = await env.db.query<{ state_hash: string; verifier_enc: string }>('SELECT state_hash, verifier_enc FROM records_link_requests');
    expect(pending.rows.some((r) => r.state_hash === state)).toBe(false);
    expect(pending.rows.every((r) => r.verifier_enc.startsWith('v1.'))).toBe(true);
    await linkMember(env, u, 'GP100004');
    const conn = await env.db.query<{ tokens_enc: string }>('SELECT tokens_enc FROM records_connections WHERE account_id = $1', [u.userId]);
    expect(conn.rows[0]!.tokens_enc).toMatch(/^v1\./);
    expect(conn.rows[0]!.tokens_enc).not.toMatch(/access|refresh/i);
  });

  it('a replayed or unknown state, and a member who declines, get a page saying nothing was connected', async () => {
    const u = await newUser(env);
    const replay = await env.app.inject({ method: 'GET', url: '/records/callback?code=x&state=not-a-state' });
    expect(replay.statusCode).toBe(400);
    expect(replay.body).toContain('This link has expired');
    const link = await u.post('/api/health-records/link');
    const url = new URL(link.body.authorizationUrl as string);
    const page = await env.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.body).toContain('autocomplete="current-password"');
    const request = /name="request" value="([^"]+)"/.exec(page.body)![1]!;
    const form = (f: Record<string, string>) => env.app.inject({
      method: 'POST', url: '/sandbox-payer/authorize', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(f).toString(),
    });
    const wrong = await form({ request, member_id: 'GP100001', password: 'nope', action: 'allow' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('href="#member_id"');
    const deny = await form({ request, action: 'deny' });
    const back = new URL(deny.headers.location as string);
    const cb = await env.app.inject({ method: 'GET', url: back.pathname + back.search });
    expect(cb.body).toContain('You chose not to share your records');
    expect((await u.get('/api/health-records')).body.connected).toBe(false);
  });

  it('POST /api/health-records/sync resyncs; without a link it is a 409', async () => {
    const u = await newUser(env);
    const none = await u.post('/api/health-records/sync');
    expect(none.status).toBe(409);
    await linkMember(env, u, 'GP100004');
    const first = (await u.get('/api/health-records')).body.connection as { lastSyncedAt: string; importedAt: string };
    const r = await u.post('/api/health-records/sync');
    expect(r.body).toMatchObject({ started: true, connection: { syncInProgress: true } });
    await env.records!.runner.idle();
    const after = (await u.get('/api/health-records')).body.connection as { lastSyncedAt: string; importedAt: string; syncStatus: string };
    expect(after.importedAt).toBe(first.importedAt);
    expect(after.lastSyncedAt > first.lastSyncedAt).toBe(true);
    expect(after.syncStatus).toBe('ok');
  });

  it('a revoked payer token: the resync says to relink and keeps the data', async () => {
    const u = await newUser(env);
    await linkMember(env, u, 'GP100004');
    const before = (await u.get('/api/health-records')).body.recordCounts;
    env.records!.sandbox!.revokeAll();
    await u.post('/api/health-records/sync');
    await env.records!.runner.idle();
    const r = await u.get('/api/health-records');
    expect(r.body.connection).toMatchObject({ syncStatus: 'needs_relink', syncInProgress: false });
    expect(r.body.recordCounts).toEqual(before);
  });
});
