/**
 * Account pages outside an OAuth interaction (issue 38, items 5, 8, 9): the stand-alone sign-up
 * and sign-in forms, "check your email", email verification and the forgot/reset password pair.
 * Plain forms, no JavaScript, every value through `esc` (the identity pages' style).
 */
import { MIN_PASSWORD_LENGTH } from '../../engine/identity/password-policy.ts';
import { errorBox, esc, layout } from './pages.ts';

interface FormValues {
  error?: string | undefined;
  email?: string | undefined;
  name?: string | undefined;
}

const PASSWORD_HINT = '<p class="muted" id="password-hint">A few unrelated words make a long password that is easy to remember. Common and breached passwords are refused.</p>';

/**
 * What sign-up answers, for a new address and for one that has an account alike (item 5). In an
 * interaction (`uid`) it carries that interaction's sign-in form, so the newcomer goes on at once.
 */
export function checkEmailPage(p: { email: string; uid?: string | undefined }): string {
  const action = p.uid ? `/oauth/interaction/${esc(p.uid)}/login` : '/oauth/signin';
  return layout('Check your email', `<h1>Check your email</h1>
<p>We sent a message to <strong>${esc(p.email)}</strong>. It has a link that confirms the address (or, if the address already has an account, tells you how to sign in).</p>
<p>You can sign in now and confirm the address later.</p>
<form method="post" action="${action}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(p.email)}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p class="muted"><a href="/account/forgot-password">Forgot your password?</a></p>`);
}

/** Stand-alone sign-up form (init_signup's signupUrl). */
export function standaloneSignUpPage(p: FormValues): string {
  return layout('Create account', `<h1>Create your carebridge account</h1>
${errorBox(p.error)}
<form method="post" action="/oauth/signup">
<label for="name">Name (optional)</label><input id="name" name="name" type="text" autocomplete="name" value="${esc(p.name)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required value="${esc(p.email)}">
<label for="password">Password (at least ${MIN_PASSWORD_LENGTH} characters)</label>
${PASSWORD_HINT}
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="password-hint" required>
<button type="submit">Create account</button>
</form>
<p>Already have an account? <a href="/oauth/signin">Sign in</a></p>
<p class="muted">carebridge is used through an AI agent or app: after creating the account, connect it from your agent (it opens a carebridge page where you sign in and approve), or in a terminal run <code>npx carebridge login</code>.</p>`);
}

/** Stand-alone sign-in form (init_signup's signinUrl): checks the password and says what is next. */
export function standaloneSignInPage(p: FormValues): string {
  return layout('Sign in', `<h1>Sign in to carebridge</h1>
${errorBox(p.error)}
<form method="post" action="/oauth/signin">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(p.email)}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p>New to carebridge? <a href="/oauth/signup">Create an account</a></p>
<p class="muted"><a href="/account/forgot-password">Forgot your password?</a></p>`);
}

/** After a stand-alone sign-in: the account works; connecting an agent is the agent's own flow. */
export function signedInPage(p: { email: string; emailVerified: boolean }): string {
  return layout('Signed in', `<h1>Your account works</h1>
<p>You are <strong>${esc(p.email)}</strong>.${p.emailVerified ? '' : ' Your email address is not confirmed yet: open the link in the message we sent you.'}</p>
<p>To let an agent or app use carebridge for you, start connecting from that agent: it opens a carebridge page where you sign in with this email and password and approve it. From a terminal, run <code>npx carebridge login</code>.</p>`);
}

/** Forgot-password form, and the same page again after a request ("sent" shows the notice). */
export function forgotPasswordPage(p: FormValues & { sent?: boolean }): string {
  const notice = p.sent
    ? `<p role="status">If <strong>${esc(p.email)}</strong> has a carebridge account, we sent it a link to choose a new password. The link works once, for 1 hour.</p>`
    : '<p>Enter the email address of your account. We will send it a link to choose a new password.</p>';
  return layout('Forgot your password?', `<h1>Forgot your password?</h1>
${notice}
${errorBox(p.error)}
<form method="post" action="/account/forgot-password">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(p.email)}">
<button type="submit">Send the link</button>
</form>
<p><a href="/oauth/signin">Back to sign in</a></p>`);
}

/** Reset form; the token travels in a hidden field (and never in a Referer: no-referrer). */
export function resetPasswordPage(p: { token: string; email: string; error?: string | undefined }): string {
  return layout('Choose a new password', `<h1>Choose a new password</h1>
<p>For <strong>${esc(p.email)}</strong>. Saving it signs you out everywhere and disconnects every app and agent.</p>
${errorBox(p.error)}
<form method="post" action="/account/reset-password">
<input type="hidden" name="token" value="${esc(p.token)}">
<input type="hidden" name="email" autocomplete="username" value="${esc(p.email)}">
<label for="password">New password (at least ${MIN_PASSWORD_LENGTH} characters)</label>
${PASSWORD_HINT}
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="password-hint" required>
<button type="submit">Save the new password</button>
</form>`);
}

/** Email verification asks for a click (POST), so that a mail scanner's GET does not use the link up. */
export function verifyEmailPage(p: { token: string }): string {
  return layout('Confirm your email', `<h1>Confirm your email address</h1>
<form method="post" action="/account/verify-email">
<input type="hidden" name="token" value="${esc(p.token)}">
<button type="submit">Confirm</button>
</form>`);
}
