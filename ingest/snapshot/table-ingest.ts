/**
 * `carebridge ingest nppes|reference`: writes loaders' TableSources (ingest/nppes, ingest/reference)
 * into a NEW snapshot. Every table not produced by this run is carried over (hard links) from the
 * base snapshot when one is given (`--base current`), so a complete snapshot is built family by
 * family: TiC nightly, NPPES monthly, reference data yearly.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { STAGING_DIR, snapshotDir } from '../../schemas/snapshot-layout.ts';
import type { TableSource } from '../table-source.ts';
import { WarningTally, type WarningSummary } from '../report/warnings.ts';
import { openDuck } from './duck.ts';
import { assembleSnapshot } from './assemble.ts';
import { newSnapshotId, publish as publishSnapshot, resolveId } from './store.ts';
import { writeTableSources } from './table-writer.ts';

export interface TableIngestOptions {
  kind: 'nppes' | 'reference';
  sources: TableSource[];
  out: string;
  base?: string | null;
  publish?: boolean;
  memoryLimit?: string;
  dataVintage?: string;
  /** Called after each table is written (CLI progress). */
  onTable?: (table: string, rows: number, seconds: number) => void;
}

export interface TableIngestReport {
  snapshotId: string;
  snapshotDir: string;
  kind: string;
  seconds: number;
  published: boolean;
  tables: Record<string, { rows: number; rejected: number; rejectedExamples: string[]; seconds: number }>;
  carried: string[];
  warnings: WarningSummary;
  provenance: Record<string, unknown>;
}

/** Writes the sources (grouped by table) and assembles a snapshot. */
export async function runTableIngest(o: TableIngestOptions): Promise<TableIngestReport> {
  const t0 = performance.now();
  mkdirSync(o.out, { recursive: true });
  const baseDir = o.base ? snapshotDir(o.out, resolveId(o.out, o.base)) : null;
  const id = newSnapshotId(o.kind);
  const staging = join(o.out, STAGING_DIR, id);
  const work = join(staging, 'out');
  mkdirSync(work, { recursive: true });
  const duck = await openDuck({ tempDir: join(staging, 'tmp'), memoryLimit: o.memoryLimit ?? '512MB' });
  const byTable = new Map<string, TableSource[]>();
  for (const s of o.sources) byTable.set(s.table.name, [...(byTable.get(s.table.name) ?? []), s]);
  const tables: TableIngestReport['tables'] = {};
  const warnings = new WarningTally();
  const provenance: Record<string, unknown> = {};
  try {
    for (const [name, srcs] of byTable) {
      const t = performance.now();
      const r = await writeTableSources(duck, srcs, work);
      const seconds = (performance.now() - t) / 1000;
      tables[name] = { rows: r.rows, rejected: r.rejected, rejectedExamples: r.rejectedExamples, seconds };
      for (const s of srcs) if (s.warnings) warnings.merge(s.warnings.entries, name);
      provenance[name] = srcs.map((s) => s.provenance);
      o.onTable?.(name, r.rows, seconds);
    }
    const report: TableIngestReport = {
      snapshotId: id, snapshotDir: snapshotDir(o.out, id), kind: o.kind, seconds: 0, published: false, tables,
      carried: [], warnings: warnings.entries, provenance,
    };
    const { manifest } = await assembleSnapshot(duck, {
      root: o.out, id, workDir: work, families: [o.kind],
      written: Object.fromEntries(Object.entries(tables).map(([k, v]) => [k, { rows: v.rows }])),
      baseDir, dataVintage: o.dataVintage ?? `${o.kind} ingest ${new Date().toISOString().slice(0, 10)}`,
      sources: { [o.kind]: provenance, base: baseDir }, report,
    });
    report.carried = Object.keys(manifest.tables).filter((k) => !(k in tables));
    report.seconds = (performance.now() - t0) / 1000;
    if (o.publish) { publishSnapshot(o.out, id); report.published = true; }
    return report;
  } finally {
    duck.closeSync();
    rmSync(staging, { recursive: true, force: true });
  }
}
