import { Client } from 'pg';
import { runMigrations, Sql, sqlOn } from '@dtp/database';
import { createTestDatabase } from '@dtp/testing';
import { platformEntities } from '../src/entities';
import { platformMigrations } from '../src/migrations';
import { participantEvent, participantEventsCtes } from '../src/webhooks/participant-events';
import { WebhooksRepository } from '../src/webhooks/webhooks.repository';

/**
 * What the delivery worker's claim writes (webhooks.repository.ts `claimBatch`, migration 1765159200000): counting
 * each claimed delivery's attempt is a heap-only update, with no index entry. On full pages it was a new tuple with an
 * entry in each of the table's five indexes, for every delivery, thousands a second beside the registrations.
 */
describe('the delivery claim', () => {
  const repo = new WebhooksRepository();
  const webhookId = '0b5c6a49-8d57-4b40-9a8f-6d3f1e0c2a11';
  let db: Client;
  let sql: Sql;

  beforeAll(async () => {
    const url = await createTestDatabase('platform_webhook_claim');
    await runMigrations({ url, service: 'platform', entities: platformEntities, migrations: platformMigrations });
    db = new Client({ connectionString: url });
    await db.connect();
    sql = sqlOn(db);
    await db.query(
      `INSERT INTO webhooks (webhook_id, participant_id, url, secret, created_at, leased_by, lease_until)
                    VALUES ($1, 'p1', 'http://127.0.0.1:9/hook', 'whsec_x', now(), 'worker-1', now() + interval '1 hour')`,
      [webhookId],
    );
    // enough deliveries to fill several pages: a full page leaves no room for a heap-only update
    const events = Array.from({ length: 300 }, (_, i) => participantEvent('p1', 'dtp.diamond.deleted', `d${i}`, { diamond_id: `d${i}` }, new Date()));
    const c = participantEventsCtes(events, 1);
    await db.query(`WITH ${c.sql} SELECT 1`, c.values);
  });

  afterAll(async () => {
    await db?.end();
  });

  it('counts each attempt in a heap-only update, in event order, one per subject', async () => {
    await db.query('BEGIN');
    try {
      const claimed = await repo.claimBatch(sql, webhookId, 'worker-1', 20, 60_000);
      expect(claimed).toHaveLength(20);
      expect(claimed.map((d) => d.attempts)).toEqual(Array(20).fill(1));
      expect(claimed.map((d) => d.subject)).toEqual(Array.from({ length: 20 }, (_, i) => `d${i}`));
      // this transaction's own counts for the table (the webhook's lease renewal is another table)
      const { rows } = await db.query(
        `SELECT pg_stat_get_xact_tuples_updated('webhook_deliveries'::regclass)::int AS updated,
                pg_stat_get_xact_tuples_hot_updated('webhook_deliveries'::regclass)::int AS hot`,
      );
      expect(rows[0]).toEqual({ updated: 20, hot: 20 });
    } finally {
      await db.query('ROLLBACK');
    }
  });

  it('claims nothing for a worker that does not hold the lease', async () => {
    expect(await repo.claimBatch(sql, webhookId, 'worker-2', 20, 60_000)).toEqual([]);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE attempts > 0`);
    expect(rows[0].n).toBe(0);
  });
});
