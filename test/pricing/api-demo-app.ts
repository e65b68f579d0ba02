/**
 * Shared set-up for the pricing API tests: the demo snapshot built through the real pipeline
 * (synthetic network only, no real payer samples: seconds), the real DuckDB-backed pricing ports,
 * and a fresh app per test (test/helpers/app.ts) with a fake identity for bearer tokens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SnapshotDb } from '../../engine/pricing/adapters/snapshot.duckdb.ts';
import { createPricingPorts } from '../../engine/pricing/adapters/pricing-ports.ts';
import type { PricingPorts } from '../../engine/pricing/ports.ts';
import { buildDemoSnapshot, loadDemoSeed, type BuildDemoResult } from '../../ingest/demo/build-demo.ts';
import { buildDemoNetwork } from '../../ingest/demo/synthetic-network.ts';
import { makeTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import { fakeIdentity, type FakeIdentity } from '../helpers/fake-identity.ts';

export interface DemoPricing {
  root: string;
  demo: BuildDemoResult;
  snapshotDb: SnapshotDb;
  ports: PricingPorts;
  close(): void;
}

/** Builds and publishes the demo snapshot under a temp root and opens the real pricing ports on it. */
export async function openDemoPricing(): Promise<DemoPricing> {
  const root = mkdtempSync(join(tmpdir(), 'cb-pricing-api-'));
  const demo = await buildDemoSnapshot({ root, realPayerFiles: false });
  const snapshotDb = await SnapshotDb.open(root, 4);
  const ports = await createPricingPorts(snapshotDb);
  return {
    root, demo, snapshotDb, ports,
    close: () => {
      snapshotDb.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export interface PricingTestApp extends TestApp {
  identity: FakeIdentity;
}

/** A fresh app over the given pricing ports with a fake identity (tokens via identity.signUp). */
export async function pricingApp(pricing: PricingPorts, opts: TestAppOptions = {}): Promise<PricingTestApp> {
  const identity = fakeIdentity();
  const t = await makeTestApp({ identity, pricing, ...opts });
  return { ...t, identity };
}

/** The demo's named cases (ingest/demo/synthetic-network.ts DEMO_SCENARIO) as request bodies. */
export const DEMO_REQUEST = {
  providerName: 'Poppyfield Family Medicine',
  zip: '94103',
  code: '99213',
  planHints: { payerName: 'Golden Poppy', employerName: 'Pacific Tile & Stone' },
} as const;

const DEMO_NETWORK = buildDemoNetwork(loadDemoSeed());

/** The NPI of a demo provider by exact NPPES name (organization name or "FIRST LAST"). */
export function demoNpi(name: string): string {
  const p = DEMO_NETWORK.providers.find((x) => (x.orgName ?? `${x.firstName} ${x.lastName}`) === name);
  if (!p) throw new Error(`no demo provider named ${name}`);
  return String(p.npi);
}

export { DEMO_NETWORK };
