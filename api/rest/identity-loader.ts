import type { Identity, IdentityDeps } from '../identity/identity.ts';

/**
 * Loads the OAuth server (api/identity/oidc.ts, owned by the identity work). Guarded while that
 * module is being written: without it, an Identity that rejects every token is used, so the app
 * still starts and every protected route answers 401.
 */
export async function loadIdentity(deps: IdentityDeps): Promise<Identity> {
  const path = '../identity/oidc.ts';
  let mod: { createIdentity?: (d: IdentityDeps) => Promise<Identity> } | undefined;
  try {
    mod = (await import(path)) as typeof mod;
  } catch (e) {
    if ((e as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw e;
  }
  if (mod?.createIdentity) return mod.createIdentity(deps);
  deps.log.warn('api/identity/oidc.ts not present: OAuth is disabled and every token is rejected');
  return {
    mount: async () => undefined,
    verifyAccessToken: async () => null,
    resourceMetadataUrl: () => `${deps.config.baseUrl}/.well-known/oauth-protected-resource`,
    close: async () => undefined,
  };
}
