import type { OpenAPIObject } from '@nestjs/swagger';
import { ParticipantEventTypes, WEBHOOK_PING_TYPE } from '@dtp/domain';

type Schema = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const str = (description: string, extra: Schema = {}) => ({ type: 'string', description, ...extra });

/** What each event type's `data` is, who receives it, and its subject. */
const EVENTS: { type: string; name: string; summary: string; subject: string; data: Schema }[] = [
  {
    type: ParticipantEventTypes.SHIPMENT_INBOUND,
    name: 'ShipmentInbound',
    summary: 'To the recipient: a shipment was sent to you. `data` is the shipment as `GET /v2/shipment/inbound` lists it.',
    subject: 'the shipment id',
    data: ref('InboundShipment'),
  },
  {
    type: ParticipantEventTypes.SHIPMENT_ACCEPTED,
    name: 'ShipmentAccepted',
    summary: 'To the sender: the recipient accepted diamonds of your shipment.',
    subject: 'the shipment id',
    data: ref('ShipmentDecisionEventData'),
  },
  {
    type: ParticipantEventTypes.SHIPMENT_REJECTED,
    name: 'ShipmentRejected',
    summary: 'To the sender: the recipient rejected diamonds of your shipment (they are yours again).',
    subject: 'the shipment id',
    data: ref('ShipmentDecisionEventData'),
  },
  {
    type: ParticipantEventTypes.DIAMOND_UPDATED,
    name: 'DiamondUpdated',
    summary: 'To the holder and the uploader: the diamond changed. `data` is the current DiamondV1 record with the custody action in `action`.',
    subject: 'the diamond id',
    data: {
      allOf: [
        ref('DiamondV1'),
        {
          type: 'object',
          required: ['action'],
          properties: { action: str('The custody log action of the change (registered, shipped, accepted, rejected, unlocked, ...).') },
        },
      ],
    },
  },
  {
    type: ParticipantEventTypes.DIAMOND_DELETED,
    name: 'DiamondDeleted',
    summary: 'To the uploader and the holder: the diamond was deleted.',
    subject: 'the diamond id',
    data: { type: 'object', required: ['diamond_id'], properties: { diamond_id: str('The deleted diamond.') } },
  },
  {
    type: ParticipantEventTypes.GRADING_RECEIVED,
    name: 'GradingReceived',
    summary: "To the holder: a lab's graded measurement of the diamond arrived (list and select it with the graded-measurements operations).",
    subject: 'the diamond id',
    data: {
      type: 'object',
      required: ['diamond_id', 'grading_id', 'grading'],
      properties: {
        diamond_id: str('The diamond.'),
        grading_id: str('The new graded measurement.'),
        submitted_by: str('The grading lab (participant id).', { type: ['string', 'null'] }),
        submitted_at: str('When the lab submitted it.', { type: ['string', 'null'], format: 'date-time' }),
        grading: { type: 'object', additionalProperties: true, description: "The lab's measurements (decimals as decimal text)." },
      },
    },
  },
  {
    type: ParticipantEventTypes.VALIDATION_ANSWERED,
    name: 'ValidationAnswered',
    summary: "To the holder: GIS answered a lab's validation request for the diamond.",
    subject: 'the diamond id',
    data: {
      type: 'object',
      required: ['diamond_id', 'request_id', 'verification_status', 'answered_at'],
      properties: {
        diamond_id: str('The diamond.'),
        request_id: str('The validation request.', { format: 'uuid' }),
        verification_status: str('The answer.', { enum: ['Verified', 'Unverifiable'] }),
        answered_at: str('When GIS answered.', { format: 'date-time' }),
      },
    },
  },
  {
    type: WEBHOOK_PING_TYPE,
    name: 'Ping',
    summary: 'A test delivery (`POST /webhooks/{webhook_id}/test`); never on the event feed.',
    subject: 'the webhook id',
    data: { type: 'object', properties: { webhook_id: str('The webhook.'), message: str('`ping`.') } },
  },
];

const SIGNATURE_HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The CloudEvent id: the same on every retry (deduplicate on it).',
    schema: { type: 'string' },
  },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds when this attempt was signed.', schema: { type: 'string' } },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` + base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64-decoded secret after `whsec_` (Standard Webhooks). ' +
      'Two signatures, space separated, for 24 hours after a secret rotation.',
    schema: { type: 'string' },
  },
];

/**
 * The `webhooks` section (OpenAPI 3.1) of platform's document: every event type it POSTs to a participant's webhook,
 * with its CloudEvent body schema and the signature headers (docs/webhooks.md).
 */
export function documentWebhooks(document: OpenAPIObject): OpenAPIObject {
  const schemas = ((document.components ??= {}).schemas ??= {}) as Record<string, unknown>;
  schemas.ShipmentDecisionEventData = {
    type: 'object',
    required: ['shipment_id', 'diamond_ids'],
    properties: {
      shipment_id: str('The shipment.'),
      diamond_ids: { type: 'array', items: { type: 'string' }, description: 'The diamonds accepted (or rejected).' },
    },
  };
  const webhooks: Record<string, unknown> = {};
  for (const e of EVENTS) {
    schemas[`${e.name}Event`] = {
      title: e.type,
      description: `CloudEvents 1.0 (structured JSON) of type \`${e.type}\`. ${e.summary}`,
      allOf: [ref('CloudEvent'), { type: 'object', properties: { type: { const: e.type }, subject: str(`The subject: ${e.subject}.`), data: e.data } }],
    };
    webhooks[e.type] = {
      post: {
        operationId: `webhook${e.name}`,
        summary: e.type,
        description: `${e.summary} Answer 2xx within 10 s; 410 disables the webhook; anything else is retried with back-off (docs/webhooks.md).`,
        tags: ['webhooks'],
        parameters: SIGNATURE_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: ref(`${e.name}Event`) } } },
        responses: {
          '200': { description: 'Received (any 2xx).' },
          '410': { description: 'Gone: platform disables the webhook and sends it nothing more.' },
        },
      },
    };
  }
  (document as unknown as { webhooks: Record<string, unknown> }).webhooks = webhooks;
  return document;
}
