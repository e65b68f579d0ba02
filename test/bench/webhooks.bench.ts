/**
 * Webhook delivery benchmark (issue 39, Speed; STYLE.md 10: a script, not a timed test).
 *
 * One server on embedded defaults (PGlite under a temp DATA_DIR, the rules triage engine, the real
 * job queue, outbox and deliverer) listening on 127.0.0.1 with OUTBOUND_ALLOWLIST=127.0.0.1, and a
 * local receiver. N users (default 500) each register a webhook (POST /api/webhook, with its
 * connectivity test) and start a conversation at once; triage writes its events (triage_started,
 * triage_reply, …) and the deliverer POSTs each to the receiver. Prints event -> delivery latency
 * (the event's timestamp, stamped in its transaction, to the receiver's arrival) p50/p95/p99, the
 * deliveries lost (events written for these users without exactly one arrival: must be 0), beside
 * a baseline measured in the same run: a bare undici POST of the same body to the same receiver
 * at the same concurrency. Goal (2 cores): p95 < 100 ms.
 *
 * Conversations start at `--rate` per second (default 25: 500 over 20 s); `--rate 0` starts them
 * all at once, which measures the server's backlog (one PGlite connection) more than delivery.
 *
 *   npm run bench:webhooks -- [--conversations 500] [--rate 25]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { fork } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Agent, request } from 'undici';
import { buildApp } from '../../api/app.ts';
import { loadConfig } from '../../engine/core/config.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { freePort } from '../helpers/free-port.ts';

const { values: args } = parseArgs({ options: { conversations: { type: 'string', default: '500' }, rate: { type: 'string', default: '25' } } });
const N = Number(args.conversations);
/** Conversations started per second (0: all at once, a burst the single PGlite connection queues). */
const RATE = Number(args.rate);
const say = (s: string) => process.stdout.write(`${s}\n`);

function stats(ms: number[]): { n: number; p50: number; p95: number; p99: number } {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}
const fmt = (x: number) => x.toFixed(1).padStart(8);

