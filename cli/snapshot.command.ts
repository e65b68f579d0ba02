/**
 * `carebridge snapshot publish|list|info|prune|merge` (issue 3, items 5 and 8). The pricing root is
 * DATA_DIR/pricing unless --root is given. publish is the only command that changes CURRENT
 * (write-temp + fsync + rename). Exit codes: 0 ok, 2 usage error (unknown id, bad flag), 4 merge
 * stopped by the stall watchdog (supervise.ts).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { join } from 'node:path';
import { loadConfig } from '../engine/core/config.ts';
import { listSnapshots, prune, pruneStaging, publish, snapshotInfo, SnapshotStoreError } from '../ingest/snapshot/store.ts';
import { mergeSnapshots } from '../ingest/snapshot/merge.ts';
import { parseSeconds, type IngestCliOptions } from './ingest.command.ts';
import { STALL_TIMEOUT_SECONDS } from './supervise.ts';

function rootFrom(root: string | undefined): string {
  return root ?? join(loadConfig(process.env).dataDir, 'pricing');
}

async function guard(fn: () => Promise<void> | void): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof SnapshotStoreError) {
      process.stderr.write(`carebridge snapshot: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
}

const MiB = 1024 * 1024;

/** Registers `carebridge snapshot …`. */
export function registerSnapshot(program: Command, o: IngestCliOptions = {}): void {
  const snap = program.command('snapshot').description('Manage pricing snapshots (publish, list, info, prune, merge)');
  const rootOpt = ['--root <dir>', 'pricing root (default DATA_DIR/pricing)'] as const;

  snap.command('publish')
    .argument('<id>', 'snapshot id (as printed by ingest or listed by `snapshot list`)')
    .option(...rootOpt)
    .description('Make a snapshot current, atomically')
    .action((id: string, f: { root?: string }) => guard(() => {
      const r = publish(rootFrom(f.root), id);
      process.stdout.write(`published ${r.id}${r.previous ? ` (was ${r.previous})` : ''}\n`);
    }));

  snap.command('list')
    .option(...rootOpt)
    .option('--json', 'JSON output')
    .description('List snapshots, oldest first; * marks the current one')
    .action((f: { root?: string; json?: boolean }) => guard(() => {
      const all = listSnapshots(rootFrom(f.root));
      if (f.json) { process.stdout.write(`${JSON.stringify(all, null, 2)}\n`); return; }
      if (!all.length) { process.stdout.write('no snapshots\n'); return; }
      for (const s of all) {
        process.stdout.write(`${s.current ? '*' : ' '} ${s.id}  ${s.createdAt}  ${(s.bytes / MiB).toFixed(1)} MiB  rates ${s.rows.rates ?? 0}  providers ${s.rows.providers ?? 0}\n`);
      }
    }));

  snap.command('info')
    .argument('<id>', 'snapshot id or "current"')
    .option(...rootOpt)
    .description('Manifest and ingest report of a snapshot (JSON)')
    .action((id: string, f: { root?: string }) => guard(() => {
      process.stdout.write(`${JSON.stringify(snapshotInfo(rootFrom(f.root), id), null, 2)}\n`);
    }));

  snap.command('prune')
    .option(...rootOpt)
    .option('--keep <n>', 'snapshots to keep (default 3); the current one is never removed', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected an integer >= 1');
      return n;
    }, 3)
    .description('Delete old snapshots, and staging directories of abandoned ingests (too old to resume, idle for an hour)')
    .action((f: { root?: string; keep: number }) => guard(() => {
      const removed = prune(rootFrom(f.root), f.keep);
      const staging = pruneStaging(rootFrom(f.root));
      if (removed.length) process.stdout.write(`removed ${removed.join(', ')}\n`);
      if (staging.length) process.stdout.write(`removed abandoned staging ${staging.join(', ')}\n`);
      if (!removed.length && !staging.length) process.stdout.write('nothing to remove\n');
    }));

  snap.command('merge')
    .argument('<dirs...>', 'snapshot directories (or pricing roots: their newest snapshot) of `ingest tic --shard i/n` runs')
    .requiredOption('--out <dir>', 'pricing root receiving the merged snapshot')
    .option('--publish', 'make the merged snapshot current')
    .option('--stall-timeout <seconds>', `stop the merge (exit 4) after this many seconds without CPU used; 0: never (default ${STALL_TIMEOUT_SECONDS})`, parseSeconds)
    .description('Join shard snapshots into one (rates de-duplicated again across shards)')
    .action((dirs: string[], f: { out: string; publish?: boolean }) => guard(async () => {
      o.heartbeat?.event({ type: 'merge_started' });
      const r = await mergeSnapshots(dirs, f.out);
      if (f.publish) publish(f.out, r.id);
      process.stderr.write(`merged ${dirs.length} snapshots into ${r.dir}${f.publish ? ' (published)' : ''}: rates ${r.tables.rates ?? 0}\n`);
      process.stdout.write(`${r.id}\n`);
    }));
}
