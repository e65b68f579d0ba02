/**
 * The payers registry (data/payers.json, loaded into the snapshot's `payers` table): resolving
 * what a person calls their insurer ("UHC", "bcbs of texas", "Anthem Blue Cross") to a payer key,
 * and GET /api/pricing.v1/payers (issue 4, items 2 and 9).
 *
 * Matching is case and punctuation insensitive: names are lower-cased, "&" read as "and",
 * punctuation dropped, "bcbs" read as "blue cross blue shield", and the filler words "and", "of",
 * "the", "inc", "co" ignored. An exact normalised name wins; otherwise the longest accepted name
 * that starts the input ("Aetna Choice POS II" -> aetna; "BCBS of Texas PPO" -> hcsc).
 */
import type { HandlerContext } from '../core/context.ts';
import { AppError } from '../core/errors.ts';
import { payerCoverage, type PayerCoverage } from './payer-coverage.ts';

/** payers row (schemas/pricing-tables.ts PAYERS). */
export interface PayerRow {
  key: string;
  label: string;
  accepted_names: string[];
  reporting_entity_names: string[] | null;
  exact_plan_identifiers: string[] | null;
  coverage: string | null;
  blue_card: boolean | null;
  group_number_states: string[] | null;
}

/** The spec's payer object (GET /payers), plus what plan resolution needs. */
export interface Payer {
  key: string;
  label: string;
  acceptedNames: string[];
  exactPlanIdentifiers: string[];
  coverage: string;
  blueCard: boolean;
}

export interface PayerEntry extends Payer {
  reportingEntityNames: string[];
  groupNumberStates: string[];
}

const FILLER = new Set(['and', 'of', 'the', 'inc', 'co', 'corp', 'llc']);

/** Normalised form used for matching payer names. */
export function normalizePayerName(s: string): string {
  return s.toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .replace(/\bbcbs\b/g, 'blue cross blue shield')
    .replace(/\bbluecross\b/g, 'blue cross')
    .replace(/\bblueshield\b/g, 'blue shield')
    .split(' ')
    .filter((w) => w && !FILLER.has(w))
    .join(' ');
}

/** The registry, with synchronous lookups. */
export class PayerRegistry {
  private readonly entries: PayerEntry[];
  private readonly exact = new Map<string, PayerEntry>();
  private readonly prefixes: { name: string; entry: PayerEntry }[] = [];
  private readonly byEntity = new Map<string, PayerEntry>();

  constructor(rows: readonly PayerRow[]) {
    this.entries = rows.map((r) => ({
      key: r.key,
      label: r.label,
      acceptedNames: r.accepted_names,
      exactPlanIdentifiers: r.exact_plan_identifiers ?? [],
      coverage: r.coverage ?? '',
      blueCard: r.blue_card ?? false,
      reportingEntityNames: r.reporting_entity_names ?? [],
      groupNumberStates: r.group_number_states ?? [],
    }));
    for (const e of this.entries) {
      for (const n of [e.key, e.label, ...e.acceptedNames]) {
        const k = normalizePayerName(n);
        if (!k) continue;
        if (!this.exact.has(k)) this.exact.set(k, e);
        this.prefixes.push({ name: k, entry: e });
      }
      for (const n of e.reportingEntityNames) this.byEntity.set(normalizePayerName(n), e);
    }
    this.prefixes.sort((a, b) => b.name.length - a.name.length);
  }

  /** The payer a person's name for their insurer refers to, or null. */
  resolve(name: string): PayerEntry | null {
    const k = normalizePayerName(name);
    if (!k) return null;
    const hit = this.exact.get(k);
    if (hit) return hit;
    const p = this.prefixes.find((x) => x.name.length >= 3 && (k === x.name || k.startsWith(`${x.name} `)));
    return p?.entry ?? null;
  }

  /** The payer a TiC reporting_entity_name belongs to, or null. */
  forReportingEntity(name: string): PayerEntry | null {
    return this.byEntity.get(normalizePayerName(name)) ?? null;
  }

  byKey(key: string): PayerEntry | null {
    return this.entries.find((e) => e.key === key) ?? null;
  }

  /** States whose state plans match by group number (only the one insurer family has any). */
  groupNumberStates(key: string): string[] {
    return this.byKey(key)?.groupNumberStates ?? [];
  }

  /** GET /payers entries, in registry order. */
  list(): Payer[] {
    return this.entries.map(({ key, label, acceptedNames, exactPlanIdentifiers, coverage, blueCard }) => ({ key, label, acceptedNames, exactPlanIdentifiers, coverage, blueCard }));
  }
}

/**
 * Handler for GET /api/pricing.v1/payers: the registry, each payer with what the current snapshot
 * holds of it (dataAvailable, files, plans, lastUpdatedOn; issue 37, item 7), so an agent can tell
 * "this payer's files are not loaded" from "not found in its files" before asking.
 */
export async function listPayers(ctx: HandlerContext): Promise<{ payers: (Payer & PayerCoverage)[] }> {
  const ref = ctx.ports.pricing?.reference;
  const network = ctx.ports.pricing?.network;
  if (!ref) throw new AppError('pricing_data_unavailable', 'The payers registry is not available on this server.');
  const reg = await ref.payers();
  const none: PayerCoverage = { dataAvailable: false, files: 0, plans: 0, lastUpdatedOn: null };
  const payers = await Promise.all(reg.list().map(async (p) => {
    const names = reg.byKey(p.key)?.reportingEntityNames ?? [];
    return { ...p, ...(network ? await payerCoverage(network, { key: p.key, reportingEntityNames: names }) : none) };
  }));
  return { payers };
}
