import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops `webhook_deliveries_event` (event_seq). Its one reader was the event retention, which deleted an old event's
 * deliveries by `event_seq` alone; it now finds them through the webhooks of the event's participant and the log
 * index (webhook_id, event_seq), since a delivery only ever goes to a webhook of its event's participant. Every
 * delivery wrote an entry in that index when it was recorded and another when its outcome was stored (the status
 * change is not a heap-only update): one index of five fewer on the table every registration writes to.
 */
export class WebhookDeliveriesEventIndex1765245600000 implements MigrationInterface {
  name = 'WebhookDeliveriesEventIndex1765245600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS webhook_deliveries_event`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS webhook_deliveries_event ON webhook_deliveries (event_seq)`);
  }
}
