/**
 * Identity page (served by api/identity on the main host) that agents hand to their users. The
 * one entry page serves both new and returning users: it explains that the agent starts the
 * OAuth flow, whose page offers sign-in and sign-up. Kept here so engine operations can build
 * links without importing the transport.
 */
export const SIGNUP_PATH = '/oauth/signup';
export const SIGNIN_PATH = SIGNUP_PATH;
