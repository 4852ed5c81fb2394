import { Client } from 'pg';
import { DIAMOND_V1_REQUIRED_FIELDS, DiamondV1, Topics } from '@dtp/domain';
import type { IncomingMessage } from '@dtp/events';
import type { ParticipantWithToken } from '@dtp/testing';
import { ParticipantDirectory } from '../src/participants/participant-directory';
import {
  call,
  outboxCount,
  outboxRows,
  participant,
  participantKnown,
  pid,
  PlatformFixture,
  register,
  roughBody,
  startPlatform,
  uuidV7Millis,
  waitFor,
} from './helpers';

const CREATE = '/diamonds/rough/create';

describe('POST /diamonds/rough/create', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;

  beforeAll(async () => {
    f = await startPlatform();
    producer = await participant(f, 'producer', { name: 'Kimberley Mining', provenance: { name: 'Jwaneng', type: 'mine', country_code: 'BW' } });
    await participantKnown(f, producer.participant_id);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('registers a rough diamond: 200 with the whole DiamondV1 record', async () => {
    const body = roughBody({
      box_id: 'SIGHT-2024-03',
      box_description: 'March sight',
      sight_no: 3,
      sight_year: 2024,
      assurance_level: 'declared',
      entity_specific_tags: { dit_session_id: 'dit-1', own_key: 7 },
      supplementary_tags: { lot: 'A', nested: { x: 1 } },
      participant_timestamp: '2024-03-01T10:00:00+02:00',
      rough: { carats: 1.25, colour: 'D', model: 'M-1', quality: null, stress: 'light stress', fluorescence_intensity: 'N' },
    });
    const before = Date.now();
    const res = await call<DiamondV1>(f, 'POST', CREATE, producer.token, body);
    expect(res.status).toBe(200);
    const d = res.body;
    for (const field of DIAMOND_V1_REQUIRED_FIELDS) expect(d).toHaveProperty(field);
    expect(d.diamond_id).toMatch(/^[0-9a-z]{26}$/);
    expect(d.version_id).toMatch(/^[0-9a-z]{26}$/);
    expect(d.version_id).not.toBe(d.diamond_id);
    // the legacy id: a UUIDv7 (ordered by time, like the diamond id) whose time is the request's
    const idTime = uuidV7Millis(d.id);
    expect(idTime).toBeGreaterThanOrEqual(before);
    expect(idTime).toBeLessThanOrEqual(Date.now());
    expect(d).toMatchObject({
      lifecycle_state: 'rough',
      current_stage: 'rough',
      possession_state: 'held',
      unlock_status: 'locked',
      rough_check: false,
      polished: {},
      rough: { carats: '1.25', colour: 'D', model: 'M-1', quality: null, stress: 'light stress', fluorescence_intensity: 'N' },
      producer_uuid: producer.participant_id,
      provenance: { provenance_name: 'Jwaneng', provenance_type: 'mine', is_locked: true, is_country_code_available: true, country_code: 'BW' },
      assurance_level: 'declared',
      is_current: true,
      verification_status: 'Verified',
      verification_description: 'verified record',
      three_d_plan_available: false,
      data_requests: [],
      grading: null,
      gis_status: null,
      rough_objective_verification_results: [],
      polished_objective_verification_results: [],
      participant_timestamp: '2024-03-01T10:00:00+02:00',
      participant_id: body.participant_id,
      box_id: 'SIGHT-2024-03',
      box_description: 'March sight',
      sight_no: 3,
      sight_year: 2024,
      entity_specific_tags: { dit_session_id: 'dit-1', own_key: 7 },
      supplementary_tags: { lot: 'A', nested: { x: 1 } },
      archived_at: null,
      schema_version: '1',
      diamond_parent_id: null,
      parent_id: null,
      participant_parent_id: null,
    });
    // Members of rough that were not supplied are omitted.
    expect(Object.keys(d.rough).sort()).toEqual(['carats', 'colour', 'fluorescence_intensity', 'model', 'quality', 'stress']);
    const ts = Date.parse(d.system_timestamp);
    expect(ts).toBeGreaterThanOrEqual(before - 1000);
    expect(ts).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('defaults assurance_level to assured and keeps decimal text carats verbatim', async () => {
    const d = await register(f, producer, { rough: { carats: '2.50' } });
    expect(d.assurance_level).toBe('assured');
    expect(d.rough).toEqual({ carats: '2.50' });
    expect(d.box_description).toBeNull();
    expect(d.sight_no).toBeNull();
    expect(d.entity_specific_tags).toBeNull();
  });

  it('writes exactly one diamond.upserted outbox row (revision 1, the whole record) and the relay publishes it', async () => {
    const received: IncomingMessage[] = [];
    const sub = await f.stack.transport.subscribe({
      topic: Topics.PLATFORM_DIAMONDS,
      group: `test-${pid('g')}`,
      fromBeginning: true,
      handler: async (m) => {
        received.push(m);
      },
    });
    try {
      const d = await register(f, producer);
      const rows = await outboxRows(f, d.diamond_id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ topic: 'platform.diamonds.v1', key: d.diamond_id, event_type: 'diamond.upserted', revision: '1' });
      expect(rows[0].payload).toMatchObject({ event_type: 'diamond.upserted', key: d.diamond_id, revision: 1, schema_version: 1 });
      expect(rows[0].payload!.data).toEqual(JSON.parse(JSON.stringify(d)));
      const published = await waitFor('the event on the bus', async () => received.find((m) => m.key === d.diamond_id));
      expect((published.value as { data: DiamondV1 }).data.version_id).toBe(d.version_id);
    } finally {
      await sub.close();
    }
  });

  it('lets a manufacturer register: provenance is left for the platform to set (not locked)', async () => {
    const maker = await participant(f, 'manufacturer');
    const d = await register(f, maker);
    expect(d.producer_uuid).toBe(maker.participant_id);
    expect(d.provenance).toEqual({ provenance_name: null, provenance_type: null, is_locked: false, is_country_code_available: false });
  });

  it('answers 401 without a token or with a bad one, 403 for a retailer, and writes nothing', async () => {
    const before = await outboxCount(f);
    expect((await call(f, 'POST', CREATE, null, roughBody())).status).toBe(401);
    expect((await call(f, 'POST', CREATE, 'not-a-token', roughBody())).status).toBe(401);
    const retailer = await participant(f, 'retailer');
    const res = await call<{ message: string }>(f, 'POST', CREATE, retailer.token, roughBody());
    expect(res.status).toBe(403);
    expect(res.body.message).toEqual(expect.any(String));
    expect(await outboxCount(f)).toBe(before);
  });

  it('answers 422 naming every bad field, also unknown fields inside rough, and writes nothing', async () => {
    const before = await outboxCount(f);
    const empty = await call<{ detail: { loc: unknown[]; type: string }[]; message: string }>(f, 'POST', CREATE, producer.token, {});
    expect(empty.status).toBe(422);
    expect(typeof empty.body.message).toBe('string');
    const locs = empty.body.detail.map((d) => d.loc.join('.'));
    for (const field of ['box_id', 'participant_id', 'participant_timestamp', 'rough']) expect(locs).toContain(`body.${field}`);

    const cases: [Record<string, unknown>, string][] = [
      [roughBody({ colour_of_box: 'red' }), 'body.colour_of_box'],
      [roughBody({ rough: { carats: 1, shape: 'Round' } }), 'body.rough.shape'],
      [roughBody({ rough: { carats: 0 } }), 'body.rough.carats'],
      [roughBody({ rough: { carats: -1 } }), 'body.rough.carats'],
      [roughBody({ rough: { carats: 'abc' } }), 'body.rough.carats'],
      [roughBody({ rough: {} }), 'body.rough.carats'],
      [roughBody({ rough: { carats: 1, colour: 'AA' } }), 'body.rough.colour'],
      [roughBody({ participant_id: ' padded ' }), 'body.participant_id'],
      [roughBody({ participant_timestamp: 'yesterday' }), 'body.participant_timestamp'],
      // ISO 8601 forms that are no date-time to a record's readers (JavaScript's Date reads none of these but the year)
      [roughBody({ participant_timestamp: '2024' }), 'body.participant_timestamp'],
      [roughBody({ participant_timestamp: '2024-W18-3' }), 'body.participant_timestamp'],
      [roughBody({ participant_timestamp: '2024-122' }), 'body.participant_timestamp'],
      [roughBody({ participant_timestamp: '20240501T100000Z' }), 'body.participant_timestamp'],
      [roughBody({ participant_timestamp: '2024-05-01T10' }), 'body.participant_timestamp'],
      [roughBody({ assurance_level: 'maybe' }), 'body.assurance_level'],
      [roughBody({ sight_no: 1.5 }), 'body.sight_no'],
      [roughBody({ sight_no: 2 ** 60 }), 'body.sight_no'],
      [roughBody({ entity_specific_tags: { dit_session_id: 5 } }), 'body.entity_specific_tags'],
      [roughBody({ rough: 'big' }), 'body.rough'],
    ];
    for (const [body, loc] of cases) {
      const res = await call<{ detail: { loc: unknown[] }[] }>(f, 'POST', CREATE, producer.token, body);
      expect({ loc, status: res.status }).toEqual({ loc, status: 422 });
      expect(res.body.detail.map((d) => d.loc.join('.'))).toContain(loc);
    }
    const notJson = await fetch(`${f.url}${CREATE}`, {
      method: 'POST',
      headers: { authorization: producer.token, 'content-type': 'application/json' },
      body: '{"box_id":',
    });
    expect(notJson.status).toBe(422);
    expect(await outboxCount(f)).toBe(before);
  });

  it('answers 422 for keys the framework would drop (constructor, toString, ...), at the top, in rough and in tags, and writes nothing', async () => {
    // Before: 200, and the diamond was stored without them (tags lost `toString` and `constructor` keys, an unknown
    // top-level `toString` passed).
    const before = await outboxCount(f);
    const cases: [Record<string, unknown>, string][] = [
      [roughBody({ toString: 'x' }), 'body.toString'],
      [roughBody({ rough: { carats: 1, valueOf: 2 } }), 'body.rough.valueOf'],
      [roughBody({ supplementary_tags: { lot: 'A', constructor: 'x' } }), 'body.supplementary_tags.constructor'],
      [roughBody({ supplementary_tags: { nested: { hasOwnProperty: true } } }), 'body.supplementary_tags.nested.hasOwnProperty'],
      [roughBody({ entity_specific_tags: { prototype: 1 } }), 'body.entity_specific_tags.prototype'],
    ];
    for (const [body, loc] of cases) {
      const res = await call<{ detail: { loc: unknown[]; type: string }[] }>(f, 'POST', CREATE, producer.token, body);
      expect({ loc, status: res.status }).toEqual({ loc, status: 422 });
      expect(res.body.detail.map((d) => [d.loc.join('.'), d.type])).toEqual([[loc, 'key_reserved']]);
    }
    expect(await outboxCount(f)).toBe(before);
  });

  it('answers 409 diamond_not_unique for a participant_id already registered in the box, and writes nothing', async () => {
    const body = roughBody({ box_id: 'BOX-DUP' });
    await register(f, producer, body);
    const before = await outboxCount(f);
    const res = await call(f, 'POST', CREATE, producer.token, { ...body, rough: { carats: 3 } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      message: `diamond is not unique: participant_id ${String(body.participant_id)} is already registered in box BOX-DUP`,
      reason: 'diamond_not_unique',
    });
    expect(await outboxCount(f)).toBe(before);
    // The same participant_id in another box, or in another participant's box of the same name, is fine.
    await register(f, producer, { ...body, box_id: 'BOX-OTHER' });
    const other = await participant(f, 'producer');
    await register(f, other, body);
  });

  it('lets exactly one of many concurrent duplicate registrations win', async () => {
    const body = roughBody({ box_id: 'BOX-RACE' });
    const before = await outboxCount(f);
    const results = await Promise.all(Array.from({ length: 16 }, () => call(f, 'POST', CREATE, producer.token, body)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(15);
    const { rows } = await f.db.query(`SELECT diamond_id FROM diamonds WHERE box_id = 'BOX-RACE' AND participant_id = $1`, [body.participant_id]);
    expect(rows).toHaveLength(1);
    expect(await outboxCount(f)).toBe(before + 1);
  });

  it('stores the queried fields as columns', async () => {
    const d = await register(f, producer, { box_id: 'BOX-COLS' });
    const { rows } = await f.db.query(
      `SELECT uploader_id, holder_id, box_scope, box_id, participant_id, lifecycle_state, possession_state, unlock_status, revision, version_id
         FROM diamonds WHERE diamond_id = $1`,
      [d.diamond_id],
    );
    expect(rows[0]).toEqual({
      uploader_id: producer.participant_id,
      holder_id: producer.participant_id,
      box_scope: producer.participant_id,
      box_id: 'BOX-COLS',
      participant_id: d.participant_id,
      lifecycle_state: 'rough',
      possession_state: 'held',
      unlock_status: 'locked',
      revision: '1',
      version_id: d.version_id,
    });
  });
});

describe('a producer whose onboarding event has not reached platform yet', () => {
  let f: PlatformFixture;
  beforeAll(async () => {
    f = await startPlatform();
  });
  afterAll(async () => {
    await f?.close();
  });

  it('registers with provenance from its token, then gets its declared provenance when the event arrives', async () => {
    const producer = await participant(f, 'producer', { name: 'Late Event Mining', provenance: { name: 'Orapa', type: 'mine', country_code: 'BW' } });
    await participantKnown(f, producer.participant_id);
    // Make platform forget the participant, as if the event had not been consumed yet.
    await f.db.query(`DELETE FROM participants WHERE participant_id = $1`, [producer.participant_id]);
    await f.db.query(`DELETE FROM consumer_state WHERE key = $1`, [producer.participant_id]);
    f.stack.services.platform!.app.get(ParticipantDirectory).forget(producer.participant_id);

    const d = await register(f, producer);
    expect(d.provenance).toEqual({ provenance_name: 'Late Event Mining', provenance_type: null, is_locked: true, is_country_code_available: false });
    expect(d.producer_uuid).toBe(producer.participant_id);

    // The onboarding event arrives (redelivered from auth's outbox).
    const auth = new Client({ connectionString: f.stack.databases.auth });
    await auth.connect();
    const { rows } = await auth.query<{ payload: unknown }>(`SELECT payload FROM outbox WHERE key = $1`, [producer.participant_id]);
    await auth.end();
    await f.stack.transport.publish([{ topic: Topics.AUTH_PARTICIPANTS, key: producer.participant_id, value: rows[0].payload }]);

    const fixed = await waitFor('the provenance fix-up', async () => {
      const out = await outboxRows(f, d.diamond_id);
      return out.length === 2 ? out[1] : undefined;
    });
    expect(fixed).toMatchObject({ event_type: 'diamond.upserted', revision: '2' });
    const record = fixed.payload!.data as unknown as DiamondV1;
    expect(record.provenance).toEqual({
      provenance_name: 'Orapa',
      provenance_type: 'mine',
      is_locked: true,
      is_country_code_available: true,
      country_code: 'BW',
    });
    expect(record.version_id).not.toBe(d.version_id);
    const { rows: stored } = await f.db.query(`SELECT provenance_pending, revision FROM diamonds WHERE diamond_id = $1`, [d.diamond_id]);
    expect(stored[0]).toEqual({ provenance_pending: false, revision: '2' });

    // Later registrations use the declared provenance directly.
    const next = await register(f, producer);
    expect(next.provenance.provenance_name).toBe('Orapa');
  });
});
