/**
 * The engine's folder structure as a checked rule (issue 34, item 4; STYLE.md 4): engine/core
 * knows no area, and the areas under engine/ import each other without cycles. Reads the import
 * declarations (static `import … from`, `export … from` and `import('…')` types) of every .ts
 * file under engine/ and builds the folder graph.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const ENGINE = join(ROOT, 'engine');
/** Folders every area may use: the core and the platform's own ports, adapters and storage. */
const PLATFORM = new Set(['core', 'ports', 'adapters', 'storage', 'platform']);

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT_RE = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The engine folder (first path segment under engine/) a file belongs to; null outside engine/. */
function areaOf(file: string): string | null {
  const rel = relative(ENGINE, file);
  if (rel.startsWith('..')) return null;
  const first = rel.split(sep)[0] ?? '';
  return first.endsWith('.ts') ? '(root)' : first;
}

/** area -> areas it imports (relative imports only; packages are the lint rule's business). */
export function areaGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of tsFiles(ENGINE)) {
    const from = areaOf(file);
    if (!from) continue;
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(IMPORT_RE)) {
      const target = resolve(dirname(file), m[1]!);
      const to = areaOf(target);
      if (!to || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      edges.set(to, [...(edges.get(to) ?? []), relative(ROOT, file)]);
      graph.set(from, edges);
    }
  }
  return graph;
}

function findCycle(graph: Map<string, Map<string, string[]>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string): string[] | null => {
    if (state.get(n) === 'done') return null;
    if (state.get(n) === 'open') return [...stack.slice(stack.indexOf(n)), n];
    state.set(n, 'open');
    stack.push(n);
    for (const next of graph.get(n)?.keys() ?? []) {
      const c = visit(next);
      if (c) return c;
    }
    stack.pop();
    state.set(n, 'done');
    return null;
  };
  for (const n of graph.keys()) {
    const c = visit(n);
    if (c) return c;
  }
  return null;
}

describe('engine dependency structure', () => {
  const graph = areaGraph();

  it('engine/core imports nothing but the platform ports', () => {
    const bad = [...(graph.get('core') ?? new Map<string, string[]>()).entries()]
      .filter(([to]) => to !== 'ports')
      .map(([to, files]) => `core -> ${to} (${files.join(', ')})`);
    expect(bad).toEqual([]);
  });

  it('the platform folders import no area', () => {
    const bad: string[] = [];
    for (const p of PLATFORM) {
      if (p === 'adapters' || p === 'storage') continue; // adapters and migrations wire ports, not areas
      for (const [to, files] of graph.get(p) ?? []) {
        if (!PLATFORM.has(to)) bad.push(`${p} -> ${to} (${files.join(', ')})`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('areas import each other without cycles', () => {
    expect(findCycle(graph)).toBeNull();
  });

  it('finds a cycle when there is one (the check can fail)', () => {
    const g = new Map([['a', new Map([['b', ['x']]])], ['b', new Map([['a', ['y']]])]]);
    expect(findCycle(g)).toEqual(['a', 'b', 'a']);
  });
});
