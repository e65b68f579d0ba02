/**
 * Issue 38, item 11: the README is for users and fits a few screens; measurement history lives
 * in one dated performance log; schemas/README.md is the table contract.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

describe('documentation', () => {
  test('the README starts with what works and what does not, and the newcomer path uses carebridge login', () => {
    const readme = read('README.md');
    const intro = readme.split('\n## ')[0]!;
    expect(intro).toMatch(/What works today/);
    expect(intro).toMatch(/Not yet/);
    expect(readme).toContain('npx carebridge login');
    expect(readme).toMatch(/--header "Authorization: Bearer \$TOKEN"/);
    expect(readme).toMatch(/first start/i);
    expect(readme).toMatch(/EBADENGINE/);
    // Not a benchmark diary (the README was 38 KB of it): the current figures only, and the log.
    const bench = readme.split('\n## Benchmarks\n')[1]!.split('\n## ')[0]!;
    expect(Buffer.byteLength(bench)).toBeLessThan(2_000);
    expect(bench).toContain('docs/performance-log.md');
    expect(readme).not.toMatch(/Session 2[0-9] \(/);
  });

  test('schemas/README.md is the table contract; the history is in docs/performance-log.md, dated, newest last', () => {
    expect(Buffer.byteLength(read('schemas/README.md'))).toBeLessThan(25_000);
    const log = read('docs/performance-log.md');
    const dates = [...log.matchAll(/^## (\d{4}-\d{2}-\d{2})/gm)].map((m) => m[1]!);
    expect(dates.length).toBeGreaterThanOrEqual(2);
    expect([...dates].sort()).toEqual(dates);
    expect(log).toContain('Ingest speed and memory: the history');
  });
});
