import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveryWorker, WEBHOOK_SENDER_OVERRIDES } from './delivery-worker';
import { EventRetention } from './event-retention';
import { ParticipantEventEntity, WebhookDeliveryEntity, WebhookEntity } from './webhook.entity';
import { EventFeedController, WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';
import { WebhookSecrets } from './webhook-secrets';

/**
 * Events out to participants' systems: `/webhooks` (subscriptions, delivery log, test, retry), `/events` (the feed),
 * the delivery worker and the feed's retention. The events themselves are written by the features' own
 * transactions (participant-events.ts).
 */
@Module({
  imports: [TypeOrmModule.forFeature([ParticipantEventEntity, WebhookEntity, WebhookDeliveryEntity])],
  controllers: [WebhooksController, EventFeedController],
  providers: [WebhooksService, WebhooksRepository, WebhookSecrets, DeliveryWorker, EventRetention, { provide: WEBHOOK_SENDER_OVERRIDES, useValue: {} }],
  exports: [DeliveryWorker],
})
export class WebhooksModule {}
