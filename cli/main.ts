/**
 * The `carebridge` CLI's entry. `ingest tic | nppes | reference` and `snapshot merge` run in a child
 * process under a stall watchdog (supervise.ts); this process then loads nothing else. Every other
 * command runs here.
 */
import { enableCompileCache } from './compile-cache.ts';
import { CHILD_ENV, Heartbeat, supervise, supervisedTimeout } from './supervise.ts';

enableCompileCache();

const args = process.argv.slice(2);
const supervised = supervisedTimeout(args, process.env);
if (supervised !== null) {
  process.exitCode = await supervise({
    execPath: process.execPath, execArgv: process.execArgv, script: process.argv[1]!, args, env: process.env, ...supervised, out: process.stderr,
  });
} else {
  // A supervised child: heartbeats to the parent, and it ends with its parent (killed or gone,
  // nothing would stop this run any more; a run killed at any moment is safe, see README).
  const every = Number(process.env[CHILD_ENV]);
  const send = every > 0 ? process.send?.bind(process) : undefined;
  const orphaned = (): void => { process.kill(process.pid, 'SIGKILL'); };
  if (send) process.on('disconnect', orphaned);
  const { runCli } = await import('./program.ts');
  // The first heartbeat once the modules are loaded: the start has StallWatch's START_MS (loading
  // them, DuckDB's among them, can block this thread for seconds on a loaded machine).
  const heartbeat = send ? new Heartbeat((b) => { send(b); }, every) : null;
  await runCli(process.argv, { heartbeat });
  if (heartbeat) {
    heartbeat.stop();
    send?.({ exitCode: typeof process.exitCode === 'number' ? process.exitCode : 0 });
    // Done: the channel closed from this side (it would keep the process alive).
    process.off('disconnect', orphaned);
    process.disconnect();
  }
}
