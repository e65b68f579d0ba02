import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Provider from 'oidc-provider';
import { openMailer } from '../../engine/adapters/mailer.open.ts';
import { AccountFlows } from '../../engine/identity/account-flows.ts';
import { AccountTokens } from '../../engine/identity/account-tokens.ts';
import { AccountsService } from '../../engine/identity/accounts.ts';
import { ERROR_REGISTRY } from '../../engine/core/errors.ts';
import { LoginThrottle } from '../../engine/identity/login-throttle.ts';
import { systemClock } from '../../engine/ports/clock.ts';
import { FixedWindowLimiter } from '../rest/rate-limit.ts';
import { registerProtectedResourceRoutes } from './discovery.ts';
import type { Identity, IdentityDeps, VerifiedToken } from './identity.ts';
import { registerInteractionRoutes } from './interactions.ts';
import { loadCookieKeys, loadSigningKeys } from './keys.ts';
import { anonymousLogoutGuard } from './logout.ts';
import { DEFAULT_CSP, cspWithScriptHashes } from '../security-headers.ts';
import { createOidcAdapter } from './oidc-adapter.ts';
import { DEFAULT_SCOPE, buildProviderConfig } from './provider-config.ts';

/** Loopback hosts whose redirect URIs may vary the port (RFC 8252 §7.3). */
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** `http://127.0.0.1:1234/cb` -> `http://127.0.0.1/cb`; undefined for non-loopback URIs. */
function withoutLoopbackPort(uri: string): string | undefined {
  const u = URL.parse(uri);
  if (!u || u.protocol !== 'http:' || !LOOPBACK.has(u.hostname)) return undefined;
  u.port = '';
  return u.href;
}

// Opaque tokens are 43 base64url characters (256 bits); anything far off is not ours.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,256}$/;

/** Open dynamic registration is a write anyone can make: at most this many per IP per minute. */
export const REGISTRATIONS_PER_IP_PER_MINUTE = 60;

/**
 * Builds the OAuth 2.1 authorization server (oidc-provider 9) and bearer verification
 * (issue 2, item 8). `mount(app)` adds /oauth/*, the interaction pages and the discovery
 * documents to a Fastify app; `verifyAccessToken` is what the REST and MCP adapters call.
 */
