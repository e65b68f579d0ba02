/**
 * Runs one operation for either transport: validates the assembled input with the op's zod schema,
 * calls the framework-free handler, and (when enabled) checks the output against the op's schema.
 */
import type { HandlerContext } from '../../engine/core/context.ts';
import type { AnyOperation } from '../../engine/core/operation.ts';
import { AppError } from '../../engine/core/errors.ts';
import { validationError } from './error-body.ts';

/** Path of the first string holding a NUL character (PostgreSQL text cannot store one), if any. */
function nulPath(v: unknown, path: string[] = [], depth = 0): string | undefined {
  if (typeof v === 'string') return v.includes('\u0000') ? path.join('.') : undefined;
  if (depth > 32 || v === null || typeof v !== 'object') return undefined;
  for (const [k, child] of Object.entries(v)) {
    const found = nulPath(child, [...path, k], depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

export async function invokeOperation(op: AnyOperation, rawInput: unknown, ctx: HandlerContext, checkOutput: boolean): Promise<unknown> {
  const nul = nulPath(rawInput);
  if (nul !== undefined) throw new AppError('invalid_request', `${nul || 'input'} contains a NUL character.`, { field: nul || undefined, code: 'invalid_value' });
  const parsed = await op.input.safeParseAsync(rawInput);
  if (!parsed.success) throw validationError(parsed.error, rawInput);
  const out: unknown = await op.handler(parsed.data, ctx);
  if (!checkOutput) return out;
  const checked = await op.output.safeParseAsync(out);
  if (!checked.success) {
    // Our bug, not the caller's: log the details, never leak them.
    ctx.log.error({ op: op.name, issues: checked.error.issues.slice(0, 5).map((i: { path: PropertyKey[]; code: string; message: string }) => ({ path: i.path.join('.'), code: i.code, message: i.message })) },
      'operation output does not match its schema');
    throw new AppError('internal_error');
  }
  return checked.data;
}
