/**
 * Live updates for the clinician console (issue 35, item 4): one server-sent events stream per
 * open page (WHATWG HTML, "Server-sent events"). The stream never carries health data: on every
 * bus wake-up (LISTEN/NOTIFY, so a change written by any process on the same database counts) it
 * re-reads what the page shows, as the signed-in clinician and through the same operation the page
 * runs (so it is role-checked and scoped exactly as the page is), and sends only the new version
 * fingerprint. The page's script (console-live.browser.js) then fetches the page again and swaps
 * its content in, keeping what the clinician is typing.
 *
 * Events: `version` (data: the fingerprint; sent on connect and on every change), `gone` (the
 * page is no longer this clinician's to see), `signin` (the session expired). Comment lines are
 * heartbeats, so proxies and the server's idle timeout (api/http-timeouts.ts) keep the stream.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { isAppError } from '../../engine/core/errors.ts';
import type { NotificationBus } from '../../engine/ports/bus.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The console's open live streams (set when the app has a notification bus). */
    consoleLive?: LiveStreams;
  }
}

/** Where the page script is served (a file, not inline: the console's CSP allows `script-src 'self'` only). */
export const LIVE_SCRIPT_PATH = '/console/static/live.js';
/** Heartbeat period: well under the 120 s idle-socket limit and the 60 s of common proxies. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** A queue page watches at most this many conversations (its lists are capped at 100 each). */
const MAX_TOPICS = 210;
/** Open streams one account may hold in one process (tabs); more get 429, so nobody holds all the sockets. */
export const MAX_STREAMS_PER_USER = 16;
/** The browser waits this long before reconnecting a dropped stream (the `retry` field). */
const RETRY_MS = 3_000;

/** The fingerprint of what a page shows: the page carries it, the stream sends it when it changes. */
export function liveVersion(view: unknown): string {
  return createHash('sha256').update(JSON.stringify(view)).digest('base64url').slice(0, 22);
}

/** What one page's stream watches. */
export interface LiveFeed<T> {
  /** The signed-in account (streams are capped per account). */
  owner: string;
  /** Reads what the page shows, as the signed-in clinician (AppError 403/404 when no longer theirs). */
  read(): Promise<T>;
  /** The bus topics whose notifications may change it; asked again after every read. */
  topics(view: T): string[];
  /** Whether the session still holds (not expired, token not revoked): before every read and at each heartbeat. */
  signedIn(): Promise<boolean>;
}

/** The open streams of one app: serves them, and ends them all when the app closes. */
export class LiveStreams {
  readonly #bus: NotificationBus;
  readonly #log: Logger;
  readonly #heartbeatMs: number;
  readonly #open = new Set<() => void>();
  readonly #perUser = new Map<string, number>();
  #subscriptions = 0;

  constructor(bus: NotificationBus, log: Logger, heartbeatMs = DEFAULT_HEARTBEAT_MS) {
    this.#bus = bus;
    this.#log = log;
    this.#heartbeatMs = heartbeatMs;
  }

  /** Streams currently open (tests check that a closed client leaves none behind). */
  get openCount(): number {
    return this.#open.size;
  }

  /** Bus subscriptions the streams hold: back to 0 once every client has gone. */
  get subscriptionCount(): number {
    return this.#subscriptions;
  }

  /** Ends every open stream (the app is closing: otherwise the server would wait for them). */
  closeAll(): void {
    for (const end of [...this.#open]) end();
  }

  /** A bus subscription, counted until released. */
  async #subscribe(topic: string, fn: () => void): Promise<() => Promise<void>> {
    const unsubscribe = await this.#bus.subscribe(topic, fn);
    this.#subscriptions++;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      this.#subscriptions--;
      await unsubscribe();
    };
  }