export async function createIdentity(deps: IdentityDeps): Promise<Identity> {
  const { config, db, log } = deps;
  const clock = deps.clock ?? systemClock;
  const accounts = new AccountsService(db);
  const throttle = new LoginThrottle(db, clock);
  const mailer = deps.mailer ?? openMailer(config, log);
  const flows = new AccountFlows({ db, accounts, tokens: new AccountTokens(db, clock), throttle, mailer, baseUrl: config.baseUrl, log });
  const cookieKeys = loadCookieKeys(config);
  const provider = new Provider(config.baseUrl, buildProviderConfig({
    baseUrl: config.baseUrl,
    pricingUrl: config.pricingUrl,
    adapter: createOidcAdapter(db, log, cookieKeys[0]),
    accounts,
    jwks: loadSigningKeys(config),
    cookieKeys,
  }));

  // Exact redirect_uri match, except that a loopback redirect URI may use any port (RFC 8252
  // §7.3), whatever the client's application_type: MCP clients register loopback callbacks as
  // "web" clients and listen on an ephemeral port. oidc-provider alone exempts only "native".
  const clientProto = provider.Client.prototype;
  const exactMatch = Object.getOwnPropertyDescriptor(clientProto, 'redirectUriAllowed')?.value as (this: typeof clientProto, value: string) => boolean;
  clientProto.redirectUriAllowed = function redirectUriAllowed(this: typeof clientProto, value: string): boolean {
    if (exactMatch.call(this, value)) return true;
    const stripped = withoutLoopbackPort(value);
    return stripped !== undefined && this.redirectUris.some((r) => withoutLoopbackPort(r) === stripped);
  };

  // Every URL oidc-provider builds comes from the request (Koa's ctx.href). We pin it to the
  // configured public origin instead (below), which also makes the Host header irrelevant.
  provider.proxy = true;
  provider.maxIpsCount = Math.max(config.trustProxy, 1);
  const publicUrl = new URL(config.baseUrl);
  const trustForwardedFor = config.trustProxy > 0;
  function pinOrigin(raw: IncomingMessage): void {
    raw.headers.host = publicUrl.host;
    raw.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
    delete raw.headers['x-forwarded-host'];
    if (!trustForwardedFor) delete raw.headers['x-forwarded-for'];
  }

  // RFC 6749 §3.3 default scope for authorization requests without one (see DEFAULT_SCOPE).
  provider.use(async (ctx, next) => {
    const c = ctx as unknown as { path: string; method: string; querystring: string };
    if (c.method === 'GET' && c.path === '/oauth/authorize') {
      const q = new URLSearchParams(c.querystring);
      if (!q.get('scope')?.trim()) {
        q.set('scope', DEFAULT_SCOPE);
        c.querystring = q.toString();
      }
    }
    await next();
  });

  // oidc-provider's own HTML (form_post, the end-session step of an account switch) carries an
  // inline auto-submit script: allow exactly that script by hash under the app-wide CSP
  // (api/security-headers.ts). Registered first so it sees the final body.
  provider.use(async (ctx, next) => {
    await next();
    const c = ctx as unknown as { body: unknown; response: { get(name: string): string } };
    if (typeof c.body === 'string' && c.body.includes('<script>')) {
      ctx.set('content-security-policy', cspWithScriptHashes(c.response.get('content-security-policy') || DEFAULT_CSP, c.body));
    }
  });
  provider.use(anonymousLogoutGuard(config.baseUrl));

  provider.on('server_error', (_ctx: unknown, err: unknown) => log.error({ err }, 'oauth server error'));
  provider.on('error', (err: unknown) => log.warn({ err }, 'oauth request error'));
  provider.on('grant.revoked', (_ctx: unknown, grantId: unknown) => log.info({ grantId }, 'oauth grant revoked'));

  const callback = provider.callback();
  const limiter = new FixedWindowLimiter(systemClock);
  async function handOver(req: FastifyRequest, reply: FastifyReply, rewriteTo?: string): Promise<void> {
    if (req.method === 'POST' && req.url.split('?')[0] === '/oauth/register') {
      const d = limiter.hit('oauth-register', req.ip, REGISTRATIONS_PER_IP_PER_MINUTE);
      if (!d.allowed) {
        await reply.code(429).header('retry-after', String(d.retryAfterSeconds))
          .send({ error: 'rate_limited', reason: `Too many client registrations; retry in ${d.retryAfterSeconds} s.`, needsAuth: false });
        return;
      }
    }
    reply.hijack();
    // oidc-provider reads the body itself and says nothing when the client drops its upload: log
    // it as the REST routes do (an info-level 4xx, issue 38, item 1).
    req.raw.once('close', () => {
      if (!req.raw.complete) req.log.info({ code: 'request_aborted', status: 400, reason: ERROR_REGISTRY.request_aborted.reason }, 'request refused');
    });
    pinOrigin(req.raw);
    if (rewriteTo) {
      const q = req.raw.url?.indexOf('?') ?? -1;
      req.raw.url = rewriteTo + (q >= 0 ? req.raw.url!.slice(q) : '');
    }
    await callback(req.raw, reply.raw);
  }

  const audiences = new Set([config.baseUrl, config.pricingUrl]);

  return {
    async mount(app: FastifyInstance): Promise<void> {
      // oidc-provider is a Koa app that reads the raw request body itself: in this scope no
      // Fastify parser consumes the body, and the handler hijacks the reply.
      await app.register(async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
        scope.route({ method: ['GET', 'POST', 'OPTIONS'], url: '/oauth/*', handler: (req, reply) => handOver(req, reply) });
        scope.route({ method: ['GET', 'OPTIONS'], url: '/.well-known/openid-configuration', handler: (req, reply) => handOver(req, reply) });
        // RFC 8414 metadata: the same document oidc-provider serves for OpenID discovery.
        scope.route({
          method: ['GET', 'OPTIONS'],
          url: '/.well-known/oauth-authorization-server',
          handler: (req, reply) => handOver(req, reply, '/.well-known/openid-configuration'),
        });
      });
      await registerInteractionRoutes(app, { provider, accounts, flows, throttle, cookieKeys, secure: config.baseUrl.startsWith('https:'), clock, log });
      registerProtectedResourceRoutes(app, { baseUrl: config.baseUrl, pricingUrl: config.pricingUrl, issuer: config.baseUrl });
    },

    async verifyAccessToken(token: string, accept: readonly string[] = [...audiences]): Promise<VerifiedToken | null> {
      if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) return null;
      try {
        const at = await provider.AccessToken.find(token);
        if (!at || at.isExpired || typeof at.accountId !== 'string') return null;
        const aud = Array.isArray(at.aud) ? at.aud : at.aud === undefined ? [] : [at.aud];
        // A token for another audience (another resource, or the pricing host's token on the main
        // host: RFC 8707, RFC 9068 §4) is foreign here.
        if (!aud.some((a) => audiences.has(a) && accept.includes(a))) return null;
        return {
          userId: at.accountId,
          clientId: at.clientId,
          scopes: at.scope ? at.scope.split(' ') : [],
          audience: at.aud,
          expiresAt: at.exp ?? 0,
        };
      } catch (err) {
        log.debug({ err }, 'access token lookup failed');
        return null;
      }
    },

    resourceMetadataUrl(): string {
      return `${config.baseUrl}/.well-known/oauth-protected-resource`;
    },

    async close(): Promise<void> {
      // Storage belongs to the caller's Db and keys are in memory; mail still in flight goes out.
      await flows.drain();
      await mailer.close();
    },
  };
}
