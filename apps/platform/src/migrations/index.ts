import { Outbox1763769600000 } from './1763769600000-outbox';
import { Diamonds1764028800000 } from './1764028800000-diamonds';
import { PlatformConsumerTables1764028800001 } from './1764028800001-platform-consumer-tables';
import { PlatformOutboxSignal1764028800002 } from './1764028800002-platform-outbox-signal';
import { Shipments1764201600000 } from './1764201600000-shipments';
import { OutboxPayloadJson1764288000000 } from './1764288000000-outbox-payload-json';
import { ParticipantStorage1764374400000 } from './1764374400000-participant-storage';
import { IdempotencyKeys1764460800000 } from './1764460800000-idempotency-keys';
import { CustodyLog1764547200000 } from './1764547200000-custody-log';
import { OutboxTraceparent1764633600000 } from './1764633600000-outbox-traceparent';
import { DiamondShares1764720000000 } from './1764720000000-diamond-shares';
import { CustodyFrontier1764806400000 } from './1764806400000-custody-frontier';
import { CustodyLinks1764900000000 } from './1764900000000-custody-links';
import { Webhooks1764986400000 } from './1764986400000-webhooks';
import { WebhookDeliveryOrder1764986400001 } from './1764986400001-webhook-delivery-order';
import { WebhookDeliveriesUnlocked1765072800000 } from './1765072800000-webhook-deliveries-unlocked';
import { WebhookDeliveriesRoom1765159200000 } from './1765159200000-webhook-deliveries-room';
import { WebhookDeliveriesEventIndex1765245600000 } from './1765245600000-webhook-deliveries-event-index';
import { WebhookPendingFrom1765332000000 } from './1765332000000-webhook-pending-from';
import { TimeOrderedDeliveryIds1765418400000 } from './1765418400000-time-ordered-delivery-ids';
import { IdChecks1765504800000 } from './1765504800000-id-checks';
import { UnusedDiamondIndexes1765591200000 } from './1765591200000-unused-diamond-indexes';

/** Every migration of the platform database, in order. Add new ones at the end. */
export const platformMigrations = [
  Outbox1763769600000,
  Diamonds1764028800000,
  PlatformConsumerTables1764028800001,
  PlatformOutboxSignal1764028800002,
  Shipments1764201600000,
  OutboxPayloadJson1764288000000,
  ParticipantStorage1764374400000,
  IdempotencyKeys1764460800000,
  CustodyLog1764547200000,
  OutboxTraceparent1764633600000,
  DiamondShares1764720000000,
  CustodyFrontier1764806400000,
  CustodyLinks1764900000000,
  Webhooks1764986400000,
  WebhookDeliveryOrder1764986400001,
  WebhookDeliveriesUnlocked1765072800000,
  WebhookDeliveriesRoom1765159200000,
  WebhookDeliveriesEventIndex1765245600000,
  WebhookPendingFrom1765332000000,
  TimeOrderedDeliveryIds1765418400000,
  IdChecks1765504800000,
  UnusedDiamondIndexes1765591200000,
];
