/**
 * The listener (STYLE.md 7): builds the app, listens, and shuts down gracefully on SIGINT/SIGTERM:
 * stop accepting (readyz turns 503 at once), drain in-flight requests, close identity and database.
 */
import type { Logger } from 'pino';
import type { Config } from '../engine/core/config.ts';
import { buildApp, type AppDeps, type BuiltApp } from './app.ts';
import { createLogger } from './logging.ts';

export interface RunningServer {
  built: BuiltApp;
  /** The origin actually listened on (the port may differ from config when PORT=0). */
  address: string;
  /** Stops the server (same as a signal). */
  stop(reason?: string): Promise<void>;
}

/** Longest a drain may take before the process gives up on stragglers. */
const DRAIN_TIMEOUT_MS = 10_000;

export interface StartOptions extends AppDeps {
  /** Runs before listening (e.g. ensurePricingData). */
  beforeListen?: (log: Logger) => Promise<void>;
  /** Install SIGINT/SIGTERM handlers (the CLI does; tests do not). */
  handleSignals?: boolean;
  /** Runs after the app and database are closed (e.g. closing the pricing snapshot). */
  afterClose?: () => Promise<void>;
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const log = opts.logger ?? createLogger(config);
  const { beforeListen, handleSignals, afterClose, ...deps } = opts;
  let built: BuiltApp;
  try {
    built = await buildApp(config, { ...deps, logger: log });
  } catch (e) {
    await afterClose?.().catch(() => undefined);
    throw e;
  }
  try {
    if (beforeListen) await beforeListen(log);
    const address = await built.app.listen({ port: config.port, host: config.host });
    log.info({ address, baseUrl: config.baseUrl, pricingUrl: config.pricingUrl, pricingOnly: Boolean(deps.pricingOnly) }, 'carebridge listening');
    let stopping: Promise<void> | undefined;
    const stop = (reason = 'stop') => (stopping ??= (async () => {
      log.info({ reason }, 'shutting down: draining requests');
      const timer = setTimeout(() => {
        log.warn('drain timed out; closing remaining connections');
        built.app.server.closeAllConnections();
      }, DRAIN_TIMEOUT_MS);
      timer.unref();
      try {
        await built.close();
        await afterClose?.();
        log.info('shut down cleanly');
      } finally {
        clearTimeout(timer);
      }
    })());
    if (handleSignals) {
      const onSignal = (sig: NodeJS.Signals) => {
        stop(sig).catch((e: unknown) => {
          log.error({ err: e }, 'shutdown failed');
          process.exitCode = 1;
        });
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
    }
    return { built, address, stop };
  } catch (e) {
    await built.close().catch(() => undefined);
    await afterClose?.().catch(() => undefined);
    throw e;
  }
}
