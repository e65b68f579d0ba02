/**
 * Operations that exist only in tests, to exercise what the real list may not have yet: optional
 * auth, rate limits, the pricing error shapes, a handler that crashes, one whose output is wrong,
 * and one that waits (graceful-drain test).
 */
import { z } from 'zod';
import { defineOperation, type AnyOperation } from '../../engine/core/operation.ts';
import { AppError } from '../../engine/core/errors.ts';

const hints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const Whoami = z.object({ caller: z.enum(['anonymous', 'user']), userId: z.string().nullable() });

export const optionalEcho = defineOperation({
  name: 'test_optional', description: 'optional auth', input: z.strictObject({ n: z.number().int().optional() }), output: Whoami,
  annotations: hints, auth: 'optional', errorShape: 'pricing-public',
  rest: [{ method: 'POST', path: '/api/test/optional', surface: 'pricing' }],
  rateLimit: { bucket: 'test', anonymousPerMinute: 3 },
  handler: async (_i, ctx) => ({ caller: ctx.caller.kind, userId: ctx.caller.kind === 'user' ? ctx.caller.userId : null }),
});

export const mainShaped = defineOperation({
  name: 'test_main_shape', description: 'pricing-main error shape', input: z.strictObject({ npi: z.string().regex(/^\d{10}$/) }), output: Whoami,
  annotations: hints, auth: 'required', errorShape: 'pricing-main',
  rest: [{ method: 'POST', path: '/api/test/main-shape' }],
  handler: async (_i, ctx) => ({ caller: ctx.caller.kind, userId: null }),
});

export const boom = defineOperation({
  name: 'test_boom', description: 'crashes', input: z.strictObject({}), output: Whoami,
  annotations: hints, auth: 'none', rest: [{ method: 'GET', path: '/api/test/boom' }],
  handler: async () => {
    throw new Error('SELECT secret FROM accounts WHERE password = hunter2');
  },
});

export const badOutput = defineOperation({
  name: 'test_bad_output', description: 'wrong output', input: z.strictObject({}), output: Whoami,
  annotations: hints, auth: 'none', rest: [{ method: 'GET', path: '/api/test/bad-output' }],
  handler: async () => ({ caller: 'nobody' } as unknown as z.input<typeof Whoami>),
});

export const withParams = defineOperation({
  name: 'test_params', description: 'path + query', input: z.strictObject({ id: z.string().min(3), limit: z.number().int().max(10).optional(), flag: z.boolean().optional() }),
  output: z.object({ id: z.string(), limit: z.number().nullable(), flag: z.boolean().nullable() }),
  annotations: hints, auth: 'none', rest: [{ method: 'GET', path: '/api/test/items/:id' }],
  handler: async (i) => ({ id: i.id, limit: i.limit ?? null, flag: i.flag ?? null }),
});

export const appErrorOp = defineOperation({
  name: 'test_app_error', description: 'throws an AppError with extra', input: z.strictObject({}), output: Whoami,
  annotations: hints, auth: 'none', rest: [{ method: 'POST', path: '/api/test/region' }],
  handler: async () => {
    throw new AppError('REGION_NOT_SUPPORTED', 'Only US-CA is served.', { extra: { regions: ['US-CA'] }, field: 'region' });
  },
});

/** Resolves when a test calls release(); for the drain test. */
export function slowOperation(): { op: AnyOperation; started: Promise<void>; release: () => void } {
  let release!: () => void;
  let markStarted!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const started = new Promise<void>((r) => { markStarted = r; });
  const op = defineOperation({
    name: 'test_slow', description: 'waits', input: z.strictObject({}), output: z.object({ ok: z.boolean() }),
    annotations: hints, auth: 'none', rest: [{ method: 'GET', path: '/api/test/slow' }],
    handler: async () => {
      markStarted();
      await gate;
      return { ok: true };
    },
  });
  return { op, started, release };
}

export const testOperations: AnyOperation[] = [optionalEcho, mainShaped, boom, badOutput, withParams, appErrorOp];
