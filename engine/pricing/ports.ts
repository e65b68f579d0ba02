/**
 * Pricing ports (STYLE.md 3). The engine reads a published snapshot only through these
 * interfaces; the DuckDB adapters live in engine/pricing/adapters/. Each area's owner extends its
 * own port; network-status composes them.
 *
 * Placeholder shapes: the engine work fills these in (issue 4).
 */
export interface SnapshotInfo {
  id: string;
  dir: string;
  createdAt: string;
  /** Human date range of the data, e.g. "TiC files 2025-06; NPPES 2025-06; MPFS 2026". */
  dataVintage: string;
  synthetic: boolean;
}

declare module '../core/context.ts' {
  /** The pricing area's ports on the handler context (absent when no snapshot store is wired). */
  interface Ports {
    pricing?: PricingPorts;
    /** Coverage linked through health records (absent: plans resolve from planHints only). */
    linkedCoverage?: import('./network-status.ports.ts').LinkedCoveragePort;
  }
}

export interface PricingPorts {
  /** The current snapshot, or null when none is published. */
  snapshot(): SnapshotInfo | null;
  /** TiC network tables (network-status.ports.ts; adapter: adapters/network.duckdb.ts). */
  network?: import('./network-status.ports.ts').NetworkPort;
  /** NPPES provider tables and the name index (adapter: adapters/providers.duckdb.ts). */
  providers?: import('./network-status.ports.ts').ProviderPort;
  /** Medicare fee schedule tables, service catalog, payers registry, in memory per snapshot (H6; adapter: adapters/reference.duckdb.ts). */
  reference?: import('./medicare.ports.ts').ReferenceStore;
  /** Provider evidence tables: identity, LEIE, opt-out, PECOS, Medicare PUF volume (H6; adapter: adapters/evidence.duckdb.ts). */
  evidence?: import('./evidence.ports.ts').EvidenceStore;
  /**
   * Settles when the background warm-up of the current snapshot's in-memory caches is over
   * (reference tables, group maps, name index, typical-rate samples). Requests never wait for it;
   * benchmarks do, so that they measure a warmed server as production traffic would meet it.
   */
  warmed?: Promise<void>;
}
