/**
 * The import against a local FHIR server (issue 36, item 2, tests), on PGlite and on a throwaway
 * PostgreSQL: a sync that fails half-way (HTTP 500 on page 2) keeps the previous data; a refused
 * token asks to relink; an invalid resource is left out and said so; a `next` link to another
 * host is not followed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { Db } from '../../engine/ports/db.ts';
import { migrate } from '../../engine/storage/migrate.ts';
import { undiciPayerClient } from '../../engine/records/adapters/payer-client.undici.ts';
import { secretBox } from '../../engine/records/secret-box.ts';
import { sqlRecordsStore } from '../../engine/records/records-store.ts';
import { syncRecords, type SyncDeps } from '../../engine/records/sync-records.ts';
import type { RecordsPayer } from '../../engine/records/records.ports.ts';
import { backends, useBackends } from '../storage/backends.ts';

useBackends();

/** What the local payer does; tests flip it between syncs. */
const mode = { failPage2Of: null as string | null, refuse: false, invalidOne: false, foreignNext: false, claims: 120 };
let server: Server;
let base = '';

function resourcesOf(type: string): Record<string, unknown>[] {
  const subject = { reference: 'Patient/p1' };
  if (type === 'ExplanationOfBenefit') {
    return Array.from({ length: mode.claims }, (_, i) => ({
      resourceType: 'ExplanationOfBenefit', id: `eob-${i}`, status: 'active', type: { coding: [{ code: 'professional' }] }, use: 'claim',
      patient: subject, created: `2026-0${1 + (i % 9)}-1${i % 10}`, billablePeriod: { start: `2026-0${1 + (i % 9)}-1${i % 10}` },
      insurer: { display: 'Local' }, provider: { display: 'Clinic' }, outcome: 'complete', insurance: [{ focal: true, coverage: { reference: 'Coverage/c1' } }],
    }));
  }
  if (type === 'Condition') {
    const ok = { resourceType: 'Condition', id: 'cond-1', subject, code: { text: 'Asthma' }, recordedDate: '2025-01-01' };
    return mode.invalidOne ? [ok, { resourceType: 'Condition', id: 'cond-bad', subject, code: { text: 'x' }, onsetDateTime: 42 }] : [ok];
  }
  if (type === 'Coverage') return [{ resourceType: 'Coverage', id: 'c1', status: 'active', beneficiary: subject, payor: [{ display: 'Local' }] }];
  return [];
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const u = new URL(req.url!, base);
    const send = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/fhir+json' }); res.end(JSON.stringify(body)); };
    if (mode.refuse) return send(401, { resourceType: 'OperationOutcome', issue: [] });
    const [, , type, id] = u.pathname.split('/');
    if (type === 'Patient' && id) return send(200, { resourceType: 'Patient', id: 'p1', name: [{ family: 'Local' }] });
    const offset = Number(u.searchParams.get('_offset') ?? 0);
    const count = Number(u.searchParams.get('_count'));
    if (mode.failPage2Of === type && offset > 0) return send(500, { resourceType: 'OperationOutcome', issue: [] });
    const all = resourcesOf(type!);
    const next = offset + count < all.length
      ? [{ relation: 'next', url: mode.foreignNext ? `http://elsewhere.invalid/fhir/${type}?_offset=${offset + count}` : `${base}/fhir/${type}?patient=p1&_count=${count}&_offset=${offset + count}` }]
      : [];
    send(200, { resourceType: 'Bundle', type: 'searchset', link: next, entry: all.slice(offset, offset + count).map((resource) => ({ resource, search: { mode: 'match' } })) });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => { await new Promise((r) => server.close(r)); });