async function main(): Promise<void> {
  // The receiver, in its own process: records each delivery's id, event time and arrival time.
  const receiver = fork(join(import.meta.dirname, 'webhooks-receiver.ts'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T>(msg: string | null, key: string) => new Promise<T>((resolve) => {
    const on = (m: Record<string, unknown>) => { if (key in m) { receiver.off('message', on); resolve(m[key] as T); } };
    receiver.on('message', on);
    if (msg) receiver.send(msg);
  });
  const hook = `http://127.0.0.1:${await ask<number>(null, 'port')}/hook`;
  let arrivals = new Map<string, { eventAt: number; at: number; n: number }>();
  const refresh = async () => { arrivals = new Map(await ask<[string, { eventAt: number; at: number; n: number }][]>('dump', 'arrivals')); };

  const dataDir = mkdtempSync(join(tmpdir(), 'cb-bench-webhooks-'));
  const port = await freePort();
  const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', OUTBOUND_ALLOWLIST: '127.0.0.1' });
  const identity = fakeIdentity(config.baseUrl);
  const built = await buildApp(config, { identity, logger: pino({ level: 'silent' }) });
  await built.app.listen({ port, host: '127.0.0.1' });
  const db = built.services.ports.db;
  const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 60_000 });
  const call = async (token: string, path: string, body: unknown) => {
    const r = await request(`${config.baseUrl}${path}`, {
      dispatcher, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
      headersTimeout: 120_000, bodyTimeout: 120_000,
    });
    return { status: r.statusCode, json: await r.body.json() as Record<string, unknown> };
  };

  try {
    say(`webhooks benchmark: ${N} conversations started at ${RATE > 0 ? `${RATE}/s` : 'once'}, ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}, ${new Date().toISOString()}`);
    const users = [];
    for (let i = 0; i < N; i++) users.push(await identity.signUp(db, `bench-${i}@example.test`));
    const errors: string[] = [];
    for (const u of users) {
      const r = await call(u.token, '/api/webhook', { webhookUrl: hook, webhookToken: 'bench-webhook-token-0123456789', deliveryContext: { to: u.userId } });
      if (r.status !== 200) errors.push(`register ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
    }
    const userIds = users.map((u) => u.userId);
    const { rows: [before] } = await db.query<{ seq: string }>('SELECT coalesce(max(seq), 0)::text AS seq FROM outbox_events');

    // Baseline under the same load: bare POSTs from this process (which also runs the server and
    // its deliverer) every 20 ms while the conversations run.
    const body = JSON.stringify({ event: 'triage_reply', message: 'x'.repeat(90), eventId: 'msg_baseline', timestamp: new Date().toISOString(), mode: 'now', deliveryContext: { to: 'acct' } });
    const direct = new Agent({ connections: 16, keepAliveTimeout: 60_000 });
    const bare = async (): Promise<number> => {
      const s = performance.now();
      const r = await request(`${hook.replace('/hook', '/baseline')}`, { dispatcher: direct, method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await r.body.dump();
      return performance.now() - s;
    };
    const loaded: number[] = [];
    let loading = true;
    const underLoad = (async () => { while (loading) { loaded.push(await bare()); await new Promise((r) => setTimeout(r, 20)); } })();

    const t0 = performance.now();
    await Promise.all(users.map(async (u, i) => {
      if (RATE > 0) await new Promise((r) => setTimeout(r, (i * 1000) / RATE));
      const r = await call(u.token, '/api/consultations', { contextMessage: `I have had a sore throat for ${2 + (i % 5)} days and it hurts to swallow.`, region: 'US-CA' });
      if (r.status !== 200) errors.push(`start ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
    }));
    // Wait until triage has answered every conversation and the deliveries have settled.
    const expected = async () => Number((await db.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM outbox_events WHERE seq > $1::bigint AND user_id = ANY($2)', [before!.seq, userIds])).rows[0]!.n);
    let last = -1;
    let quietSince = performance.now();
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      await refresh();
      const { rows: [open] } = await db.query<{ n: string }>("SELECT count(*)::text AS n FROM webhook_deliveries WHERE state IN ('pending', 'sending')");
      const want = await expected();
      const replies = Number((await db.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM outbox_events WHERE seq > $1::bigint AND event = 'triage_reply'", [before!.seq])).rows[0]!.n);
      if (arrivals.size !== last) { last = arrivals.size; quietSince = performance.now(); }
      if ((replies >= N && open!.n === '0' && arrivals.size >= want) || performance.now() - quietSince > 60_000) break;
    }
    const elapsed = (performance.now() - t0) / 1000;
    loading = false;
    await underLoad;
    await refresh();
    const want = await expected();
    const lat = [...arrivals.values()].map((a) => a.at - a.eventAt);
    const duplicates = [...arrivals.values()].filter((a) => a.n > 1).length;
    const { rows: states } = await db.query<{ state: string; n: string }>('SELECT state, count(*)::text AS n FROM webhook_deliveries GROUP BY state ORDER BY state');

    // Baseline after the load: the same body POSTed straight to the same receiver, 64 at a time.
    const base: number[] = [];
    await Promise.all(Array.from({ length: 64 }, async (_, w) => { for (let i = w; i < want; i += 64) base.push(await bare()); }));
    await direct.close();

    // Where the time goes: event time -> claimed by the deliverer (database side).
    const { rows: claims } = await db.query<{ ms: number }>(
      "SELECT (extract(epoch FROM claimed_at - event_at) * 1000)::float8 AS ms FROM webhook_deliveries WHERE state = 'delivered'");
    const c = stats(claims.map((r) => r.ms));
    const d = stats(lat);
    const b = stats(base);
    const l = stats(loaded);
    say('');
    say(`${" ".repeat(51)}n      p50      p95      p99   (ms)`);
    const row = (label: string, x: ReturnType<typeof stats>) => say(`${label.padEnd(46)}${String(x.n).padStart(6)} ${fmt(x.p50)} ${fmt(x.p95)} ${fmt(x.p99)}`);
    row('event -> delivery', d);
    row('  of which event -> claimed', c);
    row('baseline: bare POST during the run (same process)', l);
    row('baseline: bare POST after the run, 64 at once', b);
    say(`ratio p95 to the bare POST during the run: ${(d.p95 / l.p95).toFixed(2)}x; ${want} events in ${elapsed.toFixed(1)} s; delivery states: ${states.map((s) => `${s.state} ${s.n}`).join(', ')}`);
    const lost = want - arrivals.size;
    say(`deliveries lost: ${lost}; delivered twice: ${duplicates}; errors: ${errors.length}; load average now ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    for (const e of errors.slice(0, 5)) say(`  ${e}`);
    const { rows: why } = await db.query<{ error: string; n: string }>(
      "SELECT coalesce(error, '') AS error, count(*)::text AS n FROM webhook_deliveries WHERE state = 'failed' GROUP BY 1 ORDER BY count(*) DESC LIMIT 3");
    for (const w of why) say(`  failed: ${w.n} x ${w.error}`);
    say(`goal p95 < 100 ms: ${d.p95 < 100 ? 'met' : 'NOT met'}; 0 lost: ${lost === 0 ? 'met' : 'NOT met'}`);
    if (lost || errors.length) process.exitCode = 1;
  } finally {
    await dispatcher.close();
    await built.close();
    receiver.send('stop');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
