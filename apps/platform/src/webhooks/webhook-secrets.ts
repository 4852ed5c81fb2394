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
 * At start, secrets stored as plain text (before the key was set) are encrypted, and, while
 * WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS names more keys (changing the key), secrets sealed with one of those are
 * resealed with the current one: in one transaction whose row locks keep replicas starting together from doing it
 * twice.
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
    this.cipher = new AtRestCipher(
      config.WEBHOOK_SECRET_ENCRYPTION_KEY,
      'WEBHOOK_SECRET_ENCRYPTION_KEY',
      'webhook secret',
      config.WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS,
    );
  }

  /**
   * What is stored for a secret of this webhook: sealed with the current key when one is set, a value already sealed
   * with it kept as it is (a rotation's previous secret), one sealed with a previous key resealed. A new secret
   * (`whsec_...`) is never taken for an encrypted one.
   */
  forStorage(webhookId: string, secret: string): string {
    return this.cipher.reseal(webhookId, secret);
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
        const { resealed, unopened } = await this.resealSecrets();
        if (resealed > 0) {
          this.logger.info(
            { webhooks: resealed },
            'webhooks: signing secrets stored as plain text or with a previous key are now encrypted with WEBHOOK_SECRET_ENCRYPTION_KEY',
          );
        }
        if (unopened.length > 0) {
          // Left as they are: their deliveries are not sent (and are retried) until a key that opens them is set.
          this.logger.error(
            { webhooks: unopened.length, webhook_ids: unopened.slice(0, 20) },
            this.cipher.rotating
              ? 'webhooks: signing secrets that open with neither WEBHOOK_SECRET_ENCRYPTION_KEY nor WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS'
              : 'webhooks: signing secrets that do not open with this WEBHOOK_SECRET_ENCRYPTION_KEY',
          );
        }
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

  /**
   * Seals every secret with the current key: those stored as plain text and, while previous keys are configured,
   * those sealed with one. Answers how many webhooks it changed, and those with a secret no configured key opens
   * (left as they are).
   */
  async resealSecrets(): Promise<{ resealed: number; unopened: string[] }> {
    return this.uow.run(async (tx) => {
      const rows = this.cipher.rotating ? await this.repo.allSecrets(tx) : await this.repo.plainSecrets(tx);
      let resealed = 0;
      const unopened: string[] = [];
      for (const w of rows) {
        let opens = true;
        // A value no configured key opens stays as it is (and is reported); the other one is still resealed.
        const stored = (value: string) => {
          try {
            return this.forStorage(w.webhook_id, value);
          } catch {
            opens = false;
            return value;
          }
        };
        const secret = stored(w.secret);
        const previous = w.previous_secret === null ? null : stored(w.previous_secret);
        if (!opens) unopened.push(w.webhook_id);
        if (secret === w.secret && previous === w.previous_secret) continue;
        await this.repo.setSecrets(tx, w.webhook_id, secret, previous);
        resealed += 1;
      }
      return { resealed, unopened };
    });
  }
}
