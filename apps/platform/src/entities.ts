import { CustodyCheckpointEntity, CustodyEntryEntity, CustodySigningKeyEntity } from './custody/custody.entity';
import { DiamondEntity } from './diamonds/diamond.entity';
import { ParticipantStorageEntity } from './files/participant-storage.entity';
import { GradedMeasurementEntity } from './diamonds/graded-measurement.entity';
import { ParticipantEntity } from './participants/participant.entity';
import { DiamondShareEntity } from './shares/diamond-share.entity';
import { ShipmentDiamondEntity, ShipmentEntity } from './shipments/shipment.entity';
import { ParticipantEventEntity, WebhookDeliveryEntity, WebhookEntity } from './webhooks/webhook.entity';

/**
 * Every TypeORM entity of the platform database, each matching its migrations exactly (schema changes only
 * through migrations; test/entities.spec.ts proves the schema builder finds nothing to change). Each is also
 * registered with `TypeOrmModule.forFeature` in the module that owns its table.
 */
export const platformEntities: Function[] = [
  ParticipantEntity,
  DiamondEntity,
  GradedMeasurementEntity,
  ShipmentEntity,
  ShipmentDiamondEntity,
  ParticipantStorageEntity,
  DiamondShareEntity,
  CustodyEntryEntity,
  CustodyCheckpointEntity,
  CustodySigningKeyEntity,
  ParticipantEventEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
];
