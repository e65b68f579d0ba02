/**
 * A real OAuth 2.1 flow over plain HTTP with an independent client library (oauth4webapi), as an
 * agent and its user's browser would do it: discovery, dynamic client registration, an
 * authorization request with PKCE S256 + state + resource, the sign-up (or sign-in) form and the
 * consent form posted as urlencoded fields, then the code exchange. No browser, no JavaScript.
 */
import * as oauth from 'oauth4webapi';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

export interface FlowOptions {
  email: string;
  password: string;
  /** Default `openid profile email offline_access`. */
  scope?: string;
  /** Sign in to an existing account instead of signing up. */
  signIn?: boolean;
  /** Optional display name entered on the sign-up form. */
  name?: string;
}

export interface FlowTokens {
  accessToken: string;
  refreshToken?: string;
  clientId: string;
  redirectUri: string;
}

/** A minimal cookie jar (name -> value; the test server is one origin). */
export class CookieJar {
  readonly #cookies = new Map<string, string>();
  store(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/;\s*max-age=0/i.test(c) || /expires=Thu, 01 Jan 1970/i.test(c)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** Everything a test needs to drive (or break) one authorization. */
export interface PreparedAuthorization {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  redirectUri: string;
  codeVerifier: string;
  state: string;
  resource: string;
  authorizationUrl: URL;
}

/** Discovery (RFC 8414) of the service's authorization server. */
export async function discover(baseUrl: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(baseUrl);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
}

/** Registers a public client (RFC 7591) with a loopback redirect URI, as MCP clients do. */
export async function registerClient(
  as: oauth.AuthorizationServer,
  redirectUri: string,
  clientName = 'Test Agent',
  authMethod: 'none' | 'client_secret_basic' = 'none',
): Promise<oauth.Client> {
  const res = await oauth.dynamicClientRegistrationRequest(as, {
    client_name: clientName,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: authMethod,
  }, insecure);
  return oauth.processDynamicClientRegistrationResponse(res);
}

/** Discovery + registration + PKCE: the authorization URL to send the user's browser to. */
export async function prepareAuthorization(
  baseUrl: string,
  opts: { scope?: string; extra?: Record<string, string>; clientName?: string; authMethod?: 'none' | 'client_secret_basic' } = {},
): Promise<PreparedAuthorization> {
  const as = await discover(baseUrl);
  const redirectUri = 'http://127.0.0.1:53682/callback';
  const client = await registerClient(as, redirectUri, opts.clientName, opts.authMethod);
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  // The resource is what the protected-resource metadata (RFC 9728) names, as MCP clients do.
  const prm = (await (await fetch(new URL('/.well-known/oauth-protected-resource', baseUrl))).json()) as { resource: string };
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: opts.scope ?? 'openid profile email offline_access',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    resource: prm.resource,
    ...opts.extra,
  }).toString();
  return { as, client, redirectUri, codeVerifier, state, resource: prm.resource, authorizationUrl: url };
}

/** The form on an HTML page: its action and the names of its inputs. */
function formAction(html: string, baseUrl: string): URL | undefined {
  const m = /<form[^>]*method="post"[^>]*action="([^"]+)"/i.exec(html);
  return m ? new URL(m[1]!.replace(/&amp;/g, '&'), baseUrl) : undefined;
}

export interface BrowserResult {
  /** The final redirect to the client's redirect_uri (with code or error), if reached. */
  callback?: URL;
  /** The last page shown when the flow stopped on a page (e.g. a form with an error). */
  page?: { status: number; html: string; url: URL };
}

/**
 * Plays the user's browser: follows redirects by hand with a cookie jar, fills the sign-up (or
 * sign-in) form and approves (or denies) consent, until the redirect to `redirectUri`.
 */
