import { NotFoundException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ClientRevokedData, EventTypes, makeEnvelope, OnboardParticipantDto, ParticipantOnboardedData, Role, topicOf } from '@dtp/domain';
import { writeOutbox } from '@dtp/events';
import { decoyHash, hashSecret, isCredentialText, newClientId, newClientSecret, ScryptParams, verifySecret } from '../credentials/secret-hash';
import { ParticipantEntity, ProvenanceValue } from './participant.entity';
import { ParticipantsRepository, RevokedClient } from './participants.repository';

/** What onboarding and new credentials return: the secret is shown here only. */
export interface IssuedCredential {
  participant_id: string;
  client_id: string;
  client_secret: string;
  role: Role;
  name: string;
}

export interface ParticipantView {
  participant_id: string;
  name: string;
  role: Role;
  provenance: ProvenanceValue | null;
  created_at: string;
  clients: { client_id: string; created_at: string; revoked_at: string | null }[];
}

export interface AuthenticatedClient {
  clientId: string;
  participant: ParticipantEntity;
}

/** Onboarding, credentials and client authentication. Used by the admin API and the CLI. */
export class ParticipantsService {
  private readonly decoy: Promise<string>;

  constructor(
    private readonly repo: ParticipantsRepository,
    private readonly scrypt: ScryptParams,
    private readonly logger?: Logger,
  ) {
    this.decoy = decoyHash(scrypt);
    this.decoy.catch(() => undefined);
  }

  /** Creates the participant and its first credential, and publishes `participant.onboarded` (same transaction). */
  async onboard(input: OnboardParticipantDto): Promise<IssuedCredential> {
    const secret = newClientSecret();
    const secretHash = await hashSecret(secret, this.scrypt);
    const clientId = newClientId();
    const provenance: ProvenanceValue | null = input.provenance
      ? { name: input.provenance.name, type: input.provenance.type, country_code: input.provenance.country_code ?? null }
      : null;
    const participant = await this.repo.transaction(async (m) => {
      const p = await this.repo.insertParticipant(m, { id: randomUUID(), name: input.name, role: input.role, provenance });
      await this.repo.insertClient(m, { clientId, participantId: p.id, secretHash });
      const data: ParticipantOnboardedData = { participant_id: p.id, name: p.name, role: p.role, provenance };
      const envelope = makeEnvelope({ event_type: EventTypes.PARTICIPANT_ONBOARDED, data, revision: 1, occurred_at: p.createdAt });
      await writeOutbox(m, [
        { topic: topicOf(envelope.event_type), key: envelope.key, eventType: envelope.event_type, revision: 1, payload: envelope },
      ]);
      return p;
    });
    this.logger?.info({ participant_id: participant.id, role: participant.role, client_id: clientId }, 'participant onboarded');
    return { participant_id: participant.id, client_id: clientId, client_secret: secret, role: participant.role, name: participant.name };
  }

  /** A further credential for an existing participant (e.g. to rotate a secret: add, switch, revoke the old). */
  async addCredential(participantId: string): Promise<IssuedCredential> {
    const participant = await this.repo.findParticipant(participantId);
    if (!participant) throw participantNotFound(participantId);
    const secret = newClientSecret();
    const secretHash = await hashSecret(secret, this.scrypt);
    const clientId = newClientId();
    await this.repo.transaction((m) => this.repo.insertClient(m, { clientId, participantId, secretHash }));
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
      ? await this.repo.transaction(async (m) => {
          const r = await this.repo.revokeClient(m, clientId);
          if (r) await writeOutbox(m, [revocationEvent(r)]);
          return r;
        })
      : null;
    if (!revoked) throw new NotFoundException({ message: `client ${clientId} not found`, reason: 'client_not_found' });
    this.logger?.info({ client_id: clientId, participant_id: revoked.participantId, revoked_at: revoked.revokedAt.toISOString(), again: !revoked.newly }, 'client revoked');
  }

  /**
   * Writes `client.revoked` again for every client revoked in the last `seconds` (their tokens may not have
   * expired yet). For a bus that keeps no log (`npm start`'s in-process bus): after a restart the services' deny-lists
   * start empty and learn the recent revocations from these. Kafka keeps the topic, so it needs none of this.
   */
  async announceRecentRevocations(seconds: number): Promise<number> {
    const recent = await this.repo.revokedSince(new Date(Date.now() - seconds * 1000));
    if (recent.length > 0) await this.repo.transaction((m) => writeOutbox(m, recent.map(revocationEvent)));
    return recent.length;
  }

  async get(participantId: string): Promise<ParticipantView> {
    const p = await this.repo.findParticipant(participantId);
    if (!p) throw participantNotFound(participantId);
    const clients = await this.repo.clientsOf(participantId);
    return {
      participant_id: p.id,
      name: p.name,
      role: p.role,
      provenance: p.provenance,
      created_at: p.createdAt.toISOString(),
      clients: clients.map((c) => ({
        client_id: c.clientId,
        created_at: c.createdAt.toISOString(),
        revoked_at: c.revokedAt ? c.revokedAt.toISOString() : null,
      })),
    };
  }

  /**
   * Checks a client id and secret. Always does one scrypt derivation (against a decoy hash when the client id is
   * unknown) and compares in constant time, so the answer time does not tell whether the id exists. A client id
   * that is not printable ASCII (e.g. holds a NUL) is never looked up: it cannot exist.
   */
  async authenticate(clientId: string, secret: string): Promise<AuthenticatedClient | null> {
    const found = isCredentialText(clientId) ? await this.repo.findClient(clientId) : null;
    const ok = await verifySecret(secret, found?.client.secretHash ?? (await this.decoy));
    if (!found || !ok || found.client.revokedAt !== null) return null;
    return { clientId: found.client.clientId, participant: found.participant };
  }
}

/** The outbox row of `client.revoked` for `r` (key client_id, revision 1: a client is revoked once). */
function revocationEvent(r: RevokedClient) {
  const data: ClientRevokedData = { client_id: r.clientId, participant_id: r.participantId, revoked_at: r.revokedAt.toISOString() };
  const envelope = makeEnvelope({ event_type: EventTypes.CLIENT_REVOKED, data, revision: 1, occurred_at: r.revokedAt });
  return { topic: topicOf(envelope.event_type), key: envelope.key, eventType: envelope.event_type, revision: 1, payload: envelope };
}

function participantNotFound(id: string): NotFoundException {
  return new NotFoundException({ message: `participant ${id} not found`, reason: 'participant_not_found' });
}
