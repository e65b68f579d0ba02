/**
 * The snapshot store under a pricing root (schemas/snapshot-layout.ts): ids, publish (the only
 * writer of CURRENT), list, info, prune, and carrying tables over from a base snapshot.
 *
 * Invariant (issue 3, item 5): CURRENT changes only in `publish`, by write-temp + fsync + rename,
 * and only to a snapshot whose manifest says complete. An ingest writes under staging/ and renames
 * its finished snapshot into snapshots/, so a SIGKILL at any moment leaves CURRENT and the
 * published snapshot as they were.
 */
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ALL_TABLES } from '../../schemas/pricing-tables.ts';
import {
  CURRENT_POINTER, MANIFEST_FILE, SNAPSHOTS_DIR, STAGING_DIR, snapshotDir, tableDir, type SnapshotManifest,
} from '../../schemas/snapshot-layout.ts';
import { writeFileAtomic } from './fsutil.ts';

/** A snapshot store error a CLI prints as one line (usage-level mistakes: unknown id, …). */
export class SnapshotStoreError extends Error {
  override name = 'SnapshotStoreError';
}

/** Sortable, unique snapshot id: UTC time then a random suffix, e.g. 20261122T104500Z-tic-3fa2. */
export function newSnapshotId(kind: string, now = new Date()): string {
  const ts = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${ts}-${kind}-${randomBytes(2).toString('hex')}`;
}

/** The published snapshot id, or null. */
export function currentId(root: string): string | null {
  const p = join(root, CURRENT_POINTER);
  if (!existsSync(p)) return null;
  return readFileSync(p, 'utf8').trim() || null;
}

export function readManifest(dir: string): SnapshotManifest {
  return JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as SnapshotManifest;
}

/** `id` or the word `current` -> a snapshot id that exists. */
export function resolveId(root: string, id: string): string {
  const real = id === 'current' ? currentId(root) : id;
  if (!real) throw new SnapshotStoreError(`no snapshot is published under ${root}`);
  if (!/^[\w.-]+$/.test(real)) throw new SnapshotStoreError(`invalid snapshot id "${real}"`);
  if (!existsSync(join(snapshotDir(root, real), MANIFEST_FILE))) throw new SnapshotStoreError(`no snapshot "${real}" under ${join(root, SNAPSHOTS_DIR)}`);
  return real;
}

/** Makes `id` current atomically. Refuses a snapshot that is not complete. */
export function publish(root: string, id: string): { id: string; previous: string | null } {
  const real = resolveId(root, id);
  const m = readManifest(snapshotDir(root, real));
  if (m.status !== 'complete') throw new SnapshotStoreError(`snapshot "${real}" is ${m.status}, not complete`);
  const previous = currentId(root);
  writeFileAtomic(join(root, CURRENT_POINTER), `${real}\n`);
  return { id: real, previous };
}

export interface SnapshotListing {
  id: string;
  current: boolean;
  createdAt: string;
  status: string;
  rows: Record<string, number>;
  bytes: number;
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (f.isFile()) n += statSync(join(f.parentPath, f.name)).size;
  }
  return n;
}

/** Every snapshot under the root, oldest first. */
export function listSnapshots(root: string): SnapshotListing[] {
  const dir = join(root, SNAPSHOTS_DIR);
  if (!existsSync(dir)) return [];
  const cur = currentId(root);
  const out: SnapshotListing[] = [];
  for (const id of readdirSync(dir)) {
    const d = join(dir, id);
    if (!existsSync(join(d, MANIFEST_FILE))) continue;
    const m = readManifest(d);
    out.push({
      id, current: id === cur, createdAt: m.createdAt, status: m.status,
      rows: Object.fromEntries(Object.entries(m.tables).map(([k, v]) => [k, v.rows])), bytes: dirBytes(d),
    });
  }
  return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** Manifest plus report of one snapshot. */
export function snapshotInfo(root: string, id: string): { id: string; current: boolean; dir: string; manifest: SnapshotManifest; report: unknown } {
  const real = resolveId(root, id);
  const dir = snapshotDir(root, real);
  const reportFile = join(dir, 'report.json');
  return {
    id: real, current: real === currentId(root), dir, manifest: readManifest(dir),
    report: existsSync(reportFile) ? JSON.parse(readFileSync(reportFile, 'utf8')) : null,
  };
}

/** Deletes all but the newest `keep` snapshots; never the current one. Returns the ids removed. */
export function prune(root: string, keep: number): string[] {
  if (!Number.isInteger(keep) || keep < 1) throw new SnapshotStoreError('--keep must be an integer >= 1');
  const all = listSnapshots(root);
  const doomed = all.slice(0, Math.max(0, all.length - keep)).filter((s) => !s.current);
  for (const s of doomed) rmSync(snapshotDir(root, s.id), { recursive: true, force: true });
  return doomed.map((s) => s.id);
}

/** How long a staging directory can still be resumed (run-ingest.ts pickStaging). */
export const RESUME_MAX_AGE_MS = 20 * 3600 * 1000;
/** A staging directory touched this recently may belong to an ingest still running. */
const STAGING_QUIET_MS = 3600 * 1000;

/** Newest mtime of a directory and its direct children (files/, partial/, tmp/ are touched as it works). */
function newestMtime(dir: string): number {
  let t = statSync(dir).mtimeMs;
  for (const e of readdirSync(dir)) {
    try { t = Math.max(t, statSync(join(dir, e)).mtimeMs); } catch { /* removed meanwhile */ }
  }
  return t;
}

/**
 * Removes abandoned staging directories (killed or failed ingests): those too old to be resumed
 * (`--resume` only picks up a run started less than 20 hours ago) and untouched for an hour, so
 * an ingest still running is never touched. Returns the removed ids.
 */
export function pruneStaging(root: string, now = Date.now()): string[] {
  const stagingRoot = join(root, STAGING_DIR);
  if (!existsSync(stagingRoot)) return [];
  const removed: string[] = [];
  for (const id of readdirSync(stagingRoot)) {
    const dir = join(stagingRoot, id);
    let started = Number.NaN;
    try {
      started = Date.parse((JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { startedAt: string }).startedAt);
    } catch { /* no run.json (a merge's staging): judged by mtime alone */ }
    const old = Number.isNaN(started) || now - started >= RESUME_MAX_AGE_MS;
    if (old && now - newestMtime(dir) >= STAGING_QUIET_MS) {
      rmSync(dir, { recursive: true, force: true });
      removed.push(id);
    }
  }
  return removed;
}

/** Hard-links (or copies across filesystems) a directory tree. */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const a = join(from, e.name);
    const b = join(to, e.name);
    if (e.isDirectory()) linkTree(a, b);
    else {
      try { linkSync(a, b); } catch { copyFileSync(a, b); }
    }
  }
}

/**
 * Carries every table NOT in `written` from a base snapshot into `target` (hard links: no extra
 * disk, and the base stays immutable since Parquet files are never rewritten in place). Returns the
 * carried tables' manifest entries.
 */
export function carryOver(baseDir: string, target: string, written: ReadonlySet<string>): Record<string, { rows: number }> {
  const m = readManifest(baseDir);
  const carried: Record<string, { rows: number }> = {};
  for (const t of ALL_TABLES) {
    if (written.has(t.name)) continue;
    const from = tableDir(baseDir, t);
    if (!existsSync(from)) continue;
    const to = tableDir(target, t);
    rmSync(to, { recursive: true, force: true });
    linkTree(from, to);
    carried[t.name] = m.tables[t.name] ?? { rows: 0 };
  }
  return carried;
}
