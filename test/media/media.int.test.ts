/**
 * Media in conversations over REST (issue 39, item 3) on the files store: data, url and the
 * upload-URL fallback; the 8 MB limit; content sniffing; single use and expiry of upload URLs;
 * signed URLs refused when tampered with or expired; one user never reaching another's media; the
 * media message in the conversation; and every new route fuzzed, never a 5xx.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, ManualClock, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { HTML, MIB8, MP4, PDF, PNG, jpegOf } from './media-fixture.ts';
import { ORPHAN_AGE_MS } from '../../engine/media/media-orphans.ts';
import { ORPHAN_SWEEP_JOB } from '../../engine/media/media.workers.ts';
import { waitFor } from '../platform/platform-harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies read loosely in tests

let env: TestApp;
let identity: FakeIdentity;
const clock = new ManualClock(Date.now());
/** A local origin the media `url` tests fetch from (127.0.0.1 is on OUTBOUND_ALLOWLIST). */
let origin: Server;
/** A server on 127.0.0.2, not on the allowlist: it must never see a connection. */
let forbidden: Server;
let forbiddenConnections = 0;
const routes: Record<string, (res: import('node:http').ServerResponse) => void> = {};

function listen(s: Server, host: string): Promise<number> {
  return new Promise((resolve) => s.listen(0, host, () => resolve((s.address() as AddressInfo).port)));
}
let originPort = 0;
let forbiddenPort = 0;

beforeAll(async () => {
  identity = fakeIdentity();
  env = await makeTestApp({ identity, clock, triage: scriptedTriage(), env: { CARE_REPLY_WAIT_SECONDS: '2', OUTBOUND_ALLOWLIST: '127.0.0.1' } });
  origin = createServer((req, res) => (routes[req.url ?? ''] ?? ((r) => r.writeHead(404).end()))(res));
  forbidden = createServer((_req, res) => res.end('never'));
  forbidden.on('connection', () => { forbiddenConnections++; });
  originPort = await listen(origin, '127.0.0.1');
  forbiddenPort = await listen(forbidden, '127.0.0.2');
  routes['/photo.png'] = (r) => r.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
  routes['/big.jpg'] = (r) => r.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpegOf(MIB8 + 1));
  routes['/to-private'] = (r) => r.writeHead(302, { location: `http://127.0.0.2:${forbiddenPort}/x.png` }).end();
  routes['/gone'] = (r) => r.writeHead(404).end();
});
afterAll(async () => {
  origin.close();
  forbidden.close();
  await env.close();
});

function api(token: string) {
  return async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: Json) => {
    const r = await env.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload !== undefined ? { payload } : {}) });
    return { status: r.statusCode, body: r.json<Json>() };
  };
}

async function patient() {
  const u = await identity.signUp(env.db);
  const call = api(u.token);
  const s = await call('POST', '/api/consultations', { contextMessage: 'I have a rash on my arm for three days.', region: 'US-CA' });
  expect(s.status, JSON.stringify(s.body)).toBe(200);
  return { call, id: s.body.conversationId as string, userId: u.userId };
}

/** PUTs raw bytes to an upload URL, as curl -T does. */
function put(uploadUrl: string, body: Buffer, contentType = 'application/octet-stream') {
  return env.app.inject({ method: 'PUT', url: new URL(uploadUrl).pathname, headers: { 'content-type': contentType }, payload: body });
}

/** GETs a signed URL of the files store (served by the app itself). */
function fetchSigned(url: string) {
  const u = new URL(url);
  return env.app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
}

