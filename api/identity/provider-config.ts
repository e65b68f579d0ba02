import { errors, interactionPolicy, type Adapter, type ClientModel, type ErrorOut, type OidcContext } from 'oidc-provider';
import type { AccountsService } from '../../engine/identity/accounts.ts';
import { CLI_CLIENT_ID } from '../../engine/account/links.ts';
import { CONSOLE_CLIENT_ID } from '../console/console-session.ts';
import { APPROVAL_CLIENT_ID } from '../carejobs/approval-session.ts';
import { deviceSuccessSource, userCodeConfirmSource, userCodeInputSource } from './device-pages.ts';
import type { PrivateJwk } from './keys.ts';
import { PAGE_HEADERS, messagePage } from './pages.ts';

/**
 * Lifetimes (seconds). Why these values:
 * - Access token 1 h: opaque and checked against storage on every call, so revocation is
 *   immediate anyway; 1 h bounds the damage of a token leaked into a log or transcript.
 * - Authorization code 120 s: the redirect carries it straight to the client's token request;
 *   OAuth 2.1 asks for a short life and at most 10 minutes. 120 s tolerates a slow agent.
 * - Refresh token 14 d, rotated on every use (each new one gets a fresh 14 d), so an agent used
 *   at least every two weeks stays connected; the grant it hangs off lives 90 d, an absolute cap
 *   after which the user signs in again.
 * - Browser session 14 d, interaction (time to fill the sign-up form) 1 h.
 */
export const TTL = {
  AccessToken: 60 * 60,
  AuthorizationCode: 120,
  RefreshToken: 14 * 24 * 60 * 60,
  Grant: 90 * 24 * 60 * 60,
  Session: 14 * 24 * 60 * 60,
  Interaction: 60 * 60,
  IdToken: 60 * 60,
  ClientCredentials: 10 * 60,
  DeviceCode: 10 * 60,
  BackchannelAuthenticationRequest: 10 * 60,
  PreAuthorizedCode: 10 * 60,
} as const;

/** Scopes (service-spec.md, Authentication). */
export const SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;
/**
 * Scopes an access token for the API can carry. offline_access is about refresh tokens, not what
 * the token may do, so tokens do not carry it; RFC 9728 metadata still lists it (discovery.ts).
 */
export const RESOURCE_SCOPES = ['openid', 'profile', 'email'] as const;

/**
 * Scope applied when an authorization request names none (RFC 6749 §3.3 lets the server pick a
 * default). Plain OAuth and MCP clients often send no scope; oidc-provider refuses a grant with
 * no scope at all. No `openid`, so such a client is not handed an ID token it did not ask for.
 */
export const DEFAULT_SCOPE = 'profile email';

export interface ProviderConfigInput {
  baseUrl: string;
  pricingUrl: string;
  adapter: new (name: string) => Adapter;
  accounts: AccountsService;
  jwks: { keys: PrivateJwk[] };
  cookieKeys: string[];
}

/**
 * Maps a resource indicator (RFC 8707) to its audience. Any URL on the service's origin names the
 * service (its REST API and MCP endpoint are one protected resource); the pricing host, when it
 * has its own origin, is a second audience. Anything else is `invalid_target`.
 */
export function audienceFor(indicator: string, baseUrl: string, pricingUrl: string): string | undefined {
  const url = URL.parse(indicator);
  if (!url || url.search || url.hash || url.username || url.password) return undefined;
  if (url.origin === baseUrl) return baseUrl;
  if (url.origin === pricingUrl) return pricingUrl;
  return undefined;
}

