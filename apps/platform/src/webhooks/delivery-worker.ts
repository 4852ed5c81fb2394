import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Counter, Histogram } from 'prom-client';
import { UnitOfWork } from '@dtp/database';
import { OUTBOX_CHANNEL, WakeLoop } from '@dtp/events';
import { Client } from 'pg';
import { counterOf, gaugeOf, histogramOf, LOGGER, ServiceMetrics } from '@dtp/service-kit';
import type { PlatformConfig } from '../config';
import { PLATFORM_CONFIG } from '../tokens';
import type { WebhookRow } from './webhook.entity';
import { SendOutcome, WebhookSender } from './webhook-sender';
import { signedHeaders } from './webhook-signing';
import { WebhookSecrets } from './webhook-secrets';
import { AttemptOutcome, ClaimedDelivery, WebhooksRepository } from './webhooks.repository';
import type { Resolver } from './url-guard';

/**
 * Deliveries claimed at once for one webhook (each a different subject). The claim is planned at each call
 * (WebhooksRepository.claimBatch says why), and so is the statement storing a batch's outcomes, so a larger batch
 * spreads them over more deliveries: 50 rather than 20 took the worker's database time per delivery from 82 to 98 us
 * to 58 to 69 in `npm run bench -- webhooks` (docs/webhooks.md, "Batches of 50").
 */
export const BATCH = 50;
/**
 * The batch of a webhook whose last attempt from this worker was not delivered, or that it has not sent to yet: a
 * receiver that never answers holds its webhook's slot for a batch of timeouts (20 x WEBHOOK_TIMEOUT_MS, as before
 * batches of 50), not 50.
 */
export const CAUTIOUS_BATCH = 20;
/**
 * Fairness: a lease claims at most PER_LEASE deliveries, in at most CLAIMS_PER_LEASE claims (short ones when a backlog
 * is a few subjects', each claim taking one delivery per subject), then the webhook goes back to the end of the queue.
 */
export const PER_LEASE = 100;
export const CLAIMS_PER_LEASE = 5;

/**
 * The size of a lease's next claim after `claims` claims that took `claimed` deliveries, for a webhook `delivering` or
 * not (BATCH or CAUTIOUS_BATCH, within PER_LEASE); 0 when the lease has had its share.
 */
export function nextClaimSize(claims: number, claimed: number, delivering: boolean): number {
  if (claims >= CLAIMS_PER_LEASE || claimed >= PER_LEASE) return 0;
  return Math.min(delivering ? BATCH : CAUTIOUS_BATCH, PER_LEASE - claimed);
}
/** A lease is renewed before an attempt that might otherwise outlast it by less than this. */
const LEASE_MARGIN_MS = 1000;
/** Outcomes are stored at the end of a batch, and also after an attempt ending this long after the last store. */
const OUTCOMES_HELD_MS = 1000;
/** The least time between two looks for webhooks with due deliveries (a commit wakes the worker; hundreds a second). */
const PASS_GAP_MS = 20;
/**
 * Deliveries this worker claims of a webhook between two moves of its walk start (WebhooksRepository.moveWalkStart):
 * the bound then trails the lowest pending delivery by two to three times this many, and a move (about half a
 * millisecond of database time) costs about 1 us per delivery, at any rate.
 */
export const WALK_MOVE_EVERY = 500;

/** The CloudEvent of a stored event, as JSON text: its data spliced in exactly as stored. */
export function cloudEventText(source: string, e: { event_id: string; type: string; time: Date; subject: string; data_text: string }): string {
  const head = JSON.stringify({
    specversion: '1.0',
    id: e.event_id,
    source,
    type: e.type,
    time: new Date(e.time).toISOString(),
    subject: e.subject,
    datacontenttype: 'application/json',
  });
  return `${head.slice(0, -1)},"data":${e.data_text}}`;
}

/** Test hooks: a resolver (DNS rebinding tests), extra CA certificates. */
export const WEBHOOK_SENDER_OVERRIDES = Symbol('WEBHOOK_SENDER_OVERRIDES');
export interface WebhookSenderOverrides {
  resolve?: Resolver;
  ca?: string | Buffer;
}

