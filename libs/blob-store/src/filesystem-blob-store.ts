import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { BlobContent, BlobPutOptions, BlobPutResult, BlobSource, BlobStat, BlobStore, BlobTooLargeError, isBlobHash, isMediaType } from './blob-store';

/**
 * Blobs as files under one directory: `<dir>/<first two hex chars>/<hash>`. A put streams into
 * `<dir>/tmp/<random>.part` while hashing, fsyncs it, then renames it into place if the blob is absent (rename
 * is atomic, so a reader never sees a partial blob; two concurrent puts of the same bytes both end with the
 * same complete file). Several services on one machine may share the directory. The media type given by the put
 * that created a blob is kept beside it in `<hash>.type` (written before the blob is renamed into place, so a
 * reader that sees the blob sees its type).
 */
export class FilesystemBlobStore implements BlobStore {
  private readonly tmpDir: string;
  private ready?: Promise<unknown>;

  constructor(readonly dir: string) {
    this.tmpDir = path.join(dir, 'tmp');
  }

  /** Where a blob lives (for operators and tests); null for a malformed hash. */
  pathOf(hash: string): string | null {
    return isBlobHash(hash) ? path.join(this.dir, hash.slice(0, 2), hash) : null;
  }

  async put(source: BlobSource, opts: BlobPutOptions = {}): Promise<BlobPutResult> {
    await (this.ready ??= mkdir(this.tmpDir, { recursive: true }));
    const temp = path.join(this.tmpDir, `${Date.now()}-${randomBytes(8).toString('hex')}.part`);
    const digest = createHash('sha256');
    let size = 0;
    const limit = opts.maxBytes;
    const out = createWriteStream(temp, { flags: 'wx', mode: 0o644 });
    try {
      await pipeline(
        source,
        async function* (chunks: AsyncIterable<Uint8Array | string>) {
          for await (const raw of chunks) {
            const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
            size += chunk.length;
            if (limit !== undefined && size > limit) throw new BlobTooLargeError(limit);
            digest.update(chunk);
            yield chunk;
          }
        },
        out,
      );
      const fh = await open(temp, 'r');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
      const hash = digest.digest('hex');
      const final = this.pathOf(hash)!;
      if (await exists(final)) {
        await rm(temp, { force: true });
        return { hash, size, created: false };
      }
      await mkdir(path.dirname(final), { recursive: true });
      if (isMediaType(opts.contentType)) await this.writeType(final, opts.contentType);
      await rename(temp, final);
      return { hash, size, created: true };
    } catch (err) {
      // The file may still be opening when the pipeline fails: remove it only once the stream has closed, or a
      // late open would leave a stray temp file behind.
      if (!out.closed) await once(out, 'close').catch(() => undefined);
      await rm(temp, { force: true });
      throw err;
    }
  }

  async get(hash: string): Promise<BlobContent | null> {
    const s = await this.stat(hash);
    if (!s) return null;
    const file = this.pathOf(hash)!;
    return { size: s.size, stream: createReadStream(file), contentType: await this.readType(file) };
  }

  /** `<blob>.type`, atomically (temp file + rename). */
  private async writeType(blobFile: string, contentType: string): Promise<void> {
    const temp = path.join(this.tmpDir, `${Date.now()}-${randomBytes(8).toString('hex')}.type`);
    await writeFile(temp, contentType, { flag: 'wx', mode: 0o644 });
    await rename(temp, `${blobFile}.type`);
  }

  private async readType(blobFile: string): Promise<string | null> {
    try {
      const type = (await readFile(`${blobFile}.type`, 'utf8')).trim();
      return isMediaType(type) ? type : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async stat(hash: string): Promise<BlobStat | null> {
    const file = this.pathOf(hash);
    if (!file) return null;
    try {
      const s = await stat(file);
      return s.isFile() ? { size: s.size } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async has(hash: string): Promise<boolean> {
    return (await this.stat(hash)) !== null;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
