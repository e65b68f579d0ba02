/**
 * The device authorization grant's pages (RFC 8628 §3.3; oidc-provider's features.deviceFlow),
 * in the identity pages' style: enter the code, confirm it, done. oidc-provider hands over its
 * form (hidden xsrf field, and the code field); each page adds a visible submit button, so they
 * work without JavaScript.
 */
import type { OidcContext } from 'oidc-provider';
import { PAGE_HEADERS, esc, layout } from './pages.ts';


function page(ctx: OidcContext, title: string, body: string): void {
  for (const [k, v] of Object.entries(PAGE_HEADERS)) ctx.set(k, v);
  ctx.type = 'html';
  ctx.body = layout(title, body);
}

/** "Enter the code shown in your terminal." `err` re-renders with a message. */
export async function userCodeInputSource(ctx: OidcContext, form: string, _out?: unknown, err?: { name?: string; userCode?: string }): Promise<void> {
  const message = !err ? '<p>Enter the code that <code>carebridge login</code> (or your device) shows.</p>'
    : err.name === 'AbortedError' ? '<p class="error" role="alert">The sign-in was cancelled. Start again from your terminal.</p>'
      : '<p class="error" role="alert">That code is not valid (mistyped, already used or expired). Check it and try again.</p>';
  page(ctx, 'Connect a device', `<h1>Connect a device</h1>
${message}
${form.replace('placeholder="Enter code"', 'placeholder="XXXX-XXXX" aria-label="Code" id="user_code"')}
<button type="submit" form="op.deviceInputForm">Continue</button>`);
}

/** "Is this the code in your terminal?" (RFC 8628 §5.4: the user must compare it). */
export async function userCodeConfirmSource(ctx: OidcContext, form: string, client: { clientName?: string; clientId: string }, _deviceInfo: unknown, userCode: string): Promise<void> {
  page(ctx, 'Confirm the code', `<h1>Is this the code on your device?</h1>
<p><strong style="font-size:1.6rem;letter-spacing:.1em">${esc(userCode)}</strong></p>
<p>${esc(client.clientName ?? client.clientId)} is asking to connect to your carebridge account. Continue only if you started this yourself and the code matches.</p>
${form}
<div class="row"><button type="submit" form="op.deviceConfirmForm">Continue</button>
<button type="submit" form="op.deviceConfirmForm" name="abort" value="yes">Cancel</button></div>`);
}

/** Shown once the device has been granted access. */
export async function deviceSuccessSource(ctx: OidcContext): Promise<void> {
  page(ctx, 'Device connected', `<h1>Device connected</h1>
<p>You can close this page and go back to your terminal.</p>`);
}
