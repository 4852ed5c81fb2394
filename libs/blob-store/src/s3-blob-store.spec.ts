import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { BaseServiceConfig, loadConfig } from '@dtp/service-kit';
import { blobStoreContract } from '../test/contract';
import { BlobTooLargeError } from './blob-store';
import { FilesystemBlobStore } from './filesystem-blob-store';
import { BlobStoreConfigError, blobStoreFromConfig, blobStoreSettings } from './from-config';
import { S3BlobStore } from './s3-blob-store';

// s3rver (a real S3 HTTP server, data on disk) ships no types.
interface S3rverServer {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (opts: Record<string, unknown>) => S3rverServer;

const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
let server: S3rverServer;
let endpoint: string;
let serverDir: string;
let admin: S3Client;

beforeAll(async () => {
  serverDir = await mkdtemp(path.join(tmpdir(), 'dtp-s3rver-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: serverDir });
  const address = await server.run();
  endpoint = `http://127.0.0.1:${address.port}`;
  admin = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
});

afterAll(async () => {
  admin?.destroy();
  await server?.close();
  await rm(serverDir, { recursive: true, force: true });
});

/** A fresh bucket and a store on it, with its own spool directory. */
async function freshStore(keyPrefix?: string): Promise<{ store: S3BlobStore; bucket: string; spool: string }> {
  const bucket = `dtp-test-${randomBytes(6).toString('hex')}`;
  await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  const spool = await mkdtemp(path.join(tmpdir(), 'dtp-s3-spool-'));
  const store = new S3BlobStore({ bucket, endpoint, region: 'us-east-1', forcePathStyle: true, credentials, keyPrefix, tmpDir: spool });
  return { store, bucket, spool };
}

async function keysIn(bucket: string): Promise<string[]> {
  const res = await admin.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (res.Contents ?? []).map((o) => o.Key!).sort();
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

// The same behaviour as the filesystem store, against a real S3 HTTP server.
blobStoreContract('s3 (s3rver)', async () => {
  const { store, spool } = await freshStore();
  return {
    store,
    cleanup: async () => {
      store.close();
      await rm(spool, { recursive: true, force: true });
    },
  };
});

describe('S3BlobStore specifics', () => {
  it('stores each blob as one object keyed by its hash (with an optional prefix)', async () => {
    const plain = await freshStore();
    const bytes = Buffer.from('rough diamond scan');
    await plain.store.put(Readable.from([bytes]));
    await plain.store.put(Readable.from([bytes]));
    expect(await keysIn(plain.bucket)).toEqual([sha256(bytes)]);

    const prefixed = await freshStore('blobs/');
    await prefixed.store.put(Readable.from([bytes]));
    expect(await keysIn(prefixed.bucket)).toEqual([`blobs/${sha256(bytes)}`]);
    expect(prefixed.store.keyOf(sha256(bytes))).toBe(`blobs/${sha256(bytes)}`);
    expect(prefixed.store.keyOf('not-a-hash')).toBeNull();
  });

  it('leaves no spool files behind after a put, a refused put or a failed source', async () => {
    const { store, bucket, spool } = await freshStore();
    await store.put(Readable.from([Buffer.alloc(300_000, 3)]));
    await expect(store.put(Readable.from([Buffer.alloc(2048)]), { maxBytes: 1024 })).rejects.toBeInstanceOf(BlobTooLargeError);
    async function* failing() {
      yield Buffer.from('half');
      throw new Error('client went away');
    }
    await expect(store.put(Readable.from(failing()))).rejects.toThrow('client went away');
    expect(await readdir(spool)).toEqual([]);
    expect(await keysIn(bucket)).toEqual([sha256(Buffer.alloc(300_000, 3))]);
  });

  it('reports a missing bucket as an error, not as a missing blob', async () => {
    const store = new S3BlobStore({ bucket: 'no-such-bucket-here', endpoint, forcePathStyle: true, credentials });
    await expect(store.get(sha256('x'))).rejects.toThrow();
    await expect(store.put(Readable.from([Buffer.from('x')]))).rejects.toThrow();
    await expect(store.check()).rejects.toThrow();
    const { store: good } = await freshStore();
    await expect(good.check()).resolves.toBeUndefined();
  });

  it('surfaces a refusal of the credentials', async () => {
    const { bucket } = await freshStore();
    const store = new S3BlobStore({
      bucket,
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'wrong-secret' },
    });
    await expect(store.put(Readable.from([Buffer.from('x')]))).rejects.toThrow();
  });
});

describe('blobStoreFromConfig', () => {
  it('defaults to the filesystem store under BLOB_STORE_DIR', () => {
    expect(blobStoreSettings({})).toEqual({ kind: 'fs', dir: '.data/blobs' });
    const store = blobStoreFromConfig({ BLOB_STORE: 'fs', BLOB_STORE_DIR: '/var/blobs' });
    expect(store).toBeInstanceOf(FilesystemBlobStore);
    expect((store as FilesystemBlobStore).dir).toBe('/var/blobs');
  });

  it('reads the S3 variables', () => {
    expect(
      blobStoreSettings({
        BLOB_STORE: 's3',
        S3_BUCKET: 'dtp-blobs',
        S3_ENDPOINT: 'http://minio:9000',
        S3_REGION: 'eu-west-1',
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'id',
        S3_SECRET_ACCESS_KEY: 'secret',
      }),
    ).toEqual({
      kind: 's3',
      bucket: 'dtp-blobs',
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    expect(blobStoreSettings({ BLOB_STORE: 's3', S3_BUCKET: 'dtp-blobs' })).toEqual({
      kind: 's3',
      bucket: 'dtp-blobs',
      endpoint: undefined,
      region: 'us-east-1',
      forcePathStyle: false,
      credentials: undefined,
    });
  });

  it('names every bad variable', () => {
    expect(() => blobStoreSettings({ BLOB_STORE: 'gcs' })).toThrow(/BLOB_STORE: must be "fs" or "s3"/);
    let error: unknown;
    try {
      blobStoreSettings({ BLOB_STORE: 's3', S3_ENDPOINT: 'minio:9000', S3_FORCE_PATH_STYLE: 'yes', S3_ACCESS_KEY_ID: 'id' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(BlobStoreConfigError);
    expect((error as BlobStoreConfigError).problems.map((p) => p.split(':')[0])).toEqual([
      'S3_BUCKET',
      'S3_ENDPOINT',
      'S3_FORCE_PATH_STYLE',
      'S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY',
    ]);
    expect(() => blobStoreSettings({ BLOB_STORE: 's3', S3_BUCKET: 'Bad_Bucket' })).toThrow(/S3_BUCKET: not a valid bucket name/);
    // An endpoint may carry credentials: the error shows the URL without its password.
    const shown = (() => {
      try {
        blobStoreSettings({ BLOB_STORE: 's3', S3_BUCKET: 'ok-bucket', S3_ENDPOINT: 'ftp://minio:s3cr3t-pass@minio:9000' });
      } catch (err) {
        return String(err);
      }
      return 'no error';
    })();
    expect(shown).toContain('S3_ENDPOINT: must be an http(s) URL (got "ftp://minio:***@minio:9000")');
    expect(shown).not.toContain('s3cr3t-pass');
  });

  it('works from a service config object and round-trips bytes through S3', async () => {
    const { bucket } = await freshStore();
    const config = loadConfig('test', BaseServiceConfig, {
      PORT: '3000',
      BLOB_STORE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
    const store = blobStoreFromConfig(config);
    expect(store).toBeInstanceOf(S3BlobStore);
    const put = await store.put(Readable.from([Buffer.from('from config')]));
    expect(put.hash).toBe(sha256('from config'));
    expect(await keysIn(bucket)).toEqual([put.hash]);
    (store as S3BlobStore).close();
  });
});
