/**
 * The composition root (STYLE.md 7): builds the Fastify app, not listening. api/server.ts listens.
 * Tests build one per test with their own config (test/helpers/app.ts).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../engine/core/config.ts';
import type { Ports } from '../engine/core/context.ts';
import { AppError } from '../engine/core/errors.ts';
import type { Db } from '../engine/ports/db.ts';
import { systemClock, type Clock } from '../engine/ports/clock.ts';
import type { AnyOperation } from '../engine/core/operation.ts';
import type { PricingPorts } from '../engine/pricing/ports.ts';
import { allOperations } from '../engine/operations.ts';
import { migrate } from '../engine/storage/migrate.ts';
import { describeDb, openDb } from '../engine/adapters/db.open.ts';
import { openPlatform, type OpenPlatformOptions, type Platform } from '../engine/adapters/platform.open.ts';
import { allWorkers, type PlatformPorts, type WorkerRegistration } from '../engine/workers.ts';
import type { Identity } from './identity/identity.ts';
import { createIdentity } from './identity/oidc.ts';
import { createLogger, genReqId, safeErr } from './logging.ts';
import { registerSecurityHeaders } from './security-headers.ts';
import { DEFAULT_HTTP_TIMEOUTS, timeoutOptions, type HttpTimeouts } from './http-timeouts.ts';
import { BODY_LIMIT_BYTES, registerBodyParsers } from './rest/body-parsers.ts';
import { sendError } from './rest/http-errors.ts';
import { clientErrorHandlerFor, errorShapeForUrl, registerPricingCors } from './rest/pricing-edges.ts';
import { DEFAULT_USER_PER_MINUTE, FixedWindowLimiter } from './rest/rate-limit.ts';
import { registerOperationRoutes } from './rest/operation-routes.ts';
import { registerMcpRoutes } from './mcp/mcp.routes.ts';
import { registerDiscoveryRoutes } from './discovery/discovery.routes.ts';
import { registerHealthRoutes } from './rest/health.routes.ts';
import type { AppServices } from './rest/services.ts';
import type { TriageEngine } from '../engine/triage/triage.port.ts';
import { createTriageEngine } from '../engine/triage/adapters/triage-engine.ts';
import { buildPayments } from './payments/payments.wiring.ts';
import { buildRecordsArea, type RecordsArea } from './records/records.wiring.ts';
import { recordsLinkedCoverage } from '../engine/records/linked-coverage.ts';
import { visitPurposeHandlers, visitRequestStopped } from '../engine/visits/visit-holds.ts';
import { seedDemoProviders } from '../engine/visits/demo-providers.ts';
import { registerConsoleRoutes } from './console/console.routes.ts';
import { loadCookieKeys } from './identity/keys.ts';
import { buildPrescriptionsPorts } from './prescriptions/prescriptions.wiring.ts';
import type { PharmacyDirectory } from '../engine/prescriptions/prescriptions.ports.ts';
import { createOutboundGuard, type OutboundGuard } from '../engine/adapters/outbound-guard.ts';
import { openMediaStore } from '../engine/media/adapters/media-store.open.ts';
import type { MediaStore } from '../engine/media/media-store.ts';
import { registerMediaRoutes } from './media/media.routes.ts';
import type { Outbound } from '../engine/ports/outbound.ts';
import { startWebhookDeliverer, type Deliverer, type DelivererOptions } from '../engine/webhooks/webhook-deliverer.ts';
import { careJobPurposeHandlers } from '../engine/carejobs/care-job-holds.ts';
import { registerCareJobPages } from './carejobs/care-jobs.wiring.ts';

export interface AppDeps {
  /** A database the caller owns (not closed by close()); default: openDb(config) + migrations. */
  db?: Db;
  /** Tests only: replaces the OAuth server (api/identity/oidc.ts). */
  identity?: Identity;
  clock?: Clock;
  logger?: Logger;
  pricing?: PricingPorts;
  /** Default: allOperations(). */
  operations?: AnyOperation[];
  /** Check handler output against the op's schema (tests, dev). Default: on at LOG_LEVEL debug/trace. */
  checkOutput?: boolean;
  /** Signed-in callers' limit per user per minute; default DEFAULT_USER_PER_MINUTE. */
  userRatePerMinute?: number;
  /** Socket and request timeouts; default DEFAULT_HTTP_TIMEOUTS (tests shorten them). */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** Serve only the pricing host's routes (`carebridge serve --pricing-only`): no MCP, no OAuth pages, no jobs. */
  pricingOnly?: boolean;
  /** Job workers to register at start-up; default allWorkers() (engine/workers.ts). */
  workers?: WorkerRegistration[];
  /** Job queue tuning (tests: short polls and supervisor). */
  jobs?: OpenPlatformOptions['jobs'];
  /** The triage engine; default createTriageEngine(config) (the rules engine, or an LLM screened by it). */
  triage?: TriageEngine;
  /** A triage try running longer than this is presumed dead and retried (default 60 s; crash tests shorten it). */
  triageJobExpireSeconds?: number;
  /** Register the conversation's `visit` payment purpose (default true; the payments tests register their own). */
  visitPurpose?: boolean;
  /** `carebridge serve` only: on embedded defaults, seed the demo provider accounts at first start. */
  seedDemoProviders?: boolean;
  /** The pharmacy directory over the pricing snapshot (cli/serve.command.ts; absent: GET /api/pharmacies answers 503). */
  pharmacies?: PharmacyDirectory;
  /** The clinician console's live-stream heartbeat (default 15 s; tests shorten it). */
  consoleHeartbeatMs?: number;
  /** A match try running longer is presumed dead and retried (default 30 s; crash tests shorten it). */
  matchJobExpireSeconds?: number;
  /** The outbound guard (tests inject one with their own resolver); default: one per app from OUTBOUND_ALLOWLIST. */
  outbound?: Outbound;
  /** Webhook deliverer tuning, or false for none (tests that play a crash). */
  webhookDeliverer?: false | Pick<DelivererOptions, 'leaseMs' | 'pollMs' | 'concurrency'>;
  /**
   * Tests only (test/helpers/app.ts): close() ends every open connection at once, including one
   * opened and never used and one busy when close began, instead of draining them. Production
   * keeps the default: idle keep-alive sockets close, busy ones finish (api/server.ts bounds the wait).
   */
  forceCloseConnections?: boolean;
}

