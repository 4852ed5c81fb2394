import { Inject, Injectable, Module, OnApplicationBootstrap, Optional } from '@nestjs/common';
import type { Logger } from 'pino';
import { EVENT_TRANSPORT, EventTransport } from '@dtp/events';
import { LOGGER } from '@dtp/service-kit';
import type { AuthConfig } from '../config';
import { AUTH_CONFIG } from '../tokens';
import { ParticipantsModule } from './participants.module';
import { ParticipantsService } from './participants.service';

/** How far back revocations are announced again: a token lifetime plus two minutes of margin. */
const MARGIN_SECONDS = 2 * 60;

/**
 * On the in-process bus only (`npm start`): that bus keeps no log, so at start the revocations whose tokens may
 * still be alive are announced again, and the other services' deny-lists (in memory, rebuilt from the topic at
 * start) have them after a restart (docs/auth.md "Revocation"). Kafka keeps the topic: nothing to do there.
 */
@Injectable()
export class RecentRevocationsAnnouncer implements OnApplicationBootstrap {
  constructor(
    @Inject(EVENT_TRANSPORT) private readonly transport: EventTransport,
    @Inject(ParticipantsService) private readonly participants: ParticipantsService,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    @Optional() @Inject(LOGGER) private readonly logger?: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.transport.kind !== 'in-process') return;
    const announced = await this.participants.announceRecentRevocations(this.config.TOKEN_TTL_SECONDS + MARGIN_SECONDS);
    if (announced > 0) this.logger?.info({ clients: announced }, 'recent client revocations announced again for the in-process bus');
  }
}

/** The announcer as a feature of the service (not of `auth:cli`, which announces nothing). */
@Module({ imports: [ParticipantsModule], providers: [RecentRevocationsAnnouncer] })
export class RecentRevocationsModule {}
