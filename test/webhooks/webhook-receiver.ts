/**
 * A local webhook receiver for the tests and the benchmark: records every request (headers and
 * body, the time it arrived) and counts TCP connections, so a test can show that a refused URL
 * was never connected to. `/fail` answers 500; anything else 200, unless `hold` is set: then
 * requests are recorded and left unanswered (a receiver that hangs).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
  at: number;
}

export interface Receiver {
  url(path?: string): string;
  port: number;
  received: Received[];
  connections: number;
  /** While true, requests get no answer. */
  hold: boolean;
  /** Answers the requests held so far (as if they had just been answered). */
  release(): void;
  /** Closes idle keep-alive connections (the client's pooled sockets go with them). */
  dropIdle(): void;
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1', listenPort = 0): Promise<Receiver> {
  const state = { received: [] as Received[], connections: 0, hold: false };
  const held: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      try { body = JSON.parse(raw) as Record<string, unknown>; } catch { /* recorded raw */ }
      state.received.push({ path: req.url ?? '', headers: req.headers, raw, body, at: Date.now() });
      const answer = () => { res.writeHead(req.url === '/fail' ? 500 : 200, { 'content-type': 'text/plain' }).end('ok'); };
      if (state.hold) held.push(answer);
      else answer();
    });
  });
  server.on('connection', () => { state.connections++; });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(listenPort, host, r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = '/hook') => `http://${host}:${port}${path}`,
    port,
    get received() { return state.received; },
    get connections() { return state.connections; },
    get hold() { return state.hold; },
    set hold(v: boolean) { state.hold = v; },
    release: () => { for (const answer of held.splice(0)) answer(); },
    dropIdle: () => server.closeIdleConnections(),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
