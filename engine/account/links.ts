/**
 * Paths of the identity pages (served by api/identity on the main host) that agents hand to their
 * users. Kept here so engine operations can build links without importing the transport.
 */
export const SIGNUP_PATH = '/oauth/signup';
export const SIGNIN_PATH = '/oauth/signin';
