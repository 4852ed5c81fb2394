import { Inject, Injectable, Module, OnApplicationBootstrap, Optional } from '@nestjs/common';
import type { Logger } from 'pino';
import { EVENT_TRANSPORT, EventTransport } from '@dtp/events';
import { LOGGER } from '@dtp/service-kit';
import type { AuthConfig } from '../config';
import { AUTH_CONFIG } from '../tokens';
import { ClientCertificatesModule } from '../certificates/client-certificates.module';
import { ClientCertificatesService } from '../certificates/client-certificates.service';
import { ParticipantsModule } from './participants.module';
import { ParticipantsService } from './participants.service';

/** How far back revocations are announced again: a token lifetime plus two minutes of margin. */
const MARGIN_SECONDS = 2 * 60;

/**
 * On the in-process bus only (`npm start`): that bus keeps no log, so at start the revocations whose tokens may
 * still be alive are announced again, and the other services' deny-lists (in memory, rebuilt from the topic at
 * start) have them after a restart (docs/auth.md "Revocation"); so are the registered client certificates (their
 * registries, too, are rebuilt from the topic). Kafka keeps the topic: nothing to do there.
 */
@Injectable()
export class RecentRevocationsAnnouncer implements OnApplicationBootstrap {
  constructor(
    @Inject(EVENT_TRANSPORT) private readonly transport: EventTransport,
    @Inject(ParticipantsService) private readonly participants: ParticipantsService,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    @Inject(ClientCertificatesService) private readonly certificates: ClientCertificatesService,
    @Optional() @Inject(LOGGER) private readonly logger?: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.transport.kind !== 'in-process') return;
    const announced = await this.participants.announceRecentRevocations(this.config.TOKEN_TTL_SECONDS + MARGIN_SECONDS);
    if (announced > 0) this.logger?.info({ clients: announced }, 'recent client revocations announced again for the in-process bus');
    // The registered client certificates likewise (legacy mTLS): the services' registries start empty too.
    const certificates = await this.certificates.announceRegistered();
    if (certificates > 0) this.logger?.info({ certificates }, 'registered client certificates announced again for the in-process bus');
  }
}

/** The announcer as a feature of the service (not of `auth:cli`, which announces nothing). */
@Module({ imports: [ParticipantsModule, ClientCertificatesModule], providers: [RecentRevocationsAnnouncer] })
export class RecentRevocationsModule {}
