/** Issue 38, item 4: password policy, NFKC normalisation, and persisted growing delays. */
import { randomBytes } from 'node:crypto';
import { argon2id } from 'hash-wasm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import { AccountsService } from '../../engine/identity/accounts.ts';
import { LoginThrottle, THROTTLE, delayAfter } from '../../engine/identity/login-throttle.ts';
import { ARGON2_PARAMS, verifyPassword } from '../../engine/identity/password.ts';
import type { Db } from '../../engine/ports/db.ts';
import { migrate } from '../../engine/storage/migrate.ts';

let db: Db;
let accounts: AccountsService;
beforeAll(async () => {
  db = await openPgliteDb(undefined);
  await migrate(db);
  accounts = new AccountsService(db);
});
afterAll(async () => { await db?.close(); });

describe('new passwords', () => {
  test.each([
    ['password12', 'password_too_short'],
    ['1234567890', 'password_too_short'],
    [' '.repeat(10), 'password_too_short'],
    ['12345678901234', 'password_too_short'],
    ['123456789012345', 'password_too_common'],
    [' '.repeat(15), 'password_too_common'],
    ['passwordpassword', 'password_too_common'],
    ['qwertyuiopasdfgh', 'password_too_common'],
    ['iloveyou12345678', 'password_too_common'],
    ['blockme.user@example.com', 'password_too_common'],
  ])('%j is refused (%s)', async (password, code) => {
    await expect(accounts.create({ email: 'blockme.user@example.com', password }))
      .rejects.toMatchObject({ code: 'invalid_request', details: { field: 'password', code } });
  });

  test('length counts code points after NFKC: 15 emoji are 15 characters', async () => {
    const r = await accounts.create({ email: 'emoji@example.com', password: '🦊🐢🌵🎻🚲🧭🍋🪁🦉🎲🌋🧲🪐🥁🐙' });
    expect(r.created).toBe(true);
  });
});

describe('NFKC normalisation', () => {
  test('a password typed in full-width or decomposed form verifies against the same account', async () => {
    const { account } = await accounts.create({ email: 'nfkc@example.com', password: 'ｃａｆé ｍｏｕｎｔａｉｎ ｒｉｖｅｒ' });
    expect(await accounts.verifyLogin('nfkc@example.com', 'café mountain river')).toMatchObject({ id: account.id });
    expect(await accounts.verifyLogin('nfkc@example.com', 'cafe\u0301 mountain river')).toMatchObject({ id: account.id });
    expect(await accounts.verifyLogin('nfkc@example.com', 'cafe mountain river')).toBeNull();
  });

  test('a hash made from the raw (unnormalised) password still verifies, and is upgraded', async () => {
    const raw = 'ﬁve ﬂying ﬁsh over the bay'; // ligatures: NFKC turns ﬁ into "fi"
    const legacy = await argon2id({ password: raw, salt: randomBytes(16), ...ARGON2_PARAMS, outputType: 'encoded' });
    await db.query(`INSERT INTO accounts (id, email, email_lower, password_hash) VALUES ('legacy-1', 'old@example.com', 'old@example.com', $1)`, [legacy]);
    expect(await accounts.verifyLogin('old@example.com', raw)).toMatchObject({ id: 'legacy-1' });
    const { rows } = await db.query<{ password_hash: string }>(`SELECT password_hash FROM accounts WHERE id = 'legacy-1'`);
    expect(rows[0]!.password_hash).not.toBe(legacy);
    expect(await verifyPassword('five flying fish over the bay', rows[0]!.password_hash)).toBe(true);
    expect(await accounts.verifyLogin('old@example.com', 'five flying fish over the bay')).toMatchObject({ id: 'legacy-1' });
  });
});

describe('sign-in throttle', () => {
  const clock = { t: new Date('2026-11-28T12:00:00Z'), now() { return new Date(this.t); }, advance(s: number) { this.t = new Date(this.t.getTime() + s * 1000); } };

  test('delays grow 1, 2, 4 s … after the free attempts, capped', () => {
    expect([4, 5, 6, 7].map((n) => delayAfter(n, THROTTLE.accountIp))).toEqual([0, 1, 2, 4]);
    expect(delayAfter(100, THROTTLE.accountIp)).toBe(THROTTLE.accountIp.maxDelay);
  });

  test('growing delays per account and address, persisted, and no lockout of a known device', async () => {
    const throttle = new LoginThrottle(db, clock);
    const attacker = { email: 'victim@example.com', ip: '203.0.113.7', knownDevice: false };
    for (let i = 0; i < THROTTLE.accountIp.free; i++) {
      expect(await throttle.waitSeconds(attacker)).toBe(0);
      await throttle.recordFailure(attacker);
    }
    expect(await throttle.waitSeconds(attacker)).toBe(1);
    clock.advance(1);
    await throttle.recordFailure(attacker);
    expect(await throttle.waitSeconds(attacker)).toBe(2);
    clock.advance(2);
    await throttle.recordFailure(attacker);
    // Stored in the database: a new instance (a restart) sees the same delay.
    expect(await new LoginThrottle(db, clock).waitSeconds(attacker)).toBe(4);

    // The user on another address is not slowed by the attacker's address key…
    const user = { email: 'victim@example.com', ip: '198.51.100.9', knownDevice: false };
    expect(await throttle.waitSeconds(user)).toBe(0);
    // …until the attacker, from many addresses, exhausts the account-wide budget: then a new
    // browser waits, but the user's own browser (device cookie) does not.
    for (let i = 0; i < THROTTLE.account.free; i++) await throttle.recordFailure({ ...attacker, ip: `203.0.113.${100 + i}` });
    expect(await throttle.waitSeconds(user)).toBeGreaterThan(0);
    expect(await throttle.waitSeconds({ ...user, knownDevice: true })).toBe(0);

    // A success clears the account keys; the attacker's address keeps its own delay.
    await throttle.recordSuccess(user);
    expect(await throttle.waitSeconds(user)).toBe(0);
    expect(await throttle.waitSeconds(attacker)).toBeGreaterThan(0);

    // Failures are forgotten a day after the last one.
    clock.advance(THROTTLE.forgetAfter + 1);
    await throttle.recordFailure(attacker);
    expect(await throttle.waitSeconds(attacker)).toBe(0);
  });
});
