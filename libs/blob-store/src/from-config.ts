import { showConfigValue } from '@dtp/service-kit';
import { BlobStore } from './blob-store';
import { FilesystemBlobStore } from './filesystem-blob-store';
import { S3BlobStore } from './s3-blob-store';

/**
 * Which blob store a service uses, from its environment (or its config object, which carries the same names):
 *
 * | variable | meaning |
 * |---|---|
 * | `BLOB_STORE` | `fs` (default) or `s3` |
 * | `BLOB_STORE_DIR` | fs: the directory (default `.data/blobs`) |
 * | `S3_BUCKET` | s3: the bucket (required) |
 * | `S3_REGION` | s3: default `us-east-1` |
 * | `S3_ENDPOINT` | s3: URL of an S3-compatible server (MinIO, ...); unset for AWS |
 * | `S3_FORCE_PATH_STYLE` | s3: `true`/`false` (default `false`; MinIO needs `true`) |
 * | `S3_ACCESS_KEY_ID`, `S3_SECRET_ACCESS_KEY` | s3: both or neither; neither = the SDK's default chain (web identity, instance role) |
 */
export type BlobStoreSettings =
  | { kind: 'fs'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      region: string;
      endpoint?: string;
      forcePathStyle: boolean;
      credentials?: { accessKeyId: string; secretAccessKey: string };
    };

/** The blob store configuration is invalid; `problems` names every bad variable. */
export class BlobStoreConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid blob store configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'BlobStoreConfigError';
  }
}

type EnvLike = object;

function read(env: EnvLike, name: string): string | undefined {
  const value = (env as Record<string, unknown>)[name];
  if (value === undefined || value === null || value === '') return undefined;
  return String(value);
}

/** Validates the blob store variables without connecting anywhere. Throws BlobStoreConfigError. */
export function blobStoreSettings(env: EnvLike): BlobStoreSettings {
  const kind = read(env, 'BLOB_STORE') ?? 'fs';
  if (kind === 'fs') return { kind, dir: read(env, 'BLOB_STORE_DIR') ?? '.data/blobs' };
  if (kind !== 's3') throw new BlobStoreConfigError([`BLOB_STORE: must be "fs" or "s3" (got ${JSON.stringify(kind)})`]);

  const problems: string[] = [];
  const bucket = read(env, 'S3_BUCKET');
  if (!bucket) problems.push('S3_BUCKET: required when BLOB_STORE=s3');
  else if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) problems.push(`S3_BUCKET: not a valid bucket name (got ${JSON.stringify(bucket)})`);

  const endpoint = read(env, 'S3_ENDPOINT');
  if (endpoint !== undefined) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(endpoint).protocol);
    } catch {
      ok = false;
    }
    if (!ok) problems.push(`S3_ENDPOINT: must be an http(s) URL (got ${showConfigValue('S3_ENDPOINT', endpoint)})`);
  }

  const pathStyle = read(env, 'S3_FORCE_PATH_STYLE') ?? 'false';
  if (pathStyle !== 'true' && pathStyle !== 'false') problems.push(`S3_FORCE_PATH_STYLE: must be "true" or "false" (got ${JSON.stringify(pathStyle)})`);

  const accessKeyId = read(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = read(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    problems.push('S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both or neither');
  }
  if (problems.length > 0) throw new BlobStoreConfigError(problems);

  return {
    kind: 's3',
    bucket: bucket!,
    region: read(env, 'S3_REGION') ?? 'us-east-1',
    endpoint,
    forcePathStyle: pathStyle === 'true',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
  };
}

/**
 * The blob store a service should use: `blobStoreFromConfig(process.env)` or `blobStoreFromConfig(config)`
 * (a config object loaded with `loadConfig` keeps the variables it does not declare).
 */
export function blobStoreFromConfig(env: EnvLike): BlobStore {
  const s = blobStoreSettings(env);
  if (s.kind === 'fs') return new FilesystemBlobStore(s.dir);
  return new S3BlobStore({
    bucket: s.bucket,
    region: s.region,
    endpoint: s.endpoint,
    forcePathStyle: s.forcePathStyle,
    credentials: s.credentials,
  });
}
