import { Inject, Injectable, Module, OnApplicationBootstrap, OnModuleDestroy, Optional } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '@dtp/service-kit';
import type { AuthConfig } from '../config';
import { AUTH_CONFIG } from '../tokens';
import { KeysModule } from './keys.module';
import { SigningKeys } from './signing-keys';

/** The first start generates the first signing key (under the key lock: replicas starting together make one). */
@Injectable()
export class ActiveKeyOnStart implements OnApplicationBootstrap {
  constructor(@Inject(SigningKeys) private readonly keys: SigningKeys) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.keys.ensureActiveKey();
  }
}

/** The scheduler looks again at least this often, so a rotation made elsewhere (CLI, a replica) moves its next date. */
export const MAX_ROTATION_CHECK_MS = 60 * 60 * 1000;
/** After a failed check (database away), the next try. */
export const ROTATION_RETRY_MS = 60 * 1000;

/**
 * Rotates the signing key every SIGNING_KEY_ROTATION_DAYS (docs/auth.md "Signing keys and rotation"); off when
 * the variable is unset. The schedule follows the active key's age in the database, so it survives restarts, a
 * rotation by hand (`auth:cli rotate-keys`) restarts the count, and replicas rotate once between them (the check
 * and the rotation run under the key lock). Checks at start, then when the key is due (at most an hour apart);
 * the timer is unref'ed and stopped when the application closes.
 */
@Injectable()
export class KeyRotationSchedule implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly maxAgeSeconds?: number;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  /** When the next check is set for (ms since the epoch), if one is. */
  nextCheckAt?: number;

  constructor(
    @Inject(SigningKeys) private readonly keys: SigningKeys,
    @Inject(AUTH_CONFIG) config: AuthConfig,
    @Optional() @Inject(LOGGER) private readonly logger?: Logger,
  ) {
    this.maxAgeSeconds = config.SIGNING_KEY_ROTATION_DAYS === undefined ? undefined : config.SIGNING_KEY_ROTATION_DAYS * 24 * 3600;
  }

  get enabled(): boolean {
    return this.maxAgeSeconds !== undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.enabled) return;
    this.logger?.info({ rotation_days: this.maxAgeSeconds! / 86400 }, 'signing key rotation scheduled');
    await this.check();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.nextCheckAt = undefined;
    await this.running;
  }

  /** Rotates now when the active key is due, then sets the next check. */
  check(): Promise<void> {
    this.running ??= this.runCheck().finally(() => (this.running = undefined));
    return this.running;
  }

  private async runCheck(): Promise<void> {
    if (this.stopped || this.maxAgeSeconds === undefined) return;
    let delayMs: number;
    try {
      const outcome = await this.keys.rotateIfOlderThan(this.maxAgeSeconds);
      // a second past due, so that the key is due by the database's clock when the timer fires
      delayMs = Math.min(MAX_ROTATION_CHECK_MS, Math.ceil(outcome.dueInSeconds * 1000) + 1000);
    } catch (err) {
      this.logger?.error({ err }, 'scheduled signing key rotation failed; trying again in a minute');
      delayMs = ROTATION_RETRY_MS;
    }
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.nextCheckAt = Date.now() + delayMs;
    this.timer = setTimeout(() => void this.check(), delayMs);
    this.timer.unref();
  }
}

/** The service's key upkeep: the first key at start, scheduled rotation. Not in the CLI (it only acts when asked). */
@Module({ imports: [KeysModule], providers: [ActiveKeyOnStart, KeyRotationSchedule], exports: [KeyRotationSchedule] })
export class KeyMaintenanceModule {}
