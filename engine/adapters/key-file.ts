/**
 * A 32-byte secret kept under DATA_DIR/keys (mode 0600), generated on first use. Several processes
 * may start on one DATA_DIR at once: the file is created exclusively and the loser of the race
 * reads the winner's key, so every process signs and decrypts with the same one.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function dataDirKey(dataDir: string, fileName: string): Buffer {
  const dir = join(dataDir, 'keys');
  const file = join(dir, fileName);
  const read = () => Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  try {
    return read();
  } catch {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const key = randomBytes(32);
    try {
      writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
      return key;
    } catch {
      return read();
    }
  }
}
