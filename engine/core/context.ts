import type { Logger } from 'pino';
import type { Db } from '../ports/db.ts';
import type { Clock } from '../ports/clock.ts';
import type { JobQueue } from '../ports/jobs.ts';
import type { NotificationBus } from '../ports/bus.ts';
import type { Outbox } from '../ports/outbox.ts';

/** Who is calling. Anonymous callers only reach operations whose auth is `none` or `optional`. */
export type Caller =
  | { kind: 'anonymous'; ip: string }
  | {
      kind: 'user';
      ip: string;
      /** Stable account id (the OAuth `sub`). */
      userId: string;
      /** OAuth client that holds the token. */
      clientId: string;
      scopes: readonly string[];
    };

/**
 * The ports a handler may use: the platform's own here, and each capability area adds its ports
 * from its own folder by declaration merging, as an optional member, so that a process that does
 * not serve an area (e.g. `serve --pricing-only`) need not build it:
 *
 *     declare module '../core/context.ts' { interface Ports { pricing?: PricingPorts } }
 *
 * engine/core knows no area (test/platform/dependencies.test.ts keeps it so); the composition
 * root (api/app.ts, cli/) wires the areas' adapters in.
 */
export interface Ports {
  db: Db;
  clock: Clock;
  /** Durable jobs and timers (care areas); absent on the pricing-only host. */
  jobs?: JobQueue;
  /** The transactional outbox of events (service-spec.md, Events). */
  outbox?: Outbox;
  /** Cross-process wake-ups for waiting requests. */
  bus?: NotificationBus;
}

/** Everything a handler receives besides its validated input. No Fastify, MCP or SQL types here. */
export interface HandlerContext {
  caller: Caller;
  ports: Ports;
  log: Logger;
  requestId: string;
  /** Which host/interface the call came through, for shapes that differ per host (pricing). */
  surface: 'main' | 'pricing';
  /** Public origins, for building links (sign-up URL, approval URLs). */
  urls: { baseUrl: string; pricingUrl: string };
}
