/**
 * The embedded sandbox payer's routes, served by the same process under /sandbox-payer (issue 36,
 * item 2): SMART discovery, the authorize endpoint and its sign-in page (a real page the member
 * completes: GOV.UK form patterns, no JavaScript), the token endpoint, and the FHIR R4 API.
 * Registered in its own encapsulated scope with a urlencoded parser (the token endpoint and the
 * form post forms), so the rest of the app stays JSON-only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderPage, sendPage, type FieldError } from '../web/render.ts';
import { SANDBOX_MEMBERS, SANDBOX_PASSWORD } from '../../engine/records/sandbox/sandbox-members.ts';
import { capability, outcome, readPatient, search, smartConfiguration, type FhirAnswer } from './sandbox-fhir.ts';
import type { SandboxPayer } from './sandbox-payer.ts';

const FORM_BODY_LIMIT = 16 * 1024;
type Q = Record<string, string | undefined>;

function signInPage(reply: FastifyReply, status: number, request: string, memberId: string, errors: FieldError[]): FastifyReply {
  const members = SANDBOX_MEMBERS.map((m) => ({ memberId: m.memberId, name: `${m.givenName} ${m.familyName}`, plan: `${m.planName}${m.employer ? `, ${m.employer}` : ''}` }));
  return sendPage(reply, status, renderPage('records/sandbox-sign-in', {
    title: 'Sign in to your insurer (sandbox)', errors, request, memberId, members, password: SANDBOX_PASSWORD,
  }));
}

function message(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  return sendPage(reply, status, renderPage('records/message', { title, message: text, hint: null, errors: [] }));
}

function fhir(reply: FastifyReply, a: FhirAnswer): FastifyReply {
  return reply.code(a.status).header('content-type', 'application/fhir+json; charset=utf-8').header('cache-control', 'no-store').send(a.body);
}

export async function registerSandboxPayerRoutes(app: FastifyInstance, sandbox: SandboxPayer, baseUrl: string): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    scope.get('/sandbox-payer', (_req, reply) => signInPage(reply, 200, '', '', []));
    scope.get('/sandbox-payer/fhir/.well-known/smart-configuration', (_req, reply) => reply.header('cache-control', 'no-store').send(smartConfiguration(baseUrl)));
    scope.get('/sandbox-payer/fhir/metadata', (_req, reply) => fhir(reply, { status: 200, body: capability(sandbox.fhirBase) }));

    scope.get('/sandbox-payer/authorize', (req: FastifyRequest<{ Querystring: Q }>, reply) => {
      const c = sandbox.checkAuthorize(req.query);
      if (!c.ok) return c.redirect ? reply.redirect(c.redirect, 303) : message(reply, 400, 'This sign-in link is not valid', c.message);
      return signInPage(reply, 200, sandbox.hold(c.request), '', []);
    });

    scope.post('/sandbox-payer/authorize', (req: FastifyRequest<{ Body: Q | undefined }>, reply) => {
      const f = req.body ?? {};
      const id = f.request ?? '';
      if (!sandbox.pending(id)) return message(reply, 400, 'This sign-in has expired', 'Go back to the app that sent you here and start connecting again.');
      if (f.action === 'deny') return reply.redirect(sandbox.deny(id)!, 303);
      const memberId = (f.member_id ?? '').trim();
      if (!memberId) return signInPage(reply, 400, id, '', [{ field: 'member_id', message: 'Enter your member ID' }]);
      const m = sandbox.signIn(memberId, f.password ?? '');
      if (!m) return signInPage(reply, 400, id, memberId, [{ field: 'member_id', message: 'The member ID or password is not right' }]);
      return reply.redirect(sandbox.approve(id, m), 303);
    });

    scope.post('/sandbox-payer/token', (req: FastifyRequest<{ Body: Q | undefined }>, reply) => {
      const r = sandbox.token(req.body ?? {});
      return reply.code(r.status).header('cache-control', 'no-store').header('pragma', 'no-cache').send(r.body);
    });

    scope.get('/sandbox-payer/fhir/Patient/:id', (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const g = sandbox.grant(req.headers.authorization);
      if (!g) return fhir(reply.header('www-authenticate', 'Bearer'), outcome(401, 'login', 'A valid bearer token is required.'));
      return fhir(reply, readPatient(req.params.id, g));
    });

    scope.get('/sandbox-payer/fhir/:type', (req: FastifyRequest<{ Params: { type: string }; Querystring: Q }>, reply) => {
      const g = sandbox.grant(req.headers.authorization);
      if (!g) return fhir(reply.header('www-authenticate', 'Bearer'), outcome(401, 'login', 'A valid bearer token is required.'));
      return fhir(reply, search(sandbox.fhirBase, req.params.type, req.query, g));
    });
  });
}