describe.each(backends)('sync on $name', (backend) => {
  let db: Db | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
    Object.assign(mode, { failPage2Of: null, refuse: false, invalidOne: false, foreignNext: false, claims: 120 });
  });

  async function setUp(): Promise<{ deps: SyncDeps; db: Db }> {
    db = await backend.open();
    await migrate(db);
    await db.query(`INSERT INTO accounts (id, email, email_lower, password_hash) VALUES ('a1', 'a@x.test', 'a@x.test', 'h')`);
    await db.query(`INSERT INTO patients (id, account_id, relationship) VALUES ('pat1', 'a1', 'self')`);
    const payer: RecordsPayer = { key: 'local', label: 'Local Payer', fhirBaseUrl: `${base}/fhir`, authorizeUrl: `${base}/auth`, tokenUrl: `${base}/token`, clientId: 'c', scope: 'patient/*.rs' };
    const box = secretBox(Buffer.alloc(32, 7));
    const store = sqlRecordsStore(db);
    await store.upsertConnection({ patientId: 'pat1', accountId: 'a1', payerKey: 'local', payerLabel: 'Local Payer', fhirPatientId: 'p1', tokensEnc: box.seal(JSON.stringify({ accessToken: 't', refreshToken: null, expiresAt: null })), scope: null });
    let t = Date.parse('2026-06-01T00:00:00Z');
    const deps: SyncDeps = { store, client: undiciPayerClient([payer], { timeoutMs: 5000 }), box, payers: [payer], clock: { now: () => new Date((t += 1000)) }, log: pino({ level: 'silent' }), pageSize: 50 };
    return { deps, db };
  }

  const counts = async (d: Db) => (await d.query<{ resource_type: string; n: number }>(
    'SELECT resource_type, count(*)::int AS n FROM records_resources GROUP BY resource_type ORDER BY 1')).rows;

  it('a sync that fails on page 2 keeps the previous data and says why', async () => {
    const { deps, db: d } = await setUp();
    expect((await syncRecords('pat1', deps)).outcome).toBe('ok');
    const before = await counts(d);
    expect(before).toEqual([{ resource_type: 'Condition', n: 1 }, { resource_type: 'Coverage', n: 1 }, { resource_type: 'ExplanationOfBenefit', n: 120 }, { resource_type: 'Patient', n: 1 }]);
    const good = await deps.store.getConnection('pat1');

    mode.claims = 130;
    mode.failPage2Of = 'ExplanationOfBenefit';
    const r = await syncRecords('pat1', deps);
    expect(r.outcome).toBe('failed');
    expect(await counts(d)).toEqual(before);
    const after = (await deps.store.getConnection('pat1'))!;
    expect(after).toMatchObject({ generation: good!.generation, sync_status: 'failed', sync_started_at: null });
    expect(after.last_synced_at).toEqual(good!.last_synced_at);
    expect(after.sync_note).toMatch(/ExplanationOfBenefit page 2: the payer answered HTTP 500.*last good sync/);

    mode.failPage2Of = null;
    expect((await syncRecords('pat1', deps)).outcome).toBe('ok');
    expect((await counts(d)).find((x) => x.resource_type === 'ExplanationOfBenefit')?.n).toBe(130);
    expect((await deps.store.getConnection('pat1'))!.sync_status).toBe('ok');
  });

  it('a refused token: needs_relink, data kept; a second sync while one runs is refused', async () => {
    const { deps, db: d } = await setUp();
    await syncRecords('pat1', deps);
    const before = await counts(d);
    mode.refuse = true;
    expect((await syncRecords('pat1', deps)).outcome).toBe('needs_relink');
    expect(await counts(d)).toEqual(before);
    expect((await deps.store.getConnection('pat1'))!.sync_note).toMatch(/Link the insurer again/);
    mode.refuse = false;
    const [a, b] = await Promise.all([syncRecords('pat1', deps), syncRecords('pat1', deps)]);
    expect([a.outcome, b.outcome].sort()).toEqual(['busy', 'ok']);
  });

  it('an invalid resource is left out and named in the note; a next link elsewhere is not followed', async () => {
    const { deps, db: d } = await setUp();
    mode.invalidOne = true;
    const r = await syncRecords('pat1', deps);
    expect(r).toMatchObject({ outcome: 'ok', invalid: 1 });
    expect(r.note).toMatch(/1 resource failed FHIR R4 validation.*Condition\.onset/);
    expect((await counts(d)).find((x) => x.resource_type === 'Condition')?.n).toBe(1);
    mode.foreignNext = true;
    const f = await syncRecords('pat1', deps);
    expect(f.outcome).toBe('failed');
    expect(f.note).toMatch(/leaves the payer's FHIR endpoint/);
  });
});