export interface BuiltApp {
  app: FastifyInstance;
  services: AppServices;
  /** The health-records area (absent on the pricing-only host): its ports and the sandbox payer. */
  records?: RecordsArea;
  /**
   * Stops accepting and drains in-flight requests, then stops the job queue (waits for running
   * handlers), then the notification bus, then identity and the (owned) database. Idempotent.
   */
  close(): Promise<void>;
}

export async function buildApp(config: Config, deps: AppDeps = {}): Promise<BuiltApp> {
  const log = deps.logger ?? createLogger(config);
  const ownsDb = !deps.db;
  const db = deps.db ?? await openDb(config);
  let identity: Identity | undefined;
  let platform: Platform | undefined;
  let mediaStore: MediaStore | undefined;
  let ownGuard: OutboundGuard | undefined;
  let deliverer: Deliverer | undefined;
  try {
    const applied = await migrate(db);
    log.info({ database: describeDb(config), kind: db.kind, applied }, applied.length ? 'migrations applied' : 'database schema up to date');
    if (deps.seedDemoProviders && !config.databaseUrl && !deps.pricingOnly) await seedDemoProviders(db, config.dataDir, log);
    identity = deps.identity ?? await createIdentity({ config, db, log });
    // The care platform (jobs, outbox, bus) on the same database; the public pricing host needs none.
    if (!deps.pricingOnly) platform = await openPlatform({ config, db, log, ...(deps.jobs ? { jobs: deps.jobs } : {}) });
    const clock = deps.clock ?? systemClock;
    // THE one outbound guard of the process (engine/ports/outbound.ts): every request to a URL a
    // caller supplied (webhook deliveries, media by URL) goes through ports.outbound.
    const outbound = platform ? deps.outbound ?? (ownGuard = createOutboundGuard({ allowlist: config.outboundAllowlist })) : undefined;
    // Health records need the job queue for their imports: none on the pricing-only host.
    const records = platform ? buildRecordsArea({ config, db, clock, log, jobs: platform.jobs }) : undefined;
    const ports: Ports = {
      db,
      clock,
      ...(deps.pricing ? { pricing: deps.pricing } : {}),
      ...(platform ? { jobs: platform.jobs, outbox: platform.outbox, bus: platform.bus } : {}),
      ...(records ? { records: records.ports } : {}),
      ...(outbound ? { outbound } : {}),
      // The coverage health records imported, which pricing reads through its own port (the
      // pricing-only host too: a bearer caller there gets linked-coverage plan matching as well).
      linkedCoverage: recordsLinkedCoverage(db),
    };
    // Payments before the workers: its lapse worker (engine/workers.ts) reads ports.payments.
    const payments = deps.pricingOnly ? undefined : buildPayments(config, ports, log);
    if (payments) ports.payments = payments.ports;
    if (platform) {
      ports.consultations = {
        triage: deps.triage ?? createTriageEngine(config, { onLlmError: (err) => log.warn({ err: safeErr(err) }, 'LLM triage failed; the rules engine answered') }),
        regions: config.careRegions,
        replyWaitMs: config.careReplyWaitMs,
        triageJobExpireSeconds: deps.triageJobExpireSeconds ?? 60,
        onRequestStopped: visitRequestStopped(ports, log),
      };
      ports.visits = { matchingTimeoutSeconds: config.matchingTimeoutSeconds, ...(deps.matchJobExpireSeconds ? { matchJobExpireSeconds: deps.matchJobExpireSeconds } : {}) };
      mediaStore = openMediaStore(config);
      if (outbound) ports.media = { store: mediaStore, guard: outbound };
      ports.prescriptions = buildPrescriptionsPorts({ config, db, clock, log, ...(deps.pharmacies ? { pharmacies: deps.pharmacies } : {}) });
      // An approved visit hold moves its conversation to MATCHING in the approval's transaction.
      if (payments && deps.visitPurpose !== false) payments.ports.purposes.register('visit', visitPurposeHandlers(ports));
      // An authorised care-job hold approves its job in the authorisation's transaction.
      if (payments && deps.visitPurpose !== false) payments.ports.purposes.register('care_job', careJobPurposeHandlers(ports));
    }
    if (platform) {
      for (const register of deps.workers ?? allWorkers()) await register(ports as PlatformPorts, log);
      if (outbound && deps.webhookDeliverer !== false) deliverer = await startWebhookDeliverer({ db, outbound, clock, log, ...deps.webhookDeliverer });
    }
    const services: AppServices = {
      config,
      ops: deps.operations ?? allOperations(),
      identity,
      ports,
      log,
      limiter: new FixedWindowLimiter(ports.clock),
      userPerMinute: deps.userRatePerMinute ?? DEFAULT_USER_PER_MINUTE,
      // Output checking costs a parse per response: on in tests and at LOG_LEVEL debug/trace (dev).
      checkOutput: deps.checkOutput ?? (config.logLevel === 'debug' || config.logLevel === 'trace'),
    };

    const app: FastifyInstance = Fastify({
      loggerInstance: log,
      genReqId,
      bodyLimit: BODY_LIMIT_BYTES,
      ...timeoutOptions({ ...DEFAULT_HTTP_TIMEOUTS, ...deps.httpTimeouts }),
      // TRUST_PROXY hops: trust the n nearest proxies' X-Forwarded-For (proxy-addr's hop-index form).
      trustProxy: config.trustProxy > 0 ? (_addr: string, hop: number) => hop < config.trustProxy : false,
      // Drain: keep-alive sockets are closed when idle so close() does not wait for clients.
      forceCloseConnections: deps.forceCloseConnections ? true : 'idle',
      return503OnClosing: true,
      routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
      // Errors Fastify raises before routing (a malformed URL) get the same JSON error body.
      frameworkErrors: (err, req, reply) => { void sendError(req, reply, err, errorShapeForUrl(req.url)); },
      // Errors Node's parser raises before a request exists (431 and the like), in the route's body shape.
      clientErrorHandler: clientErrorHandlerFor(config),
    }) as unknown as FastifyInstance;
    let draining = false;
    const routes: { method: string; re: RegExp }[] = [];
    app.addHook('onRoute', (r) => {
      if (r.url.includes('*')) return;
      const re = new RegExp(`^${r.url.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}/?$`);
      for (const m of [r.method].flat()) routes.push({ method: m, re });
    });
    app.addHook('onRequest', async (req, reply) => {
      void reply.header('x-request-id', req.id);
    });
    registerPricingCors(app);
    registerSecurityHeaders(app, config);
    registerBodyParsers(app);
    // Errors before a handler (body parsing, 404, 405) get the body shape of the route's host.
    app.setErrorHandler((err, req, reply) => sendError(req, reply, err, errorShapeForUrl(req.url)));
    app.setNotFoundHandler((req, reply) => {
      const path = req.url.split('?')[0] ?? '';
      const allow = [...new Set(routes.filter((r) => r.re.test(path)).map((r) => r.method))];
      if (allow.length) {
        void reply.header('allow', allow.join(', '));
        return sendError(req, reply, new AppError('method_not_allowed', `${req.method} is not allowed on ${path}; use ${allow.join(' or ')}.`), errorShapeForUrl(path));
      }
      return sendError(req, reply, new AppError('route_not_found', `No route ${req.method} ${path.slice(0, 200)}.`), errorShapeForUrl(path));
    });

    registerHealthRoutes(app, db, () => draining);
    registerDiscoveryRoutes(app, services);
    if (deps.pricingOnly) {
      registerOperationRoutes(app, services, 'pricing');
    } else {
      await identity.mount(app);
      await records?.mount(app);
      registerMcpRoutes(app, services);
      registerOperationRoutes(app, services);
      await payments?.registerRoutes(app);
      await registerMediaRoutes(app, ports);
      await registerConsoleRoutes(app, services, { cookieSecret: loadCookieKeys(config)[0]!, ...(deps.consoleHeartbeatMs ? { heartbeatMs: deps.consoleHeartbeatMs } : {}) });
      await registerCareJobPages(app, services, { cookieSecret: loadCookieKeys(config)[0]! });
    }
    await app.ready();

    let closing: Promise<void> | undefined;
    const close = () => (closing ??= (async () => {
      draining = true;
      await app.close();
      await deliverer?.stop();
      // Jobs before the bus and the database: a draining handler may still write and publish.
      await platform?.close();
      await mediaStore?.close();
      await ownGuard?.close();
      await identity?.close();
      if (ownsDb) await db.close();
    })());
    return { app, services, ...(records ? { records } : {}), close };
  } catch (e) {
    // A failed start must not leave the database open (PGlite holds a lock on DATA_DIR/pg).
    await deliverer?.stop().catch(() => undefined);
    await platform?.close().catch(() => undefined);
    await mediaStore?.close().catch(() => undefined);
    await ownGuard?.close().catch(() => undefined);
    await identity?.close().catch(() => undefined);
    if (ownsDb) await db.close().catch(() => undefined);
    throw e;
  }
}
