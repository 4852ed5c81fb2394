import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  ClientRevokedData,
  EventTypes,
  makeEnvelope,
  NotFoundError,
  OnboardParticipantDto,
  ParticipantOnboardedData,
  ParticipantView,
  Role,
  topicOf,
} from '@dtp/domain';
import { UnitOfWork } from '@dtp/database';
import { OutboxEvent, writeOutbox } from '@dtp/events';
import { LOGGER } from '@dtp/service-kit';
import { ClientSecrets } from '../credentials/client-secrets';
import { ClientsRepository, RevokedClient } from '../credentials/clients.repository';
import { VerifiedSecretCache } from '../credentials/verified-secret-cache';
import { isCredentialText, newClientId, newClientSecret } from '../credentials/secret-hash';
import { ParticipantEntity, ProvenanceValue } from './participant.entity';
import { ParticipantsRepository } from './participants.repository';

/** What onboarding and new credentials return: the secret is shown here only. */
export interface IssuedCredential {
  participant_id: string;
  client_id: string;
  client_secret: string;
  role: Role;
  name: string;
}

export interface AuthenticatedClient {
  clientId: string;
  participant: ParticipantEntity;
}

/** Onboarding, credentials and client authentication. Used by the admin API and the CLI. */
@Injectable()
export class ParticipantsService {
  constructor(
    @Inject(ParticipantsRepository) private readonly participants: ParticipantsRepository,
    @Inject(ClientsRepository) private readonly clients: ClientsRepository,
    @Inject(ClientSecrets) private readonly secrets: ClientSecrets,
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(VerifiedSecretCache) private readonly verified: VerifiedSecretCache,
    @Optional() @Inject(LOGGER) private readonly logger?: Logger,
  ) {}

  /** Creates the participant and its first credential, and publishes `participant.onboarded` (same transaction). */
  async onboard(input: OnboardParticipantDto): Promise<IssuedCredential> {
    const secret = newClientSecret();
    const secretHash = await this.secrets.hash(secret);
    const clientId = newClientId();
    const provenance: ProvenanceValue | null = input.provenance
      ? { name: input.provenance.name, type: input.provenance.type, country_code: input.provenance.country_code ?? null }
      : null;
    // The participant, its first credential and `participant.onboarded` in the outbox: one transaction.
    const participant = await this.uow.run(async (tx) => {
      const p = await this.participants.insert(tx.manager, {
        id: randomUUID(),
        name: input.name,
        role: input.role,
        provenance,
        ...(input.integration_started_at !== undefined ? { integration_started_at: new Date(input.integration_started_at) } : {}),
      });
      await this.clients.insert({ client_id: clientId, participant_id: p.id, secret_hash: secretHash }, tx.manager);
      const data: ParticipantOnboardedData = { participant_id: p.id, name: p.name, role: p.role, provenance };
      const envelope = makeEnvelope({ event_type: EventTypes.PARTICIPANT_ONBOARDED, data, revision: 1, occurred_at: p.created_at });
      await writeOutbox(tx, [{ topic: topicOf(envelope.event_type), key: envelope.key, eventType: envelope.event_type, revision: 1, payload: envelope }]);
      return p;
    });
    this.logger?.info({ participant_id: participant.id, role: participant.role, client_id: clientId }, 'participant onboarded');
    return { participant_id: participant.id, client_id: clientId, client_secret: secret, role: participant.role, name: participant.name };
  }

  /** A further credential for an existing participant (e.g. to rotate a secret: add, switch, revoke the old). */
  async addCredential(participantId: string): Promise<IssuedCredential> {
    const participant = await this.participants.find(participantId);
    if (!participant) throw participantNotFound(participantId);
    const secret = newClientSecret();
    const secretHash = await this.secrets.hash(secret);
    const clientId = newClientId();
    await this.clients.insert({ client_id: clientId, participant_id: participantId, secret_hash: secretHash });
    this.logger?.info({ participant_id: participantId, client_id: clientId }, 'credential added');
    return { participant_id: participantId, client_id: clientId, client_secret: secret, role: participant.role, name: participant.name };
  }

