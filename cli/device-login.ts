/**
 * `carebridge login` and `carebridge token` as plain functions (STYLE.md 11): the OAuth 2.0
 * device authorization grant (RFC 8628) against a running server, and the saved token file.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLI_CLIENT_ID } from '../engine/account/links.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8787';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** ~/.config/carebridge/token.json */
export function defaultTokenFile(): string {
  return join(homedir(), '.config', 'carebridge', 'token.json');
}

export interface SavedToken {
  url: string;
  accessToken: string;
  refreshToken?: string | undefined;
  /** Unix seconds. */
  expiresAt: number;
}

export interface DevicePrompt {
  verificationUri: string;
  verificationUriComplete?: string | undefined;
  userCode: string;
  expiresIn: number;
}

export interface LoginOptions {
  url: string;
  /** Shown to the user (stderr in the CLI); awaited before polling starts. */
  prompt(p: DevicePrompt): void | Promise<void>;
  /** Waits between polls; tests pass one that does not wait. */
  sleep?: (seconds: number) => Promise<void>;
  now?: () => number;
  fetchImpl?: typeof fetch;
}

interface Metadata { device_authorization_endpoint?: string; token_endpoint?: string }

async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${res.url} answered HTTP ${res.status} with no JSON (is this a carebridge server?)`);
  }
}

async function metadata(url: string, f: typeof fetch): Promise<Required<Metadata>> {
  const res = await f(new URL('/.well-known/oauth-authorization-server', url)).catch((err: unknown) => {
    throw new Error(`cannot reach ${url} (${(err as Error).message}); is the server running (npm start)?`);
  });
  const m = await json<Metadata>(res);
  if (!m.device_authorization_endpoint || !m.token_endpoint) throw new Error(`${url} does not offer the device login (no device_authorization_endpoint)`);
  return { device_authorization_endpoint: m.device_authorization_endpoint, token_endpoint: m.token_endpoint };
}

/**
 * Runs the device grant: asks for a device code, shows the user the verification URL and code,
 * then polls the token endpoint at the server's interval (RFC 8628 §3.4–3.5: `authorization_
 * pending` keeps polling, `slow_down` adds 5 s, anything else ends it). Returns the tokens.
 */
export async function deviceLogin(o: LoginOptions): Promise<SavedToken> {
  const f = o.fetchImpl ?? fetch;
  const sleep = o.sleep ?? ((s: number) => new Promise<void>((r) => setTimeout(r, s * 1000)));
  const now = o.now ?? (() => Date.now() / 1000);
  const m = await metadata(o.url, f);
  const auth = await json<{ device_code?: string; user_code?: string; verification_uri?: string; verification_uri_complete?: string; expires_in?: number; interval?: number; error_description?: string; error?: string }>(
    await f(m.device_authorization_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: CLI_CLIENT_ID, scope: 'openid profile email offline_access' }).toString(),
    }));
  if (!auth.device_code || !auth.user_code || !auth.verification_uri) throw new Error(`device authorization refused: ${auth.error_description ?? auth.error ?? 'no device code'}`);
  const expiresIn = auth.expires_in ?? 600;
  await o.prompt({ verificationUri: auth.verification_uri, verificationUriComplete: auth.verification_uri_complete, userCode: auth.user_code, expiresIn });
  let interval = auth.interval ?? 5;
  const deadline = now() + expiresIn;
  while (now() < deadline) {
    await sleep(interval);
    const res = await f(m.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: auth.device_code, client_id: CLI_CLIENT_ID }).toString(),
    });
    const t = await json<{ access_token?: string; refresh_token?: string; expires_in?: number; error?: string; error_description?: string }>(res);
    if (t.access_token) return { url: o.url, accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: Math.floor(now() + (t.expires_in ?? 3600)) };
    if (t.error === 'authorization_pending') continue;
    if (t.error === 'slow_down') { interval += 5; continue; }
    if (t.error === 'access_denied') throw new Error('the sign-in was cancelled in the browser');
    if (t.error === 'expired_token') break;
    throw new Error(`login failed: ${t.error_description ?? t.error ?? `HTTP ${res.status}`}`);
  }
  throw new Error('the code expired before the sign-in finished; run carebridge login again');
}

/** Writes the token file with mode 0600 (directory 0700), atomically. */
export async function saveToken(file: string, token: SavedToken): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(token, null, 2)}\n`, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

export async function readToken(file: string): Promise<SavedToken | undefined> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  return text === undefined ? undefined : JSON.parse(text) as SavedToken;
}

/**
 * The saved access token, refreshed first (and saved again) when it expires within a minute and
 * a refresh token is there. Throws when there is none or it cannot be renewed.
 */
export async function currentToken(file: string, o: { now?: () => number; fetchImpl?: typeof fetch } = {}): Promise<string> {
  const f = o.fetchImpl ?? fetch;
  const now = o.now ?? (() => Date.now() / 1000);
  const saved = await readToken(file);
  if (!saved) throw new Error(`no saved token in ${file}; run: npx carebridge login --save`);
  if (saved.expiresAt - 60 > now()) return saved.accessToken;
  if (!saved.refreshToken) throw new Error('the saved token has expired; run: npx carebridge login --save');
  const m = await metadata(saved.url, f);
  const t = await json<{ access_token?: string; refresh_token?: string; expires_in?: number; error_description?: string; error?: string }>(await f(m.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: saved.refreshToken, client_id: CLI_CLIENT_ID }).toString(),
  }));
  if (!t.access_token) throw new Error(`the saved token could not be renewed (${t.error_description ?? t.error ?? 'refused'}); run: npx carebridge login --save`);
  await saveToken(file, { url: saved.url, accessToken: t.access_token, refreshToken: t.refresh_token ?? saved.refreshToken, expiresAt: Math.floor(now() + (t.expires_in ?? 3600)) });
  return t.access_token;
}