/** The oidc-provider configuration (issue 2, item 8). */
export function buildProviderConfig(input: ProviderConfigInput): Record<string, unknown> {
  const { baseUrl, pricingUrl, accounts } = input;
  const secure = baseUrl.startsWith('https:');
  const cookie = { httpOnly: true, sameSite: 'lax', secure, path: '/' };

  const policy = interactionPolicy.base();
  // Ask for consent the first time a client is authorized in this session, even when it asked
  // for no scopes (a bare OAuth client): the user must always see and approve who connects.
  policy.get('consent')!.checks.push(new interactionPolicy.Check(
    'first_authorization', 'the client has not been authorized in this session', 'consent_required',
    (ctx) => !ctx.oidc.result?.consent && !ctx.oidc.session?.grantIdFor(ctx.oidc.client!.clientId),
  ));

  return {
    adapter: input.adapter,
    jwks: input.jwks,
    cookies: {
      keys: input.cookieKeys,
      long: cookie,
      short: cookie,
      names: { session: '_cb_session', interaction: '_cb_interaction', resume: '_cb_interaction_resume' },
    },
    async findAccount(_ctx: OidcContext, sub: string) {
      const account = await accounts.findById(sub);
      if (!account) return undefined;
      return {
        accountId: account.id,
        async claims() {
          return { sub: account.id, email: account.email, email_verified: account.emailVerified, ...(account.displayName ? { name: account.displayName } : {}) };
        },
      };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: [...SCOPES],
    // No userinfo endpoint (below), so the ID token carries the claims its scopes grant.
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    },
    // Agents link straight to the sign-up form with screen_hint=signup.
    extraParams: ['screen_hint'],
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      registration: '/oauth/register',
      revocation: '/oauth/revoke',
      jwks: '/oauth/jwks',
      userinfo: '/oauth/userinfo',
      end_session: '/oauth/logout',
      pushed_authorization_request: '/oauth/par',
      introspection: '/oauth/introspect',
      code_verification: '/oauth/device',
      device_authorization: '/oauth/device/auth',
      backchannel_authentication: '/oauth/backchannel',
      challenge: '/oauth/challenge',
      credential: '/oauth/credential',
    },
    features: {
      devInteractions: { enabled: false },
      // Open dynamic registration (RFC 7591): MCP clients register themselves on first use.
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      revocation: {
        enabled: true,
        // A client may revoke only its own tokens (RFC 7009 §2.1).
        async allowedPolicy(_ctx: OidcContext, client: ClientModel, token: { clientId: string }) {
          return token.clientId === client.clientId;
        },
      },
      resourceIndicators: {
        enabled: true,
        // No resource parameter: the token is for this service, so plain OAuth clients work.
        async defaultResource(_ctx: OidcContext, _client: ClientModel, oneOf?: string[]) {
          return oneOf ?? baseUrl;
        },
        async useGrantedResource() {
          return true;
        },
        async getResourceServerInfo(_ctx: OidcContext, indicator: string) {
          const audience = audienceFor(indicator, baseUrl, pricingUrl);
          if (!audience) throw new errors.InvalidTarget(`resource must be ${baseUrl}${pricingUrl === baseUrl ? '' : ` or ${pricingUrl}`}`);
          // Opaque: stored (hashed) server-side, so revocation takes effect on the next call.
          return { scope: RESOURCE_SCOPES.join(' '), audience, accessTokenTTL: TTL.AccessToken, accessTokenFormat: 'opaque' };
        },
      },
      // Tokens are resource-bound (audience = the service), which the userinfo endpoint would
      // refuse; the ID token and GET /api/profile carry the user's details instead.
      userinfo: { enabled: false },
      // The API accepts plain Bearer tokens only; DPoP-bound tokens would be unusable there.
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      // RFC 8628 device authorization grant, for `npx carebridge login` (issue 38, item 10).
      deviceFlow: { enabled: true, userCodeInputSource, userCodeConfirmSource, successSource: deviceSuccessSource },
    },
    // OAuth 2.1 §4.3.1: refresh tokens of public clients rotate; oidc-provider revokes the
    // whole grant when a rotated (consumed) refresh token is presented again.
    rotateRefreshToken: true,
    // Refresh tokens for every client that registered the refresh_token grant. OIDC would also
    // demand offline_access plus prompt=consent, which agent clients rarely send.
    async issueRefreshToken(_ctx: OidcContext, client: ClientModel) {
      return client.grantTypeAllowed('refresh_token');
    },
    // Tokens outlive the browser session: the agent, not the browser, is the token holder.
    async expiresWithSession() {
      return false;
    },
    ttl: { ...TTL },
    interactions: {
      policy,
      url: (_ctx: OidcContext, interaction: { uid: string }) => `/oauth/interaction/${interaction.uid}`,
    },
    // Browser-based public clients may call the token endpoint from their redirect origin.
    clientBasedCORS(ctx: OidcContext, origin: string, client: ClientModel) {
      if (origin === 'null') return false;
      if (client.clientAuthMethod !== 'none') return false;
      return client.redirectUris.some((uri) => URL.parse(uri)?.origin === origin);
    },
    // OAuth 2.1 §2.3.1 / RFC 8252 §8.3: plain-http redirect URIs only on the loopback interface.
    // oidc-provider's documented hook for metadata rules is the extra-metadata validator, which
    // runs once per listed property with the whole metadata; software_id (RFC 7591) is the one.
    extraClientMetadata: {
      properties: ['software_id'],
      validator(_ctx: OidcContext, key: string, value: unknown, metadata: { redirect_uris?: unknown; post_logout_redirect_uris?: unknown }) {
        if (key === 'software_id' && value !== undefined && (typeof value !== 'string' || value.length > 200)) {
          throw new errors.InvalidClientMetadata('software_id must be a string of at most 200 characters');
        }
        // post_logout_redirect_uris get the same rule (issue 38, item 3): a plain-http logout
        // destination off loopback is as exposed as a plain-http redirect URI.
        for (const name of ['redirect_uris', 'post_logout_redirect_uris'] as const) {
          const uris = Array.isArray(metadata[name]) ? metadata[name] : [];
          for (const uri of uris) {
            const u = typeof uri === 'string' ? URL.parse(uri) : null;
            if (u?.protocol === 'http:' && !LOOPBACK_HOSTS.has(u.hostname)) {
              const message = `${name} using http must point at a loopback address (127.0.0.1, [::1] or localhost); use https otherwise`;
              throw name === 'redirect_uris' ? new errors.InvalidRedirectUri(message) : new errors.InvalidClientMetadata(message);
            }
          }
        }
      },
    },
    renderError,
    // `npx carebridge login` (issue 38, item 10): a built-in public client for the device grant.
    clients: [{
      client_id: CLI_CLIENT_ID,
      client_name: 'carebridge command line (carebridge login)',
      token_endpoint_auth_method: 'none',
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
      response_types: [],
      redirect_uris: [],
    }, {
      // The clinician console (api/console/): a first-party public client, code + PKCE, whose
      // only redirect is the console's callback on this service.
      client_id: CONSOLE_CLIENT_ID,
      client_name: 'carebridge clinician console',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: [`${baseUrl}/console/callback`],
    }, {
      // The care-job approval page (api/carejobs/): the user signs in there with their own
      // account, never with the agent's token; code + PKCE, its only redirect is the page's callback.
      client_id: APPROVAL_CLIENT_ID,
      client_name: 'carebridge care-job approval',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: [`${baseUrl}/care-jobs/callback`],
    }],
  };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Errors that cannot go back to the client (bad redirect_uri, unknown client) are shown here. */
async function renderError(ctx: OidcContext, out: ErrorOut): Promise<void> {
  for (const [k, v] of Object.entries(PAGE_HEADERS)) ctx.set(k, v);
  ctx.type = 'html';
  ctx.body = messagePage('This sign-in request cannot be completed',
    `${out.error}: ${out.error_description ?? 'invalid request'}`,
    '<p class="muted">Go back to the app or agent that sent you here; it needs to start again with a valid request.</p>');
}

async function logoutSource(ctx: OidcContext, form: string): Promise<void> {
  for (const [k, v] of Object.entries(PAGE_HEADERS)) ctx.set(k, v);
  ctx.body = messagePage('Sign out of carebridge?', 'This signs you out of carebridge in this browser.',
    `${form}<button type="submit" form="op.logoutForm" value="yes" name="logout">Sign out</button> <button type="submit" form="op.logoutForm">Stay signed in</button>`);
}

async function postLogoutSuccessSource(ctx: OidcContext): Promise<void> {
  for (const [k, v] of Object.entries(PAGE_HEADERS)) ctx.set(k, v);
  ctx.body = messagePage('Signed out', `You are signed out of carebridge.`);
}
