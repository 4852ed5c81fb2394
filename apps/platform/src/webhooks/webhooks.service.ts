import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Caller } from '@dtp/auth-guard';
import {
  ConflictError,
  CreateWebhookRequest,
  decodeEventCursor,
  encodeEventCursor,
  EventFeedPage,
  EventFeedQueryDto,
  invalidFields,
  NotFoundError,
  UpdateWebhookRequest,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookList,
  WebhookWithSecret,
  WEBHOOK_PING_TYPE,
  WEBHOOKS_PER_PARTICIPANT,
  isWebhookId,
  ParticipantEventType,
  CloudEventRecord,
} from '@dtp/domain';
import { UnitOfWork } from '@dtp/database';
import type { PlatformConfig } from '../config';
import { PLATFORM_CONFIG } from '../tokens';
import { DeliveryWorker, WEBHOOK_SENDER_OVERRIDES, WebhookSenderOverrides } from './delivery-worker';
import { participantEvent } from './participant-events';
import { checkedTarget, UrlRefused } from './url-guard';
import type { DeliveryRow, WebhookRow } from './webhook.entity';
import { newWebhookSecret } from './webhook-signing';
import { WebhookSecrets } from './webhook-secrets';
import { WebhooksRepository } from './webhooks.repository';

/** A rotated-out secret keeps signing for this long. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;
const DELIVERY_LOG_LIMIT = 100;

const webhookNotFound = () => new NotFoundError('webhook not found');

export function toWebhook(w: WebhookRow): Webhook {
  return {
    webhook_id: w.webhook_id,
    url: w.url,
    event_types: (w.event_types as ParticipantEventType[] | null) ?? null,
    enabled: w.enabled,
    disabled_reason: (w.disabled_reason as 'gone' | null) ?? null,
    description: w.description,
    created_at: new Date(w.created_at).toISOString(),
  };
}

export function toDelivery(d: DeliveryRow): WebhookDelivery {
  const iso = (v: Date | null) => (v === null ? null : new Date(v).toISOString());
  return {
    delivery_id: d.delivery_id,
    event_id: d.event_id,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
    delivered_at: iso(d.delivered_at),
    created_at: new Date(d.created_at).toISOString(),
  };
}

/** Webhook subscriptions, their delivery log and test deliveries, and the event feed (DESIGN.md "Events out..."). */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly repo: WebhooksRepository,
    private readonly worker: DeliveryWorker,
    private readonly secrets: WebhookSecrets,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(WEBHOOK_SENDER_OVERRIDES) private readonly overrides: WebhookSenderOverrides,
  ) {}

  /** 422 naming `url` with the reason when the SSRF rules refuse it. */
  private async checkUrl(url: string): Promise<void> {
    try {
      await checkedTarget(new URL(url), this.config.webhookAllowPrivate, this.overrides.resolve);
    } catch (err) {
      if (err instanceof UrlRefused) throw invalidFields([{ loc: ['body', 'url'], msg: `url ${err.message}`, type: 'value_error.url.refused' }]);
      throw err;
    }
  }

  async create(caller: Caller, dto: CreateWebhookRequest): Promise<WebhookWithSecret> {
    await this.checkUrl(dto.url);
    return this.uow.run(async (tx) => {
      await this.repo.lockParticipant(tx, caller.participantId);
      if ((await this.repo.count(tx, caller.participantId)) >= WEBHOOKS_PER_PARTICIPANT) {
        throw new ConflictError(`at most ${WEBHOOKS_PER_PARTICIPANT} webhooks per participant; delete one first`, 'too_many_webhooks');
      }
      const secret = newWebhookSecret();
      const webhookId = randomUUID();
      const row = await this.repo.insert(tx, {
        webhook_id: webhookId,
        participant_id: caller.participantId,
        url: dto.url,
        event_types: dto.event_types ?? null,
        description: dto.description ?? null,
        secret: this.secrets.forStorage(webhookId, secret),
        created_at: new Date(),
      });
      tx.afterCommit(() => this.worker.webhooksChanged());
      return { ...toWebhook(row), secret };
    });
  }

  async list(caller: Caller): Promise<WebhookList> {
    return { results: (await this.repo.list(this.uow.sql, caller.participantId)).map(toWebhook) };
  }

  private async own(caller: Caller, webhookId: string, sql = this.uow.sql, lock = false): Promise<WebhookRow> {
    if (!isWebhookId(webhookId)) throw webhookNotFound();
    const w = await this.repo.find(sql, caller.participantId, webhookId, lock);
    if (!w) throw webhookNotFound();
    return w;
  }

  async get(caller: Caller, webhookId: string): Promise<Webhook> {
    return toWebhook(await this.own(caller, webhookId));
  }

  async update(caller: Caller, webhookId: string, dto: UpdateWebhookRequest): Promise<Webhook> {
    if (dto.url !== undefined) await this.checkUrl(dto.url);
    return this.uow.run(async (tx) => {
      const w = await this.own(caller, webhookId, tx, true);
      const next: WebhookRow = { ...w };
      if (dto.url !== undefined) next.url = dto.url;
      if (dto.event_types !== undefined) next.event_types = dto.event_types;
      if (dto.description !== undefined) next.description = dto.description;
      if (dto.enabled !== undefined) {
        next.enabled = dto.enabled;
        next.disabled_reason = null;
      }
      const saved = toWebhook(await this.repo.update(tx, next));
      tx.afterCommit(() => this.worker.webhooksChanged());
      return saved;
    });
  }

  async delete(caller: Caller, webhookId: string): Promise<void> {
    if (!isWebhookId(webhookId) || !(await this.repo.delete(this.uow.sql, caller.participantId, webhookId))) throw webhookNotFound();
  }

  async rotateSecret(caller: Caller, webhookId: string): Promise<WebhookWithSecret> {
    return this.uow.run(async (tx) => {
      const w = await this.own(caller, webhookId, tx, true);
      const secret = newWebhookSecret();
      const saved = await this.repo.update(tx, {
        ...w,
        secret: this.secrets.forStorage(w.webhook_id, secret),
        previous_secret: this.secrets.forStorage(w.webhook_id, w.secret),
        previous_secret_until: new Date(Date.now() + SECRET_OVERLAP_MS),
      });
      return { ...toWebhook(saved), secret };
    });
  }

  /** A `dtp.ping` delivery to this webhook only (not on the feed); answers the pending delivery. */
  async ping(caller: Caller, webhookId: string): Promise<WebhookDelivery> {
    const row = await this.uow.run(async (tx) => {
      const w = await this.own(caller, webhookId, tx);
      const e = participantEvent(caller.participantId, WEBHOOK_PING_TYPE, w.webhook_id, { webhook_id: w.webhook_id, message: 'ping' }, new Date());
      const rows = await tx.rows<DeliveryRow>(
        `WITH pe AS (INSERT INTO participant_events (event_id, participant_id, type, subject, time, data) VALUES ($1, $2, $3, $4, $5, $6::json) RETURNING seq)
         INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_seq, event_id, type, subject)
         SELECT dtp_uuid_v7(), $7, pe.seq, $1, $3, $4 FROM pe RETURNING *`,
        [e.event_id, e.participant_id, e.type, e.subject, e.time, e.data, w.webhook_id],
      );
      return rows[0];
    });
    this.worker.webhooksChanged();
    return toDelivery(row);
  }

  async deliveries(caller: Caller, webhookId: string): Promise<WebhookDeliveryList> {
    const w = await this.own(caller, webhookId);
    return { results: (await this.repo.deliveries(this.uow.sql, w.webhook_id, DELIVERY_LOG_LIMIT)).map(toDelivery) };
  }

  async retry(caller: Caller, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
    const w = await this.own(caller, webhookId);
    if (!isWebhookId(deliveryId)) throw new NotFoundError('delivery not found');
    const d = await this.repo.retry(this.uow.sql, w.webhook_id, deliveryId);
    if (!d) throw new NotFoundError('delivery not found');
    this.worker.webhooksChanged();
    return toDelivery(d);
  }

  /** The caller's own events after the cursor, in the order they were recorded. */
  async feed(caller: Caller, q: EventFeedQueryDto): Promise<EventFeedPage> {
    const after = q.after === undefined ? 0n : decodeEventCursor(q.after);
    if (after === null) throw invalidFields([{ loc: ['query', 'after'], msg: 'after must be a next_cursor from an earlier page', type: 'value_error' }]);
    const types = q.types ? q.types.split(',') : null;
    const rows = await this.repo.feed(this.uow.sql, caller.participantId, after, q.limit ?? 100, types);
    const events: CloudEventRecord[] = rows.map((r) => ({
      specversion: '1.0',
      id: r.event_id,
      source: this.config.PUBLIC_BASE_URL,
      type: r.type,
      time: new Date(r.time).toISOString(),
      subject: r.subject,
      datacontenttype: 'application/json',
      data: JSON.parse(r.data_text) as Record<string, unknown>,
    }));
    const last = rows.length > 0 ? BigInt(rows[rows.length - 1].seq) : after;
    return { events, next_cursor: encodeEventCursor(last) };
  }
}
