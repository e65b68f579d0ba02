/**
 * Profile over REST (issue 2, item 10) and user isolation (issue 2, tests): one user's token never
 * reads or changes another user's profile or dependents; a foreign patientId is a plain 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DEPENDENTS } from '../../engine/profile/profile.operations.ts';
import { signUpUser, startListeningApp, type ListeningApp } from './platform-fixture.ts';

interface Patient { patientId: string; relationship: string; demographics: Record<string, unknown> }
interface Profile {
  accountId: string; email: string; patients: Patient[];
  onboarding: { complete: boolean; termsAccepted: boolean; acceptedAt: string | null; currentTermsVersion: string; currentPrivacyVersion: string; termsVersion: string | null };
}

let env: ListeningApp;
beforeAll(async () => { env = await startListeningApp(); });
afterAll(async () => { await env.close(); });

function as(token: string) {
  const headers = { authorization: `Bearer ${token}` };
  return {
    profile: async () => {
      const r = await env.app.inject({ method: 'GET', url: '/api/profile', headers });
      expect(r.statusCode, r.body).toBe(200);
      return r.json<Profile>();
    },
    patch: (payload: Record<string, unknown>) => env.app.inject({ method: 'PATCH', url: '/api/profile/patient', headers, payload }),
    accept: (payload: Record<string, unknown>) => env.app.inject({ method: 'POST', url: '/api/profile/accept-terms', headers, payload }),
  };
}

describe('profile', () => {
  let u: ReturnType<typeof as>;
  beforeAll(async () => { u = as((await signUpUser(env, 'profile-user@example.test')).token); });

  it('GET /api/profile: account, onboarding not complete, the self patient', async () => {
    const p = await u.profile();
    expect(p.email).toBe('profile-user@example.test');
    expect(p.onboarding).toMatchObject({ complete: false, termsAccepted: false, acceptedAt: null });
    expect(p.patients).toHaveLength(1);
    expect(p.patients[0]).toMatchObject({ relationship: 'self', patientId: expect.any(String) });
  });

  it('PATCH without patientId updates the account holder; only given fields change; null clears', async () => {
    const r = await u.patch({ givenName: 'Ada', familyName: 'Lovelace', birthDate: '1990-12-10', sex: 'female', state: 'ca', postalCode: '94110', phone: '+1 415 555 0100' });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ created: false, patient: { relationship: 'self', demographics: { givenName: 'Ada', state: 'CA', postalCode: '94110' } } });
    const r2 = await u.patch({ city: 'San Francisco', phone: null });
    expect(r2.json<{ patient: Patient }>().patient.demographics).toMatchObject({ givenName: 'Ada', city: 'San Francisco', phone: null });
  });

  it.each([
    [{ state: 'ZZ' }, 'state'],
    [{ birthDate: '2999-01-01' }, 'birthDate'],
    [{ birthDate: '2020-02-30' }, 'birthDate'],
    [{ birthDate: '10/12/1990' }, 'birthDate'],
    [{ postalCode: '9411' }, 'postalCode'],
    [{ sex: 'robot' }, 'sex'],
    [{ phone: 'call me' }, 'phone'],
    [{ givenName: '' }, 'givenName'],
    [{ givenName: 'x'.repeat(101) }, 'givenName'],
    [{ relationship: 'dependent', givenName: 'Kid' }, 'familyName'],
    [{ relationship: 'spouse' }, 'relationship'],
  ])('PATCH %j is a 400 naming %s', async (payload, field) => {
    const r = await u.patch(payload);
    expect(r.statusCode, r.body).toBe(400);
    expect(r.json()).toMatchObject({ error: 'invalid_request', field, needsAuth: false });
  });

  it('adds a dependent, lists it, updates it by patientId; relationship cannot change', async () => {
    const created = await u.patch({ relationship: 'dependent', givenName: 'Byron', familyName: 'Lovelace', birthDate: '2016-05-01' });
    expect(created.statusCode, created.body).toBe(200);
    const dep = created.json<{ patient: Patient; created: boolean }>();
    expect(dep.created).toBe(true);
    expect(dep.patient.relationship).toBe('dependent');
    const p = await u.profile();
    expect(p.patients.map((x) => x.relationship)).toEqual(['self', 'dependent']);
    const upd = await u.patch({ patientId: dep.patient.patientId, city: 'Oakland' });
    expect(upd.json()).toMatchObject({ created: false, patient: { patientId: dep.patient.patientId, demographics: { givenName: 'Byron', city: 'Oakland' } } });
    const change = await u.patch({ patientId: dep.patient.patientId, relationship: 'self' });
    expect(change.statusCode).toBe(400);
    expect(change.json()).toMatchObject({ field: 'relationship' });
    const missing = await u.patch({ patientId: 'pat_doesnotexist', city: 'X' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: 'not_found', field: 'patientId' });
  });

  it(`caps dependents at ${MAX_DEPENDENTS} per account with a 409`, async () => {
    const v = as((await signUpUser(env, 'big-family@example.test')).token);
    for (let i = 0; i < MAX_DEPENDENTS; i++) {
      expect((await v.patch({ relationship: 'dependent', givenName: `K${i}`, familyName: 'F', birthDate: '2010-01-01' })).statusCode).toBe(200);
    }
    const over = await v.patch({ relationship: 'dependent', givenName: 'One', familyName: 'More', birthDate: '2010-01-01' });
    expect(over.statusCode).toBe(409);
    expect(over.json()).toMatchObject({ error: 'conflict', code: 'too_many_dependents' });
  });

  it('accept-terms: wrong versions are a 400 naming the field; the current ones complete onboarding', async () => {
    const { onboarding } = await u.profile();
    const wrong = await u.accept({ termsVersion: '1999-01-01', privacyVersion: onboarding.currentPrivacyVersion });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ field: 'termsVersion', code: 'terms_version_mismatch' });
    const wrongP = await u.accept({ termsVersion: onboarding.currentTermsVersion, privacyVersion: 'old' });
    expect(wrongP.json()).toMatchObject({ field: 'privacyVersion' });
    const missing = await u.accept({ termsVersion: onboarding.currentTermsVersion });
    expect(missing.json()).toMatchObject({ field: 'privacyVersion', code: 'missing_field' });
    const ok = await u.accept({ termsVersion: onboarding.currentTermsVersion, privacyVersion: onboarding.currentPrivacyVersion });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ onboarding: { complete: true, termsAccepted: true, termsVersion: onboarding.currentTermsVersion } });
    const after = await u.profile();
    expect(after.onboarding.complete).toBe(true);
    expect(Date.parse(after.onboarding.acceptedAt!)).not.toBeNaN();
  });
});

describe('user isolation', () => {
  it('user B never reads or changes user A\'s profile or dependents', async () => {
    const a = as((await signUpUser(env, 'alice@example.test')).token);
    const b = as((await signUpUser(env, 'bob@example.test')).token);
    await a.patch({ givenName: 'Alice', birthDate: '1980-01-01' });
    const depA = (await a.patch({ relationship: 'dependent', givenName: 'Ann', familyName: 'A', birthDate: '2012-02-02' })).json<{ patient: Patient }>().patient;
    const profA = await a.profile();
    const selfA = profA.patients.find((p) => p.relationship === 'self')!;

    const profB = await b.profile();
    expect(profB.accountId).not.toBe(profA.accountId);
    expect(profB.email).toBe('bob@example.test');
    const bIds = profB.patients.map((p) => p.patientId);
    expect(bIds).not.toContain(depA.patientId);
    expect(bIds).not.toContain(selfA.patientId);
    expect(JSON.stringify(profB)).not.toContain('Alice');

    for (const target of [depA.patientId, selfA.patientId]) {
      const r = await b.patch({ patientId: target, givenName: 'Mallory' });
      expect(r.statusCode).toBe(404);
      // Same answer as for an id that exists nowhere: existence is not revealed.
      const none = await b.patch({ patientId: 'pat_nope', givenName: 'Mallory' });
      expect(r.json()).toEqual(none.json());
    }
    const b2 = await b.patch({ relationship: 'dependent', givenName: 'Bea', familyName: 'B', birthDate: '2015-01-01' });
    expect(b2.statusCode).toBe(200);
    await b.accept({ termsVersion: profB.onboarding.currentTermsVersion, privacyVersion: profB.onboarding.currentPrivacyVersion });

    const afterA = await a.profile();
    expect(afterA.patients).toEqual(profA.patients);
    expect(afterA.onboarding.complete).toBe(false);
    expect(JSON.stringify(afterA)).not.toMatch(/Mallory|Bea/);
  });
});
