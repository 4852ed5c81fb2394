import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `dtp_uuid_v7()`: a UUIDv7 (RFC 9562: the first 48 bits the Unix time in milliseconds, version 7, the variant, the
 * rest random), for the ids of webhook deliveries, which PostgreSQL makes (one row per matching webhook, in the
 * statement that writes the event) and made with `gen_random_uuid()` until now. A random id lands on any page of the
 * primary key; the first change to a page after a checkpoint writes the whole page (8 KiB) to the WAL, so on a large
 * table nearly every new delivery did. Ids ordered by time land on the key's last pages: with a million deliveries
 * in the table, 10 new ones wrote 11.9 KB of WAL after a checkpoint with random ids and 6.1 KB with these
 * (docs/webhooks.md, "Delivery and event ids"). PostgreSQL 18 has `uuidv7()`; this works from 13 on (the containers
 * run 15). Existing ids are left as they are.
 */
export class TimeOrderedDeliveryIds1765418400000 implements MigrationInterface {
  name = 'TimeOrderedDeliveryIds1765418400000';

  async up(q: QueryRunner): Promise<void> {
    // gen_random_uuid()'s 16 random bytes (version 4, variant 10), the first 6 replaced by the time in milliseconds
    // (big-endian), and the version bits made 0111: set_bit numbers bits from the right within each byte, so bits 52
    // and 53 are the low two of byte 6's high nibble (0100 -> 0111).
    await q.query(`
      CREATE FUNCTION dtp_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
        SELECT encode(
          set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                                  PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                                  FROM 1 FOR 6), 52, 1), 53, 1),
          'hex')::uuid
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS dtp_uuid_v7()`);
  }
}
