import type { FastifyRequest } from 'fastify';
import type { Account, AccountsService } from '../../engine/identity/accounts.ts';
import type { LoginThrottle } from '../../engine/identity/login-throttle.ts';
import { deviceCookie, isKnownDevice } from './device-cookie.ts';

export interface PasswordCheckDeps {
  accounts: AccountsService;
  throttle: LoginThrottle;
  cookieKeys: readonly string[];
  secure: boolean;
}

export type PasswordCheck =
  | { kind: 'ok'; account: Account; setCookie: string }
  | { kind: 'wrong' }
  | { kind: 'wait'; seconds: number };

/**
 * One sign-in attempt, as both sign-in forms make it: the throttle first (growing delays per
 * address, per account and address, per account unless the browser is a known device), then
 * the password; the outcome is counted. A success hands back the device cookie to set.
 */
export async function checkSignIn(deps: PasswordCheckDeps, req: FastifyRequest, email: string, password: string): Promise<PasswordCheck> {
  const subject = { email, ip: req.ip, knownDevice: isKnownDevice(req.headers.cookie, deps.cookieKeys, email) };
  const seconds = await deps.throttle.waitSeconds(subject);
  if (seconds > 0) return { kind: 'wait', seconds };
  const account = await deps.accounts.verifyLogin(email, password);
  if (!account) {
    await deps.throttle.recordFailure(subject);
    return { kind: 'wrong' };
  }
  await deps.throttle.recordSuccess(subject);
  return { kind: 'ok', account, setCookie: deviceCookie(req.headers.cookie, deps.cookieKeys, email, deps.secure) };
}
