import { Controller, Inject, OnModuleInit } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import type { Gauge } from 'prom-client';
import { ClientCertificateChangedData, ClientRevokedData, EnvelopeOf, EventTypes, Topics } from '@dtp/domain';
import { RARE_EVENTS_FETCH_WAIT_MS } from '@dtp/events';
import type { EventContext, EventRoute } from '@dtp/events';
import { gaugeOf, LOGGER, ServiceMetrics } from '@dtp/service-kit';
import { TokenVerifier } from './token-verifier';

/**
 * Feeds the token deny-list from `client.revoked` on auth.participants.v1 (docs/auth.md "Revocation").
 *
 * The deny-list lives in memory, and every instance (replica) of a service needs all of it. So each instance
 * reads the whole topic under a consumer group of its own (`<service>-revocations.<instance>`, `scope:
 * 'instance'`), new at every start, from the beginning: a Kafka group shared by the replicas would split the
 * partitions between them, and a group that resumes after its committed offsets would not replay what a
 * restarted instance forgot. The topic is compacted and keyed by client, so the replay is one record per
 * participant and per revoked client. It starts together with the service's other consumers (a restart costs one
 * round of group joins, not two: DESIGN.md "Health and readiness"), and until it has replayed the topic up to the
 * head it started behind, readiness reads `consumers: degraded: catching up`. None of those consumers checks a
 * token, so none needs the deny-list first; HTTP requests may arrive before either, as they always could. Like every
 * handler it is validated and total (a hostile message is parked in the service's `parked_events`), with the
 * usual consumer metrics and readiness; its progress rows belong to this instance only (EventsServer drops them).
 */
@Controller()
export class RevocationEventsController implements OnModuleInit {
  constructor(
    @Inject(TokenVerifier) private readonly verifier: TokenVerifier,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(ServiceMetrics) private readonly metrics: ServiceMetrics,
  ) {}

  onModuleInit(): void {
    const denyList = this.verifier.denyList;
    const certificates = this.verifier.certificates;
    gaugeOf(this.metrics.registry, {
      name: 'mtls_registered_certificates',
      help: 'Client certificates of legacy (mutual TLS) participants this instance accepts',
      collect(this: Gauge) {
        this.set(certificates.size);
      },
    });
    gaugeOf(this.metrics.registry, {
      name: 'token_revoked_clients',
      help: 'Revoked clients whose tokens this instance refuses (revocations whose tokens may not have expired yet)',
      collect(this: Gauge) {
        this.set(denyList.size);
      },
    });
  }

  @EventPattern(Topics.AUTH_PARTICIPANTS, { scope: 'instance', name: 'revocations', fetchWaitMs: RARE_EVENTS_FETCH_WAIT_MS } satisfies EventRoute)
  onParticipantsEvent(@Payload() envelope: EnvelopeOf<typeof Topics.AUTH_PARTICIPANTS>, @Ctx() _ctx: EventContext): void {
    switch (envelope.event_type) {
      case EventTypes.CLIENT_REVOKED:
        return this.revoke(envelope.data);
      case EventTypes.CLIENT_CERTIFICATE_CHANGED:
        return this.certificateChanged(envelope.data, envelope.revision);
      case EventTypes.PARTICIPANT_ONBOARDED:
        return; // not ours
    }
  }

  /** A legacy participant's client certificate registered or removed (DESIGN.md "Legacy integrations: mutual TLS"). */
  private certificateChanged(data: ClientCertificateChangedData, revision: number): void {
    if (this.verifier.certificates.apply(data, revision)) {
      const { certificate_id, participant_id, x5t_s256, removed_at } = data;
      this.logger.info(
        { component: 'certificates', certificate_id, participant_id, x5t_s256, removed: removed_at !== null },
        removed_at === null ? 'client certificate registered: legacy mTLS calls with it are accepted' : 'client certificate removed: it is refused',
      );
    }
  }

  private revoke({ client_id, participant_id, revoked_at }: ClientRevokedData): void {
    // Recorded at once, before the commit: a revocation is final, refusing early is the safe side.
    if (this.verifier.denyList.revoke(client_id, revoked_at)) {
      this.logger.info({ component: 'revocations', client_id, participant_id, revoked_at }, 'client revoked: its tokens are refused');
    }
  }
}
