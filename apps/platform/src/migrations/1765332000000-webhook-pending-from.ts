import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where the delivery worker's walk over a webhook's pending deliveries starts (webhooks.repository.ts moveWalkStart,
 * "the walk's lower bound"). Every delivered row leaves its entry in the pending-only indexes until a vacuum, and the
 * walk, in event order from the webhook's first entry, stepped over all of them for every claim: 6.7 to 8 ms per claim
 * of 20 after 50,000 deliveries since the last vacuum (docs/webhooks.md). `pending_from`: no pending delivery of the
 * webhook has a lower `event_seq`; `pending_from_next` and `_at`: where it moves once every transaction open at `_at`
 * has ended. 0 and null for existing webhooks: their walks start at the beginning, as before, until the worker's moves
 * raise it.
 */
export class WebhookPendingFrom1765332000000 implements MigrationInterface {
  name = 'WebhookPendingFrom1765332000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE webhooks ADD COLUMN pending_from bigint NOT NULL DEFAULT 0, ADD COLUMN pending_from_next bigint, ADD COLUMN pending_from_next_at timestamptz`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks DROP COLUMN pending_from, DROP COLUMN pending_from_next, DROP COLUMN pending_from_next_at`);
  }
}
