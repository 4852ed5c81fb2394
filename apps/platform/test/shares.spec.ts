import type { ShareLink } from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { call, outboxRows, participant, participantKnown, PlatformFixture, register, startPlatform } from './helpers';

describe('passport share links: POST/DELETE /diamonds/{diamond_id}/share', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;
  let retailer: ParticipantWithToken;

  beforeAll(async () => {
    f = await startPlatform({ SEARCH_PUBLIC_URL: 'https://passport.example.org/' });
    producer = await participant(f, 'producer');
    retailer = await participant(f, 'retailer');
    await participantKnown(f, producer.participant_id);
  });
  afterAll(async () => {
    await f?.close();
  });

  it("creates an unguessable link under search's public address, with share.created in the outbox (revision 1)", async () => {
    const d = await register(f, producer);
    const res = await call<ShareLink>(f, 'POST', `/diamonds/${d.diamond_id}/share`, producer.token);
    expect(res.status).toBe(201);
    expect(res.body.share_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(res.body).toEqual({ share_id: res.body.share_id, url: `https://passport.example.org/passport/${res.body.share_id}`, expires_at: null });
    const again = await call<ShareLink>(f, 'POST', `/diamonds/${d.diamond_id}/share`, producer.token, {});
    expect(again.status).toBe(201);
    expect(again.body.share_id).not.toBe(res.body.share_id);

    const rows = await outboxRows(f, res.body.share_id);
    expect(rows.map((r) => [r.topic, r.event_type, r.revision])).toEqual([['platform.shares.v1', 'share.created', '1']]);
    expect(rows[0].payload).toMatchObject({
      key: res.body.share_id,
      revision: 1,
      data: { share_id: res.body.share_id, diamond_id: d.diamond_id, expires_at: null },
    });
    // The diamond itself did not change.
    expect((await outboxRows(f, d.diamond_id)).length).toBe(1);
  });

  it('takes a future expires_at and refuses a past, zone-less or malformed one (422 naming the field)', async () => {
    const d = await register(f, producer);
    const res = await call<ShareLink>(f, 'POST', `/diamonds/${d.diamond_id}/share`, producer.token, { expires_at: '2099-01-01T00:00:00+02:00' });
    expect(res.status).toBe(201);
    expect(res.body.expires_at).toBe('2098-12-31T22:00:00.000Z');
    for (const bad of ['2001-01-01T00:00:00Z', '2099-01-01T00:00:00', '2099-02-30T00:00:00Z', 'soon', 5, null]) {
      const r = await call<{ detail: { loc: unknown[]; msg: string }[] }>(f, 'POST', `/diamonds/${d.diamond_id}/share`, producer.token, { expires_at: bad });
      expect({ bad, status: r.status }).toEqual({ bad, status: 422 });
      expect(r.body.detail[0].loc).toEqual(['body', 'expires_at']);
    }
    const extra = await call<{ detail: { loc: unknown[]; type: string }[] }>(f, 'POST', `/diamonds/${d.diamond_id}/share`, producer.token, {
      share_id: 'mine',
    });
    expect(extra.status).toBe(422);
    expect(extra.body.detail[0].loc).toEqual(['body', 'share_id']);
  });

  it('only the holder shares: 403 for another participant, 404 for an unknown diamond, 401 without a token', async () => {
    const d = await register(f, producer);
    expect(await call(f, 'POST', `/diamonds/${d.diamond_id}/share`, retailer.token)).toMatchObject({ status: 403, body: { reason: 'not_holder' } });
    expect((await call(f, 'POST', '/diamonds/01hzzzzzzzzzzzzzzzzzzzzzzz/share', producer.token)).status).toBe(404);
    expect((await call(f, 'POST', `/diamonds/${d.diamond_id}/share`, null)).status).toBe(401);
  });

  it('whoever holds the diamond now revokes (share.revoked, revision 2); again is 204 without a second event; unknown is 404', async () => {
    const d = await register(f, producer);
    const link = (await call<ShareLink>(f, 'POST', `/diamonds/${d.diamond_id}/share`, producer.token)).body;
    // The diamond changes hands: the former holder may no longer revoke, the new one may.
    await f.db.query(`UPDATE diamonds SET holder_id = $2 WHERE diamond_id = $1`, [d.diamond_id, retailer.participant_id]);
    expect((await call(f, 'DELETE', `/diamonds/${d.diamond_id}/share/${link.share_id}`, producer.token)).status).toBe(403);
    const res = await call(f, 'DELETE', `/diamonds/${d.diamond_id}/share/${link.share_id}`, retailer.token);
    expect(res.status).toBe(204);
    expect((await call(f, 'DELETE', `/diamonds/${d.diamond_id}/share/${link.share_id}`, retailer.token)).status).toBe(204);
    const rows = await outboxRows(f, link.share_id);
    expect(rows.map((r) => [r.event_type, r.revision])).toEqual([
      ['share.created', '1'],
      ['share.revoked', '2'],
    ]);
    expect(rows[1].payload).toMatchObject({ data: { share_id: link.share_id, diamond_id: d.diamond_id } });
    const { rows: stored } = await f.db.query(`SELECT revoked_by FROM diamond_shares WHERE share_id = $1`, [link.share_id]);
    expect(stored).toEqual([{ revoked_by: retailer.participant_id }]);

    expect(await call(f, 'DELETE', `/diamonds/${d.diamond_id}/share/AAAAAAAAAAAAAAAAAAAAAA`, retailer.token)).toMatchObject({
      status: 404,
      body: { message: 'share not found' },
    });
    expect((await call(f, 'DELETE', `/diamonds/${d.diamond_id}/share/not-a-share`, retailer.token)).status).toBe(404);
    // A link of another diamond is not a link of this one.
    const other = await register(f, producer);
    const otherLink = (await call<ShareLink>(f, 'POST', `/diamonds/${other.diamond_id}/share`, producer.token)).body;
    expect((await call(f, 'DELETE', `/diamonds/${d.diamond_id}/share/${otherLink.share_id}`, retailer.token)).status).toBe(404);
  });
});
