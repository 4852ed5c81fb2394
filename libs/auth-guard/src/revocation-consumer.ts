import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { Gauge, Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { ConsumerGroup, EventTypes, revocationConsumerGroup, Topics } from '@dtp/domain';
import { EventTransport, runConsumer, RunningConsumer } from '@dtp/events';
import type { ClientDenyList } from './deny-list';

export interface RevocationConsumerOptions {
  transport: EventTransport;
  /** The service's own database: runConsumer keeps its progress and parks hostile messages there. */
  dataSource: DataSource;
  /** The consuming service (ConsumerGroups); the group is `<service>-revocations.<instance>`. */
  service: ConsumerGroup;
  /** The guard's deny-list: `app.get(TokenVerifier).denyList`. */
  denyList: ClientDenyList;
  logger: Logger;
  /** The service's registry: the consumer's metrics and readiness, and `token_revoked_clients`. */
  registry?: Registry;
  /** This instance's name in the group (default: host name, process id and a random suffix). */
  instance?: string;
}

export interface RevocationConsumer extends RunningConsumer {
  /** The consumer group (= progress name) of this instance. */
  readonly stateName: string;
}

/** `<host>-<pid>-<random>`, restricted to what a group name may hold. */
export function defaultInstanceName(): string {
  const host = hostname().replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 60) || 'host';
  return `${host}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * Feeds the token deny-list from `client.revoked` on auth.participants.v1 (docs/auth.md "Revocation").
 *
 * The deny-list lives in memory, and every instance (replica) of a service needs all of it. So each instance
 * reads the whole topic under a consumer group of its own, new at every start, from the beginning: a Kafka group
 * shared by the replicas would split the partitions between them, and a group that resumes after its committed
 * offsets would not replay what a restarted instance forgot. The topic is compacted and keyed by client, so the
 * replay is one record per participant and per revoked client. Through runConsumer it is validated and total
 * (a hostile message is parked in the service's `parked_events`, never blocks), with the usual consumer metrics
 * and readiness. Its progress rows in `consumer_state` belong to this instance only and mean nothing after it
 * stops: the rows of earlier instances of the service are deleted at start (harmless to a running replica: the
 * deny-list is idempotent), this instance's on close.
 */
export async function startRevocationConsumer(opts: RevocationConsumerOptions): Promise<RevocationConsumer> {
  const stateName = revocationConsumerGroup(opts.service, opts.instance ?? defaultInstanceName());
  const log = opts.logger.child({ component: 'revocations' });
  await opts.dataSource.query(`DELETE FROM consumer_state WHERE topic = $1 AND consumer LIKE $2 AND consumer <> $3`, [
    Topics.AUTH_PARTICIPANTS,
    `${opts.service}-revocations.%`,
    stateName,
  ]);
  if (opts.registry && !opts.registry.getSingleMetric('token_revoked_clients')) {
    const denyList = opts.denyList;
    new Gauge({
      name: 'token_revoked_clients',
      help: 'Revoked clients whose tokens this instance refuses (revocations whose tokens may not have expired yet)',
      registers: [opts.registry],
      collect(this: Gauge) {
        this.set(denyList.size);
      },
    });
  }
  const consumer = await runConsumer({
    transport: opts.transport,
    topic: Topics.AUTH_PARTICIPANTS,
    group: stateName,
    dataSource: opts.dataSource,
    logger: opts.logger,
    registry: opts.registry,
    fromBeginning: true,
    handle: async (envelope) => {
      if (envelope.event_type !== EventTypes.CLIENT_REVOKED) return; // participant.onboarded: not ours
      const { client_id, participant_id, revoked_at } = envelope.data;
      // Recorded at once, before the commit: a revocation is final, refusing early is the safe side.
      if (opts.denyList.revoke(client_id, revoked_at)) log.info({ client_id, participant_id, revoked_at }, 'client revoked: its tokens are refused');
    },
  });
  return {
    stateName,
    get topic() {
      return consumer.topic;
    },
    get group() {
      return consumer.group;
    },
    get counts() {
      return consumer.counts;
    },
    health: () => consumer.health(),
    close: async () => {
      await consumer.close();
      await opts.dataSource
        .query(`DELETE FROM consumer_state WHERE consumer = $1 AND topic = $2`, [stateName, Topics.AUTH_PARTICIPANTS])
        .catch((err: unknown) => log.debug({ err: err instanceof Error ? err.message : String(err) }, 'could not delete the revocation progress rows'));
    },
  };
}
