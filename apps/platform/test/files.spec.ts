import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DiamondV1, FileRef, ImageRef } from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { BLOB_STORE, PLATFORM_CONFIG } from '../src/tokens';
import type { FilesystemBlobStore } from '@dtp/blob-store';
import type { PlatformConfig } from '../src/config';
import { outboxCount, outboxRows, participant, participantKnown, PlatformFixture, register, startPlatform } from './helpers';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** Every file under `dir` (relative paths) whose content is exactly `bytes`. */
async function filesHolding(dir: string, bytes: Buffer): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    if ((await readFile(full)).equals(bytes)) found.push(path.relative(dir, full));
  }
  return found.sort();
}

/** An upload's answer, with its `Connection` header. */
async function uploadAnswer(
  f: PlatformFixture,
  token: string | null,
  diamondId: string,
  kind: string,
  parts: { file?: { bytes: Buffer; name: string; type?: string }; fields?: Record<string, string> },
): Promise<{ status: number; body: Record<string, unknown>; connection: string | null }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(parts.fields ?? {})) form.append(k, v);
  if (parts.file) form.append('file', new Blob([parts.file.bytes], { type: parts.file.type ?? 'application/octet-stream' }), parts.file.name);
  const headers: Record<string, string> = token ? { authorization: token } : {};
  const res = await fetch(`${f.url}/diamonds/${diamondId}/files/${kind}`, { method: 'POST', headers, body: form, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, connection: res.headers.get('connection') };
}

async function upload(...args: Parameters<typeof uploadAnswer>): Promise<{ status: number; body: Record<string, unknown> }> {
  const { status, body } = await uploadAnswer(...args);
  return { status, body };
}

async function current(f: PlatformFixture, diamondId: string): Promise<DiamondV1> {
  const rows = await outboxRows(f, diamondId);
  return rows[rows.length - 1].payload!.data as unknown as DiamondV1;
}

