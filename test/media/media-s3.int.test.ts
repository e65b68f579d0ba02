/**
 * The S3 MediaStore (MEDIA_STORE=s3) against a local S3-compatible server from npm (s3rver, run
 * in-process on a temporary directory): media sent as data and through the upload URL land in
 * the bucket and read back through presigned URLs that S3 serves with the right type and
 * disposition; an expired presigned URL is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, ManualClock, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { MP4, PDF, PNG } from './media-fixture.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies read loosely in tests

let env: TestApp;
let identity: FakeIdentity;
let s3: S3rver;
let dir: string;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cb-s3-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'carebridge-media', configs: [] }] });
  const { port } = await s3.run();
  identity = fakeIdentity();
  env = await makeTestApp({
    identity, clock, triage: scriptedTriage(),
    env: {
      MEDIA_STORE: 's3', MEDIA_S3_BUCKET: 'carebridge-media', MEDIA_S3_ENDPOINT: `http://127.0.0.1:${port}`, MEDIA_S3_FORCE_PATH_STYLE: 'on',
      // s3rver's fixed credentials.
      MEDIA_S3_ACCESS_KEY_ID: 'S3RVER', MEDIA_S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
  });
});
afterAll(async () => {
  await env?.close();
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function patient() {
  const u = await identity.signUp(env.db);
  const call = async (method: 'GET' | 'POST', url: string, payload?: Json) => {
    const r = await env.app.inject({ method, url, headers: { authorization: `Bearer ${u.token}` }, ...(payload ? { payload } : {}) });
    return { status: r.statusCode, body: r.json<Json>() };
  };
  const s = await call('POST', '/api/consultations', { contextMessage: 'A cut on my hand that looks red.', region: 'US-CA' });
  return { call, id: s.body.conversationId as string };
}

describe('media on S3', () => {
  it('stores data and uploads in the bucket and reads them back through presigned URLs', async () => {
    const p = await patient();
    const sent = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png', data: PNG.toString('base64') });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const up = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'application/pdf', fileName: 'lab.pdf' });
    const put = await env.app.inject({ method: 'PUT', url: new URL(up.body.uploadUrl).pathname, payload: PDF, headers: { 'content-type': 'application/pdf' } });
    expect(put.statusCode, put.body).toBe(200);

    const photo = await p.call('GET', `/api/consultations/${p.id}/media/${sent.body.messageId}`);
    expect(photo.body.url).toContain('X-Amz-Signature=');
    const got = await fetch(photo.body.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).toBe(true);

    const pdf = await p.call('GET', `/api/consultations/${p.id}/media/${up.body.messageId}`);
    const file = await fetch(pdf.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="lab.pdf"; filename*=UTF-8''lab.pdf`);
    expect(Buffer.from(await file.arrayBuffer()).equals(PDF)).toBe(true);
  });

  // S3 serves ranges on a presigned GET itself (Range is not a signed header). s3rver reads
  // `bytes=-n` as `bytes=0-n` (real S3 and the files store serve the last n bytes), so the suffix
  // form is checked on the files store only (media.int.test.ts).
  it('serves byte ranges of a presigned URL: 206 with Content-Range, 416 past the end', async () => {
    const p = await patient();
    const sent = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'video/mp4', data: MP4.toString('base64') });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const { url } = (await p.call('GET', `/api/consultations/${p.id}/media/${sent.body.messageId}`)).body;
    const size = MP4.length;
    for (const [range, start, end] of [['bytes=0-9', 0, 9], ['bytes=30-', 30, size - 1], [`bytes=${size - 4}-${size - 1}`, size - 4, size - 1]] as const) {
      const r = await fetch(url, { headers: { range } });
      expect(r.status, range).toBe(206);
      expect(r.headers.get('content-range'), range).toBe(`bytes ${start}-${end}/${size}`);
      expect(r.headers.get('accept-ranges')).toBe('bytes');
      expect(Buffer.from(await r.arrayBuffer()).equals(MP4.subarray(start, end + 1)), range).toBe(true);
    }
    const past = await fetch(url, { headers: { range: `bytes=${size}-` } });
    expect(past.status).toBe(416);
    await past.arrayBuffer();
  });

  it('deletes an object (what the orphan cleanup calls), and deleting a missing one is not an error', async () => {
    const p = await patient();
    const sent = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png', data: PNG.toString('base64') });
    const { url } = (await p.call('GET', `/api/consultations/${p.id}/media/${sent.body.messageId}`)).body;
    const store = env.services.ports.media!.store;
    await store.delete(`${p.id}/${sent.body.messageId}`);
    const gone = await fetch(url);
    expect(gone.status).toBe(404);
    await gone.arrayBuffer();
    await expect(store.delete(`${p.id}/msg_never_written`)).resolves.toBeUndefined();
  });

  // s3rver checks a presigned URL's expiry but not its SigV4 signature ("unimplemented" in its
  // authentication middleware), so tampering is refused by real S3 only: here the signed
  // parameters are checked to be under the signature, and expiry is checked end to end.
  it('signs the response overrides and the expiry; an expired presigned URL is refused', async () => {
    const p = await patient();
    const sent = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png', data: PNG.toString('base64') });
    const { url, expiresIn } = (await p.call('GET', `/api/consultations/${p.id}/media/${sent.body.messageId}`)).body;
    const q = new URL(url).searchParams;
    expect(expiresIn).toBe(300);
    expect(q.get('X-Amz-Expires')).toBe('300');
    expect(q.get('response-content-type')).toBe('image/png');
    expect(q.get('response-content-disposition')).toMatch(/^inline; /);
    expect(q.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    // The URL is signed at the service's clock: moved back 10 minutes, a 300 s URL is already expired.
    clock.advance(-600_000);
    const old = (await p.call('GET', `/api/consultations/${p.id}/media/${sent.body.messageId}`)).body.url;
    clock.advance(600_000);
    expect((await fetch(old)).status).toBe(403);
  });
});