describe('POST /api/consultations/{id}/media', () => {
  it('sends a photo as data; it appears in the conversation and reads back through a signed URL', async () => {
    const p = await patient();
    const r = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png', data: PNG.toString('base64'), fileName: 'rash.png' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ sent: true, mediaSent: 'photo', mediaType: 'photo', contentType: 'image/png', byteSize: PNG.length });
    const conv = await p.call('GET', `/api/consultations/${p.id}`);
    const m = conv.body.messages.find((x: Json) => x.id === r.body.messageId);
    expect(m).toMatchObject({ type: 'photo', sender: 'user', fileName: 'rash.png' });
    const waited = await p.call('POST', `/api/consultations/${p.id}/wait`, { timeoutSeconds: 1 });
    expect(waited.body.conversation.messages.map((x: Json) => x.id)).toContain(r.body.messageId);
    const list = await p.call('GET', '/api/consultations');
    expect(list.body.conversations[0].lastMessage).toMatchObject({ type: 'photo', fileName: 'rash.png' });

    const g = await p.call('GET', `/api/consultations/${p.id}/media/${r.body.messageId}`);
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(g.body).toMatchObject({ expiresIn: 300, mediaType: 'photo', contentType: 'image/png' });
    const file = await fetchSigned(g.body.url);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(file.headers['content-disposition']).toBe(`inline; filename="rash.png"; filename*=UTF-8''rash.png`);
    expect(file.rawPayload.equals(PNG)).toBe(true);
  });

  it('accepts exactly 8 MB and refuses 8 MB + 1 byte with a 413 naming the limit', async () => {
    const p = await patient();
    const ok = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/jpeg', data: jpegOf(MIB8).toString('base64') });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200);
    expect(ok.body.byteSize).toBe(MIB8);
    const over = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/jpeg', data: jpegOf(MIB8 + 1).toString('base64') });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ error: 'media_too_large', field: 'data', limitBytes: MIB8 });
    expect(over.body.reason).toContain('8 MB (8388608 bytes)');
  });

  it('refuses content that does not match contentType, or is not an image, video or PDF', async () => {
    const p = await patient();
    const send = (contentType: string, bytes: Buffer, extra: Json = {}) => p.call('POST', `/api/consultations/${p.id}/media`, { contentType, data: bytes.toString('base64'), ...extra });
    const mismatch = await send('image/jpeg', PNG);
    expect(mismatch.status).toBe(415);
    expect(mismatch.body).toMatchObject({ error: 'media_not_accepted', code: 'content_type_mismatch', field: 'contentType', detectedType: 'image/png' });
    expect((await send('text/html', HTML)).body).toMatchObject({ code: 'type_not_allowed', field: 'contentType' });
    expect((await send('image/png', HTML)).body).toMatchObject({ code: 'content_not_allowed', field: 'data' });
    expect((await send('video/mp4', MP4, { mediaType: 'photo' })).body).toMatchObject({ code: 'media_type_mismatch', field: 'mediaType' });
    const pdf = await send('application/pdf', PDF, { fileName: '../../etc/lab "result".pdf' });
    expect(pdf.body).toMatchObject({ sent: true, mediaType: 'file' });
    const g = await p.call('GET', `/api/consultations/${p.id}/media/${pdf.body.messageId}`);
    const file = await fetchSigned(g.body.url);
    // A PDF is downloaded, never rendered in our origin; the name cannot break the header.
    expect(file.headers['content-disposition']).toBe(`attachment; filename="lab _result_.pdf"; filename*=UTF-8''lab%20%22result%22.pdf`);
    expect((await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png', data: `data:image/png;base64,${PNG.toString('base64')}` })).body)
      .toMatchObject({ error: 'invalid_request', field: 'data', code: 'data_url_prefix' });
  });

  it('fetches a url through the outbound guard; a private address is refused before any connection', async () => {
    const p = await patient();
    const send = (url: string) => p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png', url });
    const ok = await send(`http://127.0.0.1:${originPort}/photo.png`);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ sent: true, mediaType: 'photo' });

    const direct = await send(`http://127.0.0.2:${forbiddenPort}/x.png`);
    expect(direct.status).toBe(400);
    expect(direct.body).toMatchObject({ field: 'url' });
    const https = await send(`https://127.0.0.2:${forbiddenPort}/x.png`);
    expect(https.body).toMatchObject({ field: 'url', code: 'blocked_address' });
    const redirected = await send(`http://127.0.0.1:${originPort}/to-private`);
    expect(redirected.status).toBe(400);
    expect(redirected.body).toMatchObject({ field: 'url', code: 'blocked_address' });
    // localhost is decided by its address, as 127.0.0.1 is (on the allowlist here): not refused by
    // its name, it reaches the origin, which speaks no TLS.
    expect((await send(`https://localhost:${originPort}/photo.png`)).body).toMatchObject({ error: 'media_fetch_failed', code: 'unreachable' });
    expect((await send('https://user:pw@example.com/x.png')).body).toMatchObject({ code: 'credentials_in_url' });
    expect((await send('ftp://example.com/x.png')).body).toMatchObject({ code: 'https_required' });
    expect(forbiddenConnections).toBe(0);

    const big = await send(`http://127.0.0.1:${originPort}/big.jpg`);
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ error: 'media_too_large', field: 'url' });
    expect((await send(`http://127.0.0.1:${originPort}/gone`)).body).toMatchObject({ error: 'media_fetch_failed', code: 'http_status' });
  });
});

