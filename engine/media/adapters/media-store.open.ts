/** Chooses the MediaStore from configuration (MEDIA_STORE): files under DATA_DIR by default, or S3. */
import type { Config } from '../../core/config.ts';
import type { MediaStore } from '../media-store.ts';
import { FileMediaStore, mediaUrlKey } from './media-store.files.ts';
import { S3MediaStore } from './media-store.s3.ts';

export function openMediaStore(config: Config): MediaStore {
  if (config.mediaStore === 's3' && config.mediaS3) return new S3MediaStore(config.mediaS3);
  return new FileMediaStore({ dataDir: config.dataDir, baseUrl: config.baseUrl, key: mediaUrlKey(config.dataDir) });
}
