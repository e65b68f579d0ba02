/**
 * Server-rendered pages for sign-up, sign-in and consent (issue 2, item 8): plain HTML forms
 * that work without JavaScript. Every interpolated value goes through `esc`. CSRF protection is
 * the unguessable interaction uid in the form action plus oidc-provider's SameSite=Lax
 * interaction cookie, which a cross-site POST does not carry.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML-escapes text for element content and double-quoted attributes. */
export function esc(value: string | number | undefined | null): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Headers every identity page carries: no caching, no framing (clickjacking), no scripts. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  // No form-action: after a POST the browser must follow the redirect to the client's
  // redirect_uri, which form-action would block in some browsers.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
};

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.5rem;box-sizing:border-box;font-size:1rem}
button{margin-top:1rem;padding:.6rem 1.2rem;font-size:1rem;cursor:pointer}.error{background:#fde8e8;border:1px solid #e0a0a0;padding:.6rem;border-radius:4px}
.muted{color:#555;font-size:.9rem}ul{padding-left:1.2rem}.row{display:flex;gap:.6rem}`;

/** The page shell every identity page shares. */
export function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · carebridge</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body></html>`;
}

/** The error line shown above a form (role=alert), or nothing. */
export function errorBox(error: string | undefined): string {
  return error ? `<p class="error" role="alert">${esc(error)}</p>` : '';
}

export interface FormPageInput {
  uid: string;
  clientName: string;
  error?: string | undefined;
  email?: string | undefined;
  name?: string | undefined;
}

/** Sign-in form: fields `email`, `password`; links to sign-up. */
export function signInPage(p: FormPageInput): string {
  return layout('Sign in', `<h1>Sign in to carebridge</h1>
<p class="muted">${esc(p.clientName)} is asking to connect to your carebridge account.</p>
${errorBox(p.error)}
<form method="post" action="/oauth/interaction/${esc(p.uid)}/login">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(p.email)}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p>New to carebridge? <a href="/oauth/interaction/${esc(p.uid)}/signup">Create an account</a></p>
<p class="muted"><a href="/account/forgot-password">Forgot your password?</a></p>`);
}

/** Sign-up form: fields `email`, `password`, optional `name`; links to sign-in. */
export function signUpPage(p: FormPageInput & { minPasswordLength: number }): string {
  return layout('Create account', `<h1>Create your carebridge account</h1>
<p class="muted">${esc(p.clientName)} is asking to connect to your carebridge account.</p>
${errorBox(p.error)}
<form method="post" action="/oauth/interaction/${esc(p.uid)}/signup">
<label for="name">Name (optional)</label><input id="name" name="name" type="text" autocomplete="name" value="${esc(p.name)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required value="${esc(p.email)}">
<label for="password">Password (at least ${p.minPasswordLength} characters)</label>
<p class="muted" id="password-hint">A few unrelated words make a long password that is easy to remember. Common and breached passwords are refused.</p>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${p.minPasswordLength}" aria-describedby="password-hint" required>
<button type="submit">Create account</button>
</form>
<p>Already have an account? <a href="/oauth/interaction/${esc(p.uid)}/signin">Sign in</a></p>`);
}

const SCOPE_TEXT: Record<string, string> = {
  openid: 'Know which carebridge account you are (your account id)',
  profile: 'See your name',
  email: 'See your email address',
  offline_access: 'Stay connected while you are away (its access renews itself for up to 90 days)',
};

export interface ConsentPageInput {
  uid: string;
  clientName: string;
  clientUri?: string | undefined;
  accountEmail: string;
  scopes: string[];
  resources: string[];
}

/**
 * Consent form. The first submit button approves, so a plain form submission (Enter key, or a
 * client that posts the form without choosing) approves; the deny button sends decision=deny.
 */
export function consentPage(p: ConsentPageInput): string {
  const items = p.scopes.map((s) => `<li>${esc(SCOPE_TEXT[s] ?? s)}</li>`);
  for (const r of p.resources) items.push(`<li>Use the carebridge API at ${esc(r)} on your behalf (your profile, consultations, records and prices)</li>`);
  const uri = p.clientUri ? ` <span class="muted">(${esc(p.clientUri)})</span>` : '';
  return layout('Allow access', `<h1>Allow ${esc(p.clientName)}${uri} to access your account?</h1>
<p class="muted">Signed in as ${esc(p.accountEmail)}. Not you? <a href="/oauth/interaction/${esc(p.uid)}/signin">Use another account</a></p>
<p>${esc(p.clientName)} will be able to:</p>
<ul>${items.join('') || '<li>Use your carebridge account on your behalf</li>'}</ul>
<form method="post" action="/oauth/interaction/${esc(p.uid)}/consent">
<div class="row"><button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form>`);
}

/** A page with a title and a message (errors, expired links, the /oauth/signup entry page). */
export function messagePage(title: string, message: string, extraHtml = ''): string {
  return layout(title, `<h1>${esc(title)}</h1>\n<p>${esc(message)}</p>${extraHtml}`);
}
