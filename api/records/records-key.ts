/**
 * The key that encrypts payer tokens at rest: RECORDS_TOKEN_KEY when set, else one generated once
 * under DATA_DIR/keys/records-token.key (mode 0600), as the OAuth keys are.
 */
import type { Config } from '../../engine/core/config.ts';
import { dataDirKey } from '../../engine/adapters/key-file.ts';

export function recordsTokenKey(config: Config): Buffer {
  if (config.recordsTokenKey) return Buffer.from(config.recordsTokenKey, 'base64');
  return dataDirKey(config.dataDir, 'records-token.key');
}
