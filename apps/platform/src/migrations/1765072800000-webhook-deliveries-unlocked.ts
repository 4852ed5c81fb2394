import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A registration of a participant with webhooks writes one `webhook_deliveries` row per webhook in its own
 * transaction. Each row's two foreign keys cost a trigger and a row lock: `FOR KEY SHARE` on the webhook, which every
 * concurrent registration of that participant takes on the same few rows (MultiXacts, WAL for each lock, one heap page
 * fought over with the delivery worker's lease updates), and one on the event the same statement inserted. pgbench of
 * that statement, 32 clients, 10 webhooks: 790 -> 890 transactions/s without the keys.
 *
 * What the keys did is done by the statements instead: deleting a webhook deletes its deliveries, purging events
 * deletes theirs (webhooks.repository.ts). A registration that read a webhook just before the webhook's deletion
 * committed may still add its delivery afterwards; such a row is never claimed (nothing leases a deleted webhook), no
 * answer shows it (its webhook is 404), the backlog gauge counts only deliveries of existing webhooks, and it goes with
 * its event at the end of the retention.
 */
export class WebhookDeliveriesUnlocked1765072800000 implements MigrationInterface {
  name = 'WebhookDeliveriesUnlocked1765072800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_webhook_id_fkey, DROP CONSTRAINT IF EXISTS webhook_deliveries_event_seq_fkey`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.webhook_id = d.webhook_id)`);
    await q.query(`DELETE FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM participant_events e WHERE e.seq = d.event_seq)`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks (webhook_id) ON DELETE CASCADE`,
    );
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_seq_fkey FOREIGN KEY (event_seq) REFERENCES participant_events (seq) ON DELETE CASCADE`,
    );
  }
}
