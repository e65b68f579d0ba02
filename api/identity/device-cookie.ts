import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): after a
 * successful sign-in the browser gets an HMAC of the account's email, so that later attempts from
 * it skip the account-wide delay an attacker can build up from elsewhere (LoginThrottle). The
 * cookie names no account; it holds up to MAX tags, one per account signed in from this browser.
 */
export const DEVICE_COOKIE = '_cb_device';
const MAX = 5;

function tag(key: string, email: string): string {
  return createHmac('sha256', key).update(`device:${email.trim().toLowerCase()}`).digest('base64url').slice(0, 22);
}

function tagsIn(cookieHeader: string | undefined): string[] {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === DEVICE_COOKIE && value) return value.split('.').filter((t) => /^[A-Za-z0-9_-]{22}$/.test(t)).slice(0, MAX);
  }
  return [];
}

/** Whether the request's device cookie holds a tag for this email under any current cookie key. */
export function isKnownDevice(cookieHeader: string | undefined, keys: readonly string[], email: string): boolean {
  const tags = tagsIn(cookieHeader);
  return keys.some((k) => {
    const want = Buffer.from(tag(k, email));
    return tags.some((t) => t.length === want.length && timingSafeEqual(Buffer.from(t), want));
  });
}

/** The Set-Cookie value after a successful sign-in to `email` (newest tag first). */
export function deviceCookie(cookieHeader: string | undefined, keys: readonly string[], email: string, secure: boolean): string {
  const mine = tag(keys[0]!, email);
  const tags = [mine, ...tagsIn(cookieHeader).filter((t) => t !== mine)].slice(0, MAX);
  return `${DEVICE_COOKIE}=${tags.join('.')}; Path=/; Max-Age=${365 * 86400}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