export async function driveBrowser(
  start: URL,
  redirectUri: string,
  opts: FlowOptions & { deny?: boolean; stopAtConsent?: boolean },
  jar = new CookieJar(),
): Promise<BrowserResult> {
  let url = start;
  let method: 'GET' | 'POST' = 'GET';
  let body: URLSearchParams | undefined;
  const submitted = new Set<string>();
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body: body.toString() } : {}),
    });
    jar.store(res);
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      const next = new URL(res.headers.get('location')!, url);
      if (next.href.startsWith(redirectUri.split('?')[0]!)) return { callback: next };
      url = next;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await res.text();
    const action = formAction(html, url.origin);
    if (res.status !== 200 || !action) return { page: { status: res.status, html, url } };
    if (!action.pathname.startsWith('/oauth/interaction/')) {
      // oidc-provider's own auto-submitting form (e.g. ending the old session on an account
      // switch): a browser without JavaScript clicks its Continue button, posting the hidden inputs.
      method = 'POST';
      url = action;
      body = new URLSearchParams([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m): [string, string] => [m[1]!, m[2]!.replace(/&amp;/g, '&')]));
      continue;
    }
    const kind = /\/consent$/.test(action.pathname) ? 'consent' : /\/signup$/.test(action.pathname) ? 'signup' : 'login';
    // After sign-up the "check your email" page offers the sign-in form: an unverified account
    // may sign in (engine/identity/account-flows.ts), so the newcomer goes on with it.
    const signedUp = [...submitted].some((a) => a.endsWith('/signup'));
    if (kind === 'login' && !opts.signIn && !signedUp) {
      // Follow the page's own link to the sign-up form, as a user would.
      const link = /<a href="([^"]*\/signup)"/.exec(html);
      if (!link) return { page: { status: res.status, html, url } };
      url = new URL(link[1]!, url);
      method = 'GET';
      body = undefined;
      continue;
    }
    if (submitted.has(action.href)) return { page: { status: res.status, html, url } }; // a form came back: stop
    if (kind === 'consent' && opts.stopAtConsent) return { page: { status: res.status, html, url } };
    submitted.add(action.href);
    method = 'POST';
    url = action;
    body = kind === 'consent'
      ? new URLSearchParams({ decision: opts.deny ? 'deny' : 'approve' })
      : new URLSearchParams({ email: opts.email, password: opts.password, ...(kind === 'signup' && opts.name ? { name: opts.name } : {}) });
  }
  throw new Error('too many redirects in the authorization flow');
}

/** Public clients send no secret; confidential ones use HTTP Basic (RFC 6749 §2.3.1). */
function clientAuth(client: oauth.Client): oauth.ClientAuth {
  return typeof client.client_secret === 'string' ? oauth.ClientSecretBasic(client.client_secret) : oauth.None();
}

/** Validates the callback (state, RFC 9207 iss) and exchanges the code (PKCE verifier). */
export async function exchangeCode(p: PreparedAuthorization, callback: URL, codeVerifier = p.codeVerifier): Promise<oauth.TokenEndpointResponse> {
  const params = oauth.validateAuthResponse(p.as, p.client, callback, p.state);
  const res = await oauth.authorizationCodeGrantRequest(p.as, p.client, clientAuth(p.client), params, p.redirectUri, codeVerifier, {
    // An empty `resource` means: send none (the server then defaults to itself).
    ...(p.resource ? { additionalParameters: { resource: p.resource } } : {}),
    ...insecure,
  });
  return oauth.processAuthorizationCodeResponse(p.as, p.client, res);
}

/** Refresh-token grant (the refresh token rotates: use the returned one next time). */
export async function refresh(p: Pick<PreparedAuthorization, 'as' | 'client'>, refreshToken: string): Promise<oauth.TokenEndpointResponse> {
  const res = await oauth.refreshTokenGrantRequest(p.as, p.client, clientAuth(p.client), refreshToken, insecure);
  return oauth.processRefreshTokenResponse(p.as, p.client, res);
}

/**
 * The whole flow: sign up (or sign in with `signIn: true`) and return the tokens. Throws with the
 * page text when the flow stops on a page (e.g. the email is taken).
 */
export async function obtainTokens(baseUrl: string, opts: FlowOptions): Promise<FlowTokens> {
  const p = await prepareAuthorization(baseUrl, opts.scope === undefined ? {} : { scope: opts.scope });
  const result = await driveBrowser(p.authorizationUrl, p.redirectUri, opts);
  if (!result.callback) {
    const text = result.page?.html.replace(/<style>[^<]*<\/style>/, '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 400);
    throw new Error(`authorization stopped on a page (HTTP ${result.page?.status}): ${text}`);
  }
  const tokens = await exchangeCode(p, result.callback);
  return {
    accessToken: tokens.access_token,
    ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
    clientId: p.client.client_id,
    redirectUri: p.redirectUri,
  };
}
