import 'reflect-metadata';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidationOptions,
} from 'class-validator';
import { closedSchema, dateTimeField } from '../records/api-fields';
import { DESCRIPTION_MAX_LENGTH } from '../rules/limits';
import { IsOptionalNonNull } from '../dto/validators';

/**
 * Events out to participants' systems (DESIGN.md "Events out to participants' systems"): the CloudEvents 1.0
 * types platform delivers to webhooks and serves on its event feed, who receives each, the subscription DTOs and
 * the delivery log's records.
 */

/** The event types a participant can receive (and subscribe to). */
export const ParticipantEventTypes = Object.freeze({
  /** Recipient: a shipment was sent to it (data: the inbound shipment as the list serves it). */
  SHIPMENT_INBOUND: 'dtp.shipment.inbound',
  /** Sender: the recipient accepted diamonds of its shipment (data: shipment id and the diamond ids). */
  SHIPMENT_ACCEPTED: 'dtp.shipment.accepted',
  /** Sender: the recipient rejected diamonds of its shipment (data: shipment id and the diamond ids). */
  SHIPMENT_REJECTED: 'dtp.shipment.rejected',
  /** Holder and uploader: the current DiamondV1 record after any change, the custody action in `data.action`. */
  DIAMOND_UPDATED: 'dtp.diamond.updated',
  /** Uploader and holder: the diamond was deleted (data: its id). */
  DIAMOND_DELETED: 'dtp.diamond.deleted',
  /** Holder: a lab's graded measurement arrived (data: the grading). */
  GRADING_RECEIVED: 'dtp.grading.received',
  /** Holder: GIS answered a validation of its diamond. */
  VALIDATION_ANSWERED: 'dtp.validation.answered',
});
export type ParticipantEventType = (typeof ParticipantEventTypes)[keyof typeof ParticipantEventTypes];
export const PARTICIPANT_EVENT_TYPE_VALUES: readonly ParticipantEventType[] = Object.freeze(Object.values(ParticipantEventTypes));
/** The test delivery of `POST /webhooks/{webhook_id}/test` (never recorded on the feed). */
export const WEBHOOK_PING_TYPE = 'dtp.ping';

/** At most this many webhooks per participant. */
export const WEBHOOKS_PER_PARTICIPANT = 10;
/** Webhook URLs are at most this long. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** The event feed's page size: 1..500, default 100. */
export const EVENT_FEED_MAX_LIMIT = 500;
export const EVENT_FEED_DEFAULT_LIMIT = 100;
/** A webhook id: a UUID. */
export const isWebhookId = (v: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v);

/** A CloudEvents 1.0 event in structured JSON mode, as delivered and served by the feed. */
export interface CloudEvent<T = unknown> {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  time: string;
  subject: string;
  datacontenttype: 'application/json';
  data: T;
}

/** data of dtp.shipment.accepted / dtp.shipment.rejected. */
export interface ShipmentDecisionEventData {
  shipment_id: string;
  diamond_ids: string[];
}

/** data of dtp.diamond.deleted. */
export interface DiamondDeletedEventData {
  diamond_id: string;
}

/** data of dtp.grading.received. */
export interface GradingReceivedEventData {
  diamond_id: string;
  grading_id: string;
  /** The grading lab's participant id. */
  submitted_by: string | null;
  submitted_at: string | null;
  /** The lab's measurements, as GIS published them. */
  grading: Record<string, unknown>;
}

/** data of dtp.validation.answered. */
export interface ValidationAnsweredEventData {
  diamond_id: string;
  request_id: string;
  verification_status: string;
  answered_at: string;
}

/** A URL of at most 2,048 characters, http or https, with a host (the SSRF rules are checked by platform). */
export function IsWebhookUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWebhookUrl',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string' || value.length > WEBHOOK_URL_MAX_LENGTH) return false;
          try {
            const u = new URL(value);
            return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && u.username === '' && u.password === '';
          } catch {
            return false;
          }
        },
        defaultMessage: () => `url must be an absolute http(s) URL without credentials, at most ${WEBHOOK_URL_MAX_LENGTH} characters`,
      },
    },
    options,
  );
}

const urlField: ApiPropertyOptions = {
  type: 'string',
  format: 'uri',
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  description:
    'Where events are POSTed. In live/sandbox: https only, and it must not resolve to a loopback, private, link-local or metadata address (checked now and at every connection).',
  example: 'https://erp.example.com/dtp/events',
};
const typesField: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string', enum: [...PARTICIPANT_EVENT_TYPE_VALUES] },
  maxItems: PARTICIPANT_EVENT_TYPE_VALUES.length,
  uniqueItems: true,
  nullable: true,
  description: 'The event types to deliver; absent or null: all of them.',
  example: ['dtp.shipment.inbound', 'dtp.diamond.updated'],
};