describe('an emergency conversation', () => {
  it('takes no media, by data or upload URL', async () => {
    const u = await identity.signUp(env.db);
    const call = api(u.token);
    const s = await call('POST', '/api/consultations', { contextMessage: 'Crushing chest pain #emergency', region: 'US-CA' });
    const w = await call('POST', `/api/consultations/${s.body.conversationId}/wait`, {});
    expect(w.body.status).toBe('EMERGENCY');
    for (const body of [{ contentType: 'image/png', data: PNG.toString('base64') }, { contentType: 'image/png' }]) {
      const r = await call('POST', `/api/consultations/${s.body.conversationId}/media`, body);
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ error: 'conversation_emergency' });
    }
  });
});

describe('the upload URL (neither data nor url)', () => {
  it('takes one PUT within 60 s; the message appears under the pre-assigned id; a second PUT is refused', async () => {
    const p = await patient();
    const r = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png', fileName: 'arm.png' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ sent: false, mediaType: 'photo', expiresIn: 60, uploadRef: expect.stringMatching(/^upl_/), messageId: expect.stringMatching(/^msg_/) });
    expect(r.body.uploadUrl).toMatch(/^http:\/\/127\.0\.0\.1:8787\/media\/uploads\/[A-Za-z0-9_-]{43}$/);
    const before = await p.call('GET', `/api/consultations/${p.id}/media/${r.body.messageId}`);
    expect(before.status).toBe(404);

    const first = await put(r.body.uploadUrl, PNG, 'image/png');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ sent: true, messageId: r.body.messageId, mediaType: 'photo' });
    const conv = await p.call('GET', `/api/consultations/${p.id}`);
    expect(conv.body.messages.at(-1)).toMatchObject({ id: r.body.messageId, type: 'photo', fileName: 'arm.png' });
    const g = await p.call('GET', `/api/consultations/${p.id}/media/${r.body.messageId}?mediaType=photo`);
    expect((await fetchSigned(g.body.url)).rawPayload.equals(PNG)).toBe(true);

    const again = await put(r.body.uploadUrl, PNG, 'image/png');
    expect(again.statusCode).toBe(410);
    expect(again.json()).toMatchObject({ error: 'upload_url_invalid', code: 'used' });
  });

  it('refuses an expired upload URL, a bad body (and then the URL as used), and more than 8 MB', async () => {
    const p = await patient();
    const ask = async () => (await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png' })).body;
    const late = await ask();
    clock.advance(61_000);
    const expired = await put(late.uploadUrl, PNG);
    expect(expired.statusCode).toBe(410);
    expect(expired.json()).toMatchObject({ error: 'upload_url_invalid', code: 'expired' });

    const wrong = await ask();
    const html = await put(wrong.uploadUrl, HTML);
    expect(html.statusCode).toBe(415);
    expect(html.json()).toMatchObject({ error: 'media_not_accepted', field: 'body' });
    expect((await put(wrong.uploadUrl, PNG)).json()).toMatchObject({ code: 'used' });

    const big = await ask();
    const over = await put(big.uploadUrl, jpegOf(MIB8 + 1));
    expect(over.statusCode).toBe(413);
    expect(over.json()).toMatchObject({ error: 'media_too_large' });
    expect(over.json().reason).toContain('8 MB (8388608 bytes)');
  });

  it('lets exactly one of two concurrent PUTs win', async () => {
    const p = await patient();
    const r = (await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png' })).body;
    const both = await Promise.all([put(r.uploadUrl, PNG), put(r.uploadUrl, PNG)]);
    expect(both.map((x) => x.statusCode).sort()).toEqual([200, 410]);
  });
});

