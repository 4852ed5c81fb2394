import { Outbox1763769600000 } from './1763769600000-outbox';
import { AuthSchema1763856000000 } from './1763856000000-auth-schema';
import { OutboxPayloadJson1764288000000 } from './1764288000000-outbox-payload-json';
import { OutboxTraceparent1764633600000 } from './1764633600000-outbox-traceparent';
import { ClientCertificates1764892800000 } from './1764892800000-client-certificates';

/** Every migration of the auth database, in order. Add new ones at the end. */
export const authMigrations = [
  Outbox1763769600000,
  AuthSchema1763856000000,
  OutboxPayloadJson1764288000000,
  OutboxTraceparent1764633600000,
  ClientCertificates1764892800000,
];