  /**
   * Serves one stream. A first read decides the answer: 403/404 as plain text when the page is not
   * this clinician's (EventSource then stops instead of retrying); otherwise 200 and events until
   * the client goes away, the page stops being theirs, the session ends or the app closes.
   */
  async serve<T>(req: FastifyRequest, reply: FastifyReply, feed: LiveFeed<T>): Promise<FastifyReply | undefined> {
    const held = this.#perUser.get(feed.owner) ?? 0;
    if (held >= MAX_STREAMS_PER_USER) {
      return reply.code(429).header('cache-control', 'no-store').type('text/plain; charset=utf-8')
        .send('Too many console pages are following live updates; close some and reload.');
    }
    this.#perUser.set(feed.owner, held + 1);
    const subs = new Map<string, () => Promise<void>>();
    let ended = false;
    let started = false;
    let pending = false;
    let busy = false;
    let sent: string | undefined;
    let heartbeat: NodeJS.Timeout | undefined = undefined;
    const res = reply.raw;

    const write = (chunk: string) => { if (started && !ended && !res.writableEnded) res.write(chunk); };
    const end = (event?: 'gone' | 'signin') => {
      if (ended) return;
      if (event) write(`event: ${event}\ndata: ${event}\n\n`);
      ended = true;
      clearInterval(heartbeat);
      this.#open.delete(end);
      const left = (this.#perUser.get(feed.owner) ?? 1) - 1;
      if (left > 0) this.#perUser.set(feed.owner, left);
      else this.#perUser.delete(feed.owner);
      if (started && !res.writableEnded) res.end();
      // Every listener goes with the stream (the bus UNLISTENs a channel nobody else wants).
      const all = [...subs.values()];
      subs.clear();
      void Promise.all(all.map((u) => u().catch(() => undefined)));
    };
    this.#open.add(end);
    res.once('close', () => end());

    /** Listens on `topics` and nothing else; true when a topic was added (the caller reads again). */
    const sync = async (topics: string[]): Promise<boolean> => {
      const want = new Set(topics.slice(0, MAX_TOPICS));
      for (const [t, unsubscribe] of subs) {
        if (!want.has(t)) { subs.delete(t); await unsubscribe(); }
      }
      let added = false;
      for (const t of want) {
        if (ended || subs.has(t)) continue;
        const unsubscribe = await this.#subscribe(t, wake);
        if (ended) { await unsubscribe(); return false; }
        subs.set(t, unsubscribe);
        added = true;
      }
      return added;
    };

    /** Subscribe, then read: a change committed between the two still wakes the stream. */
    const readAndWatch = async (): Promise<string> => {
      let view = await feed.read();
      for (let i = 0; i < 3 && await sync(feed.topics(view)); i++) view = await feed.read();
      return liveVersion(view);
    };

    const pump = async () => {
      busy = true;
      try {
        while (pending && !ended) {
          pending = false;
          if (!await feed.signedIn()) return end('signin');
          const version = await readAndWatch();
          if (version !== sent) {
            sent = version;
            write(`event: version\ndata: ${version}\n\n`);
          }
        }
      } catch (e) {
        if (isAppError(e) && (e.status === 403 || e.status === 404)) return end('gone');
        this.#log.warn({ err: (e as Error).message, url: req.url }, 'console live stream re-read failed; the stream ends');
        end();
      } finally {
        busy = false;
      }
    };
    function wake() {
      pending = true;
      if (started && !busy && !ended) void pump();
    }

    try {
      sent = await readAndWatch();
    } catch (e) {
      end();
      if (isAppError(e) && (e.status === 403 || e.status === 404)) {
        return reply.code(e.status).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(e.reason);
      }
      throw e;
    }
    reply.hijack();
    if (ended) return undefined; // the client left while the first read ran
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // Reverse proxies (nginx) must pass each event at once instead of buffering the response.
      'x-accel-buffering': 'no',
      // A stream's socket is not reused: when the stream ends, so does the connection (a closing
      // server would otherwise wait for it as a keep-alive socket that was busy at close time).
      connection: 'close',
    });
    started = true;
    write(`retry: ${RETRY_MS}\nevent: version\ndata: ${sent}\n\n`);
    heartbeat = setInterval(() => {
      write(': heartbeat\n\n');
      feed.signedIn().then((ok) => { if (!ok) end('signin'); }, () => undefined);
    }, this.#heartbeatMs);
    heartbeat.unref();
    if (pending) wake();
    return undefined;
  }
}
