import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomUUID, X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import {
  ClientCertificateChangedData,
  ClientCertificateView,
  ConflictError,
  EventTypes,
  invalidFields,
  makeEnvelope,
  mayUseMutualTls,
  MTLS_INTEGRATION_CUTOFF,
  NotFoundError,
  topicOf,
} from '@dtp/domain';
import { UnitOfWork } from '@dtp/database';
import { OutboxEvent, writeOutbox } from '@dtp/events';
import { LOGGER, parseCertificatePem, x5tS256 } from '@dtp/service-kit';
import { ParticipantEntity } from '../participants/participant.entity';
import { ParticipantsRepository } from '../participants/participants.repository';
import { ClientCertificateEntity } from './client-certificate.entity';
import { ClientCertificatesRepository } from './client-certificates.repository';

/** Revisions of a certificate's `client_certificate.changed`: registered, then removed (a certificate is not re-registered: a new registration is a new id). */
const REGISTERED_REVISION = 1;
const REMOVED_REVISION = 2;

/** A registered, unexpired certificate and its participant: the token endpoint's `self_signed_tls_client_auth`. */
export interface CertificateOwner {
  certificate: ClientCertificateEntity;
  participant: ParticipantEntity;
}

/**
 * Legacy participants' client certificates (DESIGN.md "Legacy integrations: mutual TLS"): registration by ops (admin
 * API, `auth:cli`), listing, removal, and the lookup by thumbprint. Registration and removal write
 * `client_certificate.changed` to the outbox in the same transaction, from which every service learns which
 * certificates to accept.
 */
@Injectable()
export class ClientCertificatesService {
  constructor(
    @Inject(ClientCertificatesRepository) private readonly certificates: ClientCertificatesRepository,
    @Inject(ParticipantsRepository) private readonly participants: ParticipantsRepository,
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Optional() @Inject(LOGGER) private readonly logger?: Logger,
  ) {}

  /**
   * Registers `pem` for the participant: 404 unknown participant; 409 `mtls_not_allowed` when its integration started
   * on or after 2023-06-30; 422 naming `certificate_pem` when it is not one readable, unexpired X.509 certificate
   * (or not yet valid); 409 `certificate_already_registered` when its thumbprint is registered already.
   */
  async register(participantId: string, pem: string): Promise<ClientCertificateView> {
    const participant = await this.participants.find(participantId);
    if (!participant) throw participantNotFound(participantId);
    if (!mayUseMutualTls(participant.integration_started_at)) {
      throw new ConflictError(
        `participant ${participantId} started its integration on ${participant.integration_started_at.toISOString()}: only integrations started before ${MTLS_INTEGRATION_CUTOFF} may use mutual TLS; use its OAuth 2.0 client credentials`,
        'mtls_not_allowed',
      );
    }
    const x509 = readCertificate(pem);
    const thumbprint = x5tS256(x509.raw);
    const row = await this.uow.run(async (tx) => {
      if (await this.certificates.registered(thumbprint, tx.manager)) throw alreadyRegistered(thumbprint);
      let inserted: ClientCertificateEntity;
      try {
        inserted = await this.certificates.insert(tx.manager, {
          certificate_id: randomUUID(),
          participant_id: participantId,
          x5t_s256: thumbprint,
          subject: x509.subject,
          not_after: new Date(x509.validTo),
          certificate_pem: x509.toString(),
        });
      } catch (err) {
        // two registrations of the same certificate at once: the partial unique index keeps one
        if ((err as { code?: string }).code === '23505') throw alreadyRegistered(thumbprint);
        throw err;
      }
      await writeOutbox(tx, [changedEvent(inserted, participant, REGISTERED_REVISION)]);
      return inserted;
    });
    this.logger?.info({ participant_id: participantId, certificate_id: row.certificate_id, x5t_s256: thumbprint }, 'client certificate registered');
    return view(row);
  }

  async list(participantId: string): Promise<ClientCertificateView[]> {
    if (!(await this.participants.find(participantId))) throw participantNotFound(participantId);
    return (await this.certificates.ofParticipant(participantId)).map(view);
  }

