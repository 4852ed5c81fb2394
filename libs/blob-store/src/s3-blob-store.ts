import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { BlobContent, BlobPutOptions, BlobPutResult, BlobSource, BlobStat, BlobStore, BlobTooLargeError, isBlobHash, isMediaType } from './blob-store';

const UPLOAD_ATTEMPTS = 3;

/**
 * The AWS SDK is loaded when the first S3 store is made, not when this module is: it costs about 20 MiB of
 * resident memory, and a service that keeps its files on disk (BLOB_STORE_DIR) never needs it.
 */
let sdk: typeof import('@aws-sdk/client-s3') | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const s3 = (): typeof import('@aws-sdk/client-s3') => (sdk ??= require('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3'));

export interface S3BlobStoreOptions {
  bucket: string;
  /** Custom endpoint of an S3-compatible server (MinIO, Ceph, ...); omit for AWS. */
  endpoint?: string;
  region?: string;
  /** `http://host/bucket/key` addressing (MinIO and most self-hosted servers need it). */
  forcePathStyle?: boolean;
  /** Static credentials; omitted, the SDK's default chain applies (env, web identity, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Prepended to every key (several stores can share a bucket). Default: none, the key is the hash. */
  keyPrefix?: string;
  /** Where a put spools its bytes before the upload. Default: the OS temp directory. */
  tmpDir?: string;
  /** An existing client (tests); otherwise one is made from the options above. */
  client?: S3Client;
}

/**
 * Blobs as objects of an S3 bucket, keyed `<keyPrefix><hash>`. A put streams the source into a temp file while
 * hashing it (SHA-256 for the key, MD5 so that the server checks the bytes it receives), never holding the
 * content in memory; then, unless the bucket already holds that hash, it uploads the file with PutObject.
 * A PutObject is atomic: readers see the whole object or none, and two puts of the same bytes write the same
 * object. A failing or oversized source uploads nothing.
 */
export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  readonly bucket: string;
  private readonly prefix: string;
  private readonly tmpDir: string;

  constructor(opts: S3BlobStoreOptions) {
    this.bucket = opts.bucket;
    this.prefix = opts.keyPrefix ?? '';
    this.tmpDir = opts.tmpDir ?? tmpdir();
    this.client = opts.client ?? new (s3().S3Client)(s3ClientConfig(opts));
  }

  /** The object key of a blob; null for a malformed hash. */
  keyOf(hash: string): string | null {
    return isBlobHash(hash) ? `${this.prefix}${hash}` : null;
  }

  async put(source: BlobSource, opts: BlobPutOptions = {}): Promise<BlobPutResult> {
    const temp = path.join(this.tmpDir, `dtp-blob-${Date.now()}-${randomBytes(8).toString('hex')}.part`);
    const spool = createWriteStream(temp, { flags: 'wx', mode: 0o600 });
    try {
      const sha256 = createHash('sha256');
      const md5 = createHash('md5');
      let size = 0;
      const limit = opts.maxBytes;
      await pipeline(
        source,
        async function* (chunks: AsyncIterable<Uint8Array | string>) {
          for await (const raw of chunks) {
            const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
            size += chunk.length;
            if (limit !== undefined && size > limit) throw new BlobTooLargeError(limit);
            sha256.update(chunk);
            md5.update(chunk);
            yield chunk;
          }
        },
        spool,
      );
      const hash = sha256.digest('hex');
      if (await this.has(hash)) return { hash, size, created: false };
      await this.upload(this.keyOf(hash)!, temp, size, md5.digest('base64'), hash, isMediaType(opts.contentType) ? opts.contentType : null);
      return { hash, size, created: true };
    } finally {
      // The spool file may still be opening or closing after a failed pipeline: wait, then remove it.
      if (!spool.closed) await new Promise<void>((resolve) => spool.once('close', () => resolve()));
      await rm(temp, { force: true });
    }
  }

  /** PutObject from the spool file; a file body can be re-read, so transient failures are retried here. */
  private async upload(key: string, file: string, size: number, md5: string, hash: string, contentType: string | null): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(
          new (s3().PutObjectCommand)({
            Bucket: this.bucket,
            Key: key,
            Body: createReadStream(file),
            ContentLength: size,
            ContentMD5: md5,
            // The object's Content-Type is the uploader's media type; `given-type` tells it apart from the default.
            ContentType: contentType ?? 'application/octet-stream',
            Metadata: { sha256: hash, 'given-type': contentType ? 'yes' : 'no' },
          }),
        );
        return;
      } catch (err) {
        const status = err instanceof s3().S3ServiceException ? err.$metadata?.httpStatusCode : undefined;
        const permanent = status !== undefined && status < 500 && status !== 429;
        if (permanent || attempt >= UPLOAD_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
      }
    }
  }

  async get(hash: string): Promise<BlobContent | null> {
    const key = this.keyOf(hash);
    if (!key) return null;
    try {
      const res = await this.client.send(new (s3().GetObjectCommand)({ Bucket: this.bucket, Key: key }));
      const body = res.Body;
      if (!(body instanceof Readable)) throw new Error(`S3 GetObject of ${key} returned no stream`);
      const given = res.Metadata?.['given-type'] === 'yes' && isMediaType(res.ContentType);
      return { size: res.ContentLength ?? 0, stream: body, contentType: given ? res.ContentType! : null };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async stat(hash: string): Promise<BlobStat | null> {
    const key = this.keyOf(hash);
    if (!key) return null;
    try {
      const res = await this.client.send(new (s3().HeadObjectCommand)({ Bucket: this.bucket, Key: key }));
      return { size: res.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async has(hash: string): Promise<boolean> {
    return (await this.stat(hash)) !== null;
  }

  /** Readiness: the bucket exists and the credentials may use it. */
  async check(): Promise<void> {
    await this.client.send(new (s3().HeadBucketCommand)({ Bucket: this.bucket }));
  }

  close(): void {
    this.client.destroy();
  }
}

function s3ClientConfig(opts: S3BlobStoreOptions): S3ClientConfig {
  return {
    region: opts.region ?? 'us-east-1',
    endpoint: opts.endpoint,
    forcePathStyle: opts.forcePathStyle ?? false,
    credentials: opts.credentials,
    // Plain checksums only: several S3-compatible servers reject the SDK's default trailing CRC checksums
    // (aws-chunked uploads). Integrity comes from Content-MD5, which every S3 server checks.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Failures reach the caller as errors; the SDK's own console warnings (e.g. "non-retryable streaming
    // request", which upload() retries itself) would only duplicate them.
    logger: { debug: noop, info: noop, warn: noop, error: noop },
  };
}

function noop(): void {}

function isNotFound(err: unknown): boolean {
  // HeadObject answers a bare 404 ("NotFound"); GetObject names the cause, so a missing bucket
  // ("NoSuchBucket") stays an error instead of passing for a missing blob.
  return err instanceof s3().S3ServiceException && (err.name === 'NotFound' || err.name === 'NoSuchKey');
}
