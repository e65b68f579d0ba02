/**
 * Issue 38, item 10: `carebridge login`'s device grant (RFC 8628) against the real authorization
 * server, its verification pages driven with form posts as a browser without JavaScript would.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { currentToken, deviceLogin, readToken, saveToken, type DevicePrompt } from '../../cli/device-login.ts';
import { CookieJar, driveBrowser } from '../helpers/oauth-flow.ts';
import { startIdentityApp, type IdentityHarness } from './harness.ts';

let h: IdentityHarness;
let dir: string;
beforeAll(async () => {
  h = await startIdentityApp();
  dir = mkdtempSync(join(tmpdir(), 'cb-login-'));
});
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

const noWait = async () => {};

describe('carebridge login (device authorization grant)', () => {
  test('a newcomer enters the code, signs up, approves; the command gets a token for this API', async () => {
    let shown: DevicePrompt | undefined;
    let page: { status: number; html: string } | undefined;
    const token = await deviceLogin({
      url: h.baseUrl,
      sleep: noWait,
      prompt: async (p) => {
        shown = p;
        // The user opens the plain verification URL and types the code, as the terminal says.
        const jar = new CookieJar();
        const entry = await fetch(p.verificationUri, { headers: { cookie: jar.header() } });
        jar.store(entry);
        const html = await entry.text();
        expect(html).toContain('Connect a device');
        const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1]!;
        const typed = await fetch(p.verificationUri, {
          method: 'POST', redirect: 'manual',
          headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ xsrf, user_code: p.userCode.toLowerCase().replace('-', ' ') }).toString(),
        });
        jar.store(typed);
        const confirm = await typed.text();
        expect(confirm).toContain('Is this the code on your device?');
        expect(confirm).toContain(p.userCode);
        const action = new URL(/<form[^>]*action="([^"]+)"/.exec(confirm)![1]!, p.verificationUri);
        // From the confirmation on, the pages are the usual sign-up and consent forms.
        const confirmFields = [...confirm.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m): [string, string] => [m[1]!, m[2]!]);
        const done = await fetch(action, {
          method: 'POST', redirect: 'manual',
          headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(confirmFields).toString(),
        });
        jar.store(done);
        const r = await driveBrowser(new URL(done.headers.get('location')!, p.verificationUri), 'http://never.example/', { email: 'device.user@example.com', password: 'correct horse battery' }, jar);
        page = r.page;
      },
    });
    expect(shown?.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(shown?.verificationUri).toBe(`${h.baseUrl}/oauth/device`);
    expect(page?.status).toBe(200);
    expect(page?.html).toContain('Device connected');
    const verified = await h.identity.verifyAccessToken(token.accessToken);
    expect(verified).toMatchObject({ clientId: 'carebridge-cli', audience: h.baseUrl });
    expect(token.refreshToken).toBeTruthy();

    // --save writes a 0600 file; `carebridge token` prints it, and renews it once expired.
    const file = join(dir, 'sub', 'token.json');
    await saveToken(file, token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await currentToken(file)).toBe(token.accessToken);
    const renewed = await currentToken(file, { now: () => token.expiresAt + 10 });
    expect(renewed).not.toBe(token.accessToken);
    expect(await h.identity.verifyAccessToken(renewed)).toMatchObject({ clientId: 'carebridge-cli' });
    expect((await readToken(file))?.accessToken).toBe(renewed);
  });

  test('a wrong code is refused on the page; a cancelled sign-in ends the command with a message', async () => {
    await expect(deviceLogin({
      url: h.baseUrl,
      sleep: noWait,
      prompt: async (p) => {
        const jar = new CookieJar();
        const entry = await fetch(p.verificationUri);
        jar.store(entry);
        const xsrf = /name="xsrf" value="([^"]+)"/.exec(await entry.text())![1]!;
        const post = (fields: Record<string, string>) => fetch(p.verificationUri, {
          method: 'POST', redirect: 'manual',
          headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ xsrf, ...fields }).toString(),
        });
        expect(await (await post({ user_code: 'BCDF-GHJK' })).text()).toContain('That code is not valid');
        const confirm = await (await post({ user_code: p.userCode })).text();
        const xsrf2 = /name="xsrf" value="([^"]+)"/.exec(confirm)![1]!;
        const aborted = await fetch(p.verificationUri, {
          method: 'POST', redirect: 'manual',
          headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ xsrf: xsrf2, user_code: p.userCode, abort: 'yes' }).toString(),
        });
        expect(await aborted.text()).toContain('cancelled');
      },
    })).rejects.toThrow(/cancelled/);
  });

  test('an unreachable server is one clear line', async () => {
    await expect(deviceLogin({ url: 'http://127.0.0.1:9', sleep: noWait, prompt: () => {} })).rejects.toThrow(/cannot reach .*npm start/);
  });
});