/**
 * Delivers webhook events (DESIGN.md "Events out..."; docs/webhooks.md). Any number of platform replicas share the
 * work through the database: a worker leases up to WEBHOOK_CONCURRENCY webhooks that have a due delivery (`FOR UPDATE
 * SKIP LOCKED`, least recently served first), and for each leased webhook delivers its due deliveries one at a time,
 * earliest first, never one of a subject while an earlier delivery of that subject is pending. So: one request in
 * flight per webhook, order per subject, no webhook starving another, and a crashed worker's webhooks come back
 * when their lease runs out. Each attempt is counted when claimed and its outcome stored only if it is still the
 * delivery's latest attempt; a batch's outcomes are stored in one statement. Woken after each commit of the unit of
 * work (at most one look every PASS_GAP_MS); polls every WEBHOOK_POLL_MS. Each webhook's connection is kept alive
 * between its deliveries, and closed when the worker stops (webhook-sender.ts).
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly loop: WakeLoop;
  private readonly running = new Set<Promise<void>>();
  private readonly attempts: Counter;
  private readonly latency: Histogram;
  private stopping = false;
  private lastPass = 0;
  /** Deliveries claimed per webhook since this worker last moved its walk start. */
  private readonly claimedSinceMove = new Map<string, number>();
  /** Webhooks whose last attempt from this worker was delivered: claimed BATCH at a time, the others CAUTIOUS_BATCH. */
  private readonly delivering = new Set<string>();
  /** LISTENs on the outbox channel: another replica's commits (its OutboxSignal's NOTIFY) wake this worker too. */
  private listener?: Client;
  /** The receivers' kept-alive connections, closed at shutdown. */
  private readonly sender: WebhookSender;
  /**
   * Whether any webhook was enabled when last looked (`at`, ms): a pass leases only where one was, and looks again
   * once WEBHOOK_POLL_MS have passed or this replica changed a webhook (webhooksChanged). Every commit pokes the worker,
   * and the lease is planned at each call (about 0.3 ms of PostgreSQL's time): with no webhook anywhere, up to 50
   * passes a second leased nothing at that price (`npm run bench -- platform`: 3 to 4.5 µs of PostgreSQL per
   * registration). A webhook another replica enables is served by that replica at once (this one's commits notify it)
   * and by this one within WEBHOOK_POLL_MS.
   */
  private enabledSeen?: { any: boolean; at: number };
  /** webhooksChanged() calls so far: a look that a change overtook is not kept. */
  private changes = 0;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly repo: WebhooksRepository,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: ServiceMetrics,
    @Inject(WEBHOOK_SENDER_OVERRIDES) overrides: WebhookSenderOverrides,
    private readonly secrets: WebhookSecrets,
  ) {
    this.sender = new WebhookSender({
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: config.webhookAllowPrivate,
      resolve: overrides.resolve,
      ca: overrides.ca,
    });
    const registry = metrics.registry;
    this.attempts = counterOf(registry, {
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts, by outcome (delivered, retry, failed, gone)',
      labelNames: ['outcome'],
    });
    this.latency = histogramOf(registry, {
      name: 'webhook_delivery_seconds',
      help: 'Time from an event being recorded to its successful delivery',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 300, 3600],
    });
    const backlog = gaugeOf(registry, {
      name: 'webhook_deliveries',
      help: 'Webhook deliveries not delivered, by status (pending, failed); read from the database when scraped',
      labelNames: ['status'],
      collect: async () => {
        try {
          const b = await this.repo.backlog(this.uow.standalone);
          backlog.set({ status: 'pending' }, b.pending);
          backlog.set({ status: 'failed' }, b.failed);
          oldest.set(b.oldest_pending_seconds);
        } catch {
          // the database is down: readiness says so; the gauge keeps its last value
        }
      },
    });
    const oldest = gaugeOf(registry, { name: 'webhook_oldest_pending_seconds', help: 'Age of the oldest pending webhook delivery' });
    this.loop = new WakeLoop({
      prepare: () => this.listen(),
      pass: () => this.pass(),
      pollMs: () => this.config.WEBHOOK_POLL_MS,
      onError: (err, retryInMs) => this.logger.warn({ err: err instanceof Error ? err.message : String(err), retryInMs }, 'webhooks: delivery pass failed'),
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.WEBHOOK_WORKER_ENABLED === 'true') {
      this.uow.onCommit(() => this.poke());
      this.loop.start();
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await this.loop.stop();
    await Promise.allSettled([...this.running]);
    await this.sender.close();
    const l = this.listener;
    this.listener = undefined;
    await l?.end().catch(() => undefined);
  }

  /** (Re)connects the LISTEN connection when it is missing; a failure is the loop's (it retries with back-off). */
  private async listen(): Promise<void> {
    if (this.listener || this.stopping) return;
    const listener = new Client({ connectionString: this.config.DATABASE_URL, application_name: 'dtp-platform-webhooks-listen' });
    const lost = () => {
      if (this.listener === listener) this.listener = undefined;
      void listener.end().catch(() => undefined);
    };
    listener.on('error', lost);
    listener.on('end', lost);
    listener.on('notification', () => this.poke());
    await listener.connect();
    await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
    if (this.stopping) return void (await listener.end().catch(() => undefined));
    this.listener = listener;
    this.loop.poke(); // what was committed while nobody listened
  }

  /** Something may be due: look now. */
  poke(): void {
    if (this.loop.running) this.loop.poke();
  }

  /** A webhook of this replica's was created, enabled, pinged or retried: look again whether any is enabled, now. */
  webhooksChanged(): void {
    this.changes += 1;
    this.enabledSeen = undefined;
    this.poke();
  }

  /** Whether any webhook is enabled, read at most once per WEBHOOK_POLL_MS (see `enabledSeen`). */
  private async anyEnabled(): Promise<boolean> {
    const now = Date.now();
    if (this.enabledSeen === undefined || now - this.enabledSeen.at >= this.config.WEBHOOK_POLL_MS) {
      const changes = this.changes;
      const any = await this.repo.anyEnabled(this.uow.standalone);
      // A change committed while the look ran may be one it did not see: lease this time, and look again next time.
      if (changes !== this.changes) return true;
      this.enabledSeen = { any, at: now };
    }
    return this.enabledSeen.any;
  }

  private get leaseMs(): number {
    return this.config.WEBHOOK_TIMEOUT_MS + 5000;
  }

  /** Leases as many webhooks as there are free slots and serves each in the background. */
  private async pass(): Promise<void> {
    const gap = this.lastPass + PASS_GAP_MS - Date.now();
    if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap)); // not loop.pause(): a poke would cut it short
    this.lastPass = Date.now();
    const free = this.config.WEBHOOK_CONCURRENCY - this.running.size;
    if (free <= 0 || this.stopping || !(await this.anyEnabled())) return;
    const leased = await this.repo.leaseWebhooks(this.uow.standalone, this.workerId, free, this.leaseMs);
    for (const w of leased) {
      const task = this.serve(w)
        .catch((err) =>
          this.logger.warn({ err: err instanceof Error ? err.message : String(err), webhookId: w.webhook_id }, 'webhooks: serving a webhook failed'),
        )
        .finally(() => {
          this.running.delete(task);
          this.poke();
        });
      this.running.add(task);
    }
  }

  private async serve(w: WebhookRow): Promise<void> {
    const sql = this.uow.standalone;
    try {
      let claimed = 0;
      for (let i = 0; !this.stopping; i++) {
        let leaseUntil = Date.now() + this.leaseMs;
        if (this.delivering.size > 10_000) this.delivering.clear(); // webhooks deleted meanwhile; one forgotten starts cautious
        const size = nextClaimSize(i, claimed, this.delivering.has(w.webhook_id));
        if (size === 0) break;
        const batch = await this.repo.claimBatch(sql, w.webhook_id, this.workerId, size, this.leaseMs);
        if (batch.length === 0) break;
        claimed += batch.length;
        this.claimedSinceMove.set(w.webhook_id, (this.claimedSinceMove.get(w.webhook_id) ?? 0) + batch.length);
        // One request at a time. The outcomes are stored together, in one statement, before the next claim (which
        // reads what is still pending); claimed deliveries left when stopping stay pending (their attempt counted,
        // never sent), and a worker that dies before storing them leaves them to be sent again (at least once).
        const outcomes: AttemptOutcome[] = [];
        let storedAt = Date.now();
        try {
          for (const d of batch) {
            if (this.stopping) return;
            // The lease must outlast the attempt (at most the timeout): renewed only when it might not.
            if (Date.now() + this.config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS > leaseUntil) {
              const asked = Date.now();
              if (!(await this.repo.renewLease(sql, w.webhook_id, this.workerId, this.leaseMs))) return;
              leaseUntil = asked + this.leaseMs;
            }
            const outcome = await this.attempt(w, d);
            outcomes.push(outcome);
            if (outcome.status === 'delivered') this.delivering.add(w.webhook_id);
            else this.delivering.delete(w.webhook_id);
            if (outcome.code === 410) {
              await this.repo.disableGone(sql, w.webhook_id);
              this.logger.warn({ webhookId: w.webhook_id }, 'webhooks: receiver answered 410 Gone, webhook disabled');
              return;
            }
            // A slow receiver's outcomes are not held back for the whole batch (the delivery log shows them).
            if (Date.now() - storedAt > OUTCOMES_HELD_MS) {
              await this.repo.recordAttempts(sql, outcomes.splice(0));
              storedAt = Date.now();
            }
          }
        } finally {
          await this.repo.recordAttempts(sql, outcomes);
        }
      }
    } finally {
      await this.moveWalkStart(w.webhook_id);
      await this.repo.release(sql, w.webhook_id, this.workerId);
    }
  }

  /**
   * Moves where the claims' walk over the webhook's pending deliveries starts, once WALK_MOVE_EVERY deliveries of it
   * were claimed here since the last move (a statement planned at each call: not after every lease, which at a few
   * deliveries a lease would cost more than the walk it saves). A failure only leaves the bound where it was.
   */
  private async moveWalkStart(webhookId: string): Promise<void> {
    if (this.claimedSinceMove.size > 10_000) this.claimedSinceMove.clear(); // webhooks deleted meanwhile; a count lost only delays a move
    if ((this.claimedSinceMove.get(webhookId) ?? 0) < WALK_MOVE_EVERY) return;
    this.claimedSinceMove.delete(webhookId);
    try {
      await this.repo.moveWalkStart(this.uow.standalone, webhookId);
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err), webhookId }, 'webhooks: moving the walk start failed');
    }
  }

  /**
   * Signs and sends one attempt. A secret that does not open (WEBHOOK_SECRET_ENCRYPTION_KEY unset, or another key)
   * sends nothing unsigned: a failed attempt, retried on its schedule, so setting the right key lets it through.
   */
  private async send(w: WebhookRow, d: ClaimedDelivery, body: string): Promise<SendOutcome> {
    let secrets: string[];
    try {
      secrets = this.secrets.signing(w);
    } catch (err) {
      const error = `not sent: ${err instanceof Error ? err.message : String(err)}`;
      this.logger.error({ webhookId: w.webhook_id, err: error }, 'webhooks: cannot sign a delivery');
      return { status: null, error };
    }
    return this.sender.send(w.url, signedHeaders(secrets, d.event_id, Math.floor(Date.now() / 1000), body), body, w.webhook_id);
  }

  /** One attempt of one delivery, and what it came to (a 410 is `failed` with code 410: the caller disables the webhook). */
  private async attempt(w: WebhookRow, d: ClaimedDelivery): Promise<AttemptOutcome> {
    const body = cloudEventText(this.config.PUBLIC_BASE_URL, d);
    const sent = await this.send(w, d, body);
    const at = new Date();
    const base = { delivery_id: d.delivery_id, attempts: d.attempts, code: sent.status, at };
    if (sent.status !== null && sent.status >= 200 && sent.status < 300) {
      this.attempts.inc({ outcome: 'delivered' });
      this.latency.observe((at.getTime() - new Date(d.time).getTime()) / 1000);
      return { ...base, status: 'delivered', error: null, nextAttemptAt: null };
    }
    if (sent.status === 410) {
      this.attempts.inc({ outcome: 'gone' });
      return { ...base, status: 'failed', error: sent.error, nextAttemptAt: null };
    }
    const schedule = this.config.webhookRetrySchedule;
    const delay = schedule[Math.min(d.attempts - 1, schedule.length - 1)];
    const first = d.first_attempt_at ? new Date(d.first_attempt_at).getTime() : at.getTime();
    const next = at.getTime() + delay;
    const failed = next - first > this.config.WEBHOOK_RETRY_WINDOW_MS;
    this.attempts.inc({ outcome: failed ? 'failed' : 'retry' });
    return failed
      ? { ...base, status: 'failed', error: sent.error, nextAttemptAt: null }
      : { ...base, status: 'pending', error: sent.error, nextAttemptAt: new Date(next) };
  }
}
