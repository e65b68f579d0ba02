/**
 * Every section of GET /api/health-records on the sandbox data (issue 36, item 2, tests): counts
 * against counts computed independently from the payer's FHIR bundles; paging a truncated view to
 * the end (every row once, in order); everything; bad input; a dependent's records by patientId;
 * cross-user and cross-family access refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDependent, linkMember, newUser, startRecordsApp, type RecordsEnv, type User } from './records-fixture.ts';
import { expectedCounts, sandboxToken, allPages } from './sandbox-bundles.ts';

let env: RecordsEnv;
let maria: User;
let leoId: string;
let expected: Record<string, number>;
const SECTION_VIEWS: Record<string, string[]> = {
  coverage: ['coverage', 'coverage_class'], conditions: ['problems'], medications: ['medication_request'], allergies: ['allergies'],
  immunizations: ['immunizations'], labs: ['labs'], vitals: ['vitals'], visits: ['encounters'], claims: ['claims_header', 'claims_lines'],
};

beforeAll(async () => {
  env = await startRecordsApp();
  maria = await newUser(env);
  await linkMember(env, maria, 'GP100001');
  leoId = await addDependent(env, maria);
  await linkMember(env, maria, 'GP100002', leoId);
  const t = await sandboxToken(env.records!.sandbox!, 'GP100001', env.records!.ports.redirectUri);
  expected = await expectedCounts(env.records!.sandbox!.fhirBase, t.patient, t.token);
});
afterAll(async () => { await env?.close(); });

type Block = { count: number; truncated?: boolean; nextOffset?: number; showing?: string; rows: Record<string, unknown>[] };

describe('sections', () => {
  it('has sandbox data over 100 rows in some views', () => {
    expect(expected.labs).toBeGreaterThan(200);
    expect(expected.claims_header).toBeGreaterThan(100);
  });

  it.each(Object.entries(SECTION_VIEWS))('%s: each view block counts what the bundles hold, capped at 100 newest first', async (section, views) => {
    const r = await maria.get(`/api/health-records?section=${section}`);
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    expect(r.body.section).toBe(section);
    for (const v of views) {
      const b = r.body[v] as Block;
      expect(b.count, v).toBe(expected[v]);
      expect(b.rows.length).toBe(Math.min(100, expected[v]!));
      expect(b.truncated).toBe(expected[v]! > 100);
      if (b.truncated) expect(b.nextOffset).toBe(100);
    }
    expect('demographics' in r.body).toBe(section === 'coverage');
  });

  it('summary: recordCounts per category, coverage header, demographics, connection', async () => {
    const r = await maria.get('/api/health-records');
    expect(r.body.recordCounts).toEqual({
      coverage: expected.coverage, conditions: expected.problems, medications: expected.medication_request, allergies: expected.allergies,
      immunizations: expected.immunizations, labs: expected.labs, vitals: expected.vitals, visits: expected.encounters, claims: expected.claims_header,
    });
    expect((r.body.coverage as Block).rows[0]).toMatchObject({ status: 'active', groupName: 'Pacific Tile & Stone Co. (synthetic demo)', planName: 'Golden Poppy PPO 1500 (synthetic demo)' });
    expect(r.body.connection).toMatchObject({ syncStatus: 'ok', syncInProgress: false, importedAt: expect.any(String), lastSyncedAt: expect.any(String) });
  });

  it('paging labs to the end returns every lab once, newest first, matching the bundles', async () => {
    const seen: Record<string, unknown>[] = [];
    let offset: number | undefined = 0;
    let pages = 0;
    while (offset !== undefined) {
      const r = await maria.get(`/api/health-records?section=labs&offset=${offset}`);
      const b = r.body.labs as Block;
      seen.push(...b.rows);
      offset = b.truncated ? b.nextOffset : undefined;
      pages += 1;
    }
    expect(pages).toBe(Math.ceil(expected.labs! / 100));
    const ids = seen.map((x) => x.id as string);
    expect(new Set(ids).size).toBe(ids.length);
    const t = await sandboxToken(env.records!.sandbox!, 'GP100001', env.records!.ports.redirectUri);
    const obs = await allPages(env.records!.sandbox!.fhirBase, 'Observation', t.patient, t.token);
    const labs = obs.filter((o) => JSON.stringify(o.category).includes('laboratory'));
    // Newest first, ties by id: computed here from the bundles.
    const want = labs.map((o) => ({ id: o.id, d: o.effectiveDateTime as string }))
      .sort((a, b) => (a.d === b.d ? (a.id < b.id ? -1 : 1) : a.d < b.d ? 1 : -1)).map((x) => x.id);
    expect(ids).toEqual(want);
  });

  it('everything: every section block keyed by section name, with demographics and counts', async () => {
    const r = await maria.get('/api/health-records?section=everything');
    const sections = r.body.sections as Record<string, Record<string, Block>>;
    expect(Object.keys(sections).sort()).toEqual(Object.keys(SECTION_VIEWS).sort());
    for (const [s, views] of Object.entries(SECTION_VIEWS)) for (const v of views) expect(sections[s]![v]!.count).toBe(expected[v]);
    expect(r.body.demographics).toMatchObject({ givenName: 'Maria' });
  });

  it.each([
    ['section=bogus', 'section'], ['offset=-1', 'offset'], ['offset=ten', 'offset'], ['section=labs&extra=1', 'extra'],
  ])('400 naming the field: %s', async (q, field) => {
    const r = await maria.get(`/api/health-records?${q}`);
    expect(r.status).toBe(400);
    expect(r.body.field).toBe(field);
  });

  it('a dependent\'s records by patientId', async () => {
    const r = await maria.get(`/api/health-records?patientId=${leoId}`);
    expect(r.body.demographics).toMatchObject({ givenName: 'Leo', memberId: 'GP100002' });
    expect(r.body.patientId).toBe(leoId);
  });

  it('another user cannot read, link or sync the family\'s records: the same 404 as a missing patient', async () => {
    const other = await newUser(env);
    for (const res of [
      await other.get(`/api/health-records?patientId=${leoId}`),
      await other.post('/api/health-records/link', { patientId: leoId }),
      await other.post('/api/health-records/sync', { patientId: leoId }),
      await other.get('/api/health-records?patientId=no-such-patient'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found', field: 'patientId' });
    }
    // Their own view is empty: nothing leaks across accounts.
    expect((await other.get('/api/health-records')).body.connected).toBe(false);
  });
});
