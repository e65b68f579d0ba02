/**
 * Compatibility with how MCP clients authorize: the official MCP TypeScript SDK's own OAuth
 * client (`auth()` from @modelcontextprotocol/sdk/client/auth.js) discovers the protected-resource
 * and authorization-server metadata, registers dynamically, sends PKCE + resource, and exchanges
 * the code; the user's browser is played by the plain-HTML helper.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { driveBrowser } from '../helpers/oauth-flow.ts';
import { startIdentityApp, type IdentityHarness } from './harness.ts';

let h: IdentityHarness;
beforeAll(async () => { h = await startIdentityApp(); });
afterAll(async () => { await h?.close(); });

/** An in-memory OAuthClientProvider, as an MCP host keeps one per server. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl = 'http://localhost:33418/oauth/callback';
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK test host',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() { return this.info; }
  saveClientInformation(i: OAuthClientInformationMixed) { this.info = i; }
  tokens() { return this.saved; }
  saveTokens(t: OAuthTokens) { this.saved = t; }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(v: string) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
}

test('the MCP SDK client signs a user up and gets a token for the service', async () => {
  const provider = new MemoryProvider();
  const serverUrl = `${h.baseUrl}/`; // the MCP endpoint is at path / on the main host
  expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
  const url = provider.authorizationUrl!;
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  expect(url.searchParams.get('resource')).toMatch(new RegExp(`^${h.baseUrl}/?$`));

  const { callback } = await driveBrowser(url, provider.redirectUrl, { email: 'mcp-host@example.com', password: 'correct horse battery' });
  const code = callback!.searchParams.get('code')!;
  expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe('AUTHORIZED');

  const verified = await h.identity.verifyAccessToken(provider.saved!.access_token);
  expect(verified).toMatchObject({ audience: h.baseUrl });
  expect(provider.saved!.refresh_token).toBeDefined();

  // The SDK refreshes with the stored refresh token when asked again.
  const before = provider.saved!.access_token;
  expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
  expect(provider.saved!.access_token).not.toBe(before);
  expect(await h.identity.verifyAccessToken(provider.saved!.access_token)).not.toBeNull();
});
