/**
 * The clinician console shows a conversation's media (issue 35, item 4; issue 39, item 3): images
 * inline through signed URLs, other files as links, only to a provider the conversation was
 * offered to; with the S3 store the page's CSP allows S3's origin for images, and only that.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { loadCookieKeys } from '../../api/identity/keys.ts';
import { CookieSealer, SESSION_COOKIE } from '../../api/console/console-session.ts';
import { consoleMediaHeaders } from '../../api/media/console-media.ts';
import type { MediaStore } from '../../engine/media/media-store.ts';
import { PDF, PNG } from './media-fixture.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies read loosely in tests

let env: TestApp;
let identity: FakeIdentity;

beforeAll(async () => {
  identity = fakeIdentity();
  env = await makeTestApp({ identity, triage: scriptedTriage() });
});
afterAll(async () => { await env.close(); });

function cookieFor(token: string): string {
  return `${SESSION_COOKIE}=${new CookieSealer(loadCookieKeys(env.config)[0]!).seal({ token, csrf: 'c'.repeat(43), exp: Date.now() + 3_600_000 })}`;
}

describe('clinician console: media', () => {
  it('shows photos inline and files as links, through signed URLs the provider may read', async () => {
    const u = await identity.signUp(env.db);
    const call = async (url: string, payload: Json) => (await env.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${u.token}` }, payload })).json<Json>();
    const { conversationId: id } = await call('/api/consultations', { contextMessage: 'A rash on my arm.', region: 'US-CA' });
    const photo = await call(`/api/consultations/${id}/media`, { contentType: 'image/png', data: PNG.toString('base64') });
    const pdf = await call(`/api/consultations/${id}/media`, { contentType: 'application/pdf', data: PDF.toString('base64'), fileName: 'lab <b>.pdf' });

    const doc = await identity.signUp(env.db, `doc-console-${Date.now()}@clinic.test`);
    await env.db.query(`INSERT INTO providers (account_id, role, npi, regions, display_name) VALUES ($1, 'clinician', $2, $3, 'Dr. C')`, [doc.userId, String(Date.now()).slice(-10), ['US-CA']]);
    const page = () => env.app.inject({ method: 'GET', url: `/console/visits/${id}`, headers: { cookie: cookieFor(doc.token) } });
    expect((await page()).statusCode).toBe(404);
    await env.db.query(`INSERT INTO visit_offers (conversation_id, request_seq, provider_id, rank, offered_at) VALUES ($1, 1, $2, 1, now())`, [id, doc.userId]);

    const r = await page();
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-security-policy']).toContain("img-src 'self' data:;");
    const img = /<img class="media" src="([^"]+)"/.exec(r.body)?.[1];
    expect(img, r.body).toBeDefined();
    const src = new URL(img!.replaceAll('&amp;', '&'));
    expect(src.pathname).toBe(`/media/files/${id}/${photo.messageId}`);
    const file = await env.app.inject({ method: 'GET', url: `${src.pathname}${src.search}` });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(PNG)).toBe(true);
    // The file link is escaped like everything a patient sends.
    expect(r.body).toContain('Open the lab &lt;b&gt;.pdf');
    expect(r.body).toContain(`/media/files/${id}/${pdf.messageId}?`);
  });

  it('allows the S3 origin for images when media lives there, and nothing else', () => {
    const s3 = { origin: 'https://media.s3.us-east-1.amazonaws.com' } as MediaStore;
    const csp = consoleMediaHeaders(s3, 'http://127.0.0.1:8787')['content-security-policy'];
    expect(csp).toContain("img-src 'self' data: https://media.s3.us-east-1.amazonaws.com;");
    expect(csp).toContain("default-src 'none'");
    expect(consoleMediaHeaders({ origin: 'http://127.0.0.1:8787' } as MediaStore, 'http://127.0.0.1:8787')).toEqual({});
  });
});
