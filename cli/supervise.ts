/**
 * `carebridge ingest tic | nppes | reference` and `snapshot merge` under a watchdog: a nightly job
 * must end, never hang (issue 3).
 *
 * The command runs in a child process (the same CLI, the same arguments) that sends a heartbeat
 * every HEARTBEAT_MS over an IPC channel: its CPU time, a count of the work it reported (bytes
 * read, files and tables done) and what it is doing. When neither moved for --stall-timeout seconds
 * (less than MIN_CPU_MS of CPU in that time, nothing read or written, or no heartbeat at all: the
 * first may take START_MS when the timeout is shorter), the
 * parent kills the child (SIGKILL: a killed ingest leaves the published snapshot as it was and its
 * finished files staged) and exits with STALLED_EXIT, saying so; the same command with --resume
 * goes on from the files already read.
 *
 * Why a second process: a statement stuck inside DuckDB (once, on 2026-11-23, a finalize sat for
 * 14 minutes with every thread parked and no CPU used; DuckDB's tracker has such hangs, e.g.
 * duckdb/duckdb#24961) or a read stuck in the kernel (a hung pipe or network mount) holds a thread
 * of libuv's pool, and Node's process.exit() joins that pool before exiting: measured here with a
 * DuckDB read of a FIFO that no one writes, process.exit(3) never returned. Only a signal from
 * outside ends such a process.
 *
 * This file stays small and imports only node: modules: the parent lives as long as the ingest
 * (peak RSS 64 MiB beside a 1 GiB ingest's 695 MiB, measured 2026-11-23).
 */
import { spawn } from 'node:child_process';

/** Seconds without progress before an ingest is stopped (--stall-timeout; 0 turns the watchdog off). */
export const STALL_TIMEOUT_SECONDS = 600;
/** The child's heartbeat period (at most a quarter of the stall timeout). */
export const HEARTBEAT_MS = 5000;
/** CPU time that counts as progress within a stall window (at most a tenth of it; an idle Node process uses ~1 ms a minute). */
export const MIN_CPU_MS = 1000;
/**
 * Time a child has for its first heartbeat when the stall timeout is shorter: starting Node, the
 * CLI's modules and DuckDB took over 2 s on a loaded 2-core machine (the watchdog's tests under
 * parallel load, 2026-11-24), which a short --stall-timeout took for a stall.
 */
export const START_MS = 30_000;
/** The exit code of a run stopped for want of progress. */
export const STALLED_EXIT = 4;
/** Set in the child's environment to its heartbeat period (ms): it sends heartbeats instead of supervising again. */
export const CHILD_ENV = 'CAREBRIDGE_SUPERVISED';

/** One heartbeat of the child. */
export interface Beat {
  /** The child's CPU time so far (every thread), ms. */
  cpuMs: number;
  /** Grows with every piece of work the child reported (bytes read, a file or table done). */
  work: number;
  /** What the child is doing, for the message ("reading files", "assembling the snapshot …"). */
  phase: string;
  /** 'files' or 'assemble' (the progress events' stages). */
  stage: 'files' | 'assemble';
  snapshotId: string | null;
}

export interface Stall {
  seconds: number;
  /** CPU-seconds the child used in those seconds. */
  cpuSeconds: number;
  /** The last heartbeat (null: none came). */
  last: Beat | null;
}

/** Decides from heartbeats when a run has made no progress for `limitMs`. */
export class StallWatch {
  private since: number;
  private mark: Beat | null = null;
  private last: Beat | null = null;

  readonly minCpuMs: number;
  readonly limitMs: number;
  private readonly now: () => number;

  constructor(limitMs: number, now: () => number = Date.now) {
    this.limitMs = limitMs;
    this.now = now;
    this.since = now();
    this.minCpuMs = Math.min(MIN_CPU_MS, limitMs / 10);
  }

  /** Records a heartbeat; it counts as progress when work was reported or minCpuMs of CPU used since the last progress. */
  beat(b: Beat): void {
    this.last = b;
    if (this.mark === null || b.work !== this.mark.work || b.cpuMs - this.mark.cpuMs >= this.minCpuMs) {
      this.mark = b;
      this.since = this.now();
    }
  }

