import { OutboxPurgerHost } from '@dtp/events';
import type { ParticipantWithToken } from '@dtp/testing';
import { participant, PlatformFixture, register, startPlatform, waitFor } from './helpers';

/** OUTBOX_RETENTION_HOURS, from the environment to the rows deleted (libs/events/test/outbox-purger.spec.ts has the rules). */
describe('outbox retention (OUTBOX_RETENTION_HOURS)', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;

  beforeAll(async () => {
    f = await startPlatform({ OUTBOX_RETENTION_HOURS: '2' });
    producer = await participant(f, 'producer');
  });
  afterAll(async () => {
    await f.close();
  });

  const rowsOf = async (key: string) =>
    (await f.db.query<{ id: string; published: boolean }>('SELECT id, published_at IS NOT NULL AS published FROM outbox WHERE key = $1', [key])).rows;

  it('deletes a registration event published longer ago than the retention, and keeps a recent one', async () => {
    const old = await register(f, producer);
    const recent = await register(f, producer);
    await waitFor('both events published', async () => {
      const rows = [...(await rowsOf(old.diamond_id)), ...(await rowsOf(recent.diamond_id))];
      return rows.length === 2 && rows.every((r) => r.published);
    });
    // As if everything up to the first registration's event had been published three hours ago (the relay
    // publishes in id order), and the second one hour ago; the retention is two.
    await f.db.query(`UPDATE outbox SET published_at = published_at - interval '3 hours' WHERE id <= (SELECT id FROM outbox WHERE key = $1)`, [old.diamond_id]);
    await f.db.query(`UPDATE outbox SET published_at = published_at - interval '1 hour' WHERE key = $1`, [recent.diamond_id]);

    const purged = await f.stack.services.platform!.app.get(OutboxPurgerHost).purger.purge();

    expect(purged).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(old.diamond_id)).toEqual([]);
    expect(await rowsOf(recent.diamond_id)).toHaveLength(1);
  });
});
