import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { BlobStore, BlobTooLargeError } from '../src/blob-store';

export interface BlobStoreFixture {
  store: BlobStore;
  /** Called after each test (remove a directory, empty a bucket). */
  cleanup?: () => Promise<void>;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** A stream of `count` chunks of `chunkSize` pseudo-random bytes, generated lazily. */
function chunked(count: number, chunkSize: number, seed = 1): { stream: Readable; expected: () => { hash: string; size: number } } {
  const digest = createHash('sha256');
  let state = seed;
  function* gen() {
    for (let i = 0; i < count; i++) {
      const b = Buffer.allocUnsafe(chunkSize);
      for (let j = 0; j < chunkSize; j++) {
        state = (state * 1103515245 + 12345) & 0x7fffffff;
        b[j] = state & 0xff;
      }
      digest.update(b);
      yield b;
    }
  }
  return { stream: Readable.from(gen()), expected: () => ({ hash: digest.digest('hex'), size: count * chunkSize }) };
}

/**
 * The behaviour every BlobStore must have. Call it inside a test file with a factory that returns a fresh,
 * empty store: `blobStoreContract('filesystem', async () => ({ store: new FilesystemBlobStore(dir) }))`.
 */
export function blobStoreContract(name: string, factory: () => Promise<BlobStoreFixture>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let fixture: BlobStoreFixture;
    let store: BlobStore;

    beforeEach(async () => {
      fixture = await factory();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('keys content by its lowercase hex SHA-256 and returns the same bytes', async () => {
      const bytes = Buffer.from('a diamond scan, byte for byte\n');
      const put = await store.put(Readable.from([bytes]));
      expect(put).toEqual({ hash: sha256(bytes), size: bytes.length, created: true });
      const got = await store.get(put.hash);
      expect(got).not.toBeNull();
      expect(got!.size).toBe(bytes.length);
      expect((await readAll(got!.stream)).equals(bytes)).toBe(true);
      expect(await store.stat(put.hash)).toEqual({ size: bytes.length });
      expect(await store.has(put.hash)).toBe(true);
    });

    it('stores the same bytes once: a second put reports created false and the same key', async () => {
      const bytes = Buffer.from('same bytes twice');
      const first = await store.put(Readable.from([bytes]));
      const second = await store.put(Readable.from([bytes.subarray(0, 4), bytes.subarray(4)]));
      expect(second.hash).toBe(first.hash);
      expect(second.created).toBe(false);
      expect((await readAll((await store.get(first.hash))!.stream)).equals(bytes)).toBe(true);
    });

    it('accepts concurrent puts of the same bytes and ends with one complete blob', async () => {
      const bytes = Buffer.alloc(256 * 1024, 7);
      const results = await Promise.all(Array.from({ length: 5 }, () => store.put(Readable.from([bytes]))));
      expect(new Set(results.map((r) => r.hash))).toEqual(new Set([sha256(bytes)]));
      expect(results.filter((r) => r.created).length).toBeGreaterThanOrEqual(1);
      expect((await readAll((await store.get(sha256(bytes)))!.stream)).equals(bytes)).toBe(true);
    });

    it('hashes a multi-megabyte stream arriving in many chunks', async () => {
      const source = chunked(80, 64 * 1024);
      const put = await store.put(source.stream);
      expect(put).toEqual({ ...source.expected(), created: true });
      const content = await store.get(put.hash);
      expect(sha256(await readAll(content!.stream))).toBe(put.hash);
    });

    it('keeps the media type given by the put that created the blob (and only a well-formed one)', async () => {
      const pdf = Buffer.from(`%PDF-1.7 certificate ${sha256(name)}`);
      const put = await store.put(Readable.from([pdf]), { contentType: 'application/pdf' });
      expect((await store.get(put.hash))!.contentType).toBe('application/pdf');
      // A later put of the same bytes does not change it.
      await store.put(Readable.from([pdf]), { contentType: 'text/plain' });
      const got = (await store.get(put.hash))!;
      expect(got.contentType).toBe('application/pdf');
      expect((await readAll(got.stream)).equals(pdf)).toBe(true);
      // None given, or one that could break a header: none kept.
      const plain = await store.put(Readable.from([Buffer.from('no type given')]));
      expect((await store.get(plain.hash))!.contentType).toBeNull();
      const hostile = await store.put(Readable.from([Buffer.from('hostile type')]), { contentType: 'text/html\r\nX-Evil: 1' });
      expect((await store.get(hostile.hash))!.contentType).toBeNull();
      expect(await store.stat(put.hash)).toEqual({ size: pdf.length });
    });

    it('stores empty content', async () => {
      const put = await store.put(Readable.from([]));
      expect(put).toEqual({ hash: sha256(''), size: 0, created: true });
      expect(await store.stat(put.hash)).toEqual({ size: 0 });
    });

    it('answers null/false for an unknown key and for malformed keys', async () => {
      const unknown = sha256('never stored');
      expect(await store.get(unknown)).toBeNull();
      expect(await store.stat(unknown)).toBeNull();
      expect(await store.has(unknown)).toBe(false);
      for (const bad of ['../../etc/passwd', unknown.toUpperCase(), unknown.slice(1), '', `${unknown}/x`]) {
        expect(await store.get(bad)).toBeNull();
        expect(await store.has(bad)).toBe(false);
      }
    });

    it('refuses content past maxBytes and stores nothing', async () => {
      const bytes = Buffer.alloc(10_001, 1);
      await expect(store.put(Readable.from([bytes.subarray(0, 6000), bytes.subarray(6000)]), { maxBytes: 10_000 })).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(await store.has(sha256(bytes))).toBe(false);
      expect(await store.has(sha256(bytes.subarray(0, 10_000)))).toBe(false);
      // Exactly at the limit is fine.
      const ok = await store.put(Readable.from([bytes.subarray(0, 10_000)]), { maxBytes: 10_000 });
      expect(ok.size).toBe(10_000);
    });

    it('stores nothing when the source fails midway', async () => {
      const first = Buffer.from('partial content that must not be kept');
      async function* failing() {
        yield first;
        throw new Error('connection reset');
      }
      await expect(store.put(Readable.from(failing()))).rejects.toThrow('connection reset');
      expect(await store.has(sha256(first))).toBe(false);
    });
  });
}
