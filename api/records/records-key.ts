/**
 * The key that encrypts payer tokens at rest: RECORDS_TOKEN_KEY when set, else one generated once
 * under DATA_DIR/keys/records-token.key (mode 0600), as the OAuth keys are.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../engine/core/config.ts';

export function recordsTokenKey(config: Config): Buffer {
  if (config.recordsTokenKey) return Buffer.from(config.recordsTokenKey, 'base64');
  const dir = join(config.dataDir, 'keys');
  const file = join(dir, 'records-token.key');
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  } catch {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const key = randomBytes(32);
    try {
      writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
      return key;
    } catch {
      // Another process wrote it first: use theirs.
      return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    }
  }
}
