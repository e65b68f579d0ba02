/**
 * Provider accounts (issue 35, item 3): an account (engine/identity) plus a clinical role, an NPI
 * and the regions it is licensed in. Created by `carebridge providers add` and the demo seed;
 * read by the provider operations to check the caller's role.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import type { HandlerContext } from '../core/context.ts';
import type { Db } from '../ports/db.ts';
import { AccountsService } from '../identity/accounts.ts';

export const PROVIDER_ROLES = ['clinician', 'care_team'] as const;
export type ProviderRole = (typeof PROVIDER_ROLES)[number];

/** ISO 3166-2 region (country, hyphen, 1-3 alphanumerics), as conversations store it. */
const Region = z.string().trim().toUpperCase().regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/, 'an ISO 3166-2 code such as US-CA');

export const NewProviderSchema = z.strictObject({
  email: z.string().trim().min(3).max(254),
  password: z.string().min(1).max(256).optional(),
  role: z.enum(PROVIDER_ROLES),
  /** CMS National Provider Identifier: 10 digits. */
  npi: z.string().trim().regex(/^[0-9]{10}$/, 'an NPI of 10 digits'),
  regions: z.array(Region).min(1).max(60),
  name: z.string().trim().min(1).max(200),
});
export type NewProvider = z.infer<typeof NewProviderSchema>;

export interface Provider {
  accountId: string;
  email: string;
  role: ProviderRole;
  npi: string;
  regions: string[];
  displayName: string;
}

/**
 * A long random password (32 bytes, base64url, 43 characters, mixed case and digits): any
 * password policy accepts it, and it is shown once.
 */
export function generatePassword(): string {
  return `Cb-${randomBytes(32).toString('base64url')}9a`;
}

/**
 * Creates the account (through the accounts service, so sign-in works as for anyone) and its
 * provider row. Returns the provider and the password (generated when none was given).
 */
export async function addProvider(db: Db, input: NewProvider): Promise<{ provider: Provider; password: string; generated: boolean }> {
  const v = NewProviderSchema.parse(input);
  const password = v.password ?? generatePassword();
  const result = await new AccountsService(db).create({ email: v.email, password, name: v.name });
  if (!result.created) throw new AppError('conflict', 'An account with this email already exists.', { field: 'email', code: 'email_taken' });
  const account = result.account;
  try {
    await db.query(
      'INSERT INTO providers (account_id, role, npi, regions, display_name) VALUES ($1, $2, $3, $4, $5)',
      [account.id, v.role, v.npi, [...new Set(v.regions)], v.name],
    );
  } catch (err) {
    // The account exists without its provider row: remove it so the command can be re-run.
    await db.query('DELETE FROM accounts WHERE id = $1', [account.id]);
    if ((err as { code?: string }).code === '23505') throw new AppError('conflict', 'A provider with this NPI already exists.', { field: 'npi', code: 'npi_taken' });
    throw err;
  }
  return {
    provider: { accountId: account.id, email: account.email, role: v.role, npi: v.npi, regions: [...new Set(v.regions)], displayName: v.name },
    password,
    generated: v.password === undefined,
  };
}

function toProvider(r: Record<string, unknown>): Provider {
  return {
    accountId: r.account_id as string, email: r.email as string, role: r.role as ProviderRole, npi: r.npi as string,
    regions: r.regions as string[], displayName: r.display_name as string,
  };
}

export async function findProvider(db: Db, accountId: string): Promise<Provider | null> {
  const { rows } = await db.query(
    'SELECT p.account_id, a.email, p.role, p.npi, p.regions, p.display_name FROM providers p JOIN accounts a ON a.id = p.account_id WHERE p.account_id = $1',
    [accountId]);
  return rows[0] ? toProvider(rows[0]) : null;
}

/**
 * The calling provider, or 403 `forbidden` for any other caller (a patient's token included).
 * With `roles`, the provider's role must be one of them.
 */
export async function requireProvider(ctx: HandlerContext, roles: readonly ProviderRole[] = PROVIDER_ROLES): Promise<Provider> {
  if (ctx.caller.kind !== 'user') throw new AppError('not_authenticated');
  const p = await findProvider(ctx.ports.db, ctx.caller.userId);
  if (!p) throw new AppError('forbidden', 'This operation is for provider accounts (clinician or care team).', { code: 'not_a_provider' });
  if (!roles.includes(p.role)) throw new AppError('forbidden', `This operation needs the role ${roles.join(' or ')}.`, { code: 'role_not_allowed' });
  return p;
}

/**
 * Clinicians licensed in `region`, least loaded first (fewest open visits, then longest since
 * their last visit started, then id for a stable order).
 */
export async function licensedClinicians(db: Db, region: string): Promise<{ accountId: string; openVisits: number }[]> {
  const { rows } = await db.query<{ account_id: string; open: string }>(
    `SELECT p.account_id, count(v.id) FILTER (WHERE v.closed_at IS NULL)::text AS open, max(v.started_at) AS last
     FROM providers p LEFT JOIN conversation_visits v ON v.provider_id = p.account_id
     WHERE p.role = 'clinician' AND $1 = ANY(p.regions)
     GROUP BY p.account_id ORDER BY count(v.id) FILTER (WHERE v.closed_at IS NULL), max(v.started_at) NULLS FIRST, p.account_id`,
    [region]);
  return rows.map((r) => ({ accountId: r.account_id, openVisits: Number(r.open) }));
}
