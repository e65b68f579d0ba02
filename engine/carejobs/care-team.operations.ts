/**
 * The care team's side (issue 39, item 1, "The care team executes"): accounts with the provider
 * role `care_team` (engine/visits/provider-store.ts) list approved jobs and carry them out:
 * start, then complete or fail with an outcome. Any other caller, a patient's token included, is
 * 403. The console pages (api/care-team/) call these same operations.
 */
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import type { HandlerContext } from '../core/context.ts';
import { requireProvider } from '../visits/provider-store.ts';
import { carePorts, teamAction } from './care-job-actions.ts';
import { listJobs, loadJob, type CareJobRow } from './care-job-store.ts';
import { AppError } from '../core/errors.ts';
import type { CareJobStatus } from './care-job-status.ts';
import { CareJobRefSchema, CareTeamActionInputSchema, CareTeamJobSchema, CareTeamListInputSchema, CareTeamListSchema, type CareTeamJob } from './care-jobs.schema.ts';

async function holdStatus(ctx: HandlerContext, job: CareJobRow): Promise<string | null> {
  return job.hold_id ? (await ctx.ports.payments?.processor.getHold(job.hold_id))?.status ?? null : null;
}

/** The job as the care team sees it: the params it needs to act on, the sheet the user approved. */
export async function teamView(ctx: HandlerContext, job: CareJobRow): Promise<CareTeamJob> {
  return {
    jobId: job.id, jobType: job.job_type, tier: job.tier, status: job.status, createdAt: job.created_at.toISOString(),
    approvedAt: job.status !== 'pending_approval' && job.decided_at ? job.decided_at.toISOString() : null, assigneeId: job.assignee_id,
    params: job.params, context: job.context, sheet: job.sheet,
    payment: { required: job.cost_cents !== null, holdStatus: await holdStatus(ctx, job) }, outcome: job.outcome,
  };
}

const LISTS: Record<string, readonly CareJobStatus[]> = {
  open: ['approved', 'in_progress'], approved: ['approved'], in_progress: ['in_progress'],
  all: ['approved', 'in_progress', 'completed', 'failed'],
};

export const careTeamJobs = defineOperation({
  name: 'care_team_list_jobs',
  title: 'Care team: approved jobs',
  description: 'For care-team accounts: care jobs users approved, oldest first (status open = approved and in_progress, by default). Other callers: 403.',
  input: CareTeamListInputSchema,
  output: CareTeamListSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/care-team/jobs' }],
  handler: async (input, ctx) => {
    await requireProvider(ctx, ['care_team']);
    const rows = await listJobs(ctx.ports.db, LISTS[input.status ?? 'open']!);
    return { jobs: await Promise.all(rows.map((r) => teamView(ctx, r))) };
  },
});

export const careTeamJob = defineOperation({
  name: 'care_team_get_job',
  title: 'Care team: one job',
  description: 'For care-team accounts: one approved (or later) care job with its params, sheet, hold status and outcome. A job still waiting for the user\'s approval, declined or expired is not shown (404). Other callers: 403.',
  input: CareJobRefSchema,
  output: CareTeamJobSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  auth: 'required',
  rest: [{ method: 'GET', path: '/api/care-team/jobs/:jobId' }],
  handler: async (input, ctx) => {
    await requireProvider(ctx, ['care_team']);
    const job = await loadJob(ctx.ports.db, input.jobId);
    // The care team acts only on what a user approved.
    if (!job || !LISTS.all!.includes(job.status)) throw new AppError('not_found', 'No approved care job with this jobId.', { field: 'jobId' });
    return teamView(ctx, job);
  },
});

function teamOp(action: 'start' | 'complete' | 'fail', description: string) {
  return defineOperation({
    name: `care_team_${action}_job`,
    title: `Care team: ${action} a job`,
    description,
    input: CareTeamActionInputSchema,
    output: CareTeamJobSchema,
    annotations: { readOnlyHint: false, destructiveHint: action === 'fail', idempotentHint: false, openWorldHint: true },
    auth: 'required',
    rest: [{ method: 'POST', path: `/api/care-team/jobs/:jobId/${action}` }],
    handler: async (input, ctx) => {
      const p = await requireProvider(ctx, ['care_team']);
      const row = await teamAction(carePorts(ctx.ports), input.jobId, action, p.accountId, input.outcome, ctx.log);
      return teamView(ctx, row);
    },
  });
}

export const careTeamStart = teamOp('start', 'For care-team accounts: take an approved job (status in_progress). Not approved: 409 invalid_job_transition.');
export const careTeamComplete = teamOp('complete', 'For care-team accounts: the job in progress is done; outcome.summary required. A cost-bearing job\'s hold is captured.');
export const careTeamFail = teamOp('fail', 'For care-team accounts: the job (approved or in progress) could not be done; outcome.summary required. Any hold is released.');

export const careTeamOperations: AnyOperation[] = [careTeamJobs, careTeamJob, careTeamStart, careTeamComplete, careTeamFail];