  /**
   * Revokes a client and, in the same transaction, writes `client.revoked` (auth.participants.v1, key client_id,
   * revision 1) to the outbox: every service's guard refuses the client's tokens within about a second
   * (docs/auth.md "Revocation"). Revoking again keeps the first time and announces it again (same revision, same
   * `revoked_at`: consumers that have it skip it; it reaches those that never had it, e.g. for clients revoked
   * before revocations were published).
   */
  async revokeClient(clientId: string): Promise<void> {
    // a client id that is not printable ASCII cannot exist, and a NUL must not reach PostgreSQL (a 500)
    const revoked = isCredentialText(clientId)
      ? await this.uow.run(async (tx) => {
          const r = await this.clients.revoke(tx.manager, clientId);
          if (r) await writeOutbox(tx, [revocationEvent(r)]);
          return r;
        })
      : null;
    if (!revoked) throw new NotFoundError({ message: `client ${clientId} not found`, reason: 'client_not_found' });
    this.verified.forget(clientId);
    this.logger?.info(
      { client_id: clientId, participant_id: revoked.participantId, revoked_at: revoked.revokedAt.toISOString(), again: !revoked.newly },
      'client revoked',
    );
  }

  /**
   * Writes `client.revoked` again for every client revoked in the last `seconds` (their tokens may not have
   * expired yet). For a bus that keeps no log (`npm start`'s in-process bus): after a restart the services' deny-lists
   * start empty and learn the recent revocations from these. Kafka keeps the topic, so it needs none of this.
   */
  async announceRecentRevocations(seconds: number): Promise<number> {
    const recent = await this.clients.revokedSince(new Date(Date.now() - seconds * 1000));
    if (recent.length > 0) await this.uow.run((tx) => writeOutbox(tx, recent.map(revocationEvent)));
    return recent.length;
  }

  async get(participantId: string): Promise<ParticipantView> {
    const p = await this.participants.find(participantId);
    if (!p) throw participantNotFound(participantId);
    const clients = await this.clients.ofParticipant(participantId);
    return {
      participant_id: p.id,
      name: p.name,
      role: p.role,
      provenance: p.provenance,
      created_at: p.created_at.toISOString(),
      integration_started_at: p.integration_started_at.toISOString(),
      clients: clients.map((c) => ({
        client_id: c.client_id,
        created_at: c.created_at.toISOString(),
        revoked_at: c.revoked_at ? c.revoked_at.toISOString() : null,
      })),
    };
  }

  /**
   * A client that is not revoked, with its participant, without a secret: for a client that authenticates by its TLS
   * certificate (RFC 8705 `self_signed_tls_client_auth`; the certificate is checked by the caller). Null otherwise.
   */
  async activeClient(clientId: string): Promise<AuthenticatedClient | null> {
    const found = isCredentialText(clientId) ? await this.clients.findWithParticipant(clientId) : null;
    if (!found || found.client.revoked_at !== null) return null;
    return { clientId: found.client.client_id, participant: found.participant };
  }

  /**
   * Checks a client id and secret. Always does one scrypt derivation (against a decoy hash when the client id is
   * unknown) and compares in constant time, so the answer time does not tell whether the id exists. A client id
   * that is not printable ASCII (e.g. holds a NUL) is never looked up: it cannot exist.
   */
  async authenticate(clientId: string, secret: string): Promise<AuthenticatedClient | null> {
    const found = isCredentialText(clientId) ? await this.clients.findWithParticipant(clientId) : null;
    // A repeat client whose secret verified recently skips scrypt; anyone else (unknown id, wrong secret) pays it.
    if (found && found.client.revoked_at === null && this.verified.has(clientId, secret, found.client.secret_hash)) {
      this.verified.count('cached');
      return { clientId: found.client.client_id, participant: found.participant };
    }
    const ok = await this.secrets.verify(secret, found?.client.secret_hash);
    this.verified.count('scrypt');
    if (!found || !ok || found.client.revoked_at !== null) return null;
    this.verified.remember(clientId, secret, found.client.secret_hash);
    return { clientId: found.client.client_id, participant: found.participant };
  }
}

/** The outbox row of `client.revoked` for `r` (key client_id, revision 1: a client is revoked once). */
function revocationEvent(r: RevokedClient): OutboxEvent {
  const data: ClientRevokedData = { client_id: r.clientId, participant_id: r.participantId, revoked_at: r.revokedAt.toISOString() };
  const envelope = makeEnvelope({ event_type: EventTypes.CLIENT_REVOKED, data, revision: 1, occurred_at: r.revokedAt });
  return { topic: topicOf(envelope.event_type), key: envelope.key, eventType: envelope.event_type, revision: 1, payload: envelope };
}

function participantNotFound(id: string): NotFoundError {
  return new NotFoundError({ message: `participant ${id} not found`, reason: 'participant_not_found' });
}
