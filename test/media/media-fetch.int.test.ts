/**
 * Media by `url` through the real outbound guard (engine/adapters/outbound-guard.ts) with an
 * injected resolver: a host name that resolves to a private address is refused before any
 * connection (the guard's lookup runs in the connector), and so is a name that resolves to a
 * public address once and a private one at connect time (DNS rebinding). Also MEDIA_* config.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundGuard } from '../../engine/adapters/outbound-guard.ts';
import { loadConfig } from '../../engine/core/config.ts';
import { fetchMedia } from '../../engine/media/media-fetch.ts';
import { isAppError } from '../../engine/core/errors.ts';

let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  server = createServer((_req, res) => res.end('never'));
  server.on('connection', () => { connections++; });
  await new Promise<void>((r) => server.listen(0, '127.0.0.2', () => r()));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => { server.close(); });

async function refusal(p: Promise<unknown>) {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(isAppError(e), String(e)).toBe(true);
  return e as { code: string; details: { field?: string; code?: string } };
}

describe('media url through the outbound guard', () => {
  it('refuses a name resolving to a private address, and DNS rebinding, before connecting', async () => {
    let calls = 0;
    const guard = createOutboundGuard({
      resolve: async (host) => {
        if (host === 'rebind.example') return [{ address: calls++ === 0 ? '93.184.216.34' : '127.0.0.2', family: 4 }];
        return [{ address: '127.0.0.2', family: 4 }];
      },
    });
    try {
      const named = await refusal(fetchMedia(`https://media.example:${port}/x.png`, guard));
      expect(named.details).toMatchObject({ field: 'url', code: 'blocked_address' });
      // The first answer is spent on a check; the connection's own lookup gets the private one.
      await guard.check(new URL('https://rebind.example/'));
      const rebound = await refusal(fetchMedia(`https://rebind.example:${port}/x.png`, guard));
      expect(rebound.details).toMatchObject({ field: 'url', code: 'blocked_address' });
      expect(connections).toBe(0);
    } finally {
      await guard.close();
    }
  });

  it('parses MEDIA_* and names a missing or bad one', () => {
    expect(loadConfig({}).mediaStore).toBe('files');
    const c = loadConfig({ MEDIA_STORE: 's3', MEDIA_S3_BUCKET: 'cb-media', MEDIA_S3_ENDPOINT: 'http://127.0.0.1:9000', MEDIA_S3_FORCE_PATH_STYLE: 'on' });
    expect(c.mediaS3).toMatchObject({ bucket: 'cb-media', region: 'us-east-1', forcePathStyle: true, prefix: 'media/', endpoint: 'http://127.0.0.1:9000' });
    expect(() => loadConfig({ MEDIA_STORE: 's3' })).toThrow(/MEDIA_S3_BUCKET/);
    expect(() => loadConfig({ MEDIA_STORE: 'disk' })).toThrow(/MEDIA_STORE/);
    expect(() => loadConfig({ MEDIA_STORE: 's3', MEDIA_S3_BUCKET: 'b', MEDIA_S3_ACCESS_KEY_ID: 'k' })).toThrow(/MEDIA_S3_(BUCKET|SECRET_ACCESS_KEY)/);
    expect(() => loadConfig({ MEDIA_STORE: 's3', MEDIA_S3_BUCKET: 'cb-media', MEDIA_S3_ACCESS_KEY_ID: 'k' })).toThrow(/MEDIA_S3_SECRET_ACCESS_KEY/);
  });
});
