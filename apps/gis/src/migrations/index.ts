import { Outbox1763769600000 } from './1763769600000-outbox';
import { GisSchema1764115200000 } from './1764115200000-gis-schema';
import { OutboxPayloadJson1764288000000 } from './1764288000000-outbox-payload-json';
import { IdempotencyKeys1764460800000 } from './1764460800000-idempotency-keys';
import { OutboxTraceparent1764633600000 } from './1764633600000-outbox-traceparent';

/** Every migration of the gis database, in order. Add new ones at the end. */
export const gisMigrations = [
  Outbox1763769600000,
  GisSchema1764115200000,
  OutboxPayloadJson1764288000000,
  IdempotencyKeys1764460800000,
  OutboxTraceparent1764633600000,
];