describe('range requests on a signed URL (RFC 9110, section 14)', () => {
  it('serves bytes=a-b, bytes=a- and bytes=-n as 206, refuses an unsatisfiable range with 416, and sends the whole file otherwise', async () => {
    const p = await patient();
    const sent = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'video/mp4', data: MP4.toString('base64') });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const { url } = (await p.call('GET', `/api/consultations/${p.id}/media/${sent.body.messageId}`)).body;
    const u = new URL(url);
    const get = (headers: Record<string, string>) => env.app.inject({ method: 'GET', url: `${u.pathname}${u.search}`, headers });
    const size = MP4.length;
    const whole = await get({});
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.rawPayload.equals(MP4)).toBe(true);
    const etag = whole.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    for (const [range, start, end] of [
      ['bytes=0-9', 0, 9], ['bytes=10-19', 10, 19], [`bytes=20-${size + 100}`, 20, size - 1], ['bytes=30-', 30, size - 1],
      ['bytes=-16', size - 16, size - 1], [`bytes=-${size + 5}`, 0, size - 1], [`bytes=${size - 1}-${size - 1}`, size - 1, size - 1],
    ] as const) {
      const r = await get({ range });
      expect(r.statusCode, range).toBe(206);
      expect(r.headers['content-range'], range).toBe(`bytes ${start}-${end}/${size}`);
      expect(r.headers['content-length'], range).toBe(String(end - start + 1));
      expect(r.headers['content-type']).toBe('video/mp4');
      expect(r.rawPayload.equals(MP4.subarray(start, end + 1)), range).toBe(true);
    }
    for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0']) {
      const r = await get({ range });
      expect(r.statusCode, range).toBe(416);
      expect(r.headers['content-range'], range).toBe(`bytes */${size}`);
      expect(r.json(), range).toMatchObject({ code: 'range_not_satisfiable', field: 'Range' });
    }
    // Not served as a range (RFC 9110 lets a server ignore it): the whole file, never a 5xx.
    for (const range of ['bytes=5-2', 'items=0-5', 'bytes=0-1,4-5', 'bytes=x-y', 'bytes=-', 'bytes=99999999999999999999999-']) {
      const r = await get({ range });
      expect([200, 416], range).toContain(r.statusCode);
      if (r.statusCode === 200) expect(r.rawPayload.equals(MP4), range).toBe(true);
    }
    // If-Range: the range only while the file is the one named.
    expect((await get({ range: 'bytes=0-3', 'if-range': etag })).statusCode).toBe(206);
    const stale = await get({ range: 'bytes=0-3', 'if-range': '"0-0"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.equals(MP4)).toBe(true);
    // HEAD answers the same headers without the body.
    const head = await env.app.inject({ method: 'HEAD', url: `${u.pathname}${u.search}`, headers: { range: 'bytes=0-9' } });
    expect(head.statusCode).toBe(206);
    expect(head.headers['content-range']).toBe(`bytes 0-9/${size}`);
  });
});

