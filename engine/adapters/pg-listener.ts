import pg from 'pg';

type Sub = { fn: (payload: string) => void; onReconnect?: () => void };

/** LISTEN needs an identifier, not a parameter: only plain names reach the SQL text. */
export const CHANNEL_RE = /^[a-z_][a-z0-9_]{0,62}$/;

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

/**
 * One dedicated node-postgres connection for LISTEN (a pooled connection cannot hold a LISTEN:
 * it goes back to the pool). Lazily connected on the first listen; after an error or an end it
 * reconnects with backoff, re-LISTENs every channel and tells each subscriber that it may have
 * missed notifications (`onReconnect`), so a waiting reader re-reads instead of hanging.
 */
export class PgListener {
  readonly #connectionString: string;
  readonly #subs = new Map<string, Set<Sub>>();
  #client: pg.Client | undefined;
  #connecting: Promise<pg.Client> | undefined;
  #closed = false;
  #backoff = MIN_BACKOFF_MS;
  #timer: NodeJS.Timeout | undefined;
  /** node-postgres wants one query at a time per client: LISTEN/UNLISTEN are chained. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(connectionString: string) {
    this.#connectionString = connectionString;
  }

  async listen(channel: string, fn: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>> {
    if (!CHANNEL_RE.test(channel)) throw new Error(`invalid LISTEN channel ${JSON.stringify(channel)}`);
    if (this.#closed) throw new Error('the listener is closed');
    const sub: Sub = { fn, ...(onReconnect ? { onReconnect } : {}) };
    let set = this.#subs.get(channel);
    const first = !set;
    if (!set) this.#subs.set(channel, (set = new Set()));
    set.add(sub);
    if (first) {
      try {
        const client = await this.#connect();
        // A connection made after the channel was added already LISTENs it (see #open); again is harmless.
        await this.#run(client, `LISTEN "${channel}"`);
      } catch (e) {
        set.delete(sub);
        if (!set.size) this.#subs.delete(channel);
        throw e;
      }
    }
    return async () => {
      const s = this.#subs.get(channel);
      if (!s?.delete(sub) || s.size) return;
      this.#subs.delete(channel);
      if (this.#client) await this.#run(this.#client, `UNLISTEN "${channel}"`).catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#subs.clear();
    const client = this.#client ?? await this.#connecting?.catch(() => undefined);
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #run(client: pg.Client, sql: string): Promise<unknown> {
    const next = this.#queue.catch(() => undefined).then(() => client.query(sql));
    this.#queue = next;
    return next;
  }

  #connect(): Promise<pg.Client> {
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= this.#open().finally(() => { this.#connecting = undefined; });
    return this.#connecting;
  }

  async #open(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.#connectionString, keepAlive: true, application_name: 'carebridge-listen' });
    client.on('notification', (m) => {
      for (const s of this.#subs.get(m.channel) ?? []) s.fn(m.payload ?? '');
    });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.#client === client) this.#client = undefined;
      client.end().catch(() => undefined);
      this.#scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    try {
      await client.connect();
      for (const ch of this.#subs.keys()) await client.query(`LISTEN "${ch}"`);
    } catch (e) {
      lost = true;
      await client.end().catch(() => undefined);
      throw e;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      throw new Error('the listener is closed');
    }
    this.#client = client;
    this.#backoff = MIN_BACKOFF_MS;
    return client;
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#timer || !this.#subs.size) return;
    const wait = this.#backoff;
    this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_MS);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#connect().then(() => {
        for (const set of this.#subs.values()) for (const s of set) s.onReconnect?.();
      }, () => this.#scheduleReconnect());
    }, wait);
    this.#timer.unref();
  }
}
