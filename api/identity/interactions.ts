import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { InteractionDetails } from 'oidc-provider';
import type { Logger } from 'pino';
import { AppError } from '../../engine/core/errors.ts';
import type { AccountFlows } from '../../engine/identity/account-flows.ts';
import { MIN_PASSWORD_LENGTH, type AccountsService } from '../../engine/identity/accounts.ts';
import type { LoginThrottle } from '../../engine/identity/login-throttle.ts';
import type { Clock } from '../../engine/ports/clock.ts';
import { FixedWindowLimiter } from '../rest/rate-limit.ts';
import { mailAllowed, registerAccountRoutes } from './account-routes.ts';
import { checkEmailPage } from './account-views.ts';
import { checkSignIn } from './password-check.ts';
import { PAGE_HEADERS, consentPage, messagePage, signInPage, signUpPage } from './pages.ts';

export interface InteractionDeps {
  provider: Provider;
  accounts: AccountsService;
  flows: AccountFlows;
  throttle: LoginThrottle;
  /** Keys for the device cookie (the cookie keys oidc-provider signs with). */
  cookieKeys: readonly string[];
  /** BASE_URL is https: cookies get Secure. */
  secure: boolean;
  /** For the per-minute form and mail limits. */
  clock: Clock;
  log: Logger;
}

type UidRequest = FastifyRequest<{ Params: { uid: string }; Body: Record<string, string> | undefined }>;

const FORM_BODY_LIMIT = 16 * 1024;

/**
 * Form posts per client IP per minute (sign-in + sign-up), per process like the REST limiter
 * (see api/rest/rate-limit.ts): a flood brake. Password guessing is slowed by LoginThrottle
 * (engine/identity/login-throttle.ts), persisted, with growing delays rather than a lockout.
 */
export const FORM_LIMITS = { postsPerIp: 60 } as const;

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).send(body);
}

function field(body: Record<string, string> | undefined, name: string): string {
  const v = body?.[name];
  return typeof v === 'string' ? v : '';
}

/**
 * The sign-up, sign-in and consent pages oidc-provider sends the browser to
 * (`/oauth/interaction/:uid`), plus the `/oauth/signup` entry page. Registered in its own
 * encapsulated scope with a urlencoded body parser, so the rest of the app is unaffected.
 */
