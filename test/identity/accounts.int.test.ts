/** Accounts service on a real (in-memory PGlite) database with the real migrations. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AppError } from '../../engine/core/errors.ts';
import { AccountsService } from '../../engine/identity/accounts.ts';
import { hashPassword, verifyPassword } from '../../engine/identity/password.ts';
import type { Db } from '../../engine/ports/db.ts';
import { migrate } from '../../engine/storage/migrate.ts';
import { backends, useBackends } from '../storage/backends.ts';

useBackends();

describe('password hashing', () => {
  test('argon2id PHC string with OWASP parameters and a random salt', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'not a hash')).toBe(false);
    expect(await verifyPassword('correct horse battery', a.replace('argon2id', 'argon2i'))).toBe(false);
  });
});

describe.each(backends)('accounts on $name', (backend) => {
  let db: Db;
  let accounts: AccountsService;
  beforeAll(async () => {
    db = await backend.open();
    await migrate(db);
    accounts = new AccountsService(db);
  });
  afterAll(async () => { await db?.close(); });

  describe('sign-up', () => {
    test('creates the account and its self patient', async () => {
      const { account: acc, created } = await accounts.create({ email: '  Ada@Example.com ', password: 'long enough password', name: ' Ada ' });
      expect(created).toBe(true);
      expect(acc).toMatchObject({ email: 'Ada@Example.com', displayName: 'Ada', emailVerified: false });
      expect(acc.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const { rows } = await db.query<{ id: string; relationship: string }>('SELECT id, relationship FROM patients WHERE account_id = $1', [acc.id]);
      // The self patient is made by the profile store (engine/profile), in the same transaction.
      expect(rows).toEqual([{ id: expect.any(String), relationship: 'self' }]);
      expect(await accounts.findById(acc.id)).toEqual(acc);
      expect(await accounts.findById('no-such-id')).toBeNull();
    });

    test.each([
      [{ email: 'no-at-sign', password: 'long enough password' }, 'email', 'invalid_email'],
      [{ email: 'a@b', password: 'long enough password' }, 'email', 'invalid_email'],
      [{ email: 'x@example.com', password: 'short' }, 'password', 'password_too_short'],
      [{ email: 'x@example.com', password: 'p'.repeat(257) }, 'password', 'password_too_long'],
      [{ email: 'x@example.com', password: 'long enough password', name: 'n'.repeat(201) }, 'name', 'name_too_long'],
    ])('refuses %j naming the field', async (input, field, code) => {
      const err = await accounts.create(input).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'invalid_request', details: { field, code } });
    });

    test('a taken email (any case) returns the existing account, also when two sign-ups race', async () => {
      const first = await accounts.create({ email: 'taken@example.com', password: 'long enough password' });
      const again = await accounts.create({ email: 'TAKEN@example.com', password: 'another long password' });
      expect(again).toEqual({ created: false, account: first.account });
      const results = await Promise.all([
        accounts.create({ email: 'race@example.com', password: 'long enough password' }),
        accounts.create({ email: 'Race@example.com', password: 'long enough password' }),
      ]);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(results[0].account.id).toBe(results[1].account.id);
    });
  });

  describe('sign-in check', () => {
    test('right password, wrong password, unknown email', async () => {
      const { account: acc } = await accounts.create({ email: 'login@example.com', password: 'long enough password' });
      expect(await accounts.verifyLogin('LOGIN@example.com ', 'long enough password')).toEqual(acc);
      expect(await accounts.verifyLogin('login@example.com', 'long enough passworD')).toBeNull();
      expect(await accounts.verifyLogin('nobody@example.com', 'long enough password')).toBeNull();
      expect(await accounts.verifyLogin('', '')).toBeNull();
    });
  });
});
