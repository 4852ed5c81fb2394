import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The delivery worker's claim reads a webhook's pending deliveries in event order. Without an index of pending rows
 * in that order it walked every delivery the webhook ever had (and their dead versions) before the first pending one:
 * 12 deliveries per second to one webhook in `npm run bench -- webhooks`. The index holds pending rows only.
 */
export class WebhookDeliveryOrder1764986400001 implements MigrationInterface {
  name = 'WebhookDeliveryOrder1764986400001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (webhook_id, event_seq) WHERE status = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS webhook_deliveries_due`);
  }
}
