/**
 * The S3 MediaStore (MEDIA_STORE=s3): objects in one bucket under an optional prefix, read through
 * presigned GET URLs (SigV4, @aws-sdk/s3-request-presigner) that S3 itself serves. The presigned
 * URL sets the response's Content-Type and Content-Disposition (S3's response-content-* overrides,
 * under the signature); objects are written with the sniffed type and `nosniff` cannot be set by
 * S3, which is why only sniffed, allow-listed types are ever stored. Any S3-compatible server
 * works through MEDIA_S3_ENDPOINT (path-style addressing with MEDIA_S3_FORCE_PATH_STYLE).
 */
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { MediaS3Config } from '../../core/config.ts';
import { STORAGE_KEY_RE, type MediaStore, type ReadUrlOptions } from '../media-store.ts';
import { contentDisposition } from '../media-names.ts';

export class S3MediaStore implements MediaStore {
  readonly kind = 's3' as const;
  readonly origin: string;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(c: MediaS3Config) {
    this.client = new S3Client({
      region: c.region,
      ...(c.endpoint ? { endpoint: c.endpoint } : {}),
      forcePathStyle: c.forcePathStyle,
      // Without explicit keys the SDK's default chain (instance role, shared files) is used.
      ...(c.accessKeyId && c.secretAccessKey ? { credentials: { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey } } : {}),
    });
    this.bucket = c.bucket;
    this.prefix = c.prefix;
    this.origin = c.endpoint ? new URL(c.endpoint).origin : `https://${c.bucket}.s3.${c.region}.amazonaws.com`;
  }

  private objectKey(key: string): string {
    if (!STORAGE_KEY_RE.test(key)) throw new Error(`not a media storage key: ${key}`);
    return `${this.prefix}${key}`;
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), Body: body, ContentType: contentType }));
  }

  async delete(key: string): Promise<void> {
    // DeleteObject succeeds on a key that is not there.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async readUrl(key: string, o: ReadUrlOptions): Promise<string> {
    const cmd = new GetObjectCommand({
      Bucket: this.bucket, Key: this.objectKey(key),
      ResponseContentType: o.contentType,
      ResponseContentDisposition: contentDisposition(o.disposition, o.fileName),
      ResponseCacheControl: 'private, no-store',
    });
    // Signed at the service's clock, so the URL's expiry counts from the same `now` as ours.
    return getSignedUrl(this.client, cmd, { expiresIn: o.expiresInSeconds, signingDate: o.now });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
