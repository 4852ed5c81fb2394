import { plainToInstance } from 'class-transformer';
import { ValidationError, isISO8601, isUUID, validateSync } from 'class-validator';
import { toValidationDetail } from '../dto/validation-detail';
import { EnvelopeOf, EVENT_DEFINITIONS, TOPIC_EVENT_TYPES } from './registry';
import { EventType } from './topics';

/** The outcome of validateEnvelope for topic `T`: an envelope of one of `T`'s event types, or why not. */
export type EnvelopeValidation<T extends string = string> = { ok: true; envelope: EnvelopeOf<T> } | { ok: false; reason: string };

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

function parse(value: unknown): { value: unknown } | { error: string } {
  if (value === null || value === undefined) return { error: 'message value is empty (tombstone)' };
  if (typeof value === 'string' || value instanceof Uint8Array) {
    const text = typeof value === 'string' ? value : Buffer.from(value).toString('utf8');
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { error: 'message value is not valid JSON' };
    }
  }
  return { value };
}

function describe(errors: ValidationError[]): string {
  return toValidationDetail(errors, ['data'])
    .map((d) => `${d.loc.join('.')}: ${d.msg}`)
    .join('; ');
}

/**
 * Checks a consumed message value (object, JSON text or bytes) against the contract of `topic`:
 * envelope members, an event type that belongs on that topic, a supported schema_version, a valid
 * `data` and a `key` equal to the aggregate id in `data`. Unknown members are tolerated. On success
 * the original value is returned, typed by its event_type (one of the topic's: EnvelopeOf<T>).
 */
export function validateEnvelope<T extends string>(topic: T, value: unknown): EnvelopeValidation<T> {
  const types = (TOPIC_EVENT_TYPES as Record<string, readonly EventType[] | undefined>)[topic];
  if (!types) return fail(`unknown topic ${topic}`);
  const parsed = parse(value);
  if ('error' in parsed) return fail(parsed.error);
  const env = parsed.value as Record<string, unknown>;
  if (typeof env !== 'object' || env === null || Array.isArray(env)) return fail('envelope must be an object');

  if (!isUUID(env.event_id)) return fail('event_id must be a UUID');
  if (typeof env.event_type !== 'string') return fail('event_type must be a string');
  if (!types.includes(env.event_type as EventType)) {
    return fail(`event_type ${env.event_type} is not published on topic ${topic}`);
  }
  const definition = EVENT_DEFINITIONS[env.event_type as EventType];
  if (env.schema_version !== definition.schemaVersion) {
    return fail(`schema_version ${String(env.schema_version)} is not supported for ${env.event_type}`);
  }
  if (!isISO8601(env.occurred_at, { strict: true })) return fail('occurred_at must be an ISO 8601 date-time');
  if (typeof env.key !== 'string' || env.key.length === 0) return fail('key must be a non-empty string');
  if (typeof env.revision !== 'number' || !Number.isInteger(env.revision) || env.revision < 1) {
    return fail('revision must be a positive integer');
  }
  if (typeof env.data !== 'object' || env.data === null || Array.isArray(env.data)) {
    return fail('data must be an object');
  }

  const instance = plainToInstance(definition.payloadClass, env.data);
  const errors = validateSync(instance, { forbidUnknownValues: true });
  if (errors.length > 0) return fail(`invalid data: ${describe(errors)}`);

  const expectedKey = (definition.keyOf as (d: unknown) => string)(env.data);
  if (env.key !== expectedKey) return fail(`key ${env.key} does not match the aggregate id ${expectedKey}`);

  // Checked above: an event type of this topic, its schema version, its data contract and its key.
  return { ok: true, envelope: env as unknown as EnvelopeOf<T> };
}
