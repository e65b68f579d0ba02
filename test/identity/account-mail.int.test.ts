/**
 * Issue 38, items 5 and 8 through the real edges: the app sends mail over SMTP (nodemailer) to a
 * local `smtp-server` on 127.0.0.1; sign-up answers alike for new and existing addresses; the
 * verification and reset links work once; a reset revokes the account's tokens.
 */
import { Writable } from 'node:stream';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createFileMailer } from '../../engine/adapters/mailer.file.ts';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import { AccountTokens } from '../../engine/identity/account-tokens.ts';
import { migrate } from '../../engine/storage/migrate.ts';
import { ManualClock } from '../helpers/app.ts';
import { driveBrowser, exchangeCode, prepareAuthorization, refresh } from '../helpers/oauth-flow.ts';
import { MAILS_PER_ADDRESS_PER_MINUTE } from '../../api/identity/account-routes.ts';
import { startIdentityApp, type IdentityHarness } from './harness.ts';

interface Received { to: string; subject: string; text: string }
const inbox: Received[] = [];
let smtp: SMTPServer;
let h: IdentityHarness;

/** Waits (bounded) for the n-th message to `to`; mail leaves after the page is answered. */
async function mailTo(to: string, n = 1): Promise<Received> {
  for (let i = 0; i < 200; i++) {
    const got = inbox.filter((m) => m.to === to.toLowerCase());
    if (got.length >= n) return got[n - 1]!;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no mail #${n} to ${to}`);
}

function linkIn(m: Received): URL {
  const hit = /https?:\/\/\S+/.exec(m.text);
  return new URL(hit![0]);
}

const form = (url: URL | string, fields: Record<string, string>) => fetch(url, {
  method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(),
});

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const [head = '', ...body] = raw.split(/\r?\n\r?\n/);
        const subject = /^Subject: (.*(?:\r?\n\s.*)*)/m.exec(head)?.[1]?.replace(/\r?\n\s/g, ' ') ?? '';
        // Undo quoted-printable (nodemailer's choice for long lines) so that links read whole.
        const text = body.join('\n\n').replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        for (const rcpt of session.envelope.rcptTo) inbox.push({ to: rcpt.address.toLowerCase(), subject, text });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as { port: number }).port;
  // A clock that stands still: the per-minute mail cap's window cannot turn during the test.
  h = await startIdentityApp({ SMTP_URL: `smtp://127.0.0.1:${port}` }, undefined, new ManualClock());
});
afterAll(async () => {
  await h?.close();
  await new Promise<void>((resolve) => smtp.close(resolve));
});

const password = 'correct horse battery';

describe('sign-up does not tell who has an account (item 5)', () => {
  test('a new and an existing address get the same answer; the mail differs', async () => {
    await form(new URL('/oauth/signup', h.baseUrl), { email: 'known@example.com', password });
    const first = await mailTo('known@example.com');
    expect(first.subject).toBe('Confirm your email address for carebridge');

    const answer = async (email: string) => {
      const res = await form(new URL('/oauth/signup', h.baseUrl), { email, password: 'a different long password' });
      return { status: res.status, html: (await res.text()).replaceAll(email, 'EMAIL') };
    };
    const existing = await answer('known@example.com');
    const fresh = await answer('unknown@example.com');
    expect(existing.status).toBe(200);
    expect(existing).toEqual(fresh);
    expect(existing.html).toContain('Check your email');
    expect(existing.html).not.toMatch(/already exists|email_taken/i);
    expect((await mailTo('known@example.com', 2)).subject).toBe('Someone tried to create a carebridge account with your address');
    expect((await mailTo('unknown@example.com')).subject).toBe('Confirm your email address for carebridge');
  });

  test('in the OAuth interaction too: the same page, whose sign-in form continues the authorization', async () => {
    const p = await prepareAuthorization(h.baseUrl);
    const r = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: 'known@example.com', password: 'a different long password', stopAtConsent: true });
    // The newcomer's own password works on the check-email page; another's does not.
    expect(r.page?.status).toBe(401);
    const q = await prepareAuthorization(h.baseUrl);
    const ok = await driveBrowser(q.authorizationUrl, q.redirectUri, { email: 'newcomer@example.com', password });
    expect(ok.callback?.searchParams.get('code')).toBeTruthy();
  });
});

