import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import {
  canonicalUuid,
  CreateWebhookRequest,
  EventFeedPage,
  EventFeedQueryDto,
  isWebhookId,
  UpdateWebhookRequest,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookList,
  WebhookWithSecret,
  WEBHOOKS_PER_PARTICIPANT,
} from '@dtp/domain';
import { ApiErrors, PathIdPipe } from '@dtp/service-kit';
import { ApiNoBodyErrors, ApiPathErrors, Errors } from '../api-docs';
import { WebhooksService } from './webhooks.service';

const ROLES = 'producers, manufacturers and retailers';
const WebhookIdParam = () => Param('webhook_id', new PathIdPipe(isWebhookId, { message: 'webhook not found' }, canonicalUuid));
const ApiWebhookIdParam = () =>
  ApiParam({
    name: 'webhook_id',
    description: "One of your webhooks. Another participant's, or out of format, answers 404.",
    schema: { type: 'string', format: 'uuid', example: '5f0c6a53-3c4c-4f64-9a0e-2b8f3f6d8c11' },
  });
const notFound = "No such webhook of yours (another participant's webhook answers 404 too).";

const WEBHOOK_ID = '5f0c6a53-3c4c-4f64-9a0e-2b8f3f6d8c11';
const WEBHOOK_EXAMPLE = {
  webhook_id: WEBHOOK_ID,
  url: 'https://erp.example.com/dtp/events',
  event_types: ['dtp.shipment.inbound', 'dtp.diamond.updated'],
  enabled: true,
  disabled_reason: null,
  description: 'ERP inbound shipments',
  created_at: '2025-11-21T10:00:00.000Z',
};
const WITH_SECRET_EXAMPLE = { ...WEBHOOK_EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8SMT4H7lvQA=' };
const DELIVERY_EXAMPLE = {
  delivery_id: '0b7f9a4e-8d2c-4b55-9a51-6c3c1b2f7e10',
  event_id: '8e6f2c1a-7b3d-4e59-a0c4-1d2e3f4a5b6c',
  type: 'dtp.shipment.inbound',
  status: 'pending',
  attempts: 2,
  last_status_code: 503,
  last_error: 'HTTP 503: Service Unavailable',
  next_attempt_at: '2025-11-21T10:01:05.000Z',
  delivered_at: null,
  created_at: '2025-11-21T10:00:00.000Z',
};
const FEED_EXAMPLE = {
  events: [
    {
      specversion: '1.0',
      id: '8e6f2c1a-7b3d-4e59-a0c4-1d2e3f4a5b6c',
      source: 'https://platform.example.com',
      type: 'dtp.shipment.accepted',
      time: '2025-11-21T10:00:00.000Z',
      subject: '01jd5x2k7m9q3r8t6v4w2y0z1a',
      datacontenttype: 'application/json',
      data: { shipment_id: '01jd5x2k7m9q3r8t6v4w2y0z1a', diamond_ids: ['01jd5x0a1b2c3d4e5f6g7h8j9k'] },
    },
  ],
  next_cursor: 'c_00000000000000a3',
};

/** Webhook subscriptions (docs/webhooks.md). Each participant sees and changes only its own. */
@ApiTags('webhooks')
@Controller('webhooks')
@Roles('producer', 'manufacturer', 'retailer')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Subscribe a URL to your events',
    description:
      `Platform POSTs each event that concerns you (a CloudEvents 1.0 JSON body, signed as Standard Webhooks) to \`url\`. At most ${WEBHOOKS_PER_PARTICIPANT} webhooks per participant (409 \`too_many_webhooks\`). ` +
      'The answer carries the signing `secret` (`whsec_` + base64 of 32 bytes), shown only now. In live/sandbox the URL must be https and must not resolve to a loopback, private, link-local or metadata address (422 naming `url` with the reason).',
  })
  @ApiBody({ type: CreateWebhookRequest })
  @ApiCreatedResponse({ description: 'The webhook, with its secret.', type: WebhookWithSecret, example: WITH_SECRET_EXAMPLE })
  @ApiErrors({
    403: Errors.role(ROLES),
    409: { description: `You already have ${WEBHOOKS_PER_PARTICIPANT} webhooks.`, reasons: ['too_many_webhooks'] },
    413: Errors.bodyTooLarge,
    422: Errors.invalidBody,
    503: Errors.unavailable,
  })
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateWebhookRequest): Promise<WebhookWithSecret> {
    return this.webhooks.create(caller, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listWebhooks', summary: 'Your webhooks', description: 'Oldest first; secrets are never shown again.' })
  @ApiOkResponse({ type: WebhookList, example: { results: [WEBHOOK_EXAMPLE] } })
  @ApiErrors({ 403: Errors.role(ROLES), 503: Errors.unavailable })
  async list(@CurrentCaller() caller: Caller): Promise<WebhookList> {
    return this.webhooks.list(caller);
  }

  @Get(':webhook_id')
  @ApiOperation({ operationId: 'getWebhook', summary: 'One of your webhooks' })
  @ApiWebhookIdParam()
  @ApiPathErrors()
  @ApiOkResponse({ type: Webhook, example: WEBHOOK_EXAMPLE })
  @ApiErrors({ 403: Errors.role(ROLES), 404: notFound, 503: Errors.unavailable })
  async get(@CurrentCaller() caller: Caller, @WebhookIdParam() id: string): Promise<Webhook> {
    return this.webhooks.get(caller, id);
  }

  @Patch(':webhook_id')
  @ApiOperation({
    operationId: 'updateWebhook',
    summary: 'Change a webhook',
    description: '`enabled: true` also re-enables a webhook platform disabled after a 410 Gone. The URL is checked as on creation.',
  })
  @ApiWebhookIdParam()
  @ApiPathErrors()
  @ApiBody({ type: UpdateWebhookRequest })
  @ApiOkResponse({ type: Webhook, example: WEBHOOK_EXAMPLE })
  @ApiErrors({ 403: Errors.role(ROLES), 404: notFound, 413: Errors.bodyTooLarge, 422: Errors.invalidBody, 503: Errors.unavailable })
  async update(@CurrentCaller() caller: Caller, @WebhookIdParam() id: string, @Body() body: UpdateWebhookRequest): Promise<Webhook> {
    return this.webhooks.update(caller, id, body);
  }

  @Delete(':webhook_id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Delete a webhook', description: 'Its pending deliveries go with it.' })
  @ApiWebhookIdParam()
  @ApiPathErrors()
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiNoBodyErrors()
  @ApiErrors({ 403: Errors.role(ROLES), 404: notFound, 503: Errors.unavailable })
  async delete(@CurrentCaller() caller: Caller, @WebhookIdParam() id: string): Promise<void> {
    await this.webhooks.delete(caller, id);
  }

  @Post(':webhook_id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: 'Replace the signing secret',
    description:
      'Answers the new secret (shown only now). For 24 hours the old secret signs too: `webhook-signature` carries both signatures, space separated.',
  })
  @ApiWebhookIdParam()
  @ApiPathErrors()
  @ApiOkResponse({ type: WebhookWithSecret, example: WITH_SECRET_EXAMPLE })
  @ApiNoBodyErrors()
  @ApiErrors({ 403: Errors.role(ROLES), 404: notFound, 503: Errors.unavailable })
  async rotate(@CurrentCaller() caller: Caller, @WebhookIdParam() id: string): Promise<WebhookWithSecret> {
    return this.webhooks.rotateSecret(caller, id);
  }

  @Post(':webhook_id/test')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'testWebhook',
    summary: 'Send a dtp.ping event',
    description: 'A `dtp.ping` delivery to this webhook (not on the event feed); watch it in the delivery log.',
  })
  @ApiWebhookIdParam()
  @ApiPathErrors()
  @ApiAcceptedResponse({ type: WebhookDelivery, example: DELIVERY_EXAMPLE })
  @ApiNoBodyErrors()
  @ApiErrors({ 403: Errors.role(ROLES), 404: notFound, 503: Errors.unavailable })
  async test(@CurrentCaller() caller: Caller, @WebhookIdParam() id: string): Promise<WebhookDelivery> {
    return this.webhooks.ping(caller, id);
  }

  @Get(':webhook_id/deliveries')
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: 'The delivery log of a webhook', description: 'The latest 100 deliveries, newest first.' })
  @ApiWebhookIdParam()
  @ApiPathErrors()
  @ApiOkResponse({ type: WebhookDeliveryList, example: { results: [DELIVERY_EXAMPLE] } })
  @ApiErrors({ 403: Errors.role(ROLES), 404: notFound, 503: Errors.unavailable })
  async deliveries(@CurrentCaller() caller: Caller, @WebhookIdParam() id: string): Promise<WebhookDeliveryList> {
    return this.webhooks.deliveries(caller, id);
  }

  @Post(':webhook_id/deliveries/:delivery_id/retry')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Deliver again now',
    description: 'Puts the delivery back to `pending`, due now (any status).',
  })
  @ApiWebhookIdParam()
  @ApiParam({
    name: 'delivery_id',
    schema: { type: 'string', format: 'uuid', example: DELIVERY_EXAMPLE.delivery_id },
    description: 'A delivery of this webhook.',
  })
  @ApiPathErrors()
  @ApiAcceptedResponse({ type: WebhookDelivery, example: DELIVERY_EXAMPLE })
  @ApiNoBodyErrors()
  @ApiErrors({ 403: Errors.role(ROLES), 404: 'No such webhook of yours, or no such delivery of it.', 503: Errors.unavailable })
  async retry(
    @CurrentCaller() caller: Caller,
    @WebhookIdParam() id: string,
    @Param('delivery_id', new PathIdPipe(isWebhookId, { message: 'delivery not found' }, canonicalUuid)) deliveryId: string,
  ): Promise<WebhookDelivery> {
    return this.webhooks.retry(caller, id, deliveryId);
  }
}

/** The event feed: the same CloudEvents as the webhooks, for replay without a public address. */
@ApiTags('webhooks')
@Controller('events')
@Roles('producer', 'manufacturer', 'retailer')
export class EventFeedController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'Your events, oldest first (the event feed)',
    description:
      'The events platform recorded for you (the same CloudEvents, same ids, as your webhooks get), in the order they were recorded, kept 30 days. ' +
      'Pass `next_cursor` as `after` to read on; with nothing new the same cursor comes back.',
  })
  @ApiOkResponse({ type: EventFeedPage, example: FEED_EXAMPLE })
  @ApiErrors({ 403: Errors.role(ROLES), 422: 'A query parameter out of range (`detail` names it).', 503: Errors.unavailable })
  async list(@CurrentCaller() caller: Caller, @Query() query: EventFeedQueryDto): Promise<EventFeedPage> {
    return this.webhooks.feed(caller, query);
  }
}
