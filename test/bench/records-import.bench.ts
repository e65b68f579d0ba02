/**
 * Health-records import speed (issue 36, item 2): the sandbox's largest member (GP100001) imported
 * end to end over HTTP into PGlite (paging, validation, staging, the swap), against a baseline
 * measured in the same run: paging the same bundles through the same client without validating
 * or storing them. Run: `npx node --import tsx test/bench/records-import.bench.ts [runs]`.
 */
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import pino from 'pino';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import { migrate } from '../../engine/storage/migrate.ts';
import { undiciPayerClient } from '../../engine/records/adapters/payer-client.undici.ts';
import { secretBox } from '../../engine/records/secret-box.ts';
import { sqlRecordsStore } from '../../engine/records/records-store.ts';
import { IMPORT_TYPES, syncRecords } from '../../engine/records/sync-records.ts';
import { memberById } from '../../engine/records/sandbox/sandbox-members.ts';
import { SandboxPayer } from '../../api/records/sandbox-payer.ts';
import { registerSandboxPayerRoutes } from '../../api/records/sandbox-payer.routes.ts';
import type { RecordsPayer } from '../../engine/records/records.ports.ts';
import { freePort } from '../helpers/free-port.ts';

const runs = Number(process.argv[2] ?? 5);
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const redirect = `${baseUrl}/records/callback`;
const sandbox = new SandboxPayer({ baseUrl, redirectUris: [redirect] });
const app = Fastify();
await registerSandboxPayerRoutes(app, sandbox, baseUrl);
await app.listen({ port, host: '127.0.0.1' });

const verifier = 'v'.repeat(64);
const c = sandbox.checkAuthorize({
  client_id: 'carebridge', redirect_uri: redirect, response_type: 'code', state: 's', aud: sandbox.fhirBase, scope: 'launch/patient patient/*.rs',
  code_challenge_method: 'S256', code_challenge: createHash('sha256').update(verifier).digest('base64url'),
});
if (!c.ok) throw new Error(c.message);
const code = new URL(sandbox.approve(sandbox.hold(c.request), memberById('GP100001')!)).searchParams.get('code')!;
const tok = sandbox.token({ grant_type: 'authorization_code', client_id: 'carebridge', code, redirect_uri: redirect, code_verifier: verifier }).body;

const payer: RecordsPayer = { key: 'sandbox', label: 'Sandbox', fhirBaseUrl: sandbox.fhirBase, authorizeUrl: `${baseUrl}/sandbox-payer/authorize`, tokenUrl: `${baseUrl}/sandbox-payer/token`, clientId: 'carebridge', scope: 'patient/*.rs' };
const client = undiciPayerClient([payer]);
const db = await openPgliteDb(undefined);
await migrate(db);
await db.query(`INSERT INTO accounts (id, email, email_lower, password_hash) VALUES ('a', 'a@x', 'a@x', 'h')`);
await db.query(`INSERT INTO patients (id, account_id, relationship) VALUES ('p', 'a', 'self')`);
const box = secretBox(Buffer.alloc(32, 1));
const store = sqlRecordsStore(db);
await store.upsertConnection({ patientId: 'p', accountId: 'a', payerKey: 'sandbox', payerLabel: 'Sandbox', fhirPatientId: tok.patient as string, tokensEnc: box.seal(JSON.stringify({ accessToken: tok.access_token, refreshToken: null, expiresAt: null })), scope: null });
const deps = { store, client, box, payers: [payer], clock: { now: () => new Date() }, log: pino({ level: 'silent' }) };

async function fetchOnly(): Promise<number> {
  let n = 0;
  for (const type of IMPORT_TYPES) {
    let url: string | undefined = `${sandbox.fhirBase}/${type}?patient=${String(tok.patient)}&_count=50`;
    while (url) {
      const b = await client.getJson(url, tok.access_token as string) as { entry?: unknown[]; link?: { relation: string; url: string }[] };
      n += b.entry?.length ?? 0;
      url = b.link?.find((l) => l.relation === 'next')?.url;
    }
  }
  return n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// Warm-up: loads the FHIR definitions (once per process) and JIT-compiles both paths.
const first = performance.now();
const warm = await syncRecords('p', deps);
const firstMs = performance.now() - first;
await fetchOnly();
const imp: number[] = [];
const base: number[] = [];
for (let i = 0; i < runs; i++) {
  let t = performance.now();
  const r = await syncRecords('p', deps);
  if (r.outcome !== 'ok') throw new Error(`sync ${r.outcome}: ${r.note}`);
  imp.push(performance.now() - t);
  t = performance.now();
  await fetchOnly();
  base.push(performance.now() - t);
}
const m = median(imp);
const b = median(base);
console.log(JSON.stringify({
  resources: warm.imported, runs, firstImportMsWithDefinitionLoad: Math.round(firstMs),
  importMedianMs: Math.round(m), resourcesPerSecond: Math.round(warm.imported / (m / 1000)),
  baselineFetchOnlyMedianMs: Math.round(b), ratio: Math.round((m / b) * 100) / 100,
}));
await app.close();
await db.close();