describe('signed URLs and access', () => {
  it('refuses a tampered or expired signed URL', async () => {
    const p = await patient();
    const sent = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png', data: PNG.toString('base64') });
    const { url } = (await p.call('GET', `/api/consultations/${p.id}/media/${sent.body.messageId}`)).body;
    const u = new URL(url);
    const variants: [string, (q: URLSearchParams) => void][] = [
      ['content type', (q) => q.set('ct', 'text/html')],
      ['disposition', (q) => q.set('d', 'a')],
      ['expiry', (q) => q.set('exp', String(Number(q.get('exp')) + 3600))],
      ['signature', (q) => q.set('sig', `${q.get('sig')!.slice(0, -2)}AA`)],
      ['no signature', (q) => q.delete('sig')],
    ];
    for (const [what, change] of variants) {
      const t = new URL(u);
      change(t.searchParams);
      const r = await fetchSigned(t.toString());
      expect(r.statusCode, what).toBe(403);
      expect(r.json()).toMatchObject({ error: 'forbidden', code: 'bad_signature' });
    }
    const other = await fetchSigned(url.replace(sent.body.messageId, 'msg_other'));
    expect(other.statusCode).toBe(403);
    clock.advance(301_000);
    const expired = await fetchSigned(url);
    expect(expired.statusCode).toBe(403);
    expect(expired.json()).toMatchObject({ code: 'expired' });
  });

  it('never lets one user reach another\'s media', async () => {
    const a = await patient();
    const b = await patient();
    const sent = await a.call('POST', `/api/consultations/${a.id}/media`, { contentType: 'image/png', data: PNG.toString('base64') });
    expect((await b.call('GET', `/api/consultations/${a.id}/media/${sent.body.messageId}`)).status).toBe(404);
    expect((await b.call('GET', `/api/consultations/${b.id}/media/${sent.body.messageId}`)).status).toBe(404);
    expect((await b.call('POST', `/api/consultations/${a.id}/media`, { contentType: 'image/png', data: PNG.toString('base64') })).status).toBe(404);
    expect((await b.call('POST', `/api/consultations/${a.id}/media`, { contentType: 'image/png' })).status).toBe(404);
    // A patient is not a provider; a provider not offered the conversation sees nothing.
    expect((await b.call('GET', `/api/provider/visits/${a.id}/media/${sent.body.messageId}`)).status).toBe(403);
    const doc = await identity.signUp(env.db, `doc-${Date.now()}@clinic.test`);
    await env.db.query(`INSERT INTO providers (account_id, role, npi, regions, display_name) VALUES ($1, 'clinician', $2, $3, 'Dr. M')`, [doc.userId, String(Date.now()).slice(-10), ['US-CA']]);
    expect((await api(doc.token)('GET', `/api/provider/visits/${a.id}/media/${sent.body.messageId}`)).status).toBe(404);
    await env.db.query(`INSERT INTO visit_offers (conversation_id, request_seq, provider_id, rank, offered_at) VALUES ($1, 1, $2, 1, now())`, [a.id, doc.userId]);
    const seen = await api(doc.token)('GET', `/api/provider/visits/${a.id}/media/${sent.body.messageId}`);
    expect(seen.status, JSON.stringify(seen.body)).toBe(200);
    expect(seen.body).toMatchObject({ mediaType: 'photo', expiresIn: 300 });
  });
});

describe('no bytes without a message (engine/media/media-orphans.ts)', () => {
  const fileOf = (key: string) => join(env.config.dataDir, 'media', key);

  it('deletes the stored file when the message\'s transaction fails after it was written', async () => {
    const p = await patient();
    const up = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png' });
    // Triage flags the conversation between the upload URL and the PUT: the bytes are sniffed and
    // stored, then the message's transaction refuses the EMERGENCY conversation and rolls back.
    await env.db.query(`UPDATE conversations SET status = 'EMERGENCY' WHERE id = $1`, [p.id]);
    const r = await put(up.body.uploadUrl, PNG, 'image/png');
    expect(r.statusCode, r.body).toBe(409);
    expect(r.json()).toMatchObject({ error: 'conversation_emergency' });
    expect(existsSync(fileOf(`${p.id}/${up.body.messageId}`))).toBe(false);
    const pending = await env.db.query('SELECT 1 FROM media_pending_puts WHERE storage_key = $1', [`${p.id}/${up.body.messageId}`]);
    expect(pending.rows).toEqual([]);
  });

  it('the sweep job deletes what a crash left between the write and the commit, and nothing else', async () => {
    const p = await patient();
    const kept = await p.call('POST', `/api/consultations/${p.id}/media`, { contentType: 'image/png', data: PNG.toString('base64') });
    expect(kept.status).toBe(200);
    const store = env.services.ports.media!.store;
    // What a process killed after store.put and before its commit leaves: a pending row and the bytes.
    const leave = async (key: string) => {
      await env.db.query('INSERT INTO media_pending_puts (storage_key, created_at) VALUES ($1, $2)', [key, clock.now().toISOString()]);
      await store.put(key, PNG, 'image/png');
    };
    await leave(`${p.id}/msg_crashed`);
    clock.advance(ORPHAN_AGE_MS + 1000);
    // A put still within a live request's time is left alone.
    await leave(`${p.id}/msg_in_flight`);
    await env.services.ports.jobs!.send(ORPHAN_SWEEP_JOB, {});
    await waitFor(() => !existsSync(fileOf(`${p.id}/msg_crashed`)), 30_000, 'the sweep job');
    expect(existsSync(fileOf(`${p.id}/msg_in_flight`))).toBe(true);
    expect(existsSync(fileOf(`${p.id}/${kept.body.messageId}`))).toBe(true);
    const { rows } = await env.db.query<{ storage_key: string }>('SELECT storage_key FROM media_pending_puts ORDER BY 1');
    expect(rows.map((r) => r.storage_key)).toEqual([`${p.id}/msg_in_flight`]);
    await store.delete(`${p.id}/msg_in_flight`);
    await env.db.query('DELETE FROM media_pending_puts');
  });
});

