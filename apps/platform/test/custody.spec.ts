import { generateKeyPairSync } from 'node:crypto';
import {
  CUSTODY_EVENT_MAX_ENTRIES,
  CustodyCheckpoint,
  CustodyCheckpointData,
  entryHash,
  makeEnvelope,
  recordSha256,
  Topics,
  validateEnvelope,
} from '@dtp/domain';
import type { CustodyEntry, DiamondV1, GradingDataView } from '@dtp/domain';
import { loadConfig, ServiceMetrics } from '@dtp/service-kit';
import { Gauge } from 'prom-client';
import type { ParticipantWithToken } from '@dtp/testing';
import { Client } from 'pg';
import { PlatformConfig } from '../src/config';
import { ParticipantDirectory } from '../src/participants/participant-directory';
import { CHECKPOINTS_PER_ROUND, CustodyCheckpointer } from '../src/custody/custody-checkpointer';
import { custodyInsert } from '../src/custody/custody-entry';
import { call, outboxRows, PlatformFixture, register, roughBody, startPlatform, waitFor } from './helpers';
import { decide, knownParticipant, ship } from './shipments-helpers';
import { entriesOf, entryCount, EntryRow, head, publishedRecords, recomputedRoot, verifyCheckpoint } from './custody-helpers';

const TS = '2024-05-01T10:00:00Z';
const LOG_ID = 'https://platform.example/custody-test';
const { privateKey } = generateKeyPairSync('ed25519');
const SIGNING_JWK = { ...privateKey.export({ format: 'jwk' }), kid: 'test-custody-key-1' };

