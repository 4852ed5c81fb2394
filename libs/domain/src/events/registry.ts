import { ClientRevokedData, ClientRevokedPayload } from './client-revoked';
import { ClientCertificateChangedData, ClientCertificateChangedPayload } from './client-certificate-changed';
import { DiamondDeletedData, DiamondDeletedPayload } from './diamond-deleted';
import { DiamondUpsertedData, DiamondUpsertedPayload } from './diamond-upserted';
import { EligibilityChangedData, EligibilityChangedPayload } from './eligibility-changed';
import { GradingSubmittedData, GradingSubmittedPayload } from './grading-submitted';
import { ParticipantOnboardedData, ParticipantOnboardedPayload } from './participant-onboarded';
import { ShipmentChangedData, ShipmentChangedPayload } from './shipment-changed';
import { CustodyCheckpointData, CustodyCheckpointEventPayload } from './custody-checkpoint';
import { ShareCreatedData, ShareCreatedPayload, ShareRevokedData, ShareRevokedPayload } from './share-changed';
import { ValidationAnsweredData, ValidationAnsweredPayload } from './validation-answered';
import type { EventEnvelope } from './envelope';
import { EventType, Topic, Topics } from './topics';

/** Payload (`data`) type of each event type. */
export interface EventPayloads {
  'participant.onboarded': ParticipantOnboardedData;
  'client.revoked': ClientRevokedData;
  'client_certificate.changed': ClientCertificateChangedData;
  'diamond.upserted': DiamondUpsertedData;
  'diamond.deleted': DiamondDeletedData;
  'shipment.changed': ShipmentChangedData;
  'grading.submitted': GradingSubmittedData;
  'eligibility.changed': EligibilityChangedData;
  'custody.checkpoint': CustodyCheckpointData;
  'share.created': ShareCreatedData;
  'share.revoked': ShareRevokedData;
  'validation.answered': ValidationAnsweredData;
}

/**
 * The topic of each event type, as a type: what EVENT_DEFINITIONS says at run time (each definition's `topic` is
 * checked against it), so that a topic's event types are known to the compiler (EventTypeOf, EnvelopeOf).
 */
export interface EventTopics {
  'participant.onboarded': typeof Topics.AUTH_PARTICIPANTS;
  'client.revoked': typeof Topics.AUTH_PARTICIPANTS;
  'client_certificate.changed': typeof Topics.AUTH_PARTICIPANTS;
  'diamond.upserted': typeof Topics.PLATFORM_DIAMONDS;
  'diamond.deleted': typeof Topics.PLATFORM_DIAMONDS;
  'shipment.changed': typeof Topics.PLATFORM_SHIPMENTS;
  'grading.submitted': typeof Topics.GIS_GRADINGS;
  'eligibility.changed': typeof Topics.GIS_ELIGIBILITY;
  'custody.checkpoint': typeof Topics.PLATFORM_CUSTODY;
  'share.created': typeof Topics.PLATFORM_SHARES;
  'share.revoked': typeof Topics.PLATFORM_SHARES;
  'validation.answered': typeof Topics.GIS_VALIDATIONS;
}

/**
 * The event types carried by topic `T` (a Topic literal). A topic the compiler does not know (a plain `string`)
 * carries any of them.
 */
export type EventTypeOf<T extends string> = { [E in EventType]: EventTopics[E] extends T ? E : never }[EventType];

/**
 * An envelope of one of the event types of topic `T`, discriminated by `event_type`: what a consumer of `T` is
 * given once validateEnvelope(T, ...) accepted the message. A handler switches over `event_type` and sees only
 * its topic's types (exhaustively); `EnvelopeOf<Topic>` is every known envelope.
 */
export type EnvelopeOf<T extends string> = EnvelopeOfType<EventTypeOf<T>>;

/** The envelope of each event type of the union `E` (distributed over it). */
type EnvelopeOfType<E extends EventType> = E extends EventType ? EventEnvelope<EventPayloads[E], E> : never;

export interface EventDefinition<E extends EventType> {
  topic: EventTopics[E];
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
  'client_certificate.changed': {
    topic: Topics.AUTH_PARTICIPANTS,
    schemaVersion: 1,
    payloadClass: ClientCertificateChangedPayload,
    keyOf: (d: ClientCertificateChangedData) => d.certificate_id,
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
  'validation.answered': {
    topic: Topics.GIS_VALIDATIONS,
    schemaVersion: 1,
    payloadClass: ValidationAnsweredPayload,
    keyOf: (d: ValidationAnsweredData) => d.request_id,
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
