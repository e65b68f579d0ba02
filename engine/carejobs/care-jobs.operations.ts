/**
 * Care jobs for the agent (service-spec.md, Care jobs; issue 39, item 1): `create_care_job`
 * (POST /api/care-jobs) and `get_care_job` (GET /api/care-jobs/{id}). Approval is never done
 * here: the user approves on their own device through `approvalUrl` (api/carejobs/).
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import type { HandlerContext } from '../core/context.ts';
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import { requireAccount } from '../profile/onboarding.ts';
import { APPROVAL_LIFE_MS, tierFor } from './care-job-status.ts';
import { completeKey, releaseKey, requestHash, reserveKey } from './care-job-idempotency.ts';
import { buildSheet, type TypedParams } from './care-job-sheet.ts';
import { insertJob, requireOwnJob, type CareJobRow } from './care-job-store.ts';
import { carePorts, currentJob } from './care-job-actions.ts';
import { EXPIRE_JOB, EXPIRE_JOB_OPTIONS } from './care-jobs.ports.ts';
import { CareJobRefSchema, CareJobViewSchema, CreateCareJobInputSchema, JOB_TYPES, PARAMS_SCHEMAS, type CareJobView, type CreateCareJobInput } from './care-jobs.schema.ts';

/** Types the spec names as not available (service-spec.md, Care jobs); any other unknown type is refused alike. */
const NOT_AVAILABLE_NOTE = 'Record release, refills, claim disputes and standing payment grants are not available.';

export const approvalUrlFor = (baseUrl: string, token: string): string => `${baseUrl}/care-jobs/approve/${token}`;

const INSTRUCTIONS = (expiresAt: Date) => [
  'Give approvalUrl to the user to open on their own device; never open it yourself: the user signs in there with their own account and approves or declines.',
  `The link expires at ${expiresAt.toISOString()} (15 minutes); after that the job is expired and a new one is needed.`,
  'Poll get_care_job (GET /api/care-jobs/{id}) until status is approved, declined or expired; once approved the care team carries it out (in_progress, then completed or failed, with an outcome).',
  'Relay the sheet\'s prices and notes as written; figures under agentClaims are yours, and flags say where the published rates disagree with them.',
];

/** The job as the agent sees it (create response and GET). */
export function jobView(job: CareJobRow, baseUrl: string, holdStatus: string | null = null): CareJobView {
  return {
    status: job.status, jobId: job.id, jobType: job.job_type, tier: job.tier, approvalUrl: approvalUrlFor(baseUrl, job.approval_token),
    expiresAt: job.expires_at.getTime(), sheet: job.sheet, agentInstructions: INSTRUCTIONS(job.expires_at), patientId: job.patient_id,
    createdAt: job.created_at.toISOString(), payment: { required: job.cost_cents !== null, holdStatus }, outcome: job.outcome,
  };
}

/** Checks the job type and its params; errors name `jobType` or `params.<field>`. */
export function typedParams(input: Pick<CreateCareJobInput, 'jobType' | 'params'>): TypedParams {
  const type = input.jobType as (typeof JOB_TYPES)[number];
  if (!JOB_TYPES.includes(type)) {
    throw new AppError('JOB_TYPE_NOT_AVAILABLE', `Care jobs of type ${input.jobType.slice(0, 64)} are not available. ${NOT_AVAILABLE_NOTE} Available: ${JOB_TYPES.join(', ')}.`, {
      field: 'jobType', code: 'JOB_TYPE_NOT_AVAILABLE', extra: { availableJobTypes: [...JOB_TYPES] },
    });
  }
  const r = PARAMS_SCHEMAS[type].safeParse(input.params);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const field = ['params', ...issue.path.map(String)].join('.');
    throw new AppError('invalid_request', `${field}: ${issue.message}`, { field, code: 'invalid_params' });
  }
  return { jobType: type, params: r.data } as TypedParams;
}

