import { ClientRevokedData, ClientRevokedPayload } from './client-revoked';
import { DiamondDeletedData, DiamondDeletedPayload } from './diamond-deleted';
import { DiamondUpsertedData, DiamondUpsertedPayload } from './diamond-upserted';
import { EligibilityChangedData, EligibilityChangedPayload } from './eligibility-changed';
import { GradingSubmittedData, GradingSubmittedPayload } from './grading-submitted';
import { ParticipantOnboardedData, ParticipantOnboardedPayload } from './participant-onboarded';
import { ShipmentChangedData, ShipmentChangedPayload } from './shipment-changed';
import { CustodyCheckpointData, CustodyCheckpointEventPayload } from './custody-checkpoint';
import { ShareCreatedData, ShareCreatedPayload, ShareRevokedData, ShareRevokedPayload } from './share-changed';
import { EventType, Topic, Topics } from './topics';

/** Payload (`data`) type of each event type. */
export interface EventPayloads {
  'participant.onboarded': ParticipantOnboardedData;
  'client.revoked': ClientRevokedData;
  'diamond.upserted': DiamondUpsertedData;
  'diamond.deleted': DiamondDeletedData;
  'shipment.changed': ShipmentChangedData;
  'grading.submitted': GradingSubmittedData;
  'eligibility.changed': EligibilityChangedData;
  'custody.checkpoint': CustodyCheckpointData;
  'share.created': ShareCreatedData;
  'share.revoked': ShareRevokedData;
}

export interface EventDefinition<E extends EventType> {
  topic: Topic;
  /** Current version of this event's `data` shape. */
  schemaVersion: number;
  /** class-validator class that checks an incoming `data`. */
  payloadClass: new () => object;
  /** The aggregate id = envelope key = Kafka key. */
  keyOf: (data: EventPayloads[E]) => string;
}

export const EVENT_DEFINITIONS: { readonly [E in EventType]: EventDefinition<E> } = Object.freeze({
  'participant.onboarded': {
    topic: Topics.AUTH_PARTICIPANTS,
    schemaVersion: 1,
    payloadClass: ParticipantOnboardedPayload,
    keyOf: (d: ParticipantOnboardedData) => d.participant_id,
  },
  'client.revoked': {
    topic: Topics.AUTH_PARTICIPANTS,
    schemaVersion: 1,
    payloadClass: ClientRevokedPayload,
    keyOf: (d: ClientRevokedData) => d.client_id,
  },
  'diamond.upserted': {
    topic: Topics.PLATFORM_DIAMONDS,
    schemaVersion: 1,
    payloadClass: DiamondUpsertedPayload,
    keyOf: (d: DiamondUpsertedData) => d.diamond_id,
  },
  'diamond.deleted': {
    topic: Topics.PLATFORM_DIAMONDS,
    schemaVersion: 1,
    payloadClass: DiamondDeletedPayload,
    keyOf: (d: DiamondDeletedData) => d.diamond_id,
  },
  'shipment.changed': {
    topic: Topics.PLATFORM_SHIPMENTS,
    schemaVersion: 1,
    payloadClass: ShipmentChangedPayload,
    keyOf: (d: ShipmentChangedData) => d.shipment_id,
  },
  'grading.submitted': {
    topic: Topics.GIS_GRADINGS,
    schemaVersion: 1,
    payloadClass: GradingSubmittedPayload,
    keyOf: (d: GradingSubmittedData) => d.diamond_id,
  },
  'eligibility.changed': {
    topic: Topics.GIS_ELIGIBILITY,
    schemaVersion: 1,
    payloadClass: EligibilityChangedPayload,
    keyOf: (d: EligibilityChangedData) => d.diamond_id,
  },
  'custody.checkpoint': {
    topic: Topics.PLATFORM_CUSTODY,
    schemaVersion: 1,
    payloadClass: CustodyCheckpointEventPayload,
    keyOf: (d: CustodyCheckpointData) => d.checkpoint.log_id,
  },
  'share.created': {
    topic: Topics.PLATFORM_SHARES,
    schemaVersion: 1,
    payloadClass: ShareCreatedPayload,
    keyOf: (d: ShareCreatedData) => d.share_id,
  },
  'share.revoked': {
    topic: Topics.PLATFORM_SHARES,
    schemaVersion: 1,
    payloadClass: ShareRevokedPayload,
    keyOf: (d: ShareRevokedData) => d.share_id,
  },
});

/** Event types carried by each topic. */
export const TOPIC_EVENT_TYPES: Readonly<Record<Topic, readonly EventType[]>> = Object.freeze(
  Object.values(Topics).reduce(
    (acc, topic) => {
      acc[topic] = (Object.keys(EVENT_DEFINITIONS) as EventType[]).filter((t) => EVENT_DEFINITIONS[t].topic === topic);
      return acc;
    },
    {} as Record<Topic, EventType[]>,
  ),
);