const descriptionField: ApiPropertyOptions = {
  type: 'string',
  maxLength: DESCRIPTION_MAX_LENGTH,
  nullable: true,
  description: 'A note for you; absent or null: none.',
  example: 'ERP inbound shipments',
};

/** Body of `POST {base_url}/webhooks`. */
@ApiSchema(closedSchema('CreateWebhook', 'A new webhook subscription. Unknown fields are rejected.'))
export class CreateWebhookRequest {
  @ApiProperty(urlField)
  @IsWebhookUrl()
  url!: string;

  @ApiPropertyOptional(typesField)
  @IsOptional() // null: every type, as absent (until 2026-12-07 refused, though documented)
  @IsArray()
  @ArrayMaxSize(PARTICIPANT_EVENT_TYPE_VALUES.length)
  @ArrayUnique()
  @IsIn(PARTICIPANT_EVENT_TYPE_VALUES, { each: true })
  event_types?: ParticipantEventType[] | null;

  @ApiPropertyOptional(descriptionField)
  @IsOptional() // null: none, as absent
  @IsString()
  @MaxLength(DESCRIPTION_MAX_LENGTH)
  description?: string | null;
}

/** Body of `PATCH {base_url}/webhooks/{webhook_id}`: any of the members. */
@ApiSchema(closedSchema('UpdateWebhook', 'Changes to a webhook; absent members stay as they are. Unknown fields are rejected.'))
export class UpdateWebhookRequest {
  @ApiPropertyOptional(urlField)
  @IsOptionalNonNull()
  @IsWebhookUrl()
  url?: string;

  @ApiPropertyOptional(typesField)
  @IsOptional() // null: every type
  @IsArray()
  @ArrayMaxSize(PARTICIPANT_EVENT_TYPE_VALUES.length)
  @ArrayUnique()
  @IsIn(PARTICIPANT_EVENT_TYPE_VALUES, { each: true })
  event_types?: ParticipantEventType[] | null;

  @ApiPropertyOptional({ type: 'boolean', description: 'false pauses deliveries; true resumes (and re-enables a webhook disabled by a 410).' })
  @IsOptionalNonNull()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ ...descriptionField, description: 'A note for you; null removes it.' })
  @IsOptional() // null: removes the description
  @IsString()
  @MaxLength(DESCRIPTION_MAX_LENGTH)
  description?: string | null;
}

/** A webhook subscription as listed. */
export class Webhook {
  @ApiProperty({ type: 'string', format: 'uuid' })
  webhook_id!: string;

  @ApiProperty(urlField)
  url!: string;

  @ApiProperty({ ...typesField, description: 'The event types delivered; null: all.' } as ApiPropertyOptions)
  event_types!: ParticipantEventType[] | null;

  @ApiProperty({ type: 'boolean', description: 'false: paused by you, or disabled because the receiver answered 410 Gone.' })
  enabled!: boolean;

  @ApiProperty({ type: 'string', nullable: true, enum: ['gone', null], description: 'Why platform disabled it (`gone`: the receiver answered 410), or null.' })
  disabled_reason!: 'gone' | null;

  @ApiProperty({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH })
  description!: string | null;

  @ApiProperty(dateTimeField())
  created_at!: string;
}

/** A webhook with its signing secret: answered once, by creation and by rotate-secret. */
export class WebhookWithSecret extends Webhook {
  @ApiProperty({
    type: 'string',
    pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
    description: '`whsec_` + base64 of 32 random bytes: the HMAC key (its decoded bytes) of the `webhook-signature` header. Shown only now.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8SMT4H7lvQA=',
  })
  secret!: string;
}

/** The webhooks of the caller. */
export class WebhookList {
  @ApiProperty({ type: () => Webhook, isArray: true, maxItems: WEBHOOKS_PER_PARTICIPANT })
  results!: Webhook[];
}

export const DELIVERY_STATUS_VALUES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUS_VALUES)[number];

/** One delivery of one event to one webhook, as the log shows it. */
export class WebhookDelivery {
  @ApiProperty({ type: 'string', format: 'uuid' })
  delivery_id!: string;

  @ApiProperty({ type: 'string', format: 'uuid', description: 'The CloudEvent id (also the `webhook-id` header, the same on every attempt).' })
  event_id!: string;

  @ApiProperty({ type: 'string', example: 'dtp.shipment.inbound' })
  type!: string;

  @ApiProperty({ type: 'string', enum: [...DELIVERY_STATUS_VALUES] })
  status!: DeliveryStatus;

