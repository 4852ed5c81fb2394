import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { blobStoreContract } from '../test/contract';
import { BlobTooLargeError } from './blob-store';
import { FilesystemBlobStore } from './filesystem-blob-store';

blobStoreContract('filesystem', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'dtp-blobs-'));
  return { store: new FilesystemBlobStore(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

describe('FilesystemBlobStore layout', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'dtp-blobs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes <dir>/<aa>/<hash> and keeps one file for repeated content', async () => {
    const store = new FilesystemBlobStore(dir);
    const bytes = Buffer.from('layout check');
    const hash = createHash('sha256').update(bytes).digest('hex');
    await store.put(Readable.from([bytes]));
    await store.put(Readable.from([bytes]));
    expect(await readdir(path.join(dir, hash.slice(0, 2)))).toEqual([hash]);
    expect(store.pathOf(hash)).toBe(path.join(dir, hash.slice(0, 2), hash));
    expect(await readdir(path.join(dir, 'tmp'))).toEqual([]);
  });

  it('removes the temp file when the limit is exceeded', async () => {
    const store = new FilesystemBlobStore(dir);
    await expect(store.put(Readable.from([Buffer.alloc(2048)]), { maxBytes: 1024 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await readdir(path.join(dir, 'tmp'))).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['tmp']);
  });

  it('a second store on the same directory sees the first one’s blobs (shared by services)', async () => {
    const put = await new FilesystemBlobStore(dir).put(Readable.from([Buffer.from('shared')]));
    expect(await new FilesystemBlobStore(dir).has(put.hash)).toBe(true);
  });
});