  /** The stall, once `limitMs` passed without progress (before the first heartbeat, START_MS if longer); null before. */
  stalled(): Stall | null {
    const ms = this.now() - this.since;
    if (ms < (this.last === null ? Math.max(this.limitMs, START_MS) : this.limitMs)) return null;
    const cpu = this.last && this.mark ? this.last.cpuMs - this.mark.cpuMs : 0;
    return { seconds: ms / 1000, cpuSeconds: cpu / 1000, last: this.last };
  }
}

/** The commands run under the watchdog: those that build a snapshot in DuckDB. */
export type SupervisedCommand = 'ingest tic' | 'ingest nppes' | 'ingest reference' | 'snapshot merge';
const SUPERVISED: readonly SupervisedCommand[] = ['ingest tic', 'ingest nppes', 'ingest reference', 'snapshot merge'];

/**
 * The command and its stall timeout (ms) when `args` (after the script: ['ingest', 'tic', …]) is
 * one to run under the watchdog; null when it runs in this process (another command, --help, a
 * child already, or --stall-timeout 0). An invalid value is left to the child's flag parsing (exit 2).
 */
export function supervisedTimeout(args: readonly string[], env: Readonly<Record<string, string | undefined>>): { command: SupervisedCommand; stallMs: number } | null {
  if (env[CHILD_ENV] !== undefined) return null;
  const command = SUPERVISED.find((c) => {
    const [a, b] = c.split(' ');
    const i = args.indexOf(a!);
    return i >= 0 && args[i + 1] === b;
  });
  if (!command || args.some((a) => a === '--help' || a === '-h')) return null;
  const i = args.indexOf(command.split(' ')[0]!);
  let value: string | undefined;
  for (let j = i + 2; j < args.length; j++) {
    const a = args[j]!;
    if (a === '--stall-timeout') value = args[j + 1];
    else if (a.startsWith('--stall-timeout=')) value = a.slice('--stall-timeout='.length);
  }
  const s = value === undefined ? STALL_TIMEOUT_SECONDS : Number(value);
  if (!Number.isFinite(s) || s < 0) return { command, stallMs: STALL_TIMEOUT_SECONDS * 1000 }; // the child reports the bad flag
  return s === 0 ? null : { command, stallMs: s * 1000 };
}

export interface SuperviseOptions {
  /** Node and its flags, the CLI script, its arguments: the child's command line. */
  execPath: string;
  execArgv: readonly string[];
  script: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  stallMs: number;
  command: SupervisedCommand;
  /** Where the stall is told (stderr); JSON lines when not a terminal, as the progress events. */
  out: { write(s: string): unknown; isTTY?: boolean };
  /** How often the heartbeats are judged (tests make it short). */
  checkMs?: number;
  /** Called with the child's pid once it runs (tests). */
  onChild?: (pid: number) => void;
}

/**
 * Runs the command in a child under the watchdog and resolves with the exit code to use: the
 * child's, 128 + signal if a signal ended it, STALLED_EXIT if the watchdog stopped it. SIGINT and
 * SIGTERM are passed on once (a terminal's Ctrl-C reaches both: the child ignores the repeat); a
 * second one kills the child.
 */