  @ApiProperty({ type: 'integer', minimum: 0 })
  attempts!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: "The last attempt's HTTP status, or null (none yet, or no answer)." })
  last_status_code!: number | null;

  @ApiProperty({ type: 'string', nullable: true, description: "Why the last attempt failed, with up to 1 KiB of the receiver's answer." })
  last_error!: string | null;

  @ApiProperty(dateTimeField({ nullable: true, description: 'When the next attempt is due (pending only).' }))
  next_attempt_at!: string | null;

  @ApiProperty(
    dateTimeField({
      nullable: true,
      description:
        "When the receiver's 2xx answer arrived; null until then. The log shows it once the worker has stored the outcome (outcomes of a batch are stored together, at least once a second).",
    }),
  )
  delivered_at!: string | null;

  @ApiProperty(dateTimeField())
  created_at!: string;
}

/** The delivery log of a webhook, newest first. */
export class WebhookDeliveryList {
  @ApiProperty({ type: () => WebhookDelivery, isArray: true })
  results!: WebhookDelivery[];
}

/** A CloudEvent as the feed and the webhooks carry it. */
@ApiSchema({ name: 'CloudEvent', description: 'A CloudEvents 1.0 event (structured JSON mode).' })
export class CloudEventRecord {
  @ApiProperty({ type: 'string', enum: ['1.0'] })
  specversion!: '1.0';

  @ApiProperty({ type: 'string', format: 'uuid', description: 'Unique per event and recipient; the `webhook-id` of its deliveries.' })
  id!: string;

  @ApiProperty({ type: 'string', format: 'uri', description: "The platform's base address ({base_url})." })
  source!: string;

  @ApiProperty({ type: 'string', enum: [...PARTICIPANT_EVENT_TYPE_VALUES, WEBHOOK_PING_TYPE] })
  type!: string;

  @ApiProperty(dateTimeField())
  time!: string;

  @ApiProperty({ type: 'string', description: 'The diamond or shipment id the event is about.' })
  subject!: string;

  @ApiProperty({ type: 'string', enum: ['application/json'] })
  datacontenttype!: 'application/json';

  @ApiProperty({ type: 'object', additionalProperties: true, description: "The event's data (see the `webhooks` section of this document for each type)." })
  data!: Record<string, unknown>;
}

/** `GET {base_url}/events`: a page of the caller's own events, oldest first. */
export class EventFeedPage {
  @ApiProperty({ type: () => CloudEventRecord, isArray: true, maxItems: EVENT_FEED_MAX_LIMIT })
  events!: CloudEventRecord[];

  @ApiProperty({
    type: 'string',
    description: 'Pass as `after` to get the events recorded after this page (opaque, stable; the same cursor when nothing new came).',
    example: 'c_00000000000000a3',
  })
  next_cursor!: string;
}

/** The event feed's cursor: opaque to clients, the recorded sequence number inside. */
export function encodeEventCursor(seq: bigint | number | string): string {
  return `c_${BigInt(seq).toString(16).padStart(16, '0')}`;
}
/** The sequence number of a cursor, or null when it is not one. */
export function decodeEventCursor(cursor: string): bigint | null {
  const m = /^c_([0-9a-f]{16})$/.exec(cursor);
  return m ? BigInt(`0x${m[1]}`) : null;
}

/** Query of `GET {base_url}/events`. */
export class EventFeedQueryDto {
  @ApiPropertyOptional({
    type: 'string',
    description: 'A `next_cursor` from an earlier page; absent: from the oldest event kept.',
    example: 'c_00000000000000a3',
  })
  @IsOptional()
  @IsString()
  @Matches(/^c_[0-9a-f]{16}$/, { message: 'after must be a next_cursor from an earlier page' })
  after?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: EVENT_FEED_MAX_LIMIT, default: EVENT_FEED_DEFAULT_LIMIT })
  @Type(() => Number)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(EVENT_FEED_MAX_LIMIT)
  limit: number = EVENT_FEED_DEFAULT_LIMIT;

  @ApiPropertyOptional({
    type: 'string',
    description: `Only these event types, comma separated (${PARTICIPANT_EVENT_TYPE_VALUES.join(', ')}); absent: all.`,
    example: 'dtp.shipment.inbound,dtp.diamond.updated',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  @ValidateBy({
    name: 'isEventTypeList',
    validator: {
      validate: (v: unknown) => typeof v === 'string' && v.split(',').every((t) => (PARTICIPANT_EVENT_TYPE_VALUES as readonly string[]).includes(t)),
      defaultMessage: () => `types must be a comma-separated list of: ${PARTICIPANT_EVENT_TYPE_VALUES.join(', ')}`,
    },
  })
  types?: string;
}
