/**
 * Turns a staging directory into a finished snapshot: TiC tables from the staged files, the
 * source_files table, carried-over tables of a base snapshot, manifest.json, report.json and
 * catalog.duckdb; then renames it into snapshots/<id> (one atomic rename: the snapshot appears
 * whole or not at all). Publishing is a separate step (store.ts).
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { ALL_TABLES, SOURCE_FILES, type TableDef } from '../../schemas/pricing-tables.ts';
import { MANIFEST_FILE, SNAPSHOTS_DIR, snapshotDir, type SnapshotManifest } from '../../schemas/snapshot-layout.ts';
import { writeCatalog, emptySelect } from './catalog.ts';
import { finalizeTic } from './tic-finalize.ts';
import { copySelectToTable, writeTableSources } from './table-writer.ts';
import { carryOver, currentId, SnapshotStoreError } from './store.ts';
import { fsyncDir } from './fsutil.ts';

/** A source_files row (schemas/pricing-tables.ts SOURCE_FILES). */
export interface SourceFileRow {
  file_key: string;
  url: string;
  file_type: string;
  bytes: number | null;
  uncompressed_bytes: number | null;
  sha256: string | null;
  last_updated_on: string | null;
  version: string | null;
  reporting_entity_name: string | null;
  reporting_entity_type: string | null;
  status: 'complete' | 'failed';
  error: string | null;
  /** Remote provider references left unresolved (the file is partial when > 0); null when failed. */
  unresolved_references: number | null;
}

export interface AssembleOptions {
  root: string;
  id: string;
  /** The directory the snapshot is assembled in (renamed to snapshots/<id> at the end). */
  workDir: string;
  /** Staged TiC files directory (files/<file_key>/…), when this snapshot has TiC tables. */
  ticFilesDir?: string;
  sourceFiles?: SourceFileRow[];
  /** Tables already written into workDir by the caller (NPPES / reference loaders), with counts. */
  written?: Record<string, { rows: number }>;
  /** Families this snapshot (re)builds ('tic': every TiC table). Tables not written are carried over from `baseDir`. */
  families: TableDef['family'][];
  baseDir?: string | null;
  dataVintage: string;
  synthetic?: boolean;
  sources: Record<string, unknown>;
  report: unknown;
  /** Filled with seconds per TiC table written. */
  timings?: Record<string, number>;
}

function hasStagedFiles(dir: string | undefined): dir is string {
  return !!dir && existsSync(dir) && readdirSync(dir).length > 0;
}

/** Writes the TiC tables and the rest of the snapshot, then moves it into snapshots/<id>. */
export async function assembleSnapshot(instance: DuckDBInstance, o: AssembleOptions): Promise<{ dir: string; manifest: SnapshotManifest }> {
  mkdirSync(o.workDir, { recursive: true });
  const tables: Record<string, { rows: number }> = { ...(o.written ?? {}) };
  const con = await instance.connect();
  // A second: finalize streams the provider groups from it while the first writes the rates.
  const reader = await instance.connect();
  // A third runs only the SETs of DuckDB's memory_limit while the others stream (MemoryWindow).
  const control = await instance.connect();
  try {
    if (o.families.includes('tic')) {
      if (hasStagedFiles(o.ticFilesDir)) {
        for (const [k, n] of Object.entries(await finalizeTic(con, o.ticFilesDir, o.workDir, { timings: o.timings, reader, control }))) tables[k] = { rows: n };
      } else {
        for (const t of ALL_TABLES.filter((x) => x.family === 'tic' && x !== SOURCE_FILES)) {
          tables[t.name] = { rows: await copySelectToTable(con, t, emptySelect(t), o.workDir) };
        }
      }
      const rows = o.sourceFiles ?? [];
      const r = await writeTableSources(instance, [{
        table: SOURCE_FILES, provenance: {}, rows: async function* () { yield* rows as unknown as Record<string, unknown>[]; },
      }], o.workDir);
      tables.source_files = { rows: r.rows };
    }
  } finally {
    control.closeSync();
    reader.closeSync();
    con.closeSync();
  }
  if (o.baseDir) Object.assign(tables, carryOver(o.baseDir, o.workDir, new Set(Object.keys(tables))));
  const manifest: SnapshotManifest = {
    id: o.id,
    createdAt: new Date().toISOString(),
    status: 'complete',
    tables,
    dataVintage: o.dataVintage,
    synthetic: o.synthetic ?? false,
    sources: o.sources,
  };
  writeFileSync(join(o.workDir, 'report.json'), `${JSON.stringify(o.report, null, 2)}\n`);
  await writeCatalog(o.workDir);
  // The manifest is written last: a directory without one is never listed or published.
  writeFileSync(join(o.workDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  const dest = snapshotDir(o.root, o.id);
  if (currentId(o.root) === o.id) throw new SnapshotStoreError(`snapshot "${o.id}" is published; it is never rewritten`);
  mkdirSync(join(o.root, SNAPSHOTS_DIR), { recursive: true });
  if (existsSync(dest)) rmSync(dest, { recursive: true, force: true });
  renameSync(o.workDir, dest);
  fsyncDir(join(o.root, SNAPSHOTS_DIR));
  return { dir: dest, manifest };
}
