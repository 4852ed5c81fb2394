/**
 * Kafka topics (versioned names; DESIGN.md "Services" and "Events"). The Kafka key of every message is
 * the aggregate id (EventDefinition.keyOf), and each topic is keyed so it can be compacted.
 */
export const Topics = Object.freeze({
  /** auth -> platform: participants onboarded; auth -> platform, search, gis: clients revoked (token deny-lists), legacy client certificates registered and removed. */
  AUTH_PARTICIPANTS: 'auth.participants.v1',
  /** platform -> search, gis: whole DiamondV1 records (event-carried state) and deletions (+ tombstone). */
  PLATFORM_DIAMONDS: 'platform.diamonds.v1',
  /** platform -> (anyone): shipment status changes. */
  PLATFORM_SHIPMENTS: 'platform.shipments.v1',
  /** gis -> platform: lab gradings, become `source: gis` graded measurements. */
  GIS_GRADINGS: 'gis.gradings.v1',
  /** gis -> platform: a diamond's `gis_status` (lab eligibility), shown on its record. */
  GIS_ELIGIBILITY: 'gis.eligibility.v1',
  /** platform -> search: signed custody checkpoints with the log entries they add (one key: the log id). */
  PLATFORM_CUSTODY: 'platform.custody.v1',
  /** platform -> search: passport share links created and revoked (key: share_id). */
  PLATFORM_SHARES: 'platform.shares.v1',
  /** gis -> platform: validation requests answered (key: request_id), so platform tells the diamond's holder. */
  GIS_VALIDATIONS: 'gis.validations.v1',
} as const);
export type Topic = (typeof Topics)[keyof typeof Topics];

/** Consumer group of each consuming service (one group per service). */
export const ConsumerGroups = Object.freeze({
  PLATFORM: 'platform',
  SEARCH: 'search',
  GIS: 'gis',
} as const);
export type ConsumerGroup = (typeof ConsumerGroups)[keyof typeof ConsumerGroups];

export const EventTypes = Object.freeze({
  PARTICIPANT_ONBOARDED: 'participant.onboarded',
  CLIENT_REVOKED: 'client.revoked',
  CLIENT_CERTIFICATE_CHANGED: 'client_certificate.changed',
  DIAMOND_UPSERTED: 'diamond.upserted',
  DIAMOND_DELETED: 'diamond.deleted',
  SHIPMENT_CHANGED: 'shipment.changed',
  GRADING_SUBMITTED: 'grading.submitted',
  ELIGIBILITY_CHANGED: 'eligibility.changed',
  CUSTODY_CHECKPOINT: 'custody.checkpoint',
  SHARE_CREATED: 'share.created',
  SHARE_REVOKED: 'share.revoked',
  VALIDATION_ANSWERED: 'validation.answered',
} as const);
export type EventType = (typeof EventTypes)[keyof typeof EventTypes];
export const EVENT_TYPE_VALUES: readonly EventType[] = Object.freeze(Object.values(EventTypes));
