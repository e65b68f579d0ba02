import type { Logger } from 'pino';
import type { Config } from '../../engine/core/config.ts';
import type { Ports } from '../../engine/core/context.ts';
import type { AnyOperation } from '../../engine/core/operation.ts';
import type { Identity } from '../identity/identity.ts';
import type { FixedWindowLimiter } from './rate-limit.ts';

/** What the transports share, built once by buildApp (no module-level singletons). */
export interface AppServices {
  config: Config;
  ops: AnyOperation[];
  identity: Identity;
  ports: Ports;
  log: Logger;
  limiter: FixedWindowLimiter;
  /** Signed-in callers' general limit per user per minute (REST and MCP tool calls). */
  userPerMinute: number;
  /** Validate handler output against the op's output schema (tests, dev); a mismatch is a logged 500. */
  checkOutput: boolean;
}