async function createJob(input: CreateCareJobInput, ctx: HandlerContext): Promise<CareJobView> {
  const ports = carePorts(ctx.ports);
  const { store, account } = await requireAccount(ctx);
  const job = typedParams(input);
  if (input.patientId && !await store.getPatient(account.id, input.patientId)) {
    throw new AppError('not_found', 'No patient with this patientId belongs to your account; GET /api/profile lists them.', { field: 'patientId' });
  }
  const key = input.idempotencyKey;
  let lock: string | null = null;
  if (key) {
    const r = await reserveKey(ports.db, account.id, key, requestHash(input), ports.clock.now());
    if (r.kind === 'replay') return r.response as CareJobView;
    lock = r.lockToken;
  }
  try {
    const currency = ports.payments?.prices.currency ?? 'usd';
    // Priced before the transaction: DuckDB reads never hold a database transaction open.
    const sheet = await buildSheet(ctx, { job, context: input.context, cost: input.cost, currency, planHints: input.planHints, patientId: input.patientId });
    const now = ports.clock.now();
    const row: CareJobRow = {
      id: `cj_${randomBytes(12).toString('hex')}`, account_id: account.id, patient_id: input.patientId ?? null, job_type: job.jobType,
      tier: tierFor(job.jobType, input.cost !== undefined), status: 'pending_approval', params: job.params, context: input.context ?? null,
      cost_cents: input.cost?.amountCents ?? null, cost_description: input.cost?.description ?? null, currency, sheet,
      approval_token: randomBytes(24).toString('base64url'), payment_session_id: null, hold_id: null, assignee_id: null, outcome: null,
      created_at: now, expires_at: new Date(now.getTime() + APPROVAL_LIFE_MS), decided_at: null, started_at: null, finished_at: null,
    };
    const view = jobView(row, ctx.urls.baseUrl);
    await ports.db.transaction(async (tx) => {
      await insertJob(tx, row);
      // The expiry is a durable timer written with the job (exists iff the job does).
      await ports.jobs.send(EXPIRE_JOB, { jobId: row.id }, { ...EXPIRE_JOB_OPTIONS, startAfter: row.expires_at, singletonKey: row.id }, tx);
      if (key && lock) await completeKey(tx, account.id, key, lock, row.id, view);
    });
    return view;
  } catch (e) {
    if (key && lock) await releaseKey(ports.db, account.id, key, lock).catch(() => undefined);
    throw e;
  }
}

export const createCareJob = defineOperation({
  name: 'create_care_job',
  title: 'Create a care job (needs the user\'s approval)',
  description: 'Asks the care team to act for the user in the real world: move_referral, book_appointment or cancel_or_reschedule (record release, refills, claim disputes and standing payment grants: JOB_TYPE_NOT_AVAILABLE). Every provider office needs identity (npi or providerName) and location (city, state; facilityName, address, phone when known). The answer is pending_approval with an approvalUrl the USER opens on their own device to sign in and approve; you cannot approve. The sheet shows what our pricing engine publishes for the providers named. Send an idempotencyKey (or the Idempotency-Key header) and reuse it when retrying: the same key and body replay the first result.',
  input: CreateCareJobInputSchema,
  output: CareJobViewSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  auth: 'required',
  rest: [{ method: 'POST', path: '/api/care-jobs' }],
  restHeaderInputs: { 'idempotency-key': 'idempotencyKey' },
  handler: createJob,
});

export const getCareJob = defineOperation({
  name: 'get_care_job',
  title: 'Get a care job',
  description: 'A care job created by create_care_job: its status (pending_approval, approved, declined, expired, then in_progress, completed or failed), the sheet, the hold\'s status for a cost-bearing job, and the care team\'s outcome once finished. Poll it after giving the user the approvalUrl.',
  input: CareJobRefSchema,
  output: CareJobViewSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/care-jobs/:jobId' }],
  handler: async (input, ctx) => {
    const { account } = await requireAccount(ctx);
    // Past its 15 minutes a pending job reads as expired even before its timer runs (the read
    // applies the same expiry, with its event), as the approval page already refuses it.
    const job = await currentJob(ctx.ports, await requireOwnJob(ctx.ports.db, account.id, input.jobId));
    const hold = job.hold_id ? await ctx.ports.payments?.processor.getHold(job.hold_id) : null;
    return jobView(job, ctx.urls.baseUrl, hold?.status ?? null);
  },
});

export const careJobOperations: AnyOperation[] = [createCareJob, getCareJob];
