/**
 * A throwaway real PostgreSQL cluster for the storage suite (issue 2, item 4): `initdb` in a temp
 * dir, `pg_ctl start` on a free loopback port with the socket in the same dir, trust auth, removed
 * after. initdb refuses to run as root, so as root the cluster runs as an unprivileged `cbtest`
 * user (created if missing) that owns the temp dir.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.ts';

const PG_USER = 'cbtest';

function onPath(bin: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;
}

/** True when initdb and pg_ctl can be run here (they are on the dev machines and in CI). */
export function realPostgresAvailable(): boolean {
  return onPath('initdb') && onPath('pg_ctl');
}

function ensureUser(): { uid: number; gid: number } {
  if (spawnSync('id', ['-u', PG_USER], { stdio: 'ignore' }).status !== 0) {
    // Concurrent test files may race to create it; a second useradd failing is fine if the user exists after.
    spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', PG_USER], { stdio: 'ignore' });
  }
  const uid = Number(execFileSync('id', ['-u', PG_USER]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', PG_USER]).toString().trim());
  return { uid, gid };
}

export interface PgCluster {
  port: number;
  /** Connection URL of database `db` (default `postgres`). */
  url(db?: string): string;
  /** Creates an empty database with a unique name and returns its URL. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

export async function startPgCluster(): Promise<PgCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'cb-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const [bin, argv] = asRoot ? ['runuser', ['-u', PG_USER, '--', cmd, ...args]] : [cmd, args];
    const r = spawnSync(bin, argv, { encoding: 'utf8', cwd: dir, timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  if (asRoot) {
    const { uid, gid } = ensureUser();
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const port = await freePort();
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o',
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`, 'start']);
  } catch (e) {
    spawnSync(asRoot ? 'runuser' : 'pg_ctl', asRoot ? ['-u', PG_USER, '--', 'pg_ctl', '-D', data, '-m', 'immediate', 'stop'] : ['-D', data, '-m', 'immediate', 'stop'], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const url = (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`;
  let n = 0;
  return {
    port,
    url,
    async createDatabase() {
      const name = `t_${process.pid}_${++n}`;
      const c = new pg.Client({ connectionString: url() });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      return url(name);
    },
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
