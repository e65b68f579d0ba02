/**
 * Bad input on EVERY route (issue 2, tests): malformed JSON, wrong types, unknown fields, non-object
 * bodies, wrong content type and over-large bodies give a 4xx with an error body, never a 5xx.
 * Iterates allOperations(), so routes added later are covered without touching this file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';
import type { Db } from '../../engine/ports/db.ts';
import { allOperations } from '../../engine/operations.ts';
import type { AnyOperation, RestBinding } from '../../engine/core/operation.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { fakeIdentity } from '../helpers/fake-identity.ts';

interface Case { op: AnyOperation; b: RestBinding; label: string }
const cases: Case[] = allOperations().flatMap((op) => (op.rest ?? []).map((b) => ({ op, b, label: `${b.method} ${b.path} (${op.name})` })));
const hasBody = (b: RestBinding) => b.method !== 'GET' && b.method !== 'DELETE';

type Props = Record<string, { type?: string | string[]; anyOf?: { type?: string }[] }>;
function properties(op: AnyOperation): Props {
  return ((z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as { properties?: Props }).properties) ?? {};
}
function typesOf(s: Props[string]): string[] {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type;
  return (s.anyOf ?? []).flatMap((x) => (x.type ? [x.type] : []));
}
/** A value of a type the property does not accept (undefined when every JSON type is accepted). */
function wrongValue(types: string[]): unknown {
  if (!types.includes('object')) return { wrong: true };
  if (!types.includes('string')) return 'wrong';
  if (!types.includes('number') && !types.includes('integer')) return 12345;
  return undefined;
}
function url(b: RestBinding, query = ''): string {
  return b.path.replace(/:([A-Za-z0-9_]+)/g, 'x') + query;
}

let db: Db;
let t: TestApp;
let auth: Record<string, string>;
beforeAll(async () => {
  db = await openPgliteDb(undefined);
  const identity = fakeIdentity();
  t = await makeTestApp({ db, identity });
  auth = { authorization: `Bearer ${(await identity.signUp(db)).token}` };
});
afterAll(async () => {
  await t.close();
  await db.close();
});

function expectClientError(r: { statusCode: number; body: string }, label: string): Record<string, unknown> {
  expect(r.statusCode, `${label}: ${r.body}`).toBeGreaterThanOrEqual(400);
  expect(r.statusCode, `${label}: ${r.body}`).toBeLessThan(500);
  const body = JSON.parse(r.body) as Record<string, unknown>;
  expect(typeof body.error, label).toBe('string');
  return body;
}

it('covers at least the platform routes', () => {
  const paths = cases.map((c) => c.b.path);
  for (const p of ['/api/profile', '/api/profile/patient', '/api/profile/accept-terms', '/api/account/status']) expect(paths).toContain(p);
});

describe.each(cases)('$label', ({ b, label }) => {
  it('rejects an unknown field naming it', async () => {
    const r = hasBody(b)
      ? await t.app.inject({ method: b.method, url: url(b), payload: { __unknown__: 1 }, headers: auth })
      : await t.app.inject({ method: b.method, url: url(b, '?__unknown__=1'), headers: auth });
    const body = expectClientError(r, label);
    expect(r.statusCode).toBe(400);
    expect(body.field).toBe('__unknown__');
  });

});

describe.each(cases.filter((c) => hasBody(c.b)))('$label body', ({ b, label }) => {
  it('rejects malformed JSON, non-object JSON, non-JSON and over-large bodies', async () => {
    const json = { ...auth, 'content-type': 'application/json' };
    for (const payload of ['{"a":', '{bad json}', 'nul']) {
      const r = await t.app.inject({ method: b.method, url: url(b), payload, headers: json });
      expect(expectClientError(r, `${label} ${payload}`).error).toBe('invalid_json');
    }
    for (const payload of ['[1]', '"text"', '42']) {
      const r = await t.app.inject({ method: b.method, url: url(b), payload, headers: json });
      expect(r.statusCode, `${label} ${payload}`).toBe(400);
      expectClientError(r, label);
    }
    const r415 = await t.app.inject({ method: b.method, url: url(b), payload: 'a=1', headers: { ...auth, 'content-type': 'text/plain' } });
    expect(r415.statusCode).toBe(415);
    expectClientError(r415, label);
    const big = await t.app.inject({ method: b.method, url: url(b), payload: `{"pad":"${'x'.repeat((b.bodyLimitBytes ?? 1_048_576) + 50_000)}"}`, headers: json });
    expect(big.statusCode).toBe(413);
    expectClientError(big, label);
  });
});

/** One case per (route, field) whose type a caller can get wrong in this position. */
const wrongTypeCases = cases.flatMap(({ op, b, label }) => Object.entries(properties(op)).flatMap(([name, schema]) => {
  if (b.path.includes(`:${name}`)) return [];
  const types = typesOf(schema);
  if (hasBody(b)) {
    const value = wrongValue(types);
    return value === undefined ? [] : [{ b, label: `${label} ${name}`, name, value }];
  }
  // Every query value is a valid string: only non-string fields can have the wrong type there.
  return types.includes('string') || types.length === 0 ? [] : [{ b, label: `${label} ${name}`, name, value: '{wrong' }];
}));

it.each(wrongTypeCases)('$label: a wrong type is a 400 naming a field', async ({ b, label, name, value }) => {
  const r = hasBody(b)
    ? await t.app.inject({ method: b.method, url: url(b), payload: { [name]: value }, headers: auth })
    : await t.app.inject({ method: b.method, url: url(b, `?${name}=${encodeURIComponent(value as string)}`), headers: auth });
  const body = expectClientError(r, label);
  expect(r.statusCode, label).toBe(400);
  expect(typeof body.field, `${label}: ${r.body}`).toBe('string');
});