export async function registerInteractionRoutes(app: FastifyInstance, deps: InteractionDeps): Promise<void> {
  const { provider, accounts, flows, log } = deps;
  const limiter = new FixedWindowLimiter(deps.clock);

  /** Renders a 429 page when `key` is over its limit; returns true when the request may proceed. */
  function within(reply: FastifyReply, bucket: string, key: string, limit: number): boolean {
    const d = limiter.hit(bucket, key, limit);
    if (d.allowed) return true;
    void reply.header('retry-after', String(d.retryAfterSeconds));
    html(reply, 429, messagePage('Too many attempts', `Wait ${d.retryAfterSeconds} seconds, then go back and try again.`));
    return false;
  }

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) => {
      // Last value wins for repeated fields; only strings reach the handlers.
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    /** Loads the interaction bound to this browser's cookie; renders an error page when absent. */
    async function load(req: UidRequest, reply: FastifyReply): Promise<InteractionDetails | undefined> {
      try {
        const details = await provider.interactionDetails(req.raw, reply.raw);
        if (details.uid === req.params.uid) return details;
      } catch (err) {
        log.debug({ err }, 'interaction not found');
      }
      html(reply, 400, messagePage('This sign-in link has expired',
        'Go back to the app or agent that sent you here and start connecting again. Sign-in links work once, in the browser that opened them, for one hour.'));
      return undefined;
    }

    async function clientName(details: InteractionDetails): Promise<{ name: string; uri?: string; refreshes: boolean }> {
      const id = typeof details.params.client_id === 'string' ? details.params.client_id : '';
      const client = await provider.Client.find(id).catch(() => undefined);
      return { name: client?.clientName || id || 'An application', uri: client?.clientUri, refreshes: client?.grantTypeAllowed('refresh_token') ?? false };
    }

    async function finish(req: UidRequest, reply: FastifyReply, result: Record<string, unknown>): Promise<FastifyReply> {
      const to = await provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: false });
      // 303: the browser follows with GET (the resume endpoint), never re-POSTing the form.
      return reply.code(303).headers({ 'cache-control': 'no-store' }).redirect(to, 303);
    }

    async function renderLogin(req: UidRequest, reply: FastifyReply, details: InteractionDetails, mode: 'signin' | 'signup', status = 200, error?: string): Promise<FastifyReply> {
      const client = await clientName(details);
      const input = { uid: details.uid, clientName: client.name, error, email: field(req.body, 'email'), name: field(req.body, 'name') };
      return html(reply, status, mode === 'signup' ? signUpPage({ ...input, minPasswordLength: MIN_PASSWORD_LENGTH }) : signInPage(input));
    }

    scope.get('/oauth/interaction/:uid', async (req: UidRequest, reply) => {
      const details = await load(req, reply);
      if (!details) return reply;
      if (details.prompt.name === 'login') {
        return renderLogin(req, reply, details, details.params.screen_hint === 'signup' ? 'signup' : 'signin');
      }
      if (details.prompt.name === 'consent') {
        const client = await clientName(details);
        const d = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
        const scopes = new Set<string>(d.missingOIDCScope ?? []);
        for (const s of Object.values(d.missingResourceScopes ?? {}).flat()) scopes.add(s);
        // Refresh tokens go to every client registered for them (provider-config.ts), so the
        // user is told even when the client did not ask for offline_access.
        if (client.refreshes) scopes.add('offline_access');
        const account = details.session ? await accounts.findById(details.session.accountId) : null;
        return html(reply, 200, consentPage({
          uid: details.uid,
          clientName: client.name,
          clientUri: client.uri,
          accountEmail: account?.email ?? 'unknown account',
          scopes: [...scopes],
          resources: requestedResources(details),
        }));
      }
      return html(reply, 400, messagePage('Unsupported step', `This sign-in step (${details.prompt.name}) is not supported.`));
    });

    // Sign-in and sign-up forms are also offered at the consent step ("Not you?"), so a browser
    // already signed in to another account can switch; oidc-provider then ends the old session.
    const canLogin = (d: InteractionDetails) => d.prompt.name === 'login' || d.prompt.name === 'consent';

    scope.get('/oauth/interaction/:uid/signup', async (req: UidRequest, reply) => {
      const details = await load(req, reply);
      if (!details) return reply;
      if (!canLogin(details)) return reply.redirect(`/oauth/interaction/${encodeURIComponent(details.uid)}`, 303);
      return renderLogin(req, reply, details, 'signup');
    });

    scope.get('/oauth/interaction/:uid/signin', async (req: UidRequest, reply) => {
      const details = await load(req, reply);
      if (!details) return reply;
      if (!canLogin(details)) return reply.redirect(`/oauth/interaction/${encodeURIComponent(details.uid)}`, 303);
      return renderLogin(req, reply, details, 'signin');
    });

    scope.post('/oauth/interaction/:uid/login', async (req: UidRequest, reply) => {
      const details = await load(req, reply);
      if (!details) return reply;
      if (!canLogin(details)) return reply.redirect(`/oauth/interaction/${encodeURIComponent(details.uid)}`, 303);
      if (!within(reply, 'form-ip', req.ip, FORM_LIMITS.postsPerIp)) return reply;
      const r = await checkSignIn(deps, req, field(req.body, 'email'), field(req.body, 'password'));
      if (r.kind === 'wait') {
        void reply.header('retry-after', String(r.seconds));
        return renderLogin(req, reply, details, 'signin', 429, `Too many failed attempts. Wait ${r.seconds} seconds, then try again.`);
      }
      if (r.kind === 'wrong') return renderLogin(req, reply, details, 'signin', 401, 'The email or password is incorrect.');
      reply.raw.appendHeader('set-cookie', r.setCookie);
      return finish(req, reply, { login: { accountId: r.account.id } });
    });

    scope.post('/oauth/interaction/:uid/signup', async (req: UidRequest, reply) => {
      const details = await load(req, reply);
      if (!details) return reply;
      if (!canLogin(details)) return reply.redirect(`/oauth/interaction/${encodeURIComponent(details.uid)}`, 303);
      if (!within(reply, 'form-ip', req.ip, FORM_LIMITS.postsPerIp)) return reply;
      try {
        await flows.signUp({ email: field(req.body, 'email'), password: field(req.body, 'password'), name: field(req.body, 'name') },
          { mayMail: () => mailAllowed(limiter, field(req.body, 'email')) });
      } catch (err) {
        if (err instanceof AppError) return renderLogin(req, reply, details, 'signup', err.status, err.reason);
        throw err;
      }
      // The same page for a new address and one that has an account (issue 38, item 5): the
      // mail differs, the answer does not. Its sign-in form continues this authorization.
      return html(reply, 200, checkEmailPage({ email: field(req.body, 'email').trim(), uid: details.uid }));
    });

    scope.post('/oauth/interaction/:uid/consent', async (req: UidRequest, reply) => {
      const details = await load(req, reply);
      if (!details) return reply;
      if (details.prompt.name !== 'consent' || !details.session) return reply.redirect(`/oauth/interaction/${encodeURIComponent(details.uid)}`, 303);
      if (field(req.body, 'decision') === 'deny') {
        return finish(req, reply, { error: 'access_denied', error_description: 'The user denied the request.' });
      }
      const { grantId, isNew } = await saveGrant(provider, details);
      return finish(req, reply, { consent: isNew ? { grantId } : {} });
    });

    registerAccountRoutes(scope, { ...deps, limiter });
  });
}

function requestedResources(details: InteractionDetails): string[] {
  const d = details.prompt.details as { missingResourceScopes?: Record<string, string[]> };
  const r = details.params.resource;
  const list = Array.isArray(r) ? r.map(String) : typeof r === 'string' ? [r] : [];
  return [...new Set([...Object.keys(d.missingResourceScopes ?? {}), ...list])];
}

/**
 * Records what the user approved on the grant: the OIDC scopes and claims and, per resource
 * indicator, the resource scopes (oidc-provider's standard consent pattern).
 */
async function saveGrant(provider: Provider, details: InteractionDetails): Promise<{ grantId: string; isNew: boolean }> {
  const accountId = details.session!.accountId;
  const clientId = typeof details.params.client_id === 'string' ? details.params.client_id : '';
  const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId, clientId });
  const d = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (d.missingOIDCScope?.length) grant.addOIDCScope(d.missingOIDCScope.join(' '));
  if (d.missingOIDCClaims?.length) grant.addOIDCClaims(d.missingOIDCClaims);
  for (const resource of requestedResources(details)) {
    grant.addResourceScope(resource, (d.missingResourceScopes?.[resource] ?? []).join(' '));
  }
  return { grantId: await grant.save(), isNew: !existing };
}
