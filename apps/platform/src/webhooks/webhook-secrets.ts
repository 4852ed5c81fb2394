import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { UnitOfWork } from '@dtp/database';
import { AtRestCipher, LOGGER } from '@dtp/service-kit';
import type { PlatformConfig } from '../config';
import { PLATFORM_CONFIG } from '../tokens';
import type { WebhookRow } from './webhook.entity';
import { WebhooksRepository } from './webhooks.repository';

/**
 * The webhooks' signing secrets at rest (docs/webhooks.md "Secrets at rest"): with WEBHOOK_SECRET_ENCRYPTION_KEY set,
 * a secret is stored encrypted (AES-256-GCM, the webhook id as additional data) and opened only to sign a delivery.
 * At start, secrets stored as plain text (before the key was set) are encrypted, in one transaction whose row locks
 * keep replicas starting together from doing it twice.
 */
@Injectable()
export class WebhookSecrets implements OnApplicationBootstrap {
  private readonly cipher: AtRestCipher;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly repo: WebhooksRepository,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.cipher = new AtRestCipher(config.WEBHOOK_SECRET_ENCRYPTION_KEY, 'WEBHOOK_SECRET_ENCRYPTION_KEY', 'webhook secret');
  }

  /**
   * What is stored for a secret of this webhook: encrypted when a key is set, or kept as it is when it is already
   * encrypted (a rotation's previous secret). A new secret (`whsec_...`) is never taken for an encrypted one.
   */
  forStorage(webhookId: string, secret: string): string {
    return AtRestCipher.isSealed(secret) ? secret : this.cipher.seal(webhookId, secret);
  }

  /** The secrets that sign a delivery now: the current one, and the previous one during a rotation's overlap. */
  signing(w: Pick<WebhookRow, 'webhook_id' | 'secret' | 'previous_secret' | 'previous_secret_until'>, now = Date.now()): string[] {
    const secrets = [this.cipher.open(w.webhook_id, w.secret)];
    if (w.previous_secret && w.previous_secret_until && new Date(w.previous_secret_until).getTime() > now) {
      secrets.push(this.cipher.open(w.webhook_id, w.previous_secret));
    }
    return secrets;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.live && !this.cipher.encrypts) {
      // Only possible with WEBHOOK_SECRETS_UNENCRYPTED=true (config.ts): an explicit choice, said at every start.
      this.logger.warn(
        'WEBHOOK_SECRETS_UNENCRYPTED=true: the webhook signing secrets are stored as plain text in the database (set WEBHOOK_SECRET_ENCRYPTION_KEY to encrypt them)',
      );
    }
    try {
      if (this.cipher.encrypts) {
        const sealed = await this.sealPlainSecrets();
        if (sealed > 0) this.logger.info({ webhooks: sealed }, 'webhooks: signing secrets stored as plain text are now encrypted');
      } else {
        const sealed = await this.repo.sealedSecretCount(this.uow.standalone);
        if (sealed > 0) {
          this.logger.error(
            { webhooks: sealed },
            'webhooks: signing secrets are stored encrypted but WEBHOOK_SECRET_ENCRYPTION_KEY is not set; their deliveries fail (and are retried) until it is',
          );
        }
      }
    } catch (err) {
      // The database is down at start: readiness says so, and the next start tries again (open() reads either form).
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'webhooks: could not check the signing secrets at start');
    }
  }

  /** Encrypts every secret still stored as plain text; answers how many webhooks it changed. */
  async sealPlainSecrets(): Promise<number> {
    return this.uow.run(async (tx) => {
      const plain = await this.repo.plainSecrets(tx);
      for (const w of plain) {
        const previous = w.previous_secret === null ? null : this.forStorage(w.webhook_id, w.previous_secret);
        await this.repo.setSecrets(tx, w.webhook_id, this.forStorage(w.webhook_id, w.secret), previous);
      }
      return plain.length;
    });
  }
}
