/**
 * Tool input and output schemas as MCP 2025-11-25 publishes them (issue 38, item 7): JSON Schema
 * 2020-12, the revision's default dialect (SEP-1613), written portably.
 *
 * - No `$schema` keyword: 2020-12 is the dialect of a schema without one, and an explicit 2020-12
 *   URI breaks clients whose validator only knows draft-07 (the MCP TypeScript SDK 1.x client
 *   compiles output schemas with a draft-07 Ajv, which rejects an unknown `$schema`).
 * - A nullable value is `anyOf: [{type: X}, {type: "null"}]`, not `type: [X, "null"]`: legal, but
 *   clients that map tool schemas onto single-type dialects (OpenAPI-subset function calling)
 *   drop or reject type arrays. The MCP Inspector CLI's tools/list portability check flags both.
 * - A free-form map's values (`additionalProperties: {}`) are written `additionalProperties: true`
 *   (the same contract) so no subschema is empty.
 */
import { z } from 'zod';

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Rewrites one schema node (and its children) into the portable spelling above. */
function portable(node: unknown, key?: string): unknown {
  if (Array.isArray(node)) return node.map((n) => portable(n));
  if (!isRecord(node)) return node;
  if (key === 'additionalProperties' && Object.keys(node).every((k) => k === 'description')) return true;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    // Maps of subschemas (properties, $defs …): rewrite each value, never the names.
    out[k] = isRecord(v) && (k === 'properties' || k === '$defs' || k === 'patternProperties' || k === 'dependentSchemas')
      ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, portable(s)]))
      : portable(v, k);
  }
  const type = out.type;
  if (Array.isArray(type) && type.length > 1) {
    delete out.type;
    const branches = type.map((t) => ({ type: t as string }));
    // An existing anyOf (rare) and the type union must both hold: combine with allOf.
    if (out.anyOf) out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { anyOf: branches }];
    else out.anyOf = branches;
  }
  return out;
}

/** The JSON Schema (2020-12, portable, no `$schema`) of a zod schema's input or output side. */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const js = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
  const out = portable(js) as Json;
  delete out.$schema;
  return out;
}
