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