export function supervise(o: SuperviseOptions): Promise<number> {
  const child = spawn(o.execPath, [...o.execArgv, o.script, ...o.args], {
    env: { ...o.env, [CHILD_ENV]: String(heartbeatMs(o.stallMs)) }, stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  const watch = new StallWatch(o.stallMs);
  let stall: Stall | null = null;
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    child.kill(signals === 1 ? sig : 'SIGKILL');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The child's own exit code, told before it exits: if its exit then hangs (a thread of the pool
  // still stuck), the run is over all the same.
  let told: number | null = null;
  child.on('message', (m: unknown) => {
    if (isBeat(m)) watch.beat(m);
    else if (typeof (m as { exitCode?: unknown } | null)?.exitCode === 'number') told = (m as { exitCode: number }).exitCode;
  });
  if (child.pid !== undefined) o.onChild?.(child.pid);
  const timer = setInterval(() => {
    stall ??= watch.stalled();
    if (stall) child.kill('SIGKILL');
  }, o.checkMs ?? 1000);
  return new Promise<number>((resolve) => {
    const done = (code: number): void => {
      clearInterval(timer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(code);
    };
    child.on('error', (err) => {
      o.out.write(`carebridge: cannot start the ingest process: ${err.message}\n`);
      done(1);
    });
    child.on('exit', (code, signal) => {
      if (stall && told !== null) {
        o.out.write(`carebridge ${o.command.split(' ')[0]}: its process had finished (exit code ${told}) but did not exit within ${Math.round(stall.seconds)} s: stopped.\n`);
        done(told);
      } else if (stall) {
        o.out.write(stallMessage(stall, o.out.isTTY === true, o.command));
        done(STALLED_EXIT);
      } else done(code ?? 128 + signalNumber(signal));
    });
  });
}

/** What the parent says when it stopped a stalled child. */
export function stallMessage(s: Stall, tty: boolean, command: SupervisedCommand = 'ingest tic'): string {
  const what = s.last?.phase ?? 'starting (no heartbeat came)';
  const text = `no progress for ${Math.round(s.seconds)} s while ${what} (${s.cpuSeconds.toFixed(1)} CPU-seconds in that time, nothing read or written): `
    + (command === 'ingest tic'
      ? 'the ingest process was stopped. The files it finished stay staged: run the same command with --resume to go on from them.'
      : command === 'snapshot merge'
        ? 'the merge process was stopped. The shard snapshots are as they were and nothing was published: run the same command again.'
        : 'the ingest process was stopped. Nothing was published (`snapshot prune` removes its staging directory once idle for an hour): run the same command again.');
  const line = tty ? '' : `${JSON.stringify({ ts: new Date().toISOString(), type: 'run_failed', snapshotId: s.last?.snapshotId ?? null, stage: s.last?.stage ?? 'files', error: `stalled: ${text}` })}\n`;
  return `${tty ? '\n' : ''}${line}carebridge ${command.split(' ')[0]}: ${text}\n`;
}

/** The heartbeat period for a stall timeout. */
export function heartbeatMs(stallMs: number): number {
  return Math.max(50, Math.min(HEARTBEAT_MS, Math.floor(stallMs / 4)));
}

function isBeat(m: unknown): m is Beat {
  const b = m as Partial<Beat> | null;
  return typeof b === 'object' && b !== null && typeof b.cpuMs === 'number' && typeof b.work === 'number' && typeof b.phase === 'string';
}

const SIGNALS: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 };
function signalNumber(s: NodeJS.Signals | null): number {
  return (s && SIGNALS[s]) ?? 1;
}

/** The child's half: the heartbeat, fed by the progress events it taps. */
export class Heartbeat {
  private work = 0;
  private phase = 'starting';
  private stage: Beat['stage'] = 'files';
  private snapshotId: string | null = null;
  private readonly seen = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;
  private readonly send: (b: Beat) => void;

  constructor(send: (b: Beat) => void, everyMs = HEARTBEAT_MS) {
    this.send = send;
    this.timer = setInterval(() => this.beat(), everyMs);
    this.timer.unref();
    this.beat();
  }

  /** Counts one progress event (see ingest/progress/progress.ts) as work and phase. */
  event(e: { type: string; snapshotId?: string; fileKey?: string; table?: string; bytes?: number; uncompressedBytes?: number; rows?: number }): void {
    if (e.snapshotId) this.snapshotId = e.snapshotId;
    if (e.type === 'file_progress') {
      // Progress lines repeat while a file waits: only a change is work.
      const now = `${e.bytes}/${e.uncompressedBytes}/${e.rows}`;
      if (this.seen.get(e.fileKey ?? '') === now) return;
      this.seen.set(e.fileKey ?? '', now);
    }
    this.work++;
    const phase = this.phase;
    if (e.type === 'run_started') this.phase = 'reading files';
    else if (e.type === 'assemble_started') { this.phase = 'assembling the snapshot'; this.stage = 'assemble'; }
    else if (e.type === 'table_done') this.phase = `assembling the snapshot (table ${e.table} written last)`;
    else if (e.type === 'merge_started') { this.phase = 'merging the snapshots'; this.stage = 'assemble'; }
    else if (e.type === 'tables_started') { this.phase = 'loading tables'; this.stage = 'assemble'; }
    else if (e.type === 'table_loaded') this.phase = `loading tables (table ${e.table} written last)`;
    // A new phase is told at once (a stall right after it is then named by it).
    if (this.phase !== phase) this.beat();
  }

  beat(): void {
    const u = process.cpuUsage();
    this.send({ cpuMs: (u.user + u.system) / 1000, work: this.work, phase: this.phase, stage: this.stage, snapshotId: this.snapshotId });
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
