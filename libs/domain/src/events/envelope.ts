import { randomUUID } from 'node:crypto';
import { EnvelopeOf, EVENT_DEFINITIONS, EventPayloads, EventTopics } from './registry';
import type { EventType, Topic } from './topics';

/**
 * The JSON value of every event message. `key` is also the Kafka message key (the aggregate id);
 * `revision` grows by one per change of that aggregate, so consumers apply an event only when its
 * revision is newer than what they hold.
 */
export interface EventEnvelope<T = unknown, E extends string = string> {
  /** UUID, unique per event. */
  event_id: string;
  event_type: E;
  /** Version of the `data` shape of this event type (EVENT_DEFINITIONS[type].schemaVersion). */
  schema_version: number;
  /** ISO 8601 date-time (UTC) of the change. */
  occurred_at: string;
  key: string;
  /** 1, 2, 3, ... per aggregate. */
  revision: number;
  data: T;
}

/** An envelope of one of the known event types, discriminated by `event_type`. */
export type KnownEventEnvelope = EnvelopeOf<Topic>;

export interface MakeEnvelopeInput<E extends EventType> {
  event_type: E;
  data: EventPayloads[E];
  revision: number;
  /** Defaults to the aggregate id taken from `data`. */
  key?: string;
  occurred_at?: Date | string;
  event_id?: string;
}

/** Builds an envelope with a fresh event_id, the current schema_version and occurred_at = now. */
export function makeEnvelope<E extends EventType>(input: MakeEnvelopeInput<E>): EventEnvelope<EventPayloads[E], E> {
  const definition = EVENT_DEFINITIONS[input.event_type];
  if (!Number.isInteger(input.revision) || input.revision < 1) {
    throw new RangeError(`revision must be a positive integer, got ${input.revision}`);
  }
  const occurred = input.occurred_at ?? new Date();
  return {
    event_id: input.event_id ?? randomUUID(),
    event_type: input.event_type,
    schema_version: definition.schemaVersion,
    occurred_at: occurred instanceof Date ? occurred.toISOString() : occurred,
    key: input.key ?? definition.keyOf(input.data as never),
    revision: input.revision,
    data: input.data,
  };
}

/**
 * `JSON.stringify(envelope)`, given `dataJson`, the text of `JSON.stringify(envelope.data)`: for a caller that writes
 * the data's text for something else too (platform's feed events carry a diamond's record as well), so it is written
 * once. The data member comes last in an envelope (makeEnvelope); where it does not, or is not there, the whole
 * envelope is written.
 */
export function envelopeJson(envelope: EventEnvelope, dataJson: string): string {
  const keys = Object.keys(envelope);
  if (keys[keys.length - 1] !== 'data' || envelope.data === undefined) return JSON.stringify(envelope);
  const { data: _data, ...head } = envelope;
  const headJson = JSON.stringify(head);
  return headJson === '{}' ? `{"data":${dataJson}}` : `${headJson.slice(0, -1)},"data":${dataJson}}`;
}

/** The topic an event type is published on. */
export function topicOf<E extends EventType>(eventType: E): EventTopics[E] {
  return EVENT_DEFINITIONS[eventType].topic;
}