describe('custody log: one entry per change, in the same transaction', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;
  let maker: ParticipantWithToken;
  const checkpointer = () => f.stack.services.platform!.app.get(CustodyCheckpointer);

  beforeAll(async () => {
    f = await startPlatform({ CUSTODY_SIGNING_KEY: JSON.stringify(SIGNING_JWK), CUSTODY_LOG_ID: LOG_ID, CUSTODY_CHECKPOINT_INTERVAL_MS: '10000' });
    // These tests checkpoint with checkpointNow() and count what each call made: the timer's ticks (every 10 s, the
    // longest allowed) would race them, so it is stopped here, as the application's close stops it.
    await checkpointer().onModuleDestroy();
    producer = await knownParticipant(f, 'producer', { provenance: { name: 'Karowe', type: 'mine', country_code: 'BW' } });
    maker = await knownParticipant(f, 'manufacturer');
  });
  afterAll(async () => {
    await f?.close();
  });

  /**
   * The diamond's chain is whole: each entry links to the one before, each published record has exactly one entry
   * (same version, occurred_at = its system_timestamp, record_sha256 = hash of that record), the head is the last.
   */
  async function checkChain(diamondId: string, firstPrev: string | null = null): Promise<EntryRow[]> {
    const entries = await entriesOf(f, diamondId);
    const records = await publishedRecords(f, diamondId);
    const live = entries.filter((e) => e.action !== 'deleted');
    expect(live.map((e) => e.version_id)).toEqual(records.map((r) => r.version_id));
    live.forEach((e, i) => {
      expect(e.record_sha256).toBe(recordSha256(records[i]));
      expect(e.occurred_at).toBe(records[i].system_timestamp);
    });
    entries.forEach((e, i) => expect(e.prev_entry_hash).toBe(i === 0 ? firstPrev : entries[i - 1].entry_hash));
    if (entries.at(-1)?.action !== 'deleted') expect(await head(f, diamondId)).toBe(entries.at(-1)!.entry_hash);
    return entries;
  }

  it('registration: a root entry `registered` by the caller, hashing exactly the record answered and published', async () => {
    const d = await register(f, producer);
    const [e, ...more] = await checkChain(d.diamond_id);
    expect(more).toEqual([]);
    expect(e).toMatchObject({
      diamond_id: d.diamond_id,
      version_id: d.version_id,
      action: 'registered',
      actor_participant_id: producer.participant_id,
      occurred_at: d.system_timestamp,
      record_sha256: recordSha256(d),
      prev_entry_hash: null,
      leaf_index: null,
      context: null,
    });
  });

  it('file attached, graded measurement selected and deselected, unlocked: one entry each, linked, by the holder', async () => {
    const d = await register(f, producer);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from(`photo ${d.diamond_id}`)], { type: 'image/jpeg' }), 'front.jpg');
    const up = await fetch(`${f.url}/diamonds/${d.diamond_id}/files/image`, { method: 'POST', headers: { authorization: producer.token }, body: form });
    expect(up.status).toBe(201);
    const gm = await call<GradingDataView>(f, 'POST', `/diamonds/${d.diamond_id}/graded-measurements`, producer.token, { carats: 1.01, colour: 'E' });
    expect(gm.status).toBe(201);
    expect((await call(f, 'PATCH', `/diamonds/${d.diamond_id}/${gm.body.id}/select`, producer.token)).status).toBe(200);
    expect((await call(f, 'PATCH', `/diamonds/${d.diamond_id}/${gm.body.id}/deselect`, producer.token)).status).toBe(200);
    const unlocked = await call<DiamondV1>(f, 'POST', `/diamonds/${d.diamond_id}/unlock`, producer.token);
    expect(unlocked.status).toBe(200);
    // idempotent unlock: no new version, no new entry
    expect((await call(f, 'POST', `/diamonds/${d.diamond_id}/unlock`, producer.token)).status).toBe(200);
    const entries = await checkChain(d.diamond_id);
    expect(entries.map((e) => [e.action, e.actor_participant_id])).toEqual([
      ['registered', producer.participant_id],
      ['file_attached', producer.participant_id],
      ['grading_selected', producer.participant_id],
      ['grading_deselected', producer.participant_id],
      ['unlocked', producer.participant_id],
    ]);
    // The selected grading is part of the hashed record (the API's answer equals the published record).
    expect(entries[4].record_sha256).toBe(recordSha256(unlocked.body));
  });

  it('shipped, accepted and rejected: entries by sender and recipient, the other party and shipment as context', async () => {
    const a = await register(f, producer);
    const b = await register(f, producer);
    const s1 = await ship(f, producer, maker.participant_id, 'rough', [a.diamond_id]);
    expect((await decide(f, maker, s1.id, 'accept', [a.diamond_id])).status).toBe(200);
    const s2 = await ship(f, producer, maker.participant_id, 'rough', [b.diamond_id]);
    expect((await decide(f, maker, s2.id, 'reject', [b.diamond_id])).status).toBe(200);
    const ea = await checkChain(a.diamond_id);
    const eb = await checkChain(b.diamond_id);
    expect(ea.map((e) => [e.action, e.actor_participant_id, e.context])).toEqual([
      ['registered', producer.participant_id, null],
      ['shipped', producer.participant_id, { shipment_id: s1.id, counterparty_participant_id: maker.participant_id }],
      ['accepted', maker.participant_id, { shipment_id: s1.id, counterparty_participant_id: producer.participant_id }],
    ]);
    expect(eb.map((e) => [e.action, e.actor_participant_id, e.context])).toEqual([
      ['registered', producer.participant_id, null],
      ['shipped', producer.participant_id, { shipment_id: s2.id, counterparty_participant_id: maker.participant_id }],
      ['rejected', maker.participant_id, { shipment_id: s2.id, counterparty_participant_id: producer.participant_id }],
    ]);
  });

  it("polish, split, destroy: the parent's entry, then each child's first entry links to it (the chain reaches the mine)", async () => {
    const rough = await register(f, maker, { rough: { carats: '3.00' } });
    const polished = await call<DiamondV1>(f, 'POST', '/diamonds/polished/create', maker.token, {
      parent_diamond_id: rough.diamond_id,
      participant_id: 'POL-C1',
      participant_timestamp: TS,
      polished: { carats: '0.71', shape: 'Oval', colour: 'G', clarity: 'VS2', cut_grade: 'VG' },
    });
    expect(polished.status).toBe(200);
    const parentEntries = await checkChain(rough.diamond_id);
    expect(parentEntries.map((e) => e.action)).toEqual(['registered', 'polished']);
    const [child] = await checkChain(polished.body.diamond_id, parentEntries[1].entry_hash);
    expect(child).toMatchObject({ action: 'registered', actor_participant_id: maker.participant_id, record_sha256: recordSha256(polished.body) });

    const rough2 = await register(f, maker, { rough: { carats: '3.00' } });
    const split = await call<{ parent: DiamondV1; cuts: DiamondV1[] }>(f, 'POST', `/diamonds/${rough2.diamond_id}/split`, maker.token, {
      participant_timestamp: TS,
      cuts: [
        { participant_id: 'CUT-1', rough: { carats: 1 } },
        { participant_id: 'CUT-2', rough: { carats: 1 } },
      ],
    });
    expect(split.status).toBe(200);
    const splitEntries = await checkChain(rough2.diamond_id);
    expect(splitEntries.map((e) => e.action)).toEqual(['registered', 'split']);
    for (const cut of split.body.cuts) {
      const [first] = await checkChain(cut.diamond_id, splitEntries[1].entry_hash);
      expect(first).toMatchObject({ action: 'registered', record_sha256: recordSha256(cut) });
    }
    const destroyed = await call<DiamondV1>(f, 'POST', `/diamonds/${split.body.cuts[0].diamond_id}/destroy`, maker.token, {});
    expect(destroyed.status).toBe(200);
    const cutEntries = await checkChain(split.body.cuts[0].diamond_id, splitEntries[1].entry_hash);
    expect(cutEntries.at(-1)).toMatchObject({ action: 'destroyed', actor_participant_id: maker.participant_id, record_sha256: recordSha256(destroyed.body) });
  });

  it('deleted: an entry per removed diamond (hash of {diamond_id}, fresh version), linked to its last; the log keeps them', async () => {
    const rough = await register(f, maker, { rough: { carats: '3.00' } });
    const split = await call<{ cuts: DiamondV1[] }>(f, 'POST', `/diamonds/${rough.diamond_id}/split`, maker.token, {
      cuts: [
        { participant_id: 'DEL-1', rough: { carats: 1 } },
        { participant_id: 'DEL-2', rough: { carats: 1 } },
      ],
    });
    expect(split.status).toBe(200);
    const before = await entriesOf(f, rough.diamond_id);
    const cutBefore = await entriesOf(f, split.body.cuts[0].diamond_id);
    const cut2Before = await entriesOf(f, split.body.cuts[1].diamond_id);
    const res = await call(f, 'POST', '/bulk/diamonds/delete', maker.token, { diamonds: [{ diamond_id: rough.diamond_id, delete_descendants: true }] });
    expect(res).toMatchObject({ status: 200, body: { results: [{ status: 'success' }] } });
    const removed = [
      [rough.diamond_id, before],
      [split.body.cuts[0].diamond_id, cutBefore],
      [split.body.cuts[1].diamond_id, cut2Before],
    ] as const;
    for (const [id, prior] of removed) {
      const all = await entriesOf(f, id);
      expect(all.slice(0, -1)).toEqual(prior);
      const last = all.at(-1)!;
      expect(last).toMatchObject({
        action: 'deleted',
        actor_participant_id: maker.participant_id,
        record_sha256: recordSha256({ diamond_id: id }),
        prev_entry_hash: prior.at(-1)!.entry_hash,
      });
      expect(prior.map((e) => e.version_id)).not.toContain(last.version_id);
    }
  });

  it('record_updated without an actor: gis_status from GIS', async () => {
    const d = await register(f, producer);
    const envelope = makeEnvelope({ event_type: 'eligibility.changed', data: { diamond_id: d.diamond_id, gis_status: 'eligible' }, revision: 1 });
    await f.stack.transport.publish([{ topic: Topics.GIS_ELIGIBILITY, key: d.diamond_id, value: envelope }]);
    await waitFor('gis_status', async () => (await entriesOf(f, d.diamond_id)).length === 2);
    const entries = await checkChain(d.diamond_id);
    expect(entries[1]).toMatchObject({ action: 'record_updated', actor_participant_id: null });
  });

  it("record_updated without an actor: provenance confirmed by the producer's onboarding event", async () => {
    const late = await knownParticipant(f, 'producer', { provenance: { name: 'Late', type: 'mine', country_code: 'CA' } });
    // Make platform forget the participant, as if its onboarding event had not been consumed yet (registration.spec).
    await f.db.query(`DELETE FROM participants WHERE participant_id = $1`, [late.participant_id]);
    await f.db.query(`DELETE FROM consumer_state WHERE key = $1`, [late.participant_id]);
    f.stack.services.platform!.app.get(ParticipantDirectory).forget(late.participant_id);
    const d = await register(f, late);
    const auth = new Client({ connectionString: f.stack.databases.auth });
    await auth.connect();
    const { rows } = await auth.query<{ payload: unknown }>(`SELECT payload FROM outbox WHERE key = $1`, [late.participant_id]);
    await auth.end();
    await f.stack.transport.publish([{ topic: Topics.AUTH_PARTICIPANTS, key: late.participant_id, value: rows[0].payload }]);
    await waitFor('provenance confirmed', async () => (await entriesOf(f, d.diamond_id)).length === 2);
    const entries = await checkChain(d.diamond_id);
    expect(entries.map((e) => [e.action, e.actor_participant_id])).toEqual([
      ['registered', late.participant_id],
      ['record_updated', null],
    ]);
  });

  it('a change that fails leaves no entry: duplicate registration, overweight split, a split failing half-way', async () => {
    const d = await register(f, maker, { rough: { carats: '1.00' } });
    const n = await entryCount(f);
    expect((await call(f, 'POST', '/diamonds/rough/create', maker.token, roughBody({ participant_id: d.participant_id }))).status).toBe(409);
    const heavy = await call(f, 'POST', `/diamonds/${d.diamond_id}/split`, maker.token, {
      cuts: [
        { participant_id: 'X', rough: { carats: 3 } },
        { participant_id: 'Y', rough: { carats: 3 } },
      ],
    });
    expect(heavy.status).toBe(409);
    // A split failing half-way: its second cut collides with a sibling planted in the database, after the parent's
    // change and the first cut (with their entries) were written in the same transaction: all of it rolls back.
    const clash = `zz${Date.now().toString(36)}clash${process.pid}`.padEnd(26, '0').slice(0, 26);
    await f.db.query(`CREATE TEMP TABLE planted AS SELECT * FROM diamonds WHERE diamond_id = $1`, [d.diamond_id]);
    await f.db.query(
      `UPDATE planted SET diamond_id = $1, legacy_id = gen_random_uuid(), box_scope = 'parent:' || $2, participant_id = 'CLASH', custody_head = NULL`,
      [clash, d.diamond_id],
    );
    await f.db.query(`INSERT INTO diamonds SELECT * FROM planted`);
    const dup = await call(f, 'POST', `/diamonds/${d.diamond_id}/split`, maker.token, {
      cuts: [
        { participant_id: 'FINE', rough: { carats: 0.2 } },
        { participant_id: 'CLASH', rough: { carats: 0.2 } },
      ],
    });
    expect(dup).toMatchObject({ status: 409, body: { reason: 'diamond_not_unique' } });
    await f.db.query(`DELETE FROM diamonds WHERE diamond_id = $1`, [clash]);
    expect(await entryCount(f)).toBe(n);
    expect(await head(f, d.diamond_id)).toBe((await entriesOf(f, d.diamond_id))[0].entry_hash);
  });

  it('checkpoints: contiguous leaf indices from 0 in spite of rollbacks and concurrency, root = the RFC 9162 root of the entries, signed', async () => {
    await Promise.all(Array.from({ length: 24 }, () => register(f, producer)));
    const { locked, checkpoints } = await checkpointer().checkpointNow();
    expect(locked).toBe(false);
    expect(checkpoints.length).toBeGreaterThan(0);
    const latest = checkpoints.at(-1)!;
    const total = await entryCount(f);
    expect(latest.tree_size).toBe(total);
    const { rows } = await f.db.query<{ leaf_index: string }>(`SELECT leaf_index FROM custody_entries ORDER BY leaf_index`);
    expect(rows.map((r) => Number(r.leaf_index))).toEqual(Array.from({ length: total }, (_v, i) => i));
    // ... although the sequence skipped the rolled-back entries
    expect(Number((await f.db.query<{ m: string }>(`SELECT max(seq) AS m FROM custody_entries`)).rows[0].m)).toBeGreaterThan(total);
    expect(latest.root_hash).toBe(await recomputedRoot(f, latest.tree_size));
    expect(latest.log_id).toBe(LOG_ID);
    expect(await verifyCheckpoint(f, latest)).toEqual({ alg: 'EdDSA', kid: SIGNING_JWK.kid });
    // Nothing pending: no new checkpoint.
    expect((await checkpointer().checkpointNow()).checkpoints).toEqual([]);
  });

  it('publishes one custody.checkpoint per checkpoint: valid envelope, revision = number, key = log_id, its entries in order', async () => {
    const d = await register(f, producer);
    const { checkpoints } = await checkpointer().checkpointNow();
    expect(checkpoints).toHaveLength(1);
    const events = (await outboxRows(f, LOG_ID)).filter((r) => r.event_type === 'custody.checkpoint');
    const { rows } = await f.db.query<{ number: string }>(`SELECT number FROM custody_checkpoints ORDER BY number`);
    expect(events.map((e) => Number(e.revision))).toEqual(rows.map((r) => Number(r.number)));
    const last = events.at(-1)!;
    expect(validateEnvelope(Topics.PLATFORM_CUSTODY, last.payload)).toMatchObject({ ok: true });
    const data = last.payload!.data as unknown as CustodyCheckpointData;
    expect(data.checkpoint).toEqual(checkpoints[0]);
    const [entry] = await entriesOf(f, d.diamond_id);
    expect(data.entries).toEqual([
      {
        entry: {
          diamond_id: d.diamond_id,
          version_id: d.version_id,
          action: 'registered',
          actor_participant_id: producer.participant_id,
          occurred_at: d.system_timestamp,
          record_sha256: recordSha256(d),
          prev_entry_hash: null,
        },
        entry_hash: entry.entry_hash,
        leaf_index: checkpoints[0].tree_size - 1,
      },
    ]);
    expect(entryHash(data.entries[0].entry)).toBe(data.entries[0].entry_hash);
    // Every event's entries continue where the previous checkpoint ended.
    let size = 0;
    for (const e of events) {
      const c = e.payload!.data as unknown as CustodyCheckpointData;
      expect(c.entries.map((x) => x.leaf_index)).toEqual(Array.from({ length: c.checkpoint.tree_size - size }, (_v, i) => size + i));
      size = c.checkpoint.tree_size;
    }
  });

  it(`more than ${CUSTODY_EVENT_MAX_ENTRIES} pending entries: several checkpoints in one call, each event within the limit`, async () => {
    const before = (await checkpointer().checkpointNow()).checkpoints;
    expect(before).toEqual([]);
    await Promise.all(
      Array.from({ length: 4 }, (_v, i) => Promise.all(Array.from({ length: 70 }, (_w, j) => register(f, producer, { box_id: `BULK-${i}-${j}` })))),
    );
    const { checkpoints } = await checkpointer().checkpointNow();
    expect(checkpoints).toHaveLength(2);
    const events = (await outboxRows(f, LOG_ID)).slice(-2).map((e) => e.payload!.data as unknown as CustodyCheckpointData);
    expect(events.map((e) => e.entries.length)).toEqual([CUSTODY_EVENT_MAX_ENTRIES, 280 - CUSTODY_EVENT_MAX_ENTRIES]);
    for (const c of checkpoints) expect(c.root_hash).toBe(await recomputedRoot(f, c.tree_size));
    expect(await metric(f, 'custody_pending_entries')).toBe(0);
    expect(await metric(f, 'custody_tree_size')).toBe(checkpoints[1].tree_size);
    expect(await metric(f, 'custody_checkpoints_total')).toBeGreaterThanOrEqual(3);
  });

  it(`a backlog past ${CHECKPOINTS_PER_ROUND} checkpoints: several transactions in one drain, every root the tree's, leaves in seq order`, async () => {
    expect((await checkpointer().checkpointNow()).checkpoints).toEqual([]);
    const sizeBefore = Number((await f.db.query<{ n: string }>(`SELECT count(*) AS n FROM custody_entries`)).rows[0].n);
    const total = CHECKPOINTS_PER_ROUND * CUSTODY_EVENT_MAX_ENTRIES + 52;
    const backlog = Array.from({ length: total }, (_v, i) => {
      const entry: CustodyEntry = {
        diamond_id: `backlog-${i}`,
        version_id: `v-${i}`,
        action: 'registered',
        actor_participant_id: null,
        occurred_at: TS,
        record_sha256: recordSha256({ diamond_id: `backlog-${i}` }),
        prev_entry_hash: null,
      };
      return { entry, entry_hash: entryHash(entry), context: null };
    });
    const pendingGauge = f.stack.services.platform!.app.get(ServiceMetrics).registry.getSingleMetric('custody_pending_entries') as Gauge;
    const gaugeSet = jest.spyOn(pendingGauge, 'set');
    try {
      // One statement: the whole backlog becomes visible at once, so whichever drains it (this call, or the timer's
      // tick if it fires first; checkpointNow waits for a running tick) makes the same checkpoints.
      const q = custodyInsert(backlog);
      await f.db.query(q.sql, q.values);
      await checkpointer().checkpointNow();
      const values = gaugeSet.mock.calls.map((c) => c[0]);
      // After the first transaction: the entries the next one takes (counted after its own leaves were given).
      expect(values).toContain(total - CHECKPOINTS_PER_ROUND * CUSTODY_EVENT_MAX_ENTRIES);
      expect(values.every((v) => v >= 0)).toBe(true);
      expect(values[values.length - 1]).toBe(0);
    } finally {
      gaugeSet.mockRestore();
    }
    const events = (await outboxRows(f, LOG_ID)).slice(-(CHECKPOINTS_PER_ROUND + 1)).map((e) => e.payload!.data as unknown as CustodyCheckpointData);
    expect(events.map((e) => e.checkpoint.tree_size)).toEqual(
      Array.from({ length: CHECKPOINTS_PER_ROUND + 1 }, (_v, i) => sizeBefore + Math.min(total, (i + 1) * CUSTODY_EVENT_MAX_ENTRIES)),
    );
    for (const e of events) expect(e.checkpoint.root_hash).toBe(await recomputedRoot(f, e.checkpoint.tree_size));
    const leaves = events.flatMap((e) => e.entries);
    expect(leaves.map((e) => e.leaf_index)).toEqual(Array.from({ length: total }, (_v, i) => sizeBefore + i));
    expect(leaves.map((e) => e.entry.diamond_id)).toEqual(Array.from({ length: total }, (_v, i) => `backlog-${i}`));
    const { rows } = await f.db.query<{ n: string }>(`SELECT count(*) AS n FROM custody_entries WHERE leaf_index IS NULL`);
    expect(rows[0].n).toBe('0');
    expect(await metric(f, 'custody_pending_entries')).toBe(0);
  });

  it("GET /.well-known/custody-keys.json: public, any origin, cacheable, the configured key's public half only", async () => {
    const res = await call<{ keys: Record<string, string>[] }>(f, 'GET', '/.well-known/custody-keys.json', null);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
    expect(res.body).toEqual({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: SIGNING_JWK.x, kid: SIGNING_JWK.kid, alg: 'EdDSA', use: 'sig' }] });
  });

  it('a forged checkpoint does not verify with the published keys', async () => {
    const { rows } = await f.db.query<{ jws: string; tree_size: string; root_hash: string; timestamp: string }>(
      `SELECT * FROM custody_checkpoints ORDER BY number DESC LIMIT 1`,
    );
    const genuine: CustodyCheckpoint = {
      log_id: LOG_ID,
      tree_size: Number(rows[0].tree_size),
      root_hash: rows[0].root_hash,
      timestamp: rows[0].timestamp,
      jws: rows[0].jws,
    };
    await expect(verifyCheckpoint(f, genuine)).resolves.toMatchObject({ alg: 'EdDSA' });
    const [h, p, s] = genuine.jws.split('.');
    const forgedBody = { ...genuine, tree_size: genuine.tree_size + 1 };
    const forgedPayload = Buffer.from(JSON.stringify({ ...forgedBody, jws: undefined })).toString('base64url');
    await expect(verifyCheckpoint(f, { ...forgedBody, jws: `${h}.${forgedPayload}.${s}` })).rejects.toThrow();
    expect(p).not.toBe(forgedPayload);
  });
});

