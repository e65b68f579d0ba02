/**
 * The care-jobs area's pages (issue 39, item 1): the approval page under /care-jobs and the care
 * team's console pages under /console/care-team. Called once by api/app.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../rest/services.ts';
import { registerApprovalRoutes } from './approval.routes.ts';
import { registerCareTeamConsole } from '../care-team/care-team.routes.ts';

export async function registerCareJobPages(app: FastifyInstance, svc: AppServices, opts: { cookieSecret: string }): Promise<void> {
  await registerApprovalRoutes(app, svc, opts.cookieSecret);
  await registerCareTeamConsole(app, svc, opts.cookieSecret);
}
