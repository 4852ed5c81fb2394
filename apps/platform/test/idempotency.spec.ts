import { createHash } from 'node:crypto';
import { Client } from 'pg';
import type { OpenAPIObject } from '@nestjs/swagger';
import { documentIdempotencyKey, IdempotencyPurger } from '@dtp/database';
import { IDEMPOTENCY_KEY_IN_USE } from '@dtp/domain';
import type { DiamondV1, InboundShipment } from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { call, outboxRows, PlatformFixture, register, roughBody, startPlatform } from './helpers';
import { knownParticipant } from './shipments-helpers';

type Json = Record<string, unknown>;

interface Answer {
  status: number;
  body: Json;
  replayed: string | null;
}

let seq = 0;
/** A fresh key per use: no two tests share one. */
const newKey = (label = 'k') => `${label}-${process.pid}-${Date.now().toString(36)}-${++seq}`;

describe('Idempotency-Key on platform (POST/PATCH)', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;
  let other: ParticipantWithToken;
  let maker: ParticipantWithToken;

  /** A JSON call with an Idempotency-Key (raw header value). */
  async function keyed(method: string, path: string, who: ParticipantWithToken, key: string | null, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { authorization: who.token };
    if (key !== null) headers['idempotency-key'] = key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${f.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Json), replayed: res.headers.get('idempotency-replayed') };
  }

  const registerKeyed = (who: ParticipantWithToken, key: string | null, body: Json) => keyed('POST', '/diamonds/rough/create', who, key, body);

  async function diamondsWith(participantId: string): Promise<number> {
    const { rows } = await f.db.query<{ n: string }>(`SELECT count(*) AS n FROM diamonds WHERE participant_id = $1`, [participantId]);
    return Number(rows[0].n);
  }

  async function storedKeys(key: string): Promise<{ participant_id: string; status: number }[]> {
    const { rows } = await f.db.query(`SELECT participant_id, status FROM idempotency_keys WHERE idempotency_key = $1 ORDER BY participant_id`, [key]);
    return rows;
  }

  beforeAll(async () => {
    f = await startPlatform({ FILE_SIZE_LIMIT_BYTES: String(64 * 1024) });
    producer = await knownParticipant(f, 'producer');
    other = await knownParticipant(f, 'producer');
    maker = await knownParticipant(f, 'manufacturer');
  });
  afterAll(async () => {
    await f?.close();
  });

  describe('registration (POST /diamonds/rough/create)', () => {
    it('a retry with the same key and body gets the first answer (Idempotency-Replayed) and registers nothing again', async () => {
      const key = newKey();
      const body = roughBody({ rough: { carats: 1.5, colour: 'G' }, sight_no: 3 });
      const first = await registerKeyed(producer, key, body);
      expect(first.status).toBe(200);
      expect(first.replayed).toBeNull();
      // The same JSON value with its members in another order is the same request.
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const again = await registerKeyed(producer, key, reordered);
      expect(again).toEqual({ status: 200, body: first.body, replayed: 'true' });
      const third = await registerKeyed(producer, `"${key}"`, body); // the draft's quoted form: the same key
      expect(third).toEqual({ status: 200, body: first.body, replayed: 'true' });
      expect(await diamondsWith(body.participant_id as string)).toBe(1);
      expect(await outboxRows(f, (first.body as unknown as DiamondV1).diamond_id)).toHaveLength(1);
      expect(await storedKeys(key)).toEqual([{ participant_id: producer.participant_id, status: 200 }]);
    });

    it('the same key with another body: 422 naming the header, and nothing registered', async () => {
      const key = newKey();
      const body = roughBody();
      expect((await registerKeyed(producer, key, body)).status).toBe(200);
      const otherBody = roughBody();
      const res = await registerKeyed(producer, key, otherBody);
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['header', 'Idempotency-Key'], msg: expect.stringContaining('different request'), type: 'idempotency_key_reused' },
      ]);
      expect(await diamondsWith(otherBody.participant_id as string)).toBe(0);
      // Another path (here: the query) with the same key and body is another request too.
      expect((await keyed('POST', '/diamonds/rough/create?retry=1', producer, key, body)).status).toBe(422);
    });

    it('a malformed key: 422 naming the header, before anything runs', async () => {
      const body = roughBody();
      for (const bad of ['', 'x'.repeat(256), 'caf\u00e9', '"unterminated']) {
        const res = await registerKeyed(producer, bad, body);
        expect(res.status).toBe(422);
        expect(res.body.detail).toEqual([{ loc: ['header', 'Idempotency-Key'], msg: expect.any(String), type: 'idempotency_key_invalid' }]);
      }
      expect(await diamondsWith(body.participant_id as string)).toBe(0);
      expect((await registerKeyed(producer, 'x'.repeat(255), body)).status).toBe(200);
    });

    it('without the header nothing changes: a second registration is the usual 409, and no answer is stored', async () => {
      const { rows: before } = await f.db.query<{ n: string }>(`SELECT count(*) AS n FROM idempotency_keys`);
      const body = roughBody();
      const first = await registerKeyed(producer, null, body);
      expect(first.status).toBe(200);
      expect(first.replayed).toBeNull();
      const second = await registerKeyed(producer, null, body);
      expect(second.status).toBe(409);
      expect(second.body.reason).toBe('diamond_not_unique');
      const { rows: after } = await f.db.query<{ n: string }>(`SELECT count(*) AS n FROM idempotency_keys`);
      expect(after[0].n).toBe(before[0].n);
    });

    it('a 409 of the handler is the first answer: replayed, even after the conflict is gone', async () => {
      const body = roughBody();
      const existing = await register(f, producer, body);
      const key = newKey();
      const conflict = await registerKeyed(producer, key, body);
      expect(conflict.status).toBe(409);
      expect(conflict.body.reason).toBe('diamond_not_unique');
      // Remove the diamond: the same request without a key would now succeed, but the key's answer stays.
      const del = await call<{ results: { status: string }[] }>(f, 'POST', '/bulk/diamonds/delete', producer.token, {
        diamonds: [{ diamond_id: existing.diamond_id }],
      });
      expect(del.body.results[0].status).toBe('success');
      const replay = await registerKeyed(producer, key, body);
      expect(replay).toEqual({ status: 409, body: conflict.body, replayed: 'true' });
      expect(await diamondsWith(body.participant_id as string)).toBe(0);
    });

    it('a 422 of the validation pipe is not stored: the corrected request may use the same key', async () => {
      const key = newKey();
      const body = roughBody();
      const invalid = await registerKeyed(producer, key, { ...body, rough: { carats: 'heavy' } });
      expect(invalid.status).toBe(422);
      expect(await storedKeys(key)).toEqual([]);
      const fixed = await registerKeyed(producer, key, body);
      expect(fixed.status).toBe(200);
      expect(fixed.replayed).toBeNull();
      expect(await diamondsWith(body.participant_id as string)).toBe(1);
    });

    it('keys are per participant: another participant with the same key is a request of its own', async () => {
      const key = newKey();
      const mine = roughBody();
      const theirs = roughBody();
      const a = await registerKeyed(producer, key, mine);
      const b = await registerKeyed(other, key, theirs);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(b.replayed).toBeNull();
      expect(b.body.participant_id).toBe(theirs.participant_id);
      expect(b.body.diamond_id).not.toBe(a.body.diamond_id);
      expect(await diamondsWith(theirs.participant_id as string)).toBe(1);
      expect((await storedKeys(key)).map((r) => r.participant_id).sort()).toEqual([producer.participant_id, other.participant_id].sort());
    });

    it('two requests with one key at once: exactly one registration; the other gets 409 idempotency_key_in_use or the replay', async () => {
      const key = newKey();
      const body = roughBody();
      const answers = await Promise.all([1, 2, 3, 4].map(() => registerKeyed(producer, key, body)));
      expect(await diamondsWith(body.participant_id as string)).toBe(1);
      const ok = answers.filter((a) => a.status === 200);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      expect(ok.filter((a) => a.replayed === null)).toHaveLength(1);
      for (const a of ok) expect(a.body).toEqual(ok[0].body);
      for (const a of answers.filter((x) => x.status !== 200)) expect(a).toMatchObject({ status: 409, body: { reason: IDEMPOTENCY_KEY_IN_USE } });
    });

    it('while the first request holds the key: 409 {message, reason: "idempotency_key_in_use"} at once, nothing stored', async () => {
      const key = newKey();
      const body = roughBody();
      const holder = new Client({ connectionString: f.stack.databases.platform });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        const { rows } = await holder.query(`SELECT pg_try_advisory_xact_lock(${0x1de7}, hashtext($1)) AS locked`, [`${producer.participant_id}\n${key}`]);
        expect(rows[0].locked).toBe(true);
        const started = Date.now();
        const res = await registerKeyed(producer, key, body);
        expect(Date.now() - started).toBeLessThan(2000);
        expect(res.status).toBe(409);
        expect(res.body).toEqual({ message: expect.stringContaining('still being processed'), reason: IDEMPOTENCY_KEY_IN_USE });
        expect(await diamondsWith(body.participant_id as string)).toBe(0);
        await holder.query('ROLLBACK');
      } finally {
        await holder.end();
      }
      expect(await storedKeys(key)).toEqual([]);
      expect((await registerKeyed(producer, key, body)).status).toBe(200);
    });

    it('answers older than 24 hours are not replayed, and the purge deletes them', async () => {
      const key = newKey();
      const first = roughBody();
      expect((await registerKeyed(producer, key, first)).status).toBe(200);
      await f.db.query(`UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE idempotency_key = $1`, [key]);
      // Expired: the key is free again, even for another body.
      const second = roughBody();
      const res = await registerKeyed(producer, key, second);
      expect(res.status).toBe(200);
      expect(res.replayed).toBeNull();
      expect(await diamondsWith(second.participant_id as string)).toBe(1);
      expect(await storedKeys(key)).toHaveLength(1);

      const stale = newKey();
      expect((await registerKeyed(producer, stale, roughBody())).status).toBe(200);
      await f.db.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE idempotency_key = $1`, [stale]);
      const purger = f.stack.services.platform!.app.get(IdempotencyPurger);
      expect(await purger.purge()).toBeGreaterThanOrEqual(1);
      expect(await storedKeys(stale)).toEqual([]);
      expect(await storedKeys(key)).toHaveLength(1); // fresh: kept
    });
  });

  describe('lifecycle (POST /diamonds/{id}/destroy)', () => {
    it('a retried destroy replays its 200 instead of the 409 illegal_transition a second destroy gets', async () => {
      const d = await register(f, maker);
      const key = newKey();
      const path = `/diamonds/${d.diamond_id}/destroy`;
      const first = await keyed('POST', path, maker, key, { participant_timestamp: '2024-05-01T10:00:00Z' });
      expect(first.status).toBe(200);
      expect(first.body.lifecycle_state).toBe('destroyed');
      const again = await keyed('POST', path, maker, key, { participant_timestamp: '2024-05-01T10:00:00Z' });
      expect(again).toEqual({ status: 200, body: first.body, replayed: 'true' });
      expect(await outboxRows(f, d.diamond_id)).toHaveLength(2); // registered, destroyed
      expect((await keyed('POST', path, maker, null, { participant_timestamp: '2024-05-01T10:00:00Z' })).status).toBe(409);
    });
  });

  describe('transfer (POST /v2/transfer/out, /v2/transfer/in/{id}/accept)', () => {
    it('a retried transfer out creates one shipment; a retried accept replays its 200 (not 409 not_pending)', async () => {
      const d = await register(f, producer);
      const outKey = newKey('out');
      const out = { recipient_participant_id: maker.participant_id, name: 'idem', shipment_type: 'rough', diamond_ids: [d.diamond_id] };
      const sent = await keyed('POST', '/v2/transfer/out', producer, outKey, out);
      expect(sent.status).toBe(201);
      expect(await keyed('POST', '/v2/transfer/out', producer, outKey, out)).toEqual({ status: 201, body: sent.body, replayed: 'true' });
      const { rows } = await f.db.query(`SELECT shipment_id FROM shipment_diamonds WHERE diamond_id = $1`, [d.diamond_id]);
      expect(rows).toHaveLength(1);

      const shipmentId = (sent.body as unknown as InboundShipment).id;
      const key = newKey('accept');
      const path = `/v2/transfer/in/${shipmentId}/accept`;
      const accepted = await keyed('POST', path, maker, key, { diamond_ids: [d.diamond_id] });
      expect(accepted.status).toBe(200);
      const replay = await keyed('POST', path, maker, key, { diamond_ids: [d.diamond_id] });
      expect(replay).toEqual({ status: 200, body: accepted.body, replayed: 'true' });
      const events = (await outboxRows(f, shipmentId)).filter((r) => r.event_type === 'shipment.changed');
      expect(events).toHaveLength(2); // sent, accepted
      expect((await keyed('POST', path, maker, null, { diamond_ids: [d.diamond_id] })).body.reason).toBe('not_pending');
    });
  });

  describe('files (POST /diamonds/{id}/files/{kind}, multipart)', () => {
    async function upload(diamondId: string, key: string | null, bytes: Buffer, fields: Record<string, string> = {}): Promise<Answer> {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append('file', new Blob([bytes], { type: 'image/jpeg' }), 'front.jpg');
      const headers: Record<string, string> = { authorization: producer.token };
      if (key !== null) headers['idempotency-key'] = key;
      // Each call builds its form anew: fetch picks a new multipart boundary every time.
      const res = await fetch(`${f.url}/diamonds/${diamondId}/files/image`, { method: 'POST', headers, body: form });
      return { status: res.status, body: (await res.json()) as Json, replayed: res.headers.get('idempotency-replayed') };
    }

    async function imageCount(diamondId: string): Promise<number> {
      const rows = (await outboxRows(f, diamondId)).filter((r) => r.event_type === 'diamond.upserted');
      const images = (rows[rows.length - 1].payload!.data as unknown as DiamondV1).polished?.images ?? [];
      return images.length;
    }

    it('a retried upload (same parts, new boundary) replays its 201 and attaches the file once', async () => {
      const d = await register(f, producer);
      const bytes = Buffer.from(`photo of ${d.diamond_id}`);
      const key = newKey('file');
      const first = await upload(d.diamond_id, key, bytes, { description: 'table', image_type: 'front' });
      expect(first.status).toBe(201);
      expect(first.body.hash).toBe(createHash('sha256').update(bytes).digest('hex'));
      const again = await upload(d.diamond_id, key, bytes, { description: 'table', image_type: 'front' });
      expect(again).toEqual({ status: 201, body: first.body, replayed: 'true' });
      expect(await imageCount(d.diamond_id)).toBe(1);
      expect(await outboxRows(f, d.diamond_id)).toHaveLength(2);
    });

    it('the same key with other bytes or another field: 422, nothing attached', async () => {
      const d = await register(f, producer);
      const key = newKey('file');
      expect((await upload(d.diamond_id, key, Buffer.from('one'), { description: 'a' })).status).toBe(201);
      const otherBytes = await upload(d.diamond_id, key, Buffer.from('two'), { description: 'a' });
      expect(otherBytes.status).toBe(422);
      expect(otherBytes.body.detail).toEqual([expect.objectContaining({ loc: ['header', 'Idempotency-Key'], type: 'idempotency_key_reused' })]);
      expect((await upload(d.diamond_id, key, Buffer.from('one'), { description: 'b' })).status).toBe(422);
      expect(await imageCount(d.diamond_id)).toBe(1);
    });

    it('a 404 answered before the body was read is stored with the digest of the whole body, and replayed', async () => {
      const missing = '0'.repeat(26);
      const key = newKey('file');
      const first = await upload(missing, key, Buffer.from('bytes'));
      expect(first.status).toBe(404);
      expect(await upload(missing, key, Buffer.from('bytes'))).toEqual({ status: 404, body: first.body, replayed: 'true' });
      expect((await upload(missing, key, Buffer.from('other bytes'))).status).toBe(422);
    });

    it('concurrent uploads with one key: the file is attached once', async () => {
      const d = await register(f, producer);
      const key = newKey('file');
      const bytes = Buffer.alloc(32 * 1024, 7);
      const answers = await Promise.all([1, 2, 3].map(() => upload(d.diamond_id, key, bytes)));
      expect(await imageCount(d.diamond_id)).toBe(1);
      expect(answers.filter((a) => a.status === 201 && a.replayed === null)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 201)) expect(a).toMatchObject({ status: 409, body: { reason: IDEMPOTENCY_KEY_IN_USE } });
    });
  });

  describe('share (POST /diamonds/{id}/share, optional body)', () => {
    it('a retry without a body replays the first link: the body read as {} after the key was taken is not another request', async () => {
      const d = await register(f, producer, { participant_id: `share-${newKey()}` });
      for (const contentType of [undefined, 'application/json']) {
        const key = newKey('share');
        const send = async () => {
          const headers: Record<string, string> = { authorization: producer.token, 'idempotency-key': key };
          if (contentType) headers['content-type'] = contentType;
          const res = await fetch(`${f.url}/diamonds/${d.diamond_id}/share`, { method: 'POST', headers });
          return { status: res.status, body: (await res.json()) as Json, replayed: res.headers.get('idempotency-replayed') };
        };
        const first = await send();
        expect([contentType, first.status, first.replayed]).toEqual([contentType, 201, null]);
        // Until 2026-12-07: 422 idempotency_key_reused (stored with the digest of {}, compared with none).
        const again = await send();
        expect([contentType, again.status, again.replayed]).toEqual([contentType, 201, 'true']);
        expect(again.body).toEqual(first.body);
      }
      // A body that differs is still another request.
      const key = newKey('share');
      expect((await keyed('POST', `/diamonds/${d.diamond_id}/share`, producer, key)).status).toBe(201);
      expect((await keyed('POST', `/diamonds/${d.diamond_id}/share`, producer, key, { expires_at: '2999-01-01T00:00:00Z' })).status).toBe(422);
    });
  });

  describe('graded measurements (PATCH select)', () => {
    it('a retried PATCH replays its answer and makes one new version', async () => {
      const d = await register(f, producer);
      const created = await keyed('POST', `/diamonds/${d.diamond_id}/graded-measurements`, producer, newKey('gm'), { carats: 1.01, colour: 'F' });
      expect(created.status).toBe(201);
      const key = newKey('select');
      const path = `/diamonds/${d.diamond_id}/${created.body.id as string}/select`;
      const first = await keyed('PATCH', path, producer, key);
      expect(first.status).toBe(200);
      expect(await keyed('PATCH', path, producer, key)).toEqual({ status: 200, body: first.body, replayed: 'true' });
      expect(await outboxRows(f, d.diamond_id)).toHaveLength(2); // registered, selected
    });
  });

  describe('OpenAPI: documentIdempotencyKey', () => {
    it('adds the optional header and the 409/422 answers to every POST and PATCH, and to nothing else', async () => {
      const doc = (await (await fetch(`${f.url}/docs/json`)).json()) as OpenAPIObject;
      const copy = structuredClone(doc);
      const out = documentIdempotencyKey(doc);
      expect(doc).toEqual(copy); // not changed in place
      let documented = 0;
      for (const [path, item] of Object.entries(out.paths)) {
        for (const [method, op] of Object.entries(
          item as Record<string, { parameters?: { name: string; in: string; required?: boolean }[]; responses: Record<string, Json> }>,
        )) {
          const header = op.parameters?.find((p) => p.name === 'Idempotency-Key');
          if (method === 'post' || method === 'patch') {
            expect({ path, method, header }).toEqual({ path, method, header: expect.objectContaining({ in: 'header', required: false }) });
            expect(op.responses['409']).toBeDefined();
            expect(op.responses['422']).toBeDefined();
            documented += 1;
          } else {
            expect({ path, method, header }).toEqual({ path, method, header: undefined });
          }
        }
      }
      expect(documented).toBeGreaterThanOrEqual(13);
      expect(out.components?.schemas?.IdempotencyKeyInUseResponse).toMatchObject({ properties: { reason: { enum: [IDEMPOTENCY_KEY_IN_USE] } } });
      expect(documentIdempotencyKey(out)).toEqual(out); // applying it twice adds nothing
    });
  });
});
