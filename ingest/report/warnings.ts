/**
 * Warning tally for the ingest report (issue 3, item 6): a count per kind and the first three
 * examples, so a 10-million-row file with one systematic deviation produces one line, not ten
 * million.
 */
export interface WarningEntry {
  count: number;
  examples: { path: string; example: string; file?: string }[];
}

export type WarningSummary = Record<string, WarningEntry>;

const MAX_EXAMPLES = 3;
const MAX_EXAMPLE_CHARS = 200;

export class WarningTally {
  readonly entries: WarningSummary = {};

  add(kind: string, path: string, example: string, count = 1, file?: string): void {
    const e = (this.entries[kind] ??= { count: 0, examples: [] });
    e.count += count;
    if (e.examples.length < MAX_EXAMPLES) {
      const ex = example.length > MAX_EXAMPLE_CHARS ? `${example.slice(0, MAX_EXAMPLE_CHARS)}…` : example;
      e.examples.push(file ? { path, example: ex, file } : { path, example: ex });
    }
  }

  /** Folds another summary in (per-file summaries into the run's), tagging examples with the file. */
  merge(other: WarningSummary, file?: string): void {
    for (const [kind, o] of Object.entries(other)) {
      const e = (this.entries[kind] ??= { count: 0, examples: [] });
      e.count += o.count;
      for (const x of o.examples) {
        if (e.examples.length >= MAX_EXAMPLES) break;
        e.examples.push(file && !x.file ? { ...x, file } : x);
      }
    }
  }

  total(): number {
    return Object.values(this.entries).reduce((n, e) => n + e.count, 0);
  }
}
