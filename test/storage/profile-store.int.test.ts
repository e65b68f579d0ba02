import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../engine/ports/db.ts';
import { migrate } from '../../engine/storage/migrate.ts';
import { sqlProfileStore } from '../../engine/profile/profile-store.ts';
import { backends, useBackends } from './backends.ts';

useBackends();

async function account(db: Db, id: string): Promise<void> {
  await db.query('INSERT INTO accounts (id, email, email_lower, password_hash) VALUES ($1, $2, $2, $3)', [id, `${id}@example.test`, 'h']);
}

describe.each(backends)('profile store on $name', (backend) => {
  let db: Db | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  async function fresh(): Promise<Db> {
    db = await backend.open();
    await migrate(db);
    await account(db, 'acct_a');
    await account(db, 'acct_b');
    return db;
  }

  it('creates the self patient lazily, once, even when asked concurrently', async () => {
    const d = await fresh();
    const store = sqlProfileStore(d);
    const [p1, p2, p3] = await Promise.all([store.ensureSelfPatient('acct_a'), store.ensureSelfPatient('acct_a'), store.ensureSelfPatient('acct_a')]);
    expect(p1.patientId).toBe(p2.patientId);
    expect(p2.patientId).toBe(p3.patientId);
    expect(p1.relationship).toBe('self');
    expect(await store.listPatients('acct_a')).toHaveLength(1);
  });

  it('creates, reads, updates (partial; null clears) and lists patients, self first', async () => {
    const d = await fresh();
    const store = sqlProfileStore(d);
    const dep = await store.createDependent('acct_a', { givenName: 'Kid', familyName: 'Doe', birthDate: '2015-03-04', state: 'CA' });
    expect(dep.demographics).toMatchObject({ givenName: 'Kid', familyName: 'Doe', birthDate: '2015-03-04', state: 'CA', city: null });
    const self = await store.ensureSelfPatient('acct_a');
    const updated = await store.updatePatient('acct_a', dep.patientId, { city: 'Oakland', state: null });
    expect(updated?.demographics).toMatchObject({ givenName: 'Kid', city: 'Oakland', state: null, birthDate: '2015-03-04' });
    const list = await store.listPatients('acct_a');
    expect(list.map((p) => p.patientId)).toEqual([self.patientId, dep.patientId]);
    expect(await store.countDependents('acct_a')).toBe(1);
  });

  it('never returns or changes another account\'s patient', async () => {
    const d = await fresh();
    const store = sqlProfileStore(d);
    const depA = await store.createDependent('acct_a', { givenName: 'A-kid' });
    expect(await store.getPatient('acct_b', depA.patientId)).toBeNull();
    expect(await store.updatePatient('acct_b', depA.patientId, { givenName: 'stolen' })).toBeNull();
    expect((await store.getPatient('acct_a', depA.patientId))?.demographics.givenName).toBe('A-kid');
    expect(await store.listPatients('acct_b')).toEqual([]);
  });

  it('records terms acceptances and returns the latest', async () => {
    const d = await fresh();
    const store = sqlProfileStore(d);
    expect(await store.latestAcceptance('acct_a')).toBeNull();
    await store.recordAcceptance('acct_a', 't1', 'p1', new Date('2026-01-01T00:00:00Z'));
    await store.recordAcceptance('acct_a', 't2', 'p2', new Date('2026-02-01T00:00:00Z'));
    const latest = await store.latestAcceptance('acct_a');
    expect(latest).toEqual({ termsVersion: 't2', privacyVersion: 'p2', acceptedAt: new Date('2026-02-01T00:00:00Z') });
    expect(await store.latestAcceptance('acct_b')).toBeNull();
  });

  it('deleting an account removes its patients and acceptances (ON DELETE CASCADE)', async () => {
    const d = await fresh();
    const store = sqlProfileStore(d);
    await store.createDependent('acct_a', { givenName: 'x' });
    await store.recordAcceptance('acct_a', 't', 'p', new Date());
    await d.query('DELETE FROM accounts WHERE id = $1', ['acct_a']);
    expect(await store.listPatients('acct_a')).toEqual([]);
    expect(await store.latestAcceptance('acct_a')).toBeNull();
  });
});
