/**
 * A server killed (SIGKILL) between the approval and the match resumes (issue 35, "Done means"),
 * on PGlite (DATA_DIR) and on PostgreSQL. The first child server's match worker takes the job and
 * never finishes it (fixtures/visit-server.ts, HOLD_MATCH=1): the approval has committed the move
 * to MATCHING and the match job, and the job is active when the process dies. The restarted server
 * retries the orphaned job once its try expires, the clinician accepts, and the hold is captured
 * exactly once (the accept's immediate capture and the queued capture job both run).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../engine/adapters/db.open.ts';
import { freePort } from '../helpers/free-port.ts';
import { realPostgresAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.ts';
import { CARD, formBody, formTokenOf } from '../payments/payments-fixture.ts';
import type { Json } from './visit-fixture.ts';

const PG = realPostgresAvailable();
let cluster: PgCluster | undefined;
beforeAll(async () => { if (PG) cluster = await startPgCluster(); });
afterAll(async () => { await cluster?.stop(); });

interface Child { proc: ChildProcess; baseUrl: string; patient: string; clinician: string; saw(line: string): Promise<void> }

/** A child server; resolves once it printed `ready`. `saw(line)` resolves when it prints `line` (from now on). */
async function startChild(env: Record<string, string>): Promise<Child> {
  const proc = spawn(process.execPath, [join(import.meta.dirname, 'fixtures/visit-server.ts')], {
    env: { ...process.env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout });
  const waiting = new Map<string, () => void>();
  const ready = await new Promise<{ baseUrl: string; patient: string; clinician: string }>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`visit server exited ${code} before ready`)));
    lines.on('line', (line) => {
      if (line.startsWith('ready ')) {
        const [, baseUrl, patient, clinician] = line.split(' ');
        resolve({ baseUrl: baseUrl!, patient: patient!, clinician: clinician! });
      }
      waiting.get(line)?.();
    });
  });
  return { proc, ...ready, saw: (line) => new Promise<void>((r) => { waiting.set(line, r); }) };
}

async function call(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${baseUrl}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: (await r.json()) as Json };
}

/** Approves the hold on the hosted page as a browser without JavaScript posts it. */
async function pay(paymentUrl: string): Promise<number> {
  const page = await fetch(paymentUrl);
  const r = await fetch(paymentUrl, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: formBody({ ...CARD, formToken: formTokenOf(await page.text()), ccNumber: '4242 4242 4242 4242' }),
  });
  return r.status;
}

async function stop(child: Child, signal: NodeJS.Signals): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  const exited = new Promise((r) => child.proc.once('exit', r));
  child.proc.kill(signal);
  await exited;
}

async function killedBetweenApprovalAndMatch(dbEnv: { DATA_DIR: string; DATABASE_URL?: string }): Promise<void> {
  const port = await freePort();
  // BASE_URL explicitly: vitest puts Vite's BASE_URL="/" in the environment the child inherits.
  const common = { PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, CARE_REPLY_WAIT_SECONDS: '20', ...dbEnv };
  const first = await startChild({ ...common, HOLD_MATCH: '1' });
  let id: string;
  try {
    const matchStarted = first.saw('match-start');
    const s = await call(first.baseUrl, first.patient, 'POST', '/api/consultations', { contextMessage: 'Sore throat for two days #complete', region: 'US-CA' });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    id = s.body.conversationId as string;
    expect((await call(first.baseUrl, first.patient, 'POST', `/api/consultations/${id}/wait`, {})).body.status).toBe('PAYMENT_REQUIRED');
    const link = await call(first.baseUrl, first.patient, 'POST', `/api/consultations/${id}/payment`);
    expect(await pay(link.body.paymentUrl as string)).toBe(303);
    expect((await call(first.baseUrl, first.patient, 'GET', `/api/consultations/${id}`)).body.status).toBe('MATCHING');
    await matchStarted; // the match job is taken and will never finish on this server
  } finally {
    await stop(first, 'SIGKILL');
  }

  const second = await startChild(common);
  try {
    // The orphaned try expires (2 s here) and the restarted server's worker runs it.
    await expect.poll(async () => {
      const q = await call(second.baseUrl, second.clinician, 'GET', '/api/provider/queue');
      return (q.body.waiting as Json[] | undefined)?.map((w) => w.conversationId);
    }, { timeout: 60_000, interval: 250 }).toEqual([id]);
    const captured = second.saw('job-done visits.hold');
    const accepted = await call(second.baseUrl, second.clinician, 'POST', `/api/provider/visits/${id}/accept`);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'WITH_PROVIDER', holdStatus: 'captured' });
    await captured; // the queued capture job ran too
    expect((await call(second.baseUrl, second.patient, 'GET', `/api/consultations/${id}`)).body.status).toBe('WITH_PROVIDER');
  } finally {
    await stop(second, 'SIGTERM');
  }

  // The servers are gone: read what they left (PGlite allows one process at a time).
  const db = await openDb({ dataDir: dbEnv.DATA_DIR, databaseUrl: dbEnv.DATABASE_URL });
  try {
    const ledger = await db.query<{ kind: string }>(
      'SELECT l.kind FROM payment_ledger l JOIN payment_holds h ON h.id = l.hold_id WHERE h.purpose_ref = $1 ORDER BY l.seq', [id]);
    expect(ledger.rows.map((r) => r.kind)).toEqual(['authorize', 'capture']);
    const offers = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM visit_offers WHERE conversation_id = $1', [id]);
    expect(offers.rows[0]!.n).toBe(1);
    const events = await db.query<{ event: string }>('SELECT event FROM outbox_events WHERE consultation_id = $1 ORDER BY seq', [id]);
    expect(events.rows.map((r) => r.event).filter((e) => e === 'provider_matching' || e === 'provider_joined')).toEqual(['provider_matching', 'provider_joined']);
  } finally {
    await db.close();
  }
}

describe('a server killed between the approval and the match', () => {
  it('PGlite: matching resumes after restart; the clinician accepts; the hold is captured once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-visit-crash-'));
    try {
      await killedBetweenApprovalAndMatch({ DATA_DIR: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it.runIf(PG)('PostgreSQL: matching resumes after restart; the clinician accepts; the hold is captured once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-visit-crash-'));
    try {
      await killedBetweenApprovalAndMatch({ DATA_DIR: dir, DATABASE_URL: await cluster!.createDatabase() });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