describe('fuzzing the media routes', () => {
  it('answers malformed requests on every new route with a 4xx, never a 5xx', async () => {
    const p = await patient();
    const base = `/api/consultations/${p.id}/media`;
    const bodies: unknown[] = [
      {}, { contentType: 1 }, { contentType: 'image/png', data: 12 }, { contentType: 'image/png', data: '%%%' }, { contentType: 'image/png', data: 'A' },
      { contentType: 'image/png', data: '' }, { contentType: 'image/png', url: 'not a url' }, { contentType: 'image/png', url: 'http://[::1' },
      { contentType: 'image/png', url: 'https://169.254.169.254/latest/meta-data' }, { contentType: 'image/png', url: 'http://[::ffff:127.0.0.2]/x' },
      { contentType: 'image/png;charset=x' }, { contentType: 'x'.repeat(500) }, { contentType: 'image/png', mediaType: 'audio' },
      { contentType: 'image/png', fileName: '\u0000\u0001' }, { contentType: 'image/png', extra: true }, [1, 2], 'text', null,
      { contentType: 'image/png', data: PNG.toString('base64url') }, { contentType: 'IMAGE/PNG', data: PNG.toString('base64').replace(/=+$/, '') },
    ];
    for (const b of bodies) {
      const r = await env.app.inject({ method: 'POST', url: base, headers: { authorization: `Bearer ${(await identity.signUp(env.db)).token}`, 'content-type': 'application/json' }, payload: JSON.stringify(b) });
      expect(r.statusCode, JSON.stringify(b)).toBeLessThan(500);
      const own = await p.call('POST', base, b as Json);
      expect(own.status, JSON.stringify(b)).toBeLessThan(500);
    }
    const raw = await env.app.inject({ method: 'POST', url: base, headers: { 'content-type': 'application/json' }, payload: '{"contentType":' });
    expect(raw.statusCode).toBeLessThan(500);
    for (const url of [`${base}/x`, `${base}/${'x'.repeat(300)}`, `${base}/%00`, `${base}/msg_x?mediaType=nope`, `${base}/msg_x?fileName=`, '/api/consultations/nope/media/msg_x',
      '/api/provider/visits/x/media/y', `/api/provider/visits/${p.id}/media/%E0%A4%A`]) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
        const r = await env.app.inject({ method, url, headers: { authorization: `Bearer ${(await identity.signUp(env.db)).token}` } });
        expect(r.statusCode, `${method} ${url}`).toBeLessThan(500);
      }
    }
    for (const url of ['/media/uploads/x', `/media/uploads/${'A'.repeat(43)}`, '/media/uploads/%2e%2e', '/media/uploads/', `/media/uploads/${'a'.repeat(500)}`]) {
      for (const [ct, payload] of [['application/json', '{}'], ['image/png', PNG], ['multipart/form-data; boundary=x', '--x'], ['', Buffer.alloc(0)]] as const) {
        const r = await env.app.inject({ method: 'PUT', url, headers: ct ? { 'content-type': ct } : {}, payload });
        expect(r.statusCode, `PUT ${url} ${ct}`).toBeLessThan(500);
      }
      expect((await env.app.inject({ method: 'GET', url })).statusCode).toBeLessThan(500);
    }
    for (const url of ['/media/files/a/b', '/media/files/a/b?exp=1&ct=image/png&d=i&n=x&sig=y', '/media/files/..%2F..%2Fkeys/x?sig=1', '/media/files/a/b?exp=99999999999999999999&ct=&d=&n=&sig=',
      '/media/files/a/b?exp[]=1&sig[]=2', `/media/files/${'a'.repeat(150)}/b?sig=x`, '/media/files/a']) {
      const r = await env.app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBeLessThan(500);
      expect(r.statusCode).toBeGreaterThanOrEqual(400);
    }
  });
});
