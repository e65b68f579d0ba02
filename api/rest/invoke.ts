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

/** Names that must never become keys of an object built from input (prototype pollution). */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const PLAIN_PROTOTYPES = new Set<unknown>([Object.prototype, Array.prototype, null]);

/**
 * Path of the first reserved key in the input, if any: an own key named `__proto__`,
 * `constructor` or `prototype` at any depth, or an object whose prototype is not a plain one (a
 * parser upstream, such as a zod record in the MCP SDK, already assigned a `__proto__` key).
 */
function reservedKeyPath(v: unknown, path: string[] = [], depth = 0): string | undefined {
  if (depth > 32 || v === null || typeof v !== 'object') return undefined;
  if (!PLAIN_PROTOTYPES.has(Object.getPrototypeOf(v))) return [...path, '__proto__'].join('.');
  for (const [k, child] of Object.entries(v)) {
    if (RESERVED_KEYS.has(k)) return [...path, k].join('.');
    const found = reservedKeyPath(child, [...path, k], depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * One rule for every operation on both transports (the REST query, path and body, and MCP
 * arguments): the input schemas are strict, so an unknown field is a 400 `unknown_field` naming
 * it; a reserved key gets the same answer here, before any schema builds an object from it (a zod
 * record would assign `__proto__`, setting the prototype, where a strict schema then drops it).
 */
export async function invokeOperation(op: AnyOperation, rawInput: unknown, ctx: HandlerContext, checkOutput: boolean): Promise<unknown> {
  const reserved = reservedKeyPath(rawInput);
  if (reserved !== undefined) throw new AppError('invalid_request', `Unknown field "${reserved}".`, { field: reserved, code: 'unknown_field' });
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
