/**
 * Slow and dropped request bodies (issue 38, item 1), against a listening server over raw sockets,
 * with the timeouts shortened for the test: a client that sends headers and stalls its body (or
 * stalls its headers) gets a 408 and is disconnected; a client that drops its upload is one
 * info-level 4xx log line with a real reason, never an error.
 */
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

interface LogLine { level: number; msg: string; code?: string; status?: number; reason?: string }

const lines: LogLine[] = [];
let t: TestApp;
let port: number;

beforeAll(async () => {
  const logger = pino({ level: 'debug' }, { write: (s: string) => { lines.push(JSON.parse(s) as LogLine); } });
  t = await makeTestApp({ listen: true, logger, httpTimeouts: { requestMs: 400, headersMs: 300, checkIntervalMs: 50, idleMs: 1_000 } });
  port = Number(new URL(t.baseUrl).port);
});
afterAll(async () => { await t?.close(); });

const partialPost = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"email":`;

/** Writes `data` and resolves with everything received once the server closes the socket. */
function sendAndWaitForClose(data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const s = net.connect(port, '127.0.0.1', () => s.write(data));
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', reject);
    s.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe('request timeouts', () => {
  it('headers sent, body stalled: 408 request_timeout, then the server closes the socket', { timeout: 10_000 }, async () => {
    for (const path of ['/api/profile/patient', '/', '/oauth/register']) {
      const got = await sendAndWaitForClose(partialPost(path));
      expect(got, path).toMatch(/^HTTP\/1\.1 408 /);
      expect(got, path).toContain('"error":"request_timeout"');
    }
    expect(lines.some((l) => l.code === 'request_timeout' && l.level === 30 && l.status === 408)).toBe(true);
  });

  it('headers stalled: the same 408 and close', { timeout: 10_000 }, async () => {
    const got = await sendAndWaitForClose('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(got).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a dropped upload is an info-level 4xx with a real reason, not an error', { timeout: 10_000 }, async () => {
    const before = lines.length;
    for (const path of ['/api/profile/patient', '/', '/oauth/register']) {
      await new Promise<void>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.write(partialPost(path));
          // Let the server start reading the body, then drop the connection.
          setTimeout(() => { s.destroy(); resolve(); }, 50);
        });
      });
    }
    await vi.waitFor(() => {
      expect(lines.slice(before).filter((l) => l.code === 'request_aborted' && l.msg === 'request refused')).toHaveLength(3);
    }, { timeout: 5_000 });
    for (const l of lines.slice(before).filter((x) => x.code === 'request_aborted' && x.msg === 'request refused')) {
      expect(l).toMatchObject({ level: 30, status: 400, reason: expect.stringContaining('closed the connection') });
    }
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});
