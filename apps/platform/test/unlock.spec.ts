import type { DiamondV1 } from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { call, outboxRows, participant, participantKnown, PlatformFixture, register, startPlatform } from './helpers';

describe('POST /diamonds/{diamond_id}/unlock', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;

  beforeAll(async () => {
    f = await startPlatform();
    producer = await participant(f, 'producer');
    await participantKnown(f, producer.participant_id);
  });
  afterAll(async () => {
    await f?.close();
  });

  it("unlocks the holder's diamond as a new version, once; repeating it changes nothing", async () => {
    const d = await register(f, producer);
    const res = await call<DiamondV1>(f, 'POST', `/diamonds/${d.diamond_id}/unlock`, producer.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      diamond_id: d.diamond_id,
      unlock_status: 'unlocked',
      lifecycle_state: 'rough',
      possession_state: 'held',
      rough_check: false,
    });
    expect(res.body.version_id).not.toBe(d.version_id);
    expect(Date.parse(res.body.system_timestamp)).toBeGreaterThanOrEqual(Date.parse(d.system_timestamp));
    const { id, diamond_id, participant_id, rough, provenance, participant_timestamp } = d;
    expect(res.body).toMatchObject({ id, diamond_id, participant_id, rough, provenance, participant_timestamp });

    let rows = await outboxRows(f, d.diamond_id);
    expect(rows.map((r) => [r.event_type, r.revision])).toEqual([
      ['diamond.upserted', '1'],
      ['diamond.upserted', '2'],
    ]);
    expect(rows[1].payload!.data).toEqual(JSON.parse(JSON.stringify(res.body)));

    const again = await call<DiamondV1>(f, 'POST', `/diamonds/${d.diamond_id}/unlock`, producer.token);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    rows = await outboxRows(f, d.diamond_id);
    expect(rows).toHaveLength(2);
  });

  it('answers 403 to anyone but the holder, 404 for an unknown id and 401 without a token', async () => {
    const d = await register(f, producer);
    const other = await participant(f, 'manufacturer');
    expect(await call(f, 'POST', `/diamonds/${d.diamond_id}/unlock`, other.token)).toMatchObject({
      status: 403,
      body: { message: `only the holder of diamond ${d.diamond_id} may unlock it`, reason: 'not_holder' },
    });
    expect(await call(f, 'POST', '/diamonds/01hzzzzzzzzzzzzzzzzzzzzzzz/unlock', producer.token)).toMatchObject({
      status: 404,
      body: { message: 'diamond not found' },
    });
    expect((await call(f, 'POST', `/diamonds/${d.diamond_id}/unlock`, null)).status).toBe(401);
    // The uploader that no longer holds it cannot unlock it either; the new holder (a retailer) can.
    const retailer = await participant(f, 'retailer');
    await f.db.query(`UPDATE diamonds SET holder_id = $2 WHERE diamond_id = $1`, [d.diamond_id, retailer.participant_id]);
    expect((await call(f, 'POST', `/diamonds/${d.diamond_id}/unlock`, producer.token)).status).toBe(403);
    expect((await call(f, 'POST', `/diamonds/${d.diamond_id}/unlock`, retailer.token)).status).toBe(200);
    expect((await outboxRows(f, d.diamond_id)).length).toBe(2);
  });
});
