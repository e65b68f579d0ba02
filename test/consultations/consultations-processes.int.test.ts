/**
 * Conversations across processes (issue 34, "Done means"): a waitForReply woken by a reply that
 * another process wrote on the same PostgreSQL; and a server killed (SIGKILL) during triage whose
 * job resumes after restart with no message lost or sent twice, on PGlite and on PostgreSQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';
import { freePort } from '../helpers/free-port.ts';
import { realPostgresAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { scriptedTriage } from '../helpers/scripted-triage.ts';
import { insertMessage, loadConversation, touch } from '../../engine/consultations/consultation-store.ts';

const PG = realPostgresAvailable();
let cluster: PgCluster | undefined;
beforeAll(async () => { if (PG) cluster = await startPgCluster(); });
afterAll(async () => { await cluster?.stop(); });

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies read loosely in tests

describe.runIf(PG)('two processes on one PostgreSQL', () => {
  it('a wait on process A is woken by a reply process B writes', async () => {
    const url = await cluster!.createDatabase();
    const identity = fakeIdentity();
    const a = await makeTestApp({ identity, triage: scriptedTriage(), env: { DATABASE_URL: url, CARE_REPLY_WAIT_SECONDS: '20' } });
    const b = await makeTestApp({ identity, triage: scriptedTriage(), env: { DATABASE_URL: url } });
    try {
      const { token } = await identity.signUp(a.db);
      const headers = { authorization: `Bearer ${token}` };
      const s = await a.app.inject({ method: 'POST', url: '/api/consultations', headers, payload: { contextMessage: 'A headache since yesterday.', region: 'US-CA' } });
      const id = s.json<Json>().conversationId as string;
      const first = await a.app.inject({ method: 'POST', url: `/api/consultations/${id}/wait`, headers, payload: {} });
      expect(first.json<Json>().reply.sender).toBe('assistant');
      // A waits for the next reply; B (another pool, another LISTEN connection) writes one.
      const waiting = a.app.inject({ method: 'POST', url: `/api/consultations/${id}/wait`, headers, payload: {} });
      await new Promise((r) => setTimeout(r, 300));
      const bPorts = b.services.ports;
      await bPorts.db.transaction(async (tx) => {
        const conv = (await loadConversation(tx, id, true))!;
        await insertMessage(tx, { conversationId: id, requestSeq: conv.requestSeq, sender: 'provider', senderId: 'prov_test', content: 'Hello from process B.', at: new Date() });
        await touch(tx, { outbox: bPorts.outbox!, bus: bPorts.bus! }, id, new Date());
      });
      const woke = (await waiting).json<Json>();
      expect(woke.stillWaiting).toBe(false);
      expect(woke.reply).toMatchObject({ sender: 'provider', content: 'Hello from process B.' });
    } finally {
      await a.close();
      await b.close();
    }
  });
});

/** A child server (fixtures/care-server.ts); resolves once it printed `ready`. */
async function startChild(env: Record<string, string>): Promise<{ proc: ChildProcess; baseUrl: string; token: string; assessStarted: Promise<void> }> {
  const proc = spawn(process.execPath, [join(import.meta.dirname, 'fixtures/care-server.ts')], {
    env: { ...process.env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout });
  let onAssess!: () => void;
  const assessStarted = new Promise<void>((r) => { onAssess = r; });
  const ready = await new Promise<{ baseUrl: string; token: string }>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`care server exited ${code} before ready`)));
    lines.on('line', (line) => {
      if (line.startsWith('ready ')) {
        const [, baseUrl, token] = line.split(' ');
        resolve({ baseUrl: baseUrl!, token: token! });
      } else if (line === 'assess-start') {
        onAssess();
      }
    });
  });
  return { proc, ...ready, assessStarted };
}

async function api(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<Json> {
  const r = await fetch(`${baseUrl}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return (await r.json()) as Json;
}

async function killedDuringTriage(dbEnv: Record<string, string>): Promise<void> {
  const port = await freePort();
  // BASE_URL explicitly: vitest puts Vite's BASE_URL="/" in the environment the child inherits.
  const common = { PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, ...dbEnv };
  const first = await startChild({ ...common, SLOW_TRIAGE_MS: '60000' });
  let id: string;
  try {
    const s = await api(first.baseUrl, first.token, 'POST', '/api/consultations', { contextMessage: 'My throat is sore.', region: 'US-CA' });
    id = s.conversationId as string;
    await first.assessStarted; // the job is running, its reply not written
  } finally {
    first.proc.kill('SIGKILL');
    await new Promise((r) => first.proc.once('exit', r));
  }
  const second = await startChild(common);
  try {
    // The orphaned job runs again on the restarted server; the reply is written once.
    let detail: Json = {};
    await expect.poll(async () => {
      detail = await api(second.baseUrl, second.token, 'GET', `/api/consultations/${id}`);
      return (detail.messages as Json[] | undefined)?.filter((m) => m.sender === 'assistant').length ?? 0;
    }, { timeout: 60_000, interval: 250 }).toBe(1).catch(async (e: unknown) => {
      if (dbEnv.DATABASE_URL) {
        const { default: pg } = await import('pg');
        const c = new pg.Client({ connectionString: dbEnv.DATABASE_URL });
        await c.connect();
        console.error(JSON.stringify((await c.query("SELECT name, state, retry_count, start_after, started_on, expire_seconds FROM pgboss.job")).rows));
        
        await c.end();
      }
      throw e;
    });
    expect(detail.messages.map((m: Json) => m.sender)).toEqual(['user', 'assistant']);
    expect(detail.messages[0].content).toBe('My throat is sore.');
    // Nothing more arrives later (no second reply from a duplicate job).
    await new Promise((r) => setTimeout(r, 3000));
    const later = await api(second.baseUrl, second.token, 'GET', `/api/consultations/${id}`);
    expect(later.messages).toHaveLength(2);
  } finally {
    second.proc.kill('SIGTERM');
    await new Promise((r) => second.proc.once('exit', r));
  }
}

describe('a server killed during triage', () => {
  it('PGlite: the job resumes after restart; no message lost or sent twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-crash-'));
    try {
      await killedDuringTriage({ DATA_DIR: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it.runIf(PG)('PostgreSQL: the job resumes after restart; no message lost or sent twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-crash-'));
    try {
      await killedDuringTriage({ DATA_DIR: dir, DATABASE_URL: await cluster!.createDatabase() });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