describe('custody configuration', () => {
  const base = { DATABASE_URL: 'postgres://u:p@localhost:5432/x' };
  const load = (env: Record<string, string>) => () => loadConfig('platform', PlatformConfig, { ...base, ...env });

  it('defaults: checkpoint every 2 s, log id = the public base URL, no configured key', () => {
    const c = load({ PUBLIC_BASE_URL: 'https://platform.example' })();
    expect(c.CUSTODY_CHECKPOINT_INTERVAL_MS).toBe(2000);
    expect(c.custodyLogId).toBe('https://platform.example');
    expect(c.CUSTODY_SIGNING_KEY).toBeUndefined();
  });

  it('refuses an interval past 10 s and signing keys that are not private Ed25519 JWKs with a kid', () => {
    expect(load({ CUSTODY_CHECKPOINT_INTERVAL_MS: '10001' })).toThrow(/CUSTODY_CHECKPOINT_INTERVAL_MS/);
    expect(load({ CUSTODY_SIGNING_KEY: 'not json' })).toThrow(/CUSTODY_SIGNING_KEY must be a JSON object/);
    const { kid: _kid, ...noKid } = SIGNING_JWK;
    expect(load({ CUSTODY_SIGNING_KEY: JSON.stringify(noKid) })).toThrow(/kid/);
    const { d: _d, ...publicOnly } = SIGNING_JWK;
    expect(load({ CUSTODY_SIGNING_KEY: JSON.stringify(publicOnly) })).toThrow(/private key/);
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    expect(load({ CUSTODY_SIGNING_KEY: JSON.stringify({ ...SIGNING_JWK, x: other.x }) })).toThrow(/not the public half/);
    expect(load({ CUSTODY_SIGNING_KEY: JSON.stringify({ ...SIGNING_JWK, d: 'AAAA' }) })).toThrow(/"d" that is not an Ed25519 private key/);
    // the start-up error never shows the private key
    expect(load({ CUSTODY_SIGNING_KEY: JSON.stringify({ ...SIGNING_JWK, x: other.x }) })).not.toThrow(SIGNING_JWK.d!);
    const ec = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), kid: 'k' };
    expect(load({ CUSTODY_SIGNING_KEY: JSON.stringify(ec) })).toThrow(/Ed25519/);
    expect(load({ CUSTODY_SIGNING_KEY: JSON.stringify(SIGNING_JWK) })().CUSTODY_SIGNING_KEY).toBe(JSON.stringify(SIGNING_JWK));
  });
});

async function metric(f: PlatformFixture, name: string): Promise<number> {
  const text = await (await fetch(`${f.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  if (!line) throw new Error(`metric ${name} not found`);
  return Number(line.split(' ').at(-1));
}