describe('POST /diamonds/{diamond_id}/files/{kind}', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;
  let blobDir: string;

  beforeAll(async () => {
    f = await startPlatform({ FILE_SIZE_LIMIT_BYTES: String(64 * 1024) });
    producer = await participant(f, 'producer');
    await participantKnown(f, producer.participant_id);
    const app = f.stack.services.platform!.app;
    blobDir = (app.get(BLOB_STORE) as FilesystemBlobStore).dir;
    expect(app.get<PlatformConfig>(PLATFORM_CONFIG).FILE_SIZE_LIMIT_BYTES).toBe(64 * 1024);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('stores an image, answers 201 with its ref and records it on the diamond as a new version', async () => {
    const d = await register(f, producer);
    const bytes = Buffer.from(`a photo of ${d.diamond_id}`);
    const before = Date.now();
    const res = await upload(f, producer.token, d.diamond_id, 'image', {
      file: { bytes, name: 'front.jpg', type: 'image/jpeg' },
      fields: { description: 'table view', image_type: 'front' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      hash: sha256(bytes),
      filename: 'front.jpg',
      description: 'table view',
      content_type: 'image/jpeg',
      size: bytes.length,
      uploaded_at: expect.any(String),
      image_type: 'front',
    });
    expect(Date.parse(res.body.uploaded_at as string)).toBeGreaterThanOrEqual(before - 1000);

    const rows = await outboxRows(f, d.diamond_id);
    expect(rows.map((r) => [r.event_type, r.revision])).toEqual([
      ['diamond.upserted', '1'],
      ['diamond.upserted', '2'],
    ]);
    const record = rows[1].payload!.data as unknown as DiamondV1;
    expect(record.polished.images).toEqual([res.body]);
    expect(record.version_id).not.toBe(d.version_id);
    expect(record.rough).toEqual(d.rough);
    const { rows: stored } = await f.db.query(`SELECT revision, version_id, polished FROM diamonds WHERE diamond_id = $1`, [d.diamond_id]);
    expect(stored[0]).toEqual({ revision: '2', version_id: record.version_id, polished: { images: [res.body] } });
  });

  it('records each kind where it belongs; a new scan replaces the old one', async () => {
    const d = await register(f, producer);
    const refs: Record<string, Record<string, unknown>> = {};
    for (const kind of ['video', 'scan', 'scan_report', 'grading_certificate', 'supplementary']) {
      const res = await upload(f, producer.token, d.diamond_id, kind, {
        file: { bytes: Buffer.from(`${kind} of ${d.diamond_id}`), name: `${kind}.bin` },
        fields: { description: kind },
      });
      expect({ kind, status: res.status }).toEqual({ kind, status: 201 });
      refs[kind] = res.body;
    }
    expect(refs.grading_certificate).toEqual({
      hash: sha256(`grading_certificate of ${d.diamond_id}`),
      filename: 'grading_certificate.bin',
      description: 'grading_certificate',
    });
    const scan2 = await upload(f, producer.token, d.diamond_id, 'scan', { file: { bytes: Buffer.from('second scan'), name: 'scan2.bin' } });
    expect(scan2.status).toBe(201);
    expect(scan2.body.description).toBeNull();
    const record = await current(f, d.diamond_id);
    expect(record.polished).toEqual({
      videos: [refs.video],
      scan: scan2.body,
      scan_reports: [refs.scan_report],
      grading_certificates: [refs.grading_certificate],
      supplementary_files: [refs.supplementary],
    });
    expect((await outboxRows(f, d.diamond_id)).map((r) => Number(r.revision))).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('stores the same bytes once, however many diamonds and uploads refer to them', async () => {
    const a = await register(f, producer);
    const b = await register(f, producer);
    const bytes = Buffer.from(`shared certificate ${randomUUID()}`);
    const hash = sha256(bytes);
    for (const d of [a, b, a]) {
      const res = await upload(f, producer.token, d.diamond_id, 'supplementary', { file: { bytes, name: 'cert.pdf', type: 'application/pdf' } });
      expect(res.status).toBe(201);
      expect(res.body.hash).toBe(hash);
    }
    // Other tests in this file write into the same store (a 1-in-256 chance of sharing the prefix directory), so
    // look for this test's bytes across the whole store: exactly one file holds them, under their hash.
    expect(await filesHolding(blobDir, bytes)).toEqual([path.join(hash.slice(0, 2), hash)]);
    // Re-uploading the same bytes to the same diamond updates its ref instead of listing it twice.
    expect((await current(f, a.diamond_id)).polished.supplementary_files!.map((r: FileRef) => r.hash)).toEqual([hash]);
    expect(await readdir(path.join(blobDir, 'tmp'))).toEqual([]);
  });

  it('streams a file right up to the limit', async () => {
    const d = await register(f, producer);
    const bytes = Buffer.alloc(64 * 1024, 9);
    const res = await upload(f, producer.token, d.diamond_id, 'video', { file: { bytes, name: 'max.mp4', type: 'video/mp4' } });
    expect(res.status).toBe(201);
    expect(res.body.size).toBe(64 * 1024);
  });

  it('answers 413 past the size limit, removes the temp file and changes nothing', async () => {
    const d = await register(f, producer);
    const before = await outboxCount(f);
    const bytes = Buffer.alloc(64 * 1024 + 1, 3);
    const res = await uploadAnswer(f, producer.token, d.diamond_id, 'video', { file: { bytes, name: 'big.mp4' }, fields: { description: 'too big' } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'file is larger than the limit of 65536 bytes', reason: 'file_too_large', limit_bytes: 65536 });
    expect(res.connection).toBe('close'); // answered before the body was read to its end
    expect(await outboxCount(f)).toBe(before);
    expect(await readdir(path.join(blobDir, 'tmp'))).toEqual([]);
    const { rows } = await f.db.query(`SELECT revision FROM diamonds WHERE diamond_id = $1`, [d.diamond_id]);
    expect(rows[0].revision).toBe('1');
    const big = Buffer.alloc(300 * 1024, 4);
    const res2 = await upload(f, producer.token, d.diamond_id, 'image', { file: { bytes: big, name: 'huge.png' } });
    expect(res2.status).toBe(413);
    expect(await readdir(path.join(blobDir, 'tmp'))).toEqual([]);
  });

  it('answers 422 for a missing file, an unknown kind, unknown fields, image_type on a non-image and a non-multipart body', async () => {
    const d = await register(f, producer);
    const before = await outboxCount(f);
    const file = { bytes: Buffer.from('x'), name: 'x.bin' };
    const cases: [string, Parameters<typeof upload>[4], string][] = [
      ['image', { fields: { description: 'no file' } }, 'body.file'],
      ['hologram', { file }, 'path.kind'],
      ['image', { file, fields: { colour: 'D' } }, 'body.colour'],
      ['video', { file, fields: { image_type: 'front' } }, 'body.image_type'],
    ];
    for (const [kind, parts, loc] of cases) {
      const res = await upload(f, producer.token, d.diamond_id, kind, parts);
      expect({ loc, status: res.status }).toEqual({ loc, status: 422 });
      expect((res.body.detail as { loc: unknown[] }[]).map((x) => x.loc.join('.'))).toContain(loc);
    }
    const json = await fetch(`${f.url}/diamonds/${d.diamond_id}/files/image`, {
      method: 'POST',
      headers: { authorization: producer.token, 'content-type': 'application/json' },
      body: JSON.stringify({ file: 'abc' }),
    });
    expect(json.status).toBe(422);
    expect(await outboxCount(f)).toBe(before);
  });

  it('closes the connection after a refusal given before the body was read to its end, and only then', async () => {
    const d = await register(f, producer);
    const file = { bytes: Buffer.from('x'), name: 'x.bin' };
    // An unknown field before the file: refused while the file is still unread.
    const midway = await uploadAnswer(f, producer.token, d.diamond_id, 'video', { file, fields: { image_type: 'front' } });
    expect(midway).toEqual({
      status: 422,
      body: {
        detail: [{ loc: ['body', 'image_type'], msg: 'extra fields not permitted', type: 'extra_forbidden' }],
        message: 'image_type: extra fields not permitted',
      },
      connection: 'close',
    });
    // No file in a body read to its end, and a kind refused before any reading: the connection stays.
    const missing = await uploadAnswer(f, producer.token, d.diamond_id, 'image', { fields: { description: 'no file' } });
    expect(missing).toMatchObject({ status: 422, body: { detail: [{ loc: ['body', 'file'], type: 'missing' }] } });
    expect(missing.connection).not.toBe('close');
    const kind = await uploadAnswer(f, producer.token, d.diamond_id, 'hologram', { file });
    expect(kind).toMatchObject({ status: 422, body: { detail: [{ loc: ['path', 'kind'], type: 'enum' }] } });
    expect(kind.connection).not.toBe('close');
  });

  it('answers malformed multipart bodies with 400/422 JSON naming the problem, never a 5xx, storing nothing', async () => {
    const d = await register(f, producer);
    const before = await outboxCount(f);
    const raw = async (contentType: string, body: string) => {
      const res = await fetch(`${f.url}/diamonds/${d.diamond_id}/files/image`, {
        method: 'POST',
        headers: { authorization: producer.token, 'content-type': contentType },
        body,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const part = (name: string, value: string, filename?: string) =>
      `--XB\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${value}\r\n`;
    const cases: [what: string, contentType: string, body: string][] = [
      ['no boundary', 'multipart/form-data', `${part('file', 'x', 'x.jpg')}--XB--\r\n`],
      ['another boundary', 'multipart/form-data; boundary=OTHER', `${part('file', 'x', 'x.jpg')}--XB--\r\n`],
      ['an empty boundary', 'multipart/form-data; boundary=', `${part('file', 'x', 'x.jpg')}--XB--\r\n`],
      ['a truncated body', 'multipart/form-data; boundary=XB', `--XB\r\nContent-Disposition: form-data; name="file"; filename="x.jpg"\r\n\r\nxx`],
      ['a malformed part header', 'multipart/form-data; boundary=XB', `--XB\r\nContent-Disposition form-data name=file\r\n\r\nx\r\n--XB--\r\n`],
      ['a __proto__ field', 'multipart/form-data; boundary=XB', `${part('__proto__', 'x')}${part('file', 'x', 'x.jpg')}--XB--\r\n`],
      ['a constructor field', 'multipart/form-data; boundary=XB', `${part('constructor', 'x')}${part('file', 'x', 'x.jpg')}--XB--\r\n`],
      ['a __proto__ file field', 'multipart/form-data; boundary=XB', `${part('__proto__', 'x', 'x.jpg')}--XB--\r\n`],
      ['an empty body', 'multipart/form-data; boundary=XB', ''],
    ];
    const wrong: string[] = [];
    for (const [what, contentType, body] of cases) {
      const res = await raw(contentType, body);
      const ok = (res.status === 400 || res.status === 422) && typeof (res.body.message ?? res.body.detail) !== 'undefined';
      if (!ok) wrong.push(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(wrong).toEqual([]);
    expect(await outboxCount(f)).toBe(before);
    expect(await readdir(path.join(blobDir, 'tmp'))).toEqual([]);
  });

  it("answers 403 for another participant's diamond, 404 for unknown ids, 401 without a token", async () => {
    const d = await register(f, producer);
    const other = await participant(f, 'manufacturer');
    const file = { bytes: Buffer.from('intruder'), name: 'i.jpg' };
    const res = await upload(f, other.token, d.diamond_id, 'image', { file });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: `only the holder of diamond ${d.diamond_id} may attach files to it`, reason: 'not_holder' });
    const unknown = await upload(f, producer.token, '01hzzzzzzzzzzzzzzzzzzzzzzz', 'image', { file });
    expect(unknown).toEqual({ status: 404, body: { message: 'diamond not found' } });
    expect((await upload(f, producer.token, '..%2F..%2Fetc', 'image', { file })).status).toBe(404);
    expect((await upload(f, null, d.diamond_id, 'image', { file })).status).toBe(401);
    // The intruder's bytes were never stored.
    expect(await f.stack.services.platform!.app.get<FilesystemBlobStore>(BLOB_STORE).has(sha256('intruder'))).toBe(false);
  });

  it('lets only the holder attach files: after the diamond changes hands the uploader gets 403', async () => {
    const d = await register(f, producer);
    const retailer = await participant(f, 'retailer');
    await f.db.query(`UPDATE diamonds SET holder_id = $2 WHERE diamond_id = $1`, [d.diamond_id, retailer.participant_id]);
    const file = { bytes: Buffer.from(`holder file ${d.diamond_id}`), name: 'h.jpg', type: 'image/jpeg' };
    expect(await upload(f, producer.token, d.diamond_id, 'image', { file })).toEqual({
      status: 403,
      body: { message: `only the holder of diamond ${d.diamond_id} may attach files to it`, reason: 'not_holder' },
    });
    const ok = await upload(f, retailer.token, d.diamond_id, 'image', { file });
    expect(ok.status).toBe(201);
    expect(((await current(f, d.diamond_id)).polished.images as ImageRef[])[0].image_type).toBeNull();
  });
});

describe('POST /diamonds/{diamond_id}/files/{kind}: record size bounds', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;

  beforeAll(async () => {
    f = await startPlatform({ FILE_SIZE_LIMIT_BYTES: String(64 * 1024) });
    producer = await participant(f, 'producer');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('caps the description at 1,000 characters and the file name at 256, and refuses NUL and control characters in them', async () => {
    const d = await register(f, producer);
    const before = await outboxCount(f);
    const file = (name = 'x.jpg') => ({ bytes: Buffer.from(`bounds ${randomUUID()}`), name });
    const refused: [what: string, parts: Parameters<typeof upload>[4], loc: string][] = [
      ['a 1,001-character description', { file: file(), fields: { description: 'd'.repeat(1001) } }, 'body.description'],
      ['a NUL in the description', { file: file(), fields: { description: 'a\u0000b' } }, 'body.description'],
      ['an escape character in the description', { file: file(), fields: { description: 'a\u001b[31m' } }, 'body.description'],
      ['a 257-character file name', { file: file(`${'n'.repeat(253)}.jpg`) }, 'body.file'],
      ['a control character in the file name', { file: file('a\u0007b.jpg') }, 'body.file'],
      ['a 257-character image_type', { file: file(), fields: { image_type: 't'.repeat(257) } }, 'body.image_type'],
    ];
    for (const [what, parts, loc] of refused) {
      const res = await upload(f, producer.token, d.diamond_id, 'image', parts);
      expect({ what, status: res.status }).toEqual({ what, status: 422 });
      expect((res.body.detail as { loc: unknown[] }[]).map((x) => x.loc.join('.'))).toEqual([loc]);
    }
    expect(await outboxCount(f)).toBe(before);
    // At the bounds: accepted, multi-line descriptions too.
    const ok = await upload(f, producer.token, d.diamond_id, 'image', {
      file: file(`${'n'.repeat(252)}.jpg`),
      fields: { description: `line one\nline two\t${'d'.repeat(980)}`, image_type: 't'.repeat(256) },
    });
    expect(ok.status).toBe(201);
    expect((ok.body.filename as string).length).toBe(256);
  });

  it('caps the files of one diamond (FILES_PER_DIAMOND_MAX, 409 too_many_files) so its record stays under 1 MB at every cap', async () => {
    const maker = await participant(f, 'manufacturer');
    const tags = (seed: string) => Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`${seed}${i}`, '€'.repeat(120)]));
    const d = await register(f, maker, { supplementary_tags: tags('s'), entity_specific_tags: undefined });
    const max = f.stack.services.platform!.app.get<PlatformConfig>(PLATFORM_CONFIG).FILES_PER_DIAMOND_MAX;
    expect(max).toBe(200);
    const kinds = ['image', 'video', 'scan_report', 'supplementary', 'grading_certificate'];
    for (let i = 0; i < max; i++) {
      const name = `${String(i).padStart(4, '0')}${'€'.repeat(248)}.pdf`;
      const res = await upload(f, maker.token, d.diamond_id, kinds[i % kinds.length], {
        file: { bytes: Buffer.from(`file ${i} of ${d.diamond_id}`), name, type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
        fields: { description: '€'.repeat(1000), ...(i % kinds.length === 0 ? { image_type: '€'.repeat(256) } : {}) },
      });
      expect({ i, status: res.status }).toEqual({ i, status: 201 });
    }
    const full = await upload(f, maker.token, d.diamond_id, 'video', { file: { bytes: Buffer.from(`one too many ${d.diamond_id}`), name: 'x.mp4' } });
    expect(full).toMatchObject({ status: 409, body: { reason: 'too_many_files', limit: max } });
    // Re-uploading bytes the diamond already has replaces their ref: not a new file, still accepted.
    const again = await upload(f, maker.token, d.diamond_id, 'video', { file: { bytes: Buffer.from(`file 1 of ${d.diamond_id}`), name: 'again.mp4' } });
    expect(again.status).toBe(201);
    const rows = await outboxRows(f, d.diamond_id);
    const { rows: sizes } = await f.db.query<{ bytes: number }>(
      `SELECT octet_length(payload::text) AS bytes FROM outbox WHERE key = $1 AND payload IS NOT NULL ORDER BY id DESC LIMIT 1`,
      [d.diamond_id],
    );
    expect(rows.length).toBe(max + 2);
    expect(sizes[0].bytes).toBeGreaterThan(500_000); // really at the caps
    expect(sizes[0].bytes).toBeLessThan(1_000_000);
  }, 120_000);
});

describe('POST /diamonds/{diamond_id}/files/{kind}: storage quota per participant', () => {
  let f: PlatformFixture;

  beforeAll(async () => {
    f = await startPlatform({ STORAGE_QUOTA_BYTES: '1000' });
  });
  afterAll(async () => {
    await f?.close();
  });

  it("refuses a file past the participant's quota with 409 storage_quota_exceeded, counting each attached file once", async () => {
    const producer = await participant(f, 'producer');
    const d = await register(f, producer);
    const bytes = (n: number, seed: string) => Buffer.from(seed.repeat(n).slice(0, n));
    const send = (b: Buffer, name: string) => upload(f, producer.token, d.diamond_id, 'supplementary', { file: { bytes: b, name } });
    expect((await send(bytes(600, 'a'), 'a.bin')).status).toBe(201);
    const before = await outboxCount(f);
    const over = await send(bytes(500, 'b'), 'b.bin');
    expect(over).toMatchObject({ status: 409, body: { reason: 'storage_quota_exceeded', used_bytes: 600, limit_bytes: 1000 } });
    expect(await outboxCount(f)).toBe(before);
    // The same bytes again on the same diamond replace their ref: not counted twice.
    expect((await send(bytes(600, 'a'), 'a-again.bin')).status).toBe(201);
    expect((await send(bytes(400, 'c'), 'c.bin')).status).toBe(201);
    // Full: refused before the body is read, so the bytes are never stored.
    const last = bytes(1, 'z');
    expect(await send(last, 'z.bin')).toMatchObject({ status: 409, body: { reason: 'storage_quota_exceeded', used_bytes: 1000 } });
    expect(await f.stack.services.platform!.app.get<FilesystemBlobStore>(BLOB_STORE).has(sha256(last))).toBe(false);
    // Another participant has a quota of its own.
    const other = await participant(f, 'producer');
    const theirs = await register(f, other);
    expect((await upload(f, other.token, theirs.diamond_id, 'supplementary', { file: { bytes: bytes(900, 'o'), name: 'o.bin' } })).status).toBe(201);
    const { rows } = await f.db.query(`SELECT participant_id, bytes FROM participant_storage ORDER BY bytes`);
    expect(rows).toEqual([
      { participant_id: other.participant_id, bytes: '900' },
      { participant_id: producer.participant_id, bytes: '1000' },
    ]);
  });
});

describe('POST /diamonds/{diamond_id}/files/{kind} when the blob store fails', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;

  beforeAll(async () => {
    // A "directory" under a regular file: every write fails (ENOTDIR), even for root.
    f = await startPlatform({ BLOB_STORE_DIR: '/etc/hostname/blobs' });
    producer = await participant(f, 'producer');
    await participantKnown(f, producer.participant_id);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers a prompt JSON 500 that names no internals, and changes nothing', async () => {
    const d = await register(f, producer);
    const before = await outboxCount(f);
    const started = Date.now();
    const res = await uploadAnswer(f, producer.token, d.diamond_id, 'image', { file: { bytes: Buffer.alloc(4 * 1024 * 1024, 7), name: 'a.jpg' } });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: expect.stringContaining('could not be stored'), request_id: expect.any(String) });
    expect(res.connection).toBe('close');
    expect(JSON.stringify(res.body)).not.toContain('ENOTDIR');
    expect(await outboxCount(f)).toBe(before);
    // The service still answers the next request.
    expect((await upload(f, producer.token, d.diamond_id, 'image', { fields: { description: 'x' } })).status).toBe(422);
  });
});
