/**
 * Where the payer sends the member's browser back after the sign-in (`/records/callback`, the
 * redirect URI registered with payers). Not under /api: the browser carries no bearer token; the
 * one-use `state` ties the answer to the link request (its hash is what we stored).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../engine/ports/clock.ts';
import type { Db } from '../../engine/ports/db.ts';
import type { RecordsPorts } from '../../engine/records/records.ports.ts';
import { completeLink } from '../../engine/records/records-link.ts';
import { renderPage, sendPage } from '../web/render.ts';

export const CALLBACK_PATH = '/records/callback';

type Q = Record<string, string | undefined>;

export function registerRecordsCallbackRoutes(app: FastifyInstance, deps: { db: Db; clock: Clock; ports: RecordsPorts }): void {
  app.get(CALLBACK_PATH, async (req: FastifyRequest<{ Querystring: Q }>, reply) => {
    const q = req.query;
    const r = await completeLink({ code: q.code, state: q.state, error: q.error, error_description: q.error_description }, deps);
    if (r.ok) {
      return sendPage(reply, 200, renderPage('records/message', {
        title: 'Your insurer is connected', errors: [],
        message: `Your records from ${r.payerLabel} are being imported now. You can close this page and go back to your agent.`,
        hint: 'The records are read-only copies; you can ask your agent to resync them at any time.',
      }));
    }
    return sendPage(reply, 400, renderPage('records/message', { title: r.title, message: r.message, hint: null, errors: [] }));
  });
}
