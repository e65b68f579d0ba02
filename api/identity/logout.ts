/**
 * The end-session endpoint without a signed-in session (issue 38, item 3). oidc-provider answers
 * an anonymous GET /oauth/logout with a page that auto-submits itself and then redirects to the
 * client's post_logout_redirect_uri: anyone who registers a client can use carebridge as a
 * bouncer to their own site (an open redirect, RFC 9700 §4.11). Here the page stays put: it says
 * the visitor is not signed in and, when the client named a registered destination, offers a
 * button naming that host, which the person presses (or not).
 */
import type { OidcContext } from 'oidc-provider';
import { PAGE_HEADERS, esc, messagePage } from './pages.ts';

interface LogoutSession {
  accountId?: string;
  state?: { secret?: string; postLogoutRedirectUri?: string };
}

/** The anonymous logout page: a plain form with a visible button, no script, no auto-submit. */
export function anonymousLogoutPage(confirmUrl: string, xsrf: string, destination: string | undefined): string {
  const host = destination ? URL.parse(destination)?.host : undefined;
  const form = `<form method="post" action="${esc(confirmUrl)}"><input type="hidden" name="xsrf" value="${esc(xsrf)}">`
    + `<input type="hidden" name="logout" value="yes">`
    + `<button type="submit">${host ? `Continue to ${esc(host)}` : 'Continue'}</button></form>`;
  const note = host ? `<p class="muted">The app that sent you here asks to take you to ${esc(host)}. Continue only if you trust it.</p>` : '';
  return messagePage('You are not signed in', 'There is no carebridge session in this browser to sign out of.', note + form);
}

/**
 * Koa middleware for oidc-provider: replaces the auto-submitting anonymous logout response of
 * GET/POST /oauth/logout with `anonymousLogoutPage`. The confirm step (POST
 * /oauth/logout/confirm with the session's xsrf secret) is oidc-provider's own.
 */
export function anonymousLogoutGuard(baseUrl: string) {
  const confirmUrl = `${baseUrl}/oauth/logout/confirm`;
  return async (ctx: OidcContext, next: () => Promise<void>): Promise<void> => {
    await next();
    if (ctx.path !== '/oauth/logout' || ctx.status !== 200 || typeof ctx.body !== 'string') return;
    const session = ctx.oidc?.session as LogoutSession | undefined;
    const secret = session?.state?.secret;
    if (!session || session.accountId || !secret) return;
    for (const [k, v] of Object.entries(PAGE_HEADERS)) ctx.set(k, v);
    ctx.body = anonymousLogoutPage(confirmUrl, secret, session.state?.postLogoutRedirectUri);
  };
}
