import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openPgliteDb } from '../../engine/adapters/db.pglite.ts';

it('an embedded database directory is opened by one owner at a time; a stale lock is taken over', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cb-lock-'));
  const dir = join(root, 'pg');
  try {
    const first = await openPgliteDb(dir);
    await expect(openPgliteDb(dir)).rejects.toThrow(/in use by process \d+/);
    await first.close();
    expect(existsSync(`${dir}.lock`)).toBe(false);
    // A lock whose process is gone (pid far above any live one here) does not block.
    writeFileSync(`${dir}.lock`, '4194000');
    const second = await openPgliteDb(dir);
    expect((await second.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await second.close();
    // A lock naming this very pid, not held by this process: left by an earlier incarnation (container restart).
    writeFileSync(`${dir}.lock`, String(process.pid));
    const third = await openPgliteDb(dir);
    await third.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
