/**
 * The PayerClient over undici (issue 36, item 2). Outbound calls go only to configured payers'
 * endpoints: a URL under a payer's FHIR base, or exactly its token endpoint; anything else is
 * refused before a socket opens. Every call has connect, header and body timeouts and a size cap.
 */
import { request } from 'undici';
import { PayerHttpError, type PayerClient, type RecordsPayer } from '../records.ports.ts';

export interface PayerClientOptions {
  /** Per-phase timeout (headers, then body), ms. */
  timeoutMs?: number;
  /** Largest response body read, bytes. */
  maxBytes?: number;
}

async function readCapped(body: AsyncIterable<Buffer | Uint8Array>, max: number, url: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    size += c.length;
    if (size > max) throw new PayerHttpError(502, url, `the payer's response is larger than ${max} bytes`);
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

export function undiciPayerClient(payers: readonly RecordsPayer[], opts: PayerClientOptions = {}): PayerClient {
  const timeout = opts.timeoutMs ?? 20_000;
  const max = opts.maxBytes ?? 32 * 1024 * 1024;
  const fhirBases = payers.map((p) => (p.fhirBaseUrl.endsWith('/') ? p.fhirBaseUrl : `${p.fhirBaseUrl}/`));
  const tokenUrls = new Set(payers.map((p) => p.tokenUrl));

  async function call(url: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<unknown> {
    let res;
    try {
      // undici follows no redirects unless told to: a payer's redirect is an error here.
      res = await request(url, { ...init, headersTimeout: timeout, bodyTimeout: timeout });
    } catch (e) {
      throw new PayerHttpError(0, url, `the payer could not be reached (${(e as Error).message})`);
    }
    const text = await readCapped(res.body, max, url);
    if (res.statusCode < 200 || res.statusCode >= 300) throw new PayerHttpError(res.statusCode, url, `the payer answered HTTP ${res.statusCode}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new PayerHttpError(502, url, 'the payer\'s answer was not JSON');
    }
  }

  return {
    async getJson(url, accessToken) {
      if (!fhirBases.some((b) => url.startsWith(b))) throw new PayerHttpError(0, url, 'refused: not under a configured payer\'s FHIR endpoint');
      return call(url, { method: 'GET', headers: { accept: 'application/fhir+json, application/json', authorization: `Bearer ${accessToken}` } });
    },
    async postForm(url, form) {
      if (!tokenUrls.has(url)) throw new PayerHttpError(0, url, 'refused: not a configured payer\'s token endpoint');
      return call(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams(form).toString(),
      });
    },
  };
}