  /** Removes a participant's certificate (again: 204 too, announced again); 404 when it has no such certificate. */
  async remove(participantId: string, certificateId: string): Promise<void> {
    const participant = await this.participants.find(participantId);
    if (!participant) throw participantNotFound(participantId);
    const removed = await this.uow.run(async (tx) => {
      const r = await this.certificates.remove(tx.manager, participantId, certificateId);
      if (r) await writeOutbox(tx, [changedEvent(r.row, participant, REMOVED_REVISION)]);
      return r;
    });
    if (!removed)
      throw new NotFoundError({ message: `certificate ${certificateId} not found for participant ${participantId}`, reason: 'certificate_not_found' });
    this.logger?.info({ participant_id: participantId, certificate_id: certificateId, again: !removed.newly }, 'client certificate removed');
  }

  /** The registered certificate with this thumbprint and its participant, if unexpired (the token endpoint's check). */
  async owner(thumbprint: string): Promise<CertificateOwner | null> {
    const certificate = await this.certificates.registered(thumbprint);
    if (!certificate || certificate.not_after.getTime() <= Date.now()) return null;
    const participant = await this.participants.find(certificate.participant_id);
    return participant ? { certificate, participant } : null;
  }

  /**
   * Writes `client_certificate.changed` again for every registered certificate. For a bus that keeps no log
   * (`npm start`'s in-process bus): after a restart the services' registries start empty and learn them from these.
   */
  async announceRegistered(): Promise<number> {
    const all = await this.certificates.allRegistered();
    if (all.length > 0)
      await this.uow.run((tx) =>
        writeOutbox(
          tx,
          all.map((r) => changedEvent(r.certificate, r.participant, REGISTERED_REVISION)),
        ),
      );
    return all.length;
  }
}

/** The certificate of a registration, or a 422 naming `certificate_pem` and what is wrong with it. */
function readCertificate(pem: string): X509Certificate {
  let x509: X509Certificate;
  try {
    x509 = parseCertificatePem(pem);
  } catch (err) {
    throw badCertificate(`certificate_pem ${(err as Error).message}`, 'value_error');
  }
  const now = Date.now();
  if (Date.parse(x509.validTo) <= now)
    throw badCertificate(`certificate_pem has expired (notAfter ${new Date(x509.validTo).toISOString()})`, 'certificate_expired');
  if (Date.parse(x509.validFrom) > now)
    throw badCertificate(`certificate_pem is not valid yet (notBefore ${new Date(x509.validFrom).toISOString()})`, 'certificate_not_yet_valid');
  return x509;
}

const badCertificate = (msg: string, type: string) => invalidFields([{ loc: ['body', 'certificate_pem'], msg, type }]);

const alreadyRegistered = (thumbprint: string) =>
  new ConflictError(`a certificate with x5t#S256 ${thumbprint} is registered already (remove it first to move it)`, 'certificate_already_registered');

function participantNotFound(id: string): NotFoundError {
  return new NotFoundError({ message: `participant ${id} not found`, reason: 'participant_not_found' });
}

function view(row: ClientCertificateEntity): ClientCertificateView {
  return { certificate_id: row.certificate_id, x5t_s256: row.x5t_s256, subject: row.subject, not_after: row.not_after.toISOString() };
}

/** The outbox row of `client_certificate.changed` (key certificate_id). */
function changedEvent(row: ClientCertificateEntity, participant: ParticipantEntity, revision: number): OutboxEvent {
  const data: ClientCertificateChangedData = {
    certificate_id: row.certificate_id,
    participant_id: participant.id,
    role: participant.role,
    name: participant.name,
    x5t_s256: row.x5t_s256,
    not_after: row.not_after.toISOString(),
    removed_at: row.removed_at ? row.removed_at.toISOString() : null,
  };
  const occurredAt = row.removed_at ?? row.created_at;
  const envelope = makeEnvelope({ event_type: EventTypes.CLIENT_CERTIFICATE_CHANGED, data, revision, occurred_at: occurredAt });
  return { topic: topicOf(envelope.event_type), key: envelope.key, eventType: envelope.event_type, revision, payload: envelope };
}
