/**
 * Query strings are text; the zod schemas expect JSON types. Each query value is coerced by the
 * JSON-schema type of the property it names (number, integer, boolean), so `?limit=5` validates
 * as 5 while `?limit=five` still fails validation naming `limit`.
 */
import { z } from 'zod';
import type { AnyOperation } from '../../engine/core/operation.ts';

type PropTypes = Record<string, string[]>;

const cache = new WeakMap<AnyOperation, PropTypes>();

function typesOf(schema: unknown): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as { type?: string | string[]; anyOf?: unknown[]; oneOf?: unknown[] };
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type;
  return [...(s.anyOf ?? []), ...(s.oneOf ?? [])].flatMap(typesOf);
}

function propertyTypes(op: AnyOperation): PropTypes {
  let t = cache.get(op);
  if (!t) {
    t = {};
    try {
      const js = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
      for (const [k, v] of Object.entries(js.properties ?? {})) t[k] = typesOf(v);
    } catch {
      // A schema JSON Schema cannot express: leave values as strings; validation still applies.
    }
    cache.set(op, t);
  }
  return t;
}

export function coerceQuery(op: AnyOperation, query: Record<string, unknown>): Record<string, unknown> {
  const types = propertyTypes(op);
  // No prototype: `?__proto__=x` stays an own key (an assignment to a plain object would drop it
  // silently) so that invokeOperation refuses it as it refuses every unknown parameter.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(query)) {
    // Own properties only: `?constructor=` or `?__proto__=` must not find Object.prototype's members.
    const want = Object.hasOwn(types, k) ? types[k]! : [];
    if (typeof v !== 'string' || want.includes('string')) {
      out[k] = v;
    } else if ((want.includes('number') || want.includes('integer')) && /^-?\d+(\.\d+)?$/.test(v)) {
      out[k] = Number(v);
    } else if (want.includes('boolean') && (v === 'true' || v === 'false')) {
      out[k] = v === 'true';
    } else {
      out[k] = v;
    }
  }
  return out;
}