describe('email verification and password reset (item 8)', () => {
  test('the verification link works once and marks the address confirmed', async () => {
    await form(new URL('/oauth/signup', h.baseUrl), { email: 'verify.me@example.com', password });
    const link = linkIn(await mailTo('verify.me@example.com'));
    expect(link.pathname).toBe('/account/verify-email');
    const token = link.searchParams.get('token')!;
    // Stored hashed: the token itself is nowhere in the table.
    const { rows } = await h.db.query<{ token_hash: string }>('SELECT token_hash FROM account_tokens');
    expect(rows.map((r) => r.token_hash)).not.toContain(token);
    // A GET (a mail scanner) does not use it up; the button's POST does.
    expect(await (await fetch(link)).text()).toContain('action="/account/verify-email"');
    const done = await form(new URL('/account/verify-email', h.baseUrl), { token });
    expect(done.status).toBe(200);
    const again = await form(new URL('/account/verify-email', h.baseUrl), { token });
    expect(again.status).toBe(400);
    const v = await h.db.query<{ v: boolean }>(`SELECT email_verified_at IS NOT NULL AS v FROM accounts WHERE email_lower = 'verify.me@example.com'`);
    expect(v.rows[0]!.v).toBe(true);
  });

  test('forgot password → reset link → new password; the link works once and the old tokens stop working', async () => {
    const address = 'reset.me@example.com';
    const p = await prepareAuthorization(h.baseUrl);
    const { callback } = await driveBrowser(p.authorizationUrl, p.redirectUri, { email: address, password });
    const tokens = await exchangeCode(p, callback!);
    expect(await h.identity.verifyAccessToken(tokens.access_token)).not.toBeNull();

    const unknown = await form(new URL('/account/forgot-password', h.baseUrl), { email: 'nobody.here@example.com' });
    const known = await form(new URL('/account/forgot-password', h.baseUrl), { email: address });
    expect(known.status).toBe(200);
    expect((await known.text()).replaceAll(address, 'E')).toBe((await unknown.text()).replaceAll('nobody.here@example.com', 'E'));
    const mail = await mailTo(address, 2);
    expect(mail.subject).toBe('Reset your carebridge password');
    const link = linkIn(mail);
    const token = link.searchParams.get('token')!;
    expect(await (await fetch(link)).text()).toContain('Choose a new password');

    // A refused password does not use the link up.
    const weak = await form(new URL('/account/reset-password', h.baseUrl), { token, password: 'passwordpassword' });
    expect(weak.status).toBe(400);
    expect(await weak.text()).toContain('too common');
    const ok = await form(new URL('/account/reset-password', h.baseUrl), { token, password: 'a brand new long secret' });
    expect(ok.status).toBe(200);
    expect((await form(new URL('/account/reset-password', h.baseUrl), { token, password: 'yet another long secret' })).status).toBe(400);

    expect(await h.identity.verifyAccessToken(tokens.access_token)).toBeNull();
    await expect(refresh(p, tokens.refresh_token!)).rejects.toThrow();
    const q = await prepareAuthorization(h.baseUrl);
    const old = await driveBrowser(q.authorizationUrl, q.redirectUri, { email: address, password, signIn: true });
    expect(old.page?.status).toBe(401);
    const fresh = await driveBrowser(q.authorizationUrl, q.redirectUri, { email: address, password: 'a brand new long secret', signIn: true });
    expect(fresh.callback).toBeDefined();
  });

  test('links expire', async () => {
    const db = await openPgliteDb(undefined);
    await migrate(db);
    await db.query(`INSERT INTO accounts (id, email, email_lower, password_hash) VALUES ('a1', 'x@example.com', 'x@example.com', 'h')`);
    const clock = { t: Date.parse('2026-11-28T12:00:00Z'), now() { return new Date(this.t); } };
    const tokens = new AccountTokens(db, clock);
    const token = await tokens.issue('a1', 'reset_password');
    clock.t += 3601_000;
    expect(await tokens.peek(token, 'reset_password')).toBeNull();
    expect(await tokens.consume(token, 'reset_password')).toBeNull();
    const next = await tokens.issue('a1', 'reset_password');
    expect(await tokens.consume(next, 'verify_email')).toBeNull();
    expect(await tokens.consume(next, 'reset_password')).toBe('a1');
    await db.close();
  });
});

describe('file outbox (embedded default)', () => {
  test('one JSON file per message under DATA_DIR/mail, 0600, and its link in the log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-mail-'));
    const lines: string[] = [];
    const log = pino({ level: 'info' }, new Writable({ write(chunk: Buffer, _e, cb) { lines.push(chunk.toString()); cb(); } }));
    const mailer = createFileMailer(join(dir, 'mail'), 'carebridge <no-reply@x.example>', log);
    await mailer.send({ to: 'a@example.com', subject: 'Hello', text: 'Open https://x.example/l?token=abc', link: 'https://x.example/l?token=abc' });
    const files = readdirSync(join(dir, 'mail'));
    expect(files).toHaveLength(1);
    expect(statSync(join(dir, 'mail', files[0]!)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, 'mail', files[0]!), 'utf8'))).toMatchObject({ to: 'a@example.com', subject: 'Hello', link: 'https://x.example/l?token=abc' });
    expect(lines.join('')).toContain('https://x.example/l?token=abc');
    rmSync(dir, { recursive: true, force: true });
  });
});

// Last: it closes the identity (to wait for the mail in flight).
describe('mail per address is capped', () => {
  test('five sign-ups for one address in a minute send three mails; each answer is the same', async () => {
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await form(new URL('/oauth/signup', h.baseUrl), { email: 'flood@example.com', password: `flooding long password ${i}` });
      answers.push(`${res.status} ${await res.text()}`);
    }
    expect(new Set(answers).size).toBe(1);
    await mailTo('flood@example.com', MAILS_PER_ADDRESS_PER_MINUTE);
    // Every sign-up's work is done before its page is answered; what is in flight goes out on close.
    await h.identity.close();
    expect(inbox.filter((m) => m.to === 'flood@example.com')).toHaveLength(MAILS_PER_ADDRESS_PER_MINUTE);
  });
});
