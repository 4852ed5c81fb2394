import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { importJWK, SignJWT } from 'jose';
import { FilesystemBlobStore } from '@dtp/blob-store';
import { Topics } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, TEST_AUDIENCES, TEST_ISSUER, TestStack } from '@dtp/testing';
import { deleted, diamondRecord, eventually, upserted, withDb } from './support';

const topic = Topics.PLATFORM_DIAMONDS;

describe('search service (read model from platform.diamonds.v1)', () => {
  let stack: TestStack;
  let blobDir: string;
  let token: string;
  let search: string;

  const get = (p: string, headers: Record<string, string> = {}) => fetch(`${search}${p}`, { headers: { authorization: token, ...headers } });
  const publish = (value: unknown, key: string) => stack.transport.publish([{ topic, key, value }]);
  const visible = (id: string, versionId: string) =>
    eventually(async () => {
      const res = await get(`/v1/diamonds/${id}`);
      if (res.status !== 200) return undefined;
      const body = (await res.json()) as { version_id: string };
      return body.version_id === versionId ? body : undefined;
    }, `diamond ${id} at version ${versionId}`);
  const gone = (id: string) => eventually(async () => ((await get(`/v1/diamonds/${id}`)).status === 404 ? true : undefined), `diamond ${id} gone`);
  const searchDb = <T>(fn: Parameters<typeof withDb<T>>[1]) => withDb(stack.databases.search!, fn);

  beforeAll(async () => {
    blobDir = await mkdtemp(path.join(tmpdir(), 'dtp-search-blobs-'));
    stack = await startTestStack({ services: ['auth', 'search'], env: { search: { BLOB_STORE_DIR: blobDir } } });
    search = stack.urls.search!;
    token = (await participantWithToken(stack, 'non_participant', 'search')).token;
  });

  afterAll(async () => {
    await stack?.close();
  });

  describe('access', () => {
    it('401 without a token and with a token for another audience', async () => {
      const id = diamondRecord().diamond_id;
      const none = await fetch(`${search}/v1/diamonds/${id}`);
      expect(none.status).toBe(401);
      expect(await none.json()).toEqual(expect.objectContaining({ message: expect.any(String) }));
      const producer = await participantWithToken(stack, 'producer', 'platform');
      const wrongAudience = await fetch(`${search}/v1/diamonds/${id}`, { headers: { authorization: producer.token } });
      expect(wrongAudience.status).toBe(401);
    });

    it('403 for any role but non_participant, even with a valid search-audience token', async () => {
      const kid = await withDb(stack.databases.auth!, async (c) => {
        const { rows } = await c.query<{ kid: string; private_jwk: string }>('SELECT kid, private_jwk FROM signing_keys WHERE active LIMIT 1');
        return rows[0];
      });
      const key = await importJWK(JSON.parse(kid.private_jwk), 'ES256');
      for (const role of ['producer', 'manufacturer', 'retailer', 'grading_lab']) {
        const forged = await new SignJWT({ client_id: 'c1', participant_id: randomUUID(), role })
          .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: kid.kid })
          .setIssuer(TEST_ISSUER)
          .setAudience(TEST_AUDIENCES.search)
          .setSubject('c1')
          .setIssuedAt()
          .setJti(randomUUID())
          .setExpirationTime('5m')
          .sign(key);
        const res = await fetch(`${search}/v1/diamonds/${diamondRecord().diamond_id}`, { headers: { authorization: `Bearer ${forged}` } });
        expect(res.status).toBe(403);
        expect(((await res.json()) as { message: string }).message).toContain(role);
      }
    });

    it('accepts both Authorization forms for a non_participant', async () => {
      const id = diamondRecord().diamond_id;
      expect((await get(`/v1/diamonds/${id}`)).status).toBe(404);
      expect((await get(`/v1/diamonds/${id}`, { authorization: `Bearer ${token}` })).status).toBe(404);
    });
  });

  describe('records', () => {
    it('serves the current record; a newer revision replaces it, an older or equal one changes nothing', async () => {
      const r1 = diamondRecord();
      await publish(upserted(r1, 1), r1.diamond_id);
      expect(await visible(r1.diamond_id, r1.version_id)).toEqual(r1);

      const r2 = { ...r1, version_id: randomUUID(), unlock_status: 'unlocked' as const };
      await publish(upserted(r2, 2), r1.diamond_id);
      await visible(r1.diamond_id, r2.version_id);

      // A redelivery of revision 1 and a second copy of revision 2 with other contents: both skipped.
      await publish(upserted(r1, 1), r1.diamond_id);
      await publish(upserted({ ...r2, version_id: randomUUID() }, 2), r1.diamond_id);
      const r3 = { ...r2, version_id: randomUUID() };
      await publish(upserted(r3, 3), r1.diamond_id);
      const body = await visible(r1.diamond_id, r3.version_id);
      expect(body).toEqual(r3);
      const state = await searchDb(
        async (c) => (await c.query('SELECT revision FROM consumer_state WHERE consumer = $1 AND key = $2', ['search', r1.diamond_id])).rows,
      );
      expect(state).toEqual([{ revision: '3' }]);
      const metrics = await (await fetch(`${search}/metrics`)).text();
      expect(metrics).toMatch(/consumer_duplicates_total\{[^}]*\} [1-9]/);
    });

    it('404 with a message for an unknown diamond', async () => {
      const res = await get('/v1/diamonds/00000000000000000000000000');
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: expect.stringContaining('not found') });
    });

    it('history lists the ancestors nearest first, each a DiamondV1 record', async () => {
      const grand = diamondRecord();
      const parent = diamondRecord({ diamond_parent_id: grand.diamond_id, lifecycle_state: 'polished' });
      const child = diamondRecord({ diamond_parent_id: parent.diamond_id, current_stage: 'polished', lifecycle_state: 'polished' });
      for (const r of [grand, parent, child]) await publish(upserted(r, 1), r.diamond_id);
      await visible(child.diamond_id, child.version_id);
      await visible(grand.diamond_id, grand.version_id);
      const res = await get(`/v1/diamonds/${child.diamond_id}/history`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ diamond_id: child.diamond_id, ancestors: [parent, grand] });
      const top = await get(`/v1/diamonds/${grand.diamond_id}/history`);
      expect(await top.json()).toEqual({ diamond_id: grand.diamond_id, ancestors: [] });
      expect((await get(`/v1/diamonds/${diamondRecord().diamond_id}/history`)).status).toBe(404);
    });

    it('a deletion removes the record, its history and files; a late older upsert does not bring it back; tombstones too', async () => {
      const r1 = diamondRecord();
      await publish(upserted(r1, 1), r1.diamond_id);
      await visible(r1.diamond_id, r1.version_id);
      await publish(deleted(r1.diamond_id, 2), r1.diamond_id);
      await publish(null, r1.diamond_id);
      await gone(r1.diamond_id);
      await publish(upserted(r1, 1), r1.diamond_id);
      const marker = diamondRecord();
      await publish(upserted(marker, 1), marker.diamond_id);
      await visible(marker.diamond_id, marker.version_id); // everything published before it was handled
      expect((await get(`/v1/diamonds/${r1.diamond_id}`)).status).toBe(404);
      expect((await get(`/v1/diamonds/${r1.diamond_id}/history`)).status).toBe(404);
      const row = await searchDb(
        async (c) => (await c.query('SELECT revision, record, deleted_at FROM search_diamonds WHERE diamond_id = $1', [r1.diamond_id])).rows[0],
      );
      expect(row).toEqual({ revision: '2', record: null, deleted_at: expect.any(Date) });

      // A tombstone alone (a compacted topic replayed) also deletes.
      const t = diamondRecord();
      await publish(upserted(t, 4), t.diamond_id);
      await visible(t.diamond_id, t.version_id);
      await publish(null, t.diamond_id);
      await gone(t.diamond_id);
    });

    it('parks an invalid event with its reason (metric and table) and goes on with the next ones', async () => {
      const bad = diamondRecord();
      const envelope = upserted(bad, 1) as { data: Record<string, unknown> };
      envelope.data = { ...envelope.data, lifecycle_state: 'melted' };
      await publish(envelope, bad.diamond_id);
      await publish({ not: 'an envelope' }, bad.diamond_id);
      const good = diamondRecord();
      await publish(upserted(good, 1), good.diamond_id);
      await visible(good.diamond_id, good.version_id);
      const parked = await searchDb(
        async (c) => (await c.query('SELECT key, reason, payload FROM parked_events WHERE key = $1 ORDER BY id', [bad.diamond_id])).rows,
      );
      expect(parked).toHaveLength(2);
      expect(parked[0].reason).toMatch(/lifecycle_state/);
      expect(parked[1].reason).toMatch(/event_id/);
      expect(parked[1].payload).toEqual({ not: 'an envelope' });
      expect((await get(`/v1/diamonds/${bad.diamond_id}`)).status).toBe(404);
      const metrics = await (await fetch(`${search}/metrics`)).text();
      expect(metrics).toMatch(/consumer_parked_total\{[^}]*topic="platform.diamonds.v1"[^}]*\} 2/);
    });
  });

  describe('files', () => {
    const bytes = Buffer.from('%PDF-1.4 a grading certificate, byte for byte\n'.repeat(50));
    const hash = createHash('sha256').update(bytes).digest('hex');

    it('streams an attached file with Content-Type, Content-Length and ETag; 304 on If-None-Match', async () => {
      const store = new FilesystemBlobStore(blobDir);
      expect((await store.put(Readable.from([bytes]))).hash).toBe(hash);
      const r = diamondRecord({
        polished: {
          grading_certificates: [{ hash, filename: 'cert.pdf', description: 'GIA' }],
          supplementary_files: [{ hash, filename: 'cert.pdf', description: null, content_type: 'application/pdf', size: bytes.length, uploaded_at: null }],
        },
      });
      await publish(upserted(r, 1), r.diamond_id);
      await visible(r.diamond_id, r.version_id);

      const res = await get(`/v1/diamonds/${r.diamond_id}/files/${hash}`);
      expect(res.status).toBe(200);
      // The certificate ref has no type; the supplementary ref of the same bytes says application/pdf.
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      expect(res.headers.get('etag')).toBe(`"${hash}"`);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);

      const cached = await get(`/v1/diamonds/${r.diamond_id}/files/${hash}`, { 'if-none-match': `"${hash}"` });
      expect(cached.status).toBe(304);
      expect(cached.headers.get('etag')).toBe(`"${hash}"`);
      expect((await cached.arrayBuffer()).byteLength).toBe(0);
    });

    it('uses the content type of the ref; 404 for a hash not attached to that diamond, even if another has it', async () => {
      const r = diamondRecord({
        polished: {
          images: [
            { hash, filename: 'photo.pdf', description: null, content_type: 'application/pdf', size: bytes.length, uploaded_at: null, image_type: 'photo' },
          ],
        },
      });
      const other = diamondRecord();
      for (const d of [r, other]) await publish(upserted(d, 1), d.diamond_id);
      await visible(other.diamond_id, other.version_id);
      await visible(r.diamond_id, r.version_id);
      const res = await get(`/v1/diamonds/${r.diamond_id}/files/${hash}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      await res.arrayBuffer();

      const notAttached = await get(`/v1/diamonds/${other.diamond_id}/files/${hash}`);
      expect(notAttached.status).toBe(404);
      expect(await notAttached.json()).toEqual({ message: expect.stringContaining('not attached') });
      expect((await get(`/v1/diamonds/${r.diamond_id}/files/${'0'.repeat(64)}`)).status).toBe(404);
      expect((await get(`/v1/diamonds/${r.diamond_id}/files/not-a-hash`)).status).toBe(404);

      // The file index follows the record: a new version without the image drops it.
      await publish(upserted({ ...r, version_id: randomUUID(), polished: {} }, 2), r.diamond_id);
      await eventually(async () => ((await get(`/v1/diamonds/${r.diamond_id}/files/${hash}`)).status === 404 ? true : undefined), 'file unindexed');
      // And a deleted diamond serves no file.
      const d = diamondRecord({ polished: { videos: [{ hash, filename: 'v', description: null, content_type: 'video/mp4', size: 1, uploaded_at: null }] } });
      await publish(upserted(d, 1), d.diamond_id);
      await visible(d.diamond_id, d.version_id);
      expect((await get(`/v1/diamonds/${d.diamond_id}/files/${hash}`)).status).toBe(200);
      await publish(deleted(d.diamond_id, 2), d.diamond_id);
      await gone(d.diamond_id);
      expect((await get(`/v1/diamonds/${d.diamond_id}/files/${hash}`)).status).toBe(404);
      expect((await get(`/v1/diamonds/${d.diamond_id}/files/${hash}`, { 'if-none-match': `"${hash}"` })).status).toBe(404);
    });
  });
});
